// The main window's tabs. Each page sits in a scroll area of its own, so a page taller than a
// laptop's screen scrolls under a tab bar that stays in view; callers deal in pages, never in
// the scroll areas around them.
#pragma once

#include <QFrame>
#include <QScrollArea>
#include <QTabWidget>

namespace anthro::gui {

class PageTabs : public QTabWidget {
 public:
  using QTabWidget::QTabWidget;

  int addPage(QWidget* page, const QString& label) {
    auto* scroller = new QScrollArea(this);
    scroller->setObjectName("pageScroller");
    scroller->setFrameShape(QFrame::NoFrame);
    scroller->setWidgetResizable(true);
    scroller->setWidget(page);
    return addTab(scroller, label);
  }
  QScrollArea* scroller(int index) const { return qobject_cast<QScrollArea*>(widget(index)); }
  QWidget* page(int index) const {
    QScrollArea* s = scroller(index);
    return s ? s->widget() : nullptr;
  }
  QWidget* currentPage() const { return page(currentIndex()); }
  int indexOfPage(const QWidget* page) const {
    for (int i = 0; i < count(); ++i)
      if (this->page(i) == page) return i;
    return -1;
  }
  void setCurrentPage(const QWidget* page) {
    if (int i = indexOfPage(page); i >= 0) setCurrentIndex(i);
  }
  // Removes the tab; the page is deleted later with its scroll area.
  void removePage(int index) {
    QWidget* s = widget(index);
    removeTab(index);
    if (s) s->deleteLater();
  }
};

}  // namespace anthro::gui
