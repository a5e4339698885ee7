#include "hex_view.h"

#include <QClipboard>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <algorithm>
#include <climits>

namespace anthro::widgets {

namespace {

constexpr int kRow = HexView::kBytesPerRow;
constexpr int kHalfRow = kRow / 2;
constexpr int kHintRows = 12;
// In character cells: two hex digits plus the space after them; the split after byte 8 adds one more.
constexpr int kHexCells = 3;
constexpr int kHexColumnCells = kRow * kHexCells + 1;
constexpr int kColumnGapCells = 2;

constexpr char kDigits[] = "0123456789abcdef";

int hexDigits(qsizetype value) {
  int digits = 1;
  while (value >>= 4) ++digits;
  return digits;
}

bool printable(char c) { return c >= 0x20 && c < 0x7f; }

int splitGap(int column) { return column >= kHalfRow ? 1 : 0; }

}  // namespace

HexView::HexView(QWidget* parent) : QAbstractScrollArea(parent) {
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setBackgroundRole(QPalette::Base);
  updateMetrics();
  updateScrollBars();
}

void HexView::setBytes(const QByteArray& bytes) {
  bytes_ = bytes;
  highlight_ = {0, 0};
  offsetDigits_ = std::max(4, hexDigits(std::max<qsizetype>(0, bytes_.size() - 1)));
  verticalScrollBar()->setValue(0);
  updateScrollBars();
  updateGeometry();
  viewport()->update();
}

void HexView::clear() {
  masks_.clear();
  setBytes({});
}

void HexView::setHighlight(qsizetype begin, qsizetype end) {
  begin = std::clamp<qsizetype>(begin, 0, bytes_.size());
  end = std::clamp<qsizetype>(end, begin, bytes_.size());
  highlight_ = begin < end ? std::pair{begin, end} : std::pair<qsizetype, qsizetype>{0, 0};
  revealHighlight();
  viewport()->update();
}

void HexView::setMaskedRanges(std::vector<std::pair<qsizetype, qsizetype>> ranges) {
  std::erase_if(ranges, [](const auto& range) { return range.first >= range.second; });
  std::sort(ranges.begin(), ranges.end());
  masks_.clear();
  for (const auto& range : ranges) {
    if (!masks_.empty() && range.first <= masks_.back().second)
      masks_.back().second = std::max(masks_.back().second, range.second);
    else
      masks_.push_back(range);
  }
  viewport()->update();
}

qsizetype HexView::byteAt(const QPoint& viewportPos) const {
  if (viewportPos.y() < topMargin_) return -1;
  const qsizetype row = verticalScrollBar()->value() + (viewportPos.y() - topMargin_) / rowHeight_;
  for (int column = 0; column < kRow; ++column) {
    const qsizetype offset = row * kRow + column;
    if (offset >= bytes_.size()) break;
    if (cellRect(row, column, false).contains(viewportPos) || cellRect(row, column, true).contains(viewportPos))
      return offset;
  }
  return -1;
}

QRect HexView::byteRect(qsizetype offset, bool asciiColumn) const {
  if (offset < 0 || offset >= bytes_.size()) return {};
  return cellRect(offset / kRow, static_cast<int>(offset % kRow), asciiColumn);
}

QString HexView::rowText(qsizetype row) const {
  if (row < 0 || row >= rowCount()) return {};
  QString hex, ascii;
  for (int column = 0; column < kRow; ++column) {
    const qsizetype offset = row * kRow + column;
    const bool present = offset < bytes_.size();
    if (column > 0) hex += column == kHalfRow ? QStringLiteral("  ") : QStringLiteral(" ");
    hex += present ? hexText(offset) : QStringLiteral("  ");
    if (!present) continue;
    if (column == kHalfRow) ascii += u' ';
    ascii += asciiChar(offset);
  }
  const QString gap(kColumnGapCells, u' ');
  return offsetText(row) + gap + hex + gap + ascii;
}

QSize HexView::sizeHint() const {
  const int frame = 2 * frameWidth();
  const int scrollBar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
  const QSize content = viewportSizeHint();
  return {content.width() + frame + scrollBar, content.height() + frame};
}

QSize HexView::viewportSizeHint() const {
  // A fixed height, so that loading a longer buffer does not make the surrounding layout jump.
  return {contentWidth(), 2 * topMargin_ + kHintRows * rowHeight_};
}

void HexView::paintEvent(QPaintEvent* event) {
  QPainter painter(viewport());
  painter.fillRect(event->rect(), palette().base());
  painter.setFont(font());
  // Only the rows under the exposed rectangle: 16 MiB is a million rows.
  const qsizetype top = verticalScrollBar()->value();
  const qsizetype first = top + std::max(0, event->rect().top() - topMargin_) / rowHeight_;
  const qsizetype last = top + std::max(0, event->rect().bottom() - topMargin_) / rowHeight_ + 1;
  for (qsizetype row = first; row < std::min(last, rowCount()); ++row) paintRow(painter, row);
}

void HexView::paintRow(QPainter& painter, qsizetype row) const {
  const int baseline = cellRect(row, 0, false).top() + baseline_;
  // Offsets are a ruler, not data: the palette's muted text colour keeps them out of the way.
  painter.setPen(palette().color(QPalette::PlaceholderText));
  painter.drawText(QPoint(charWidth_ - horizontalScrollBar()->value(), baseline), offsetText(row));
  paintHighlight(painter, row);
  const int hexPadding = charWidth_ / 2;  // the hex cell is a character wider than its two digits
  for (int column = 0; column < kRow; ++column) {
    const qsizetype offset = row * kRow + column;
    if (offset >= bytes_.size()) break;
    painter.setPen(palette().color(isHighlighted(offset) ? QPalette::HighlightedText : QPalette::Text));
    painter.drawText(QPoint(cellRect(row, column, false).left() + hexPadding, baseline), hexText(offset));
    painter.drawText(QPoint(cellRect(row, column, true).left(), baseline), QString(asciiChar(offset)));
  }
}

void HexView::paintHighlight(QPainter& painter, qsizetype row) const {
  const qsizetype rowBegin = row * kRow;
  const qsizetype begin = std::max(highlight_.first, rowBegin);
  const qsizetype end = std::min(highlight_.second, rowBegin + kRow);
  if (begin >= end) return;
  // One band per column rather than one per byte, so the split after byte 8 is filled too.
  const int first = static_cast<int>(begin - rowBegin);
  const int last = static_cast<int>(end - 1 - rowBegin);
  for (bool ascii : {false, true})
    painter.fillRect(cellRect(row, first, ascii).united(cellRect(row, last, ascii)), palette().highlight());
}

void HexView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
}

void HexView::changeEvent(QEvent* event) {
  QAbstractScrollArea::changeEvent(event);
  if (event->type() != QEvent::FontChange) return;
  updateMetrics();
  updateScrollBars();
  updateGeometry();
  viewport()->update();
}

void HexView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QAbstractScrollArea::mousePressEvent(event);
  const qsizetype offset = byteAt(event->position().toPoint());
  if (offset >= 0) emit byteClicked(offset);
  event->accept();
}

void HexView::mouseReleaseEvent(QMouseEvent* event) { event->setAccepted(event->button() == Qt::LeftButton); }

void HexView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    copyHighlight();
    event->accept();
    return;
  }
  QAbstractSlider::SliderAction action;
  switch (event->key()) {
    case Qt::Key_Up: action = QAbstractSlider::SliderSingleStepSub; break;
    case Qt::Key_Down: action = QAbstractSlider::SliderSingleStepAdd; break;
    case Qt::Key_PageUp: action = QAbstractSlider::SliderPageStepSub; break;
    case Qt::Key_PageDown: action = QAbstractSlider::SliderPageStepAdd; break;
    case Qt::Key_Home: action = QAbstractSlider::SliderToMinimum; break;
    case Qt::Key_End: action = QAbstractSlider::SliderToMaximum; break;
    default: return QAbstractScrollArea::keyPressEvent(event);
  }
  verticalScrollBar()->triggerAction(action);
  event->accept();
}

void HexView::scrollContentsBy(int, int) { viewport()->update(); }

void HexView::updateMetrics() {
  const QFontMetrics metrics(font());
  charWidth_ = std::max(1, metrics.horizontalAdvance(QLatin1Char('0')));
  // A little air between rows keeps highlighted bands from touching the glyphs of the next row.
  rowHeight_ = metrics.lineSpacing() + metrics.lineSpacing() / 5;
  baseline_ = (rowHeight_ - metrics.height()) / 2 + metrics.ascent();
  topMargin_ = charWidth_ / 2;
}

void HexView::updateScrollBars() {
  const int page = pageRows();
  QScrollBar* vertical = verticalScrollBar();
  vertical->setRange(0, static_cast<int>(std::clamp<qsizetype>(rowCount() - page, 0, INT_MAX)));
  vertical->setSingleStep(1);
  vertical->setPageStep(page);
  QScrollBar* horizontal = horizontalScrollBar();
  horizontal->setRange(0, std::max(0, contentWidth() - viewport()->width()));
  horizontal->setSingleStep(charWidth_);
  horizontal->setPageStep(viewport()->width());
}

void HexView::revealHighlight() {
  if (highlight_.first >= highlight_.second) return;
  const qsizetype row = highlight_.first / kRow;
  QScrollBar* vertical = verticalScrollBar();
  if (row < vertical->value() || row >= vertical->value() + pageRows()) {
    // One row of context above, so a field that starts mid-row is not glued to the top edge.
    vertical->setValue(static_cast<int>(std::clamp<qsizetype>(row - 1, 0, INT_MAX)));
  }
  const QRect cell = byteRect(highlight_.first);
  if (cell.left() < 0 || cell.right() >= viewport()->width()) {
    QScrollBar* horizontal = horizontalScrollBar();
    horizontal->setValue(horizontal->value() + cell.left() - charWidth_);
  }
}

void HexView::copyHighlight() const {
  if (highlight_.first >= highlight_.second) return;
  QString text;
  text.reserve((highlight_.second - highlight_.first) * 3);
  for (qsizetype offset = highlight_.first; offset < highlight_.second; ++offset) {
    if (offset > highlight_.first) text += u' ';
    text += hexText(offset);
  }
  QGuiApplication::clipboard()->setText(text);
}

qsizetype HexView::rowCount() const { return (bytes_.size() + kRow - 1) / kRow; }

int HexView::pageRows() const { return std::max(1, (viewport()->height() - topMargin_) / rowHeight_); }

// The offset column starts one character in; two characters separate each column from the next.
int HexView::hexLeft() const {
  return charWidth_ * (1 + offsetDigits_ + kColumnGapCells) - charWidth_ / 2;
}

int HexView::asciiLeft() const {
  return hexLeft() + charWidth_ / 2 + charWidth_ * (kHexColumnCells - 1 + kColumnGapCells);
}

int HexView::contentWidth() const { return asciiLeft() + charWidth_ * (kRow + 1 + 1); }

QRect HexView::cellRect(qsizetype row, int column, bool ascii) const {
  const qsizetype top = topMargin_ + (row - verticalScrollBar()->value()) * rowHeight_;
  const int left = ascii ? asciiLeft() + charWidth_ * (column + splitGap(column))
                         : hexLeft() + charWidth_ * (kHexCells * column + splitGap(column));
  const int width = ascii ? charWidth_ : kHexCells * charWidth_;
  return {left - horizontalScrollBar()->value(), static_cast<int>(std::clamp<qsizetype>(top, INT_MIN / 2, INT_MAX / 2)),
          width, rowHeight_};
}

bool HexView::isMasked(qsizetype offset) const {
  auto after = std::upper_bound(masks_.begin(), masks_.end(), offset,
                                [](qsizetype value, const auto& range) { return value < range.first; });
  return after != masks_.begin() && offset < std::prev(after)->second;
}

bool HexView::isHighlighted(qsizetype offset) const {
  return offset >= highlight_.first && offset < highlight_.second;
}

QString HexView::offsetText(qsizetype row) const {
  return QString::number(row * kRow, 16).rightJustified(offsetDigits_, u'0');
}

QString HexView::hexText(qsizetype offset) const {
  if (isMasked(offset)) return QStringLiteral("**");
  const auto byte = static_cast<unsigned char>(bytes_[offset]);
  const QChar digits[] = {QChar(kDigits[byte >> 4]), QChar(kDigits[byte & 0xf])};
  return QString(digits, 2);
}

QChar HexView::asciiChar(qsizetype offset) const {
  if (isMasked(offset)) return u'*';
  const char c = bytes_[offset];
  return printable(c) ? QChar(c) : QChar(u'.');
}

}  // namespace anthro::widgets
