// The capture inspector's frame list: a lazy table over a CaptureIndex. Rows are read through
// the index's page cache when a view asks for them, so millions of frames cost the model only
// a row-number mapping when filtered or sorted (4 bytes a shown frame). While the index loads,
// poll() appends the new rows (beginInsertRows, never a reset).
//
// Sorting: a header click asks for sortRequested(); the owner builds the order off the UI
// thread with sort_frames() (a permutation of frame numbers, as a filter's selection is) and
// shows it with setSelection(). No row is ever copied into the model.
#pragma once

#include <QAbstractTableModel>
#include <atomic>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "capture/capture_index.h"

namespace anthro::widgets {

// How the Time column reads: the time of day (local), seconds since the capture's first
// frame, since the frame shown above, or since the frame set as the time reference.
enum class TimeFormat { TimeOfDay, SinceStart, SincePrevious, SinceReference };

class FrameTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // FirstTracer and after: the session tracer's, one a column the HTTP riders declared
  // (session_tracer.h), HTTP requests and replies only; then summary_column(); then the columns
  // wire formats registered (profile_columns()).
  enum Column { Number, Time, Connection, Direction, Type, Stream, Tokens, FirstTracer };

  using QAbstractTableModel::QAbstractTableModel;

  // Shows `index` (may still be loading); null clears. Marks and the reference go with it.
  void setIndex(std::shared_ptr<const CaptureIndex> index);
  const std::shared_ptr<const CaptureIndex>& captureIndex() const { return index_; }
  // Shows only these frame numbers in this order (a filter's, a sort's), or every frame in
  // capture order again.
  void setSelection(std::optional<std::vector<std::uint32_t>> frames);
  bool showsAll() const { return !selection_; }
  // Appends the rows the index published since the last call; returns how many.
  int poll();

  // The frame number (CaptureIndex row) shown on table row `row`, and back (-1 when hidden).
  std::size_t frameAt(int row) const;
  int rowOf(std::size_t frame) const;

  void setTimeFormat(TimeFormat format);
  TimeFormat timeFormat() const { return time_format_; }
  // The frame times are measured from under SinceReference; none: from the first frame.
  void setReference(std::optional<std::size_t> frame);
  std::optional<std::size_t> reference() const { return reference_; }
  void setMarked(std::size_t frame, bool marked);
  bool isMarked(std::size_t frame) const { return marked_.count(frame) > 0; }

  // The header and these rows as tab-separated lines, as shown (for the clipboard).
  // `columns`: those shown, in order (none: every column).
  QString rowsText(const QList<int>& rows, QList<int> columns = {}) const;

  // The column and order asked for by the last header click (Number ascending: capture order).
  int sortColumn() const { return sort_column_; }
  Qt::SortOrder sortOrder() const { return sort_order_; }
  bool sorted() const { return !(sort_column_ == Number && sort_order_ == Qt::AscendingOrder); }
  void sort(int column, Qt::SortOrder order) override;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 signals:
  void sortRequested(int column, Qt::SortOrder order);

 private:
  QString timeText(int row, const FrameRow& r) const;
  std::shared_ptr<const CaptureIndex> index_;
  std::optional<std::vector<std::uint32_t>> selection_;
  bool selection_in_frame_order_ = true;  // rowOf can then search it by halves
  std::size_t shown_ = 0;  // rows announced to views (unfiltered)
  double first_ts_ = 0;
  TimeFormat time_format_ = TimeFormat::SinceStart;
  std::optional<std::size_t> reference_;
  std::unordered_set<std::size_t> marked_;
  int sort_column_ = Number;
  Qt::SortOrder sort_order_ = Qt::AscendingOrder;
};

// A column a wire format registered (Profile::columns): the model's column
// first_profile_column() + its place in this list, filled on its profile's Dissected rows.
struct ProfileColumn {
  ProfileId profile;
  std::size_t index;  // into the profile's columns and a FrameDetail's `columns`
  std::string_view title;
};
const std::vector<ProfileColumn>& profile_columns();
// The columns after the session tracer's, which move with how many the riders declared.
int summary_column();
int first_profile_column();  // after Summary
int frame_column_count();    // every column, the registered ones last

// The text a frame shows in a column, except Time (which depends on the rows around it).
QString frame_cell_text(const CaptureIndex& index, std::size_t frame, const FrameRow& row, int column);
// The session tracer's and the registered formats' columns (every column from FirstTracer but
// Summary) that no row of `index` fills: a column is empty once none of the first
// kMaxRowsLooked rows that could hold a value does and those were all of them.
inline constexpr std::size_t kMaxRowsLooked = 50'000;
std::vector<int> empty_columns(const CaptureIndex& index);

// `frames` ordered by `column` (Time by timestamp; text columns by their first 32 bytes), ties
// in frame order; the order reversed for Qt::DescendingOrder. Runs off the UI thread; returns
// early, unsorted, when `cancelled`. Memory: the frames plus one key a frame.
std::vector<std::uint32_t> sort_frames(const CaptureIndex& index, std::vector<std::uint32_t> frames, int column,
                                       Qt::SortOrder order, const std::atomic<bool>* cancelled = nullptr);

}  // namespace anthro::widgets
