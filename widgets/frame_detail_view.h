// The selected frame in detail: its fields as a tree (header, nonce, body parts, tag) with
// their byte ranges, and a REQUEST / RESPONSE body as indented JSON. Secrets arrive redacted
// from the core (FrameDetail), so nothing here can show an api_key.
#pragma once

#include <QWidget>
#include <optional>

#include "capture/capture_index.h"

class QTreeWidget;
class QTreeWidgetItem;
class QPlainTextEdit;

namespace anthro::widgets {

class FrameDetailView : public QWidget {
  Q_OBJECT
 public:
  explicit FrameDetailView(QWidget* parent = nullptr);

  void showFrame(std::size_t frame, const FrameDetail& detail);
  void clear();
  // The value shown for a field (e.g. "text"), or empty; selects it as a user click would.
  QString fieldValue(const QString& name) const;
  bool selectField(const QString& name);
  QTreeWidget* tree() const { return tree_; }

 signals:
  // Half-open byte range in FrameDetail::bytes of the field the user selected.
  void fieldSelected(qsizetype begin, qsizetype end);

 private:
  QTreeWidgetItem* find(const QString& name) const;
  void rebuild();
  void addTracerFields(const FrameDetail& d);
  std::optional<std::pair<std::size_t, FrameDetail>> shown_;  // made again on a language switch
  QTreeWidget* tree_;
  QPlainTextEdit* json_;
};

}  // namespace anthro::widgets
