// A read-only bytes pane in the style of Wireshark's: offset, 16 bytes as hex, the same bytes as ASCII.
#pragma once

#include <QAbstractScrollArea>
#include <QByteArray>
#include <QString>
#include <utility>
#include <vector>

namespace anthro::widgets {

class HexView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  static constexpr int kBytesPerRow = 16;

  explicit HexView(QWidget* parent = nullptr);

  // A new buffer drops the highlight (it pointed into the old bytes) but keeps the masked ranges:
  // a stale mask only hides innocent bytes, while dropping one too early could show a secret.
  void setBytes(const QByteArray& bytes);
  QByteArray bytes() const { return bytes_; }
  void clear();

  // Half-open [begin, end), clamped to the data; an empty range means no highlight.
  void setHighlight(qsizetype begin, qsizetype end);
  std::pair<qsizetype, qsizetype> highlight() const { return highlight_; }

  // Half-open ranges shown as "**" / '*' and copied as "**", whatever the bytes are.
  void setMaskedRanges(std::vector<std::pair<qsizetype, qsizetype>> ranges);

  // Viewport coordinates, the same ones mouse events carry.
  qsizetype byteAt(const QPoint& viewportPos) const;
  QRect byteRect(qsizetype offset, bool asciiColumn = false) const;

  // The row exactly as painted, e.g. "0010  48 65 6c 6c 6f 00 ...  Hello. ...".
  QString rowText(qsizetype row) const;

  QSize sizeHint() const override;

 signals:
  void byteClicked(qsizetype offset);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  QSize viewportSizeHint() const override;

 private:
  void updateMetrics();
  void updateScrollBars();
  void revealHighlight();
  void copyHighlight() const;
  void paintRow(QPainter& painter, qsizetype row) const;
  void paintHighlight(QPainter& painter, qsizetype row) const;

  qsizetype rowCount() const;
  int pageRows() const;
  int hexLeft() const;
  int asciiLeft() const;
  int contentWidth() const;
  QRect cellRect(qsizetype row, int column, bool ascii) const;
  bool isMasked(qsizetype offset) const;
  bool isHighlighted(qsizetype offset) const;
  QString offsetText(qsizetype row) const;
  QString hexText(qsizetype offset) const;
  QChar asciiChar(qsizetype offset) const;

  QByteArray bytes_;
  std::pair<qsizetype, qsizetype> highlight_{0, 0};
  std::vector<std::pair<qsizetype, qsizetype>> masks_;  // sorted, disjoint
  int offsetDigits_ = 4;
  int charWidth_ = 1;
  int rowHeight_ = 1;
  int baseline_ = 0;
  int topMargin_ = 0;
};

}  // namespace anthro::widgets
