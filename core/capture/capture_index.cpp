#include "capture/capture_index.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "capture/http_rider.h"
#include "protocol/frame.h"
#include "util/json.h"

namespace anthro {
namespace {

constexpr std::size_t kSealedPrefix = kHeaderSize + kNonceSize;

bool opened(const FrameEvent& e) { return e.decrypted && e.wire.size() >= kSealedPrefix + kTagSize; }

// The size of the frame as the index keeps it (decoded_frame).
std::size_t decoded_size(const FrameEvent& e) {
  return opened(e) ? kSealedPrefix + e.plaintext.size() + kTagSize : e.wire.size();
}

// The frame as the index keeps it, written `at` (decoded_size bytes): header and nonce,
// plaintext for ciphertext, tag; secrets masked.
void decoded_frame(const FrameEvent& e, char* at) {
  if (!opened(e)) {
    if (!e.wire.empty()) std::memcpy(at, e.wire.data(), e.wire.size());
    return;
  }
  std::memcpy(at, e.wire.data(), kSealedPrefix);
  if (!e.plaintext.empty()) std::memcpy(at + kSealedPrefix, e.plaintext.data(), e.plaintext.size());
  std::memcpy(at + kSealedPrefix + e.plaintext.size(), e.wire.data() + e.wire.size() - kTagSize, kTagSize);
  if (e.header.frame_type() == FrameType::Request && e.plaintext.size() > 4)
    mask_secrets(std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(at) + kSealedPrefix + 4, e.plaintext.size() - 4));
}

std::string pretty(const Body& body) {
  std::string text;
  if (const auto* r = std::get_if<RequestBody>(&body)) text = redact_request_json(r->json);
  else if (const auto* r = std::get_if<ResponseBody>(&body)) text = r->json;
  else return {};
  auto doc = parse_json(text);
  return doc ? dump_json(*doc, 2) : text;
}

std::string pretty_text(const std::string& text) {
  auto doc = parse_json(text);
  return doc ? dump_json(*doc, 2) : text;
}

HttpEventKind http_kind(RowKind kind) {
  switch (kind) {
    case RowKind::HttpRequest: return HttpEventKind::Request;
    case RowKind::HttpResponse: return HttpEventKind::Response;
    case RowKind::RiderRow: return HttpEventKind::RiderRow;
    default: return HttpEventKind::SseEvent;
  }
}

// What a detail view shows as JSON: a request's body, an event's data.
std::string http_json_part(const std::vector<FrameField>& fields) {
  std::string data;
  for (const auto& f : fields) {
    if (f.name == "body") return pretty_text(f.value);
    if (f.depth == 1 && f.name == "data") data += (data.empty() ? "" : "\n") + f.value;
  }
  return data.empty() ? data : pretty_text(data);
}

bool same_header_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// What the riders read of a message's head, from its header fields (a name in any case; the
// last of a repeated one).
HttpRowParts head_fields_of(const std::vector<FrameField>& fields) {
  return head_row_fields([&fields](const char* name) {
    std::string value;
    bool in_headers = false;
    for (const auto& f : fields) {
      if (f.depth == 0) in_headers = f.name == "headers";
      else if (in_headers && same_header_name(f.name, name)) value = f.value;
    }
    return value;
  });
}

// `end` (what a reply's end told) added to `head` (its head's), rider by rider.
void merge_reply_end(HttpRowParts& head, const HttpRowParts& end) {
  for (const auto& [rider, told] : end) {
    auto it = head.find(rider);
    if (it == head.end()) {
      head.emplace(rider, told);
      continue;
    }
    std::shared_ptr<HttpRowFields> merged = it->second->clone();
    merged->merge(*told);
    it->second = std::move(merged);
  }
}

// An HTTP row's detail: its text, fields and summary.
void http_detail(FrameDetail& d, std::string summary) {
  std::string_view text = as_text(d.bytes);
  const RiderRowWords* words = d.row.kind == RowKind::RiderRow ? rider_row_words(d.row.profile) : nullptr;
  d.fields = http_fields(http_kind(d.row.kind), text, words ? words->first_line : "");
  if (d.row.kind == RowKind::HttpRequest || d.row.kind == RowKind::HttpResponse) d.rider_fields = head_fields_of(d.fields);
  d.summary = std::move(summary);
  d.pretty_json = http_json_part(d.fields);
  d.status = "ok";
}

// A profile's own frame: what its `describe` reads in the kept bytes; a refusal its reason.
// Its detail text: the facts' length (one byte), the facts, then a refusal's status.
void dissected_detail(FrameDetail& d, std::string_view stored) {
  const std::size_t facts = stored.empty() ? 0 : std::min<std::size_t>(static_cast<std::uint8_t>(stored[0]), stored.size() - 1);
  const bool refused = d.row.status == FrameStatus::Refused;
  KeptFrameView view = profile(d.row.profile).describe(
      KeptFrame{d.bytes, d.row.type, d.row.dir, stored.substr(stored.empty() ? 0 : 1, facts), refused});
  d.fields = std::move(view.fields);
  d.summary = std::move(view.summary);
  d.columns = std::move(view.columns);
  d.pretty_json = std::move(view.pretty_json);
  d.masked = std::move(view.masked);
  d.status = refused ? std::string(stored.substr(stored.empty() ? 0 : 1 + facts)) : "ok";
}

const char* dissected_type_name(const FrameRow& row) {
  const Profile& p = profile(row.profile);
  return row.type < p.frame_types.size() ? p.frame_types[row.type].data() : "?";
}

}  // namespace

const char* row_type_name(const FrameRow& row) {
  switch (row.kind) {
    case RowKind::Frame: break;
    case RowKind::HttpRequest: return "HTTP_REQUEST";
    case RowKind::HttpResponse: return "HTTP_RESPONSE";
    case RowKind::SseEvent: return "SSE_EVENT";
    case RowKind::RiderRow: {
      const RiderRowWords* words = rider_row_words(row.profile);
      return words ? words->type : "RIDER_ROW";
    }
    case RowKind::Dissected: return dissected_type_name(row);
  }
  return to_string(static_cast<FrameType>(row.type));
}

const std::vector<std::string>& row_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (std::uint8_t t = 1; t <= 5; ++t) v.push_back(row_type_name(FrameRow{.type = t}));
    for (RowKind k : {RowKind::HttpRequest, RowKind::HttpResponse, RowKind::SseEvent})
      v.push_back(row_type_name(FrameRow{.kind = k}));
    for (const RiderRowWords& words : all_rider_row_words()) v.emplace_back(words.type);
    for (const Profile* p : profiles())
      for (std::string_view word : p->frame_types) v.emplace_back(word);
    return v;
  }();
  return names;
}

Result<std::shared_ptr<CaptureIndex>> CaptureIndex::create() {
  auto rows = SpillFile::create();
  if (!rows) return rows.error();
  auto data = SpillFile::create();
  if (!data) return data.error();
  return std::shared_ptr<CaptureIndex>(new CaptureIndex(std::move(*rows), std::move(*data)));
}

Result<bool> CaptureIndex::load(const std::string& path, const CaptureKeySources& keys,
                                std::function<bool(std::uint64_t, std::uint64_t)> progress, unsigned threads) {
  AnalyzeOptions options;
  options.progress = std::move(progress);
  options.threads = threads;
  options.keep_itl_samples = true;  // the inspector's ITL histogram
  options.observe_lane = [this](unsigned lane, unsigned lanes) {
    if (lane == 0) make_lanes(lanes);  // all at once, before any lane runs: the merge reads the whole list
    return observer(*lanes_[lane]);
  };
  auto result = analyze_capture(path, keys, {}, options);
  // A cancelled pass: what the lanes reported still becomes rows. Their threads have ended.
  for (auto& lane : lanes_) hand_over(*lane, LaneObserver::kEndOfCapture);
  {
    std::lock_guard lock(merge_m_);
    merge();
    flush_rows();
  }
  write_rows();
  if (result) {
    std::lock_guard lock(m_);
    connections_.clear();
    for (const auto& c : result->connections) connections_.push_back(c.info);
    analysis_ = std::make_shared<const CaptureAnalysis>(std::move(*result));
  }
  finished_.store(true, std::memory_order_release);
  if (!result) return result.error();
  if (write_failed_) return make_error("io", "the temporary files of the capture index could not be written (disk full?)");
  return true;
}

// A lane for each decoding lane, each with its own frame file (lane 0's made by create()).
void CaptureIndex::make_lanes(unsigned count) {
  const unsigned files = std::min<unsigned>(count, std::numeric_limits<std::uint16_t>::max() + 1u);
  data_.reserve(files);
  while (data_.size() < files) {
    auto file = SpillFile::create();
    if (!file) break;  // lanes without a file fail the pass at their first bytes (write_failed_)
    data_.push_back(std::move(*file));
  }
  for (unsigned i = 0; i < count; ++i) {
    auto lane = std::make_unique<LaneState>();
    lane->index = static_cast<std::uint16_t>(i);
    lane->file = i < data_.size() ? &data_[i] : nullptr;
    lanes_.push_back(std::move(lane));
  }
}

// The lane's events become rows (and their bytes, written to the lane's own file) on the lane's
// own thread; the merge only numbers and stores the rows.
LaneObserver CaptureIndex::observer(LaneState& lane) {
  LaneObserver o;
  o.on_connection = [&lane](std::uint64_t packet, const CaptureConnection& c) {
    lane.building.states.push_back(c);
    lane.add({LaneEvent::Open, static_cast<std::uint32_t>(lane.building.states.size() - 1), packet, &c, {}});
  };
  o.on_negotiation = [&lane](std::uint64_t packet, const CaptureConnection& c, Direction, const Blob&) {
    lane.building.states.push_back(c);
    lane.add({LaneEvent::Negotiated, static_cast<std::uint32_t>(lane.building.states.size() - 1), packet, &c, {}});
  };
  o.on_frame = [&lane](std::uint64_t packet, const CaptureConnection& c, const FrameEvent& e) {
    frame_row(lane, packet, c, e);
  };
  o.on_http = [&lane](std::uint64_t packet, const CaptureConnection& c, const HttpEvent& e) {
    http_row(lane, packet, c, e);
  };
  o.on_dissected = [&lane](std::uint64_t packet, const CaptureConnection& c, const DissectedFrame& f) {
    dissected_row(lane, packet, c, f);
  };
  o.progress = [this, &lane](std::uint64_t packets) { lane_progress(lane, packets); };
  return o;
}

void CaptureIndex::DataBatch::grow(std::size_t n) {
  const std::size_t room = std::max(size_ + n, std::max<std::size_t>(room_ * 2, 64 << 10));
  auto bytes = std::make_unique_for_overwrite<char[]>(room);
  if (size_) std::memcpy(bytes.get(), bytes_.get(), size_);
  bytes_ = std::move(bytes);
  room_ = room;
}

void CaptureIndex::LaneState::add(const LaneEvent& e) { building.events.push_back(e); }

// A row event made in its place in the batch and filled there, not built aside and copied in
// (twice: into add_row's argument, then into the batch).
CaptureIndex::LaneEvent& CaptureIndex::LaneState::new_row(std::uint64_t packet, const CaptureConnection& c) {
  // Copied from a constant: emplace_back() zeroes the event first with a `rep stos` that costs
  // more than filling it (a fifth of the lane's index work).
  static constexpr LaneEvent kRow{.what = LaneEvent::Row, .row = {}};
  LaneEvent& e = building.events.emplace_back(kRow);
  e.packet = packet;
  e.conn = &c;
  e.row.data_offset = written + data.size();
  e.row.data_file = index;
  return e;
}

// A row's bytes: what was appended to the lane's data for it (`data_size`: the frame as kept,
// or an HTTP row's text), then `detail` cut to 64 KiB.
void CaptureIndex::LaneState::end_row(LaneEvent& e, std::size_t data_size, std::string_view detail) {
  e.row.data_size = static_cast<std::uint32_t>(data_size);
  if (detail.empty()) return;  // a frame's, mostly
  detail = detail.substr(0, 0xFFFF);
  e.row.detail_size = static_cast<std::uint16_t>(detail.size());
  data.append(detail);
}

// The bytes of the events so far go to the lane's file before the merge can see their rows:
// one write a batch. False when it fails (the pass then publishes no more rows).
bool CaptureIndex::LaneState::write_data() {
  if (data.empty()) return true;
  const bool ok = file && file->append(data.view());
  written += data.size();
  data.clear();  // keeps its capacity for the next batch
  return ok;
}

void CaptureIndex::frame_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c, const FrameEvent& e) {
  LaneEvent& ev = lane.new_row(packet, c);
  FrameRow& row = ev.row;
  row.ts = e.ts;
  row.stream_offset = e.offset;
  row.type = e.header.type;
  row.flags = e.header.flags;
  row.dir = e.dir;
  row.status = e.refusal ? FrameStatus::Refused : e.no_key ? FrameStatus::NoKey : FrameStatus::Ok;
  if (e.refusal) row.refusal = *e.refusal;
  if (const TokenBody* t = e.body ? std::get_if<TokenBody>(&*e.body) : nullptr) {
    row.stream_id = t->stream_id;
    row.token_count = t->token_count;
  } else if (e.body) {
    row.stream_id = body_stream_id(*e.body);
  }
  const std::size_t size = decoded_size(e);
  decoded_frame(e, lane.data.extend(size));
  // A refusal's detail follows the frame's bytes.
  lane.end_row(ev, size,
               e.refusal || e.no_key ? std::string_view(e.detail) : std::string_view());
}

void CaptureIndex::http_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c, const HttpEvent& e) {
  if (e.kind == HttpEventKind::ReplyEnd) {
    // What the end of a reply told beyond its head is kept for its row.
    HttpRowParts kept;
    for (const auto& [rider, told] : e.rider_fields)
      if (std::shared_ptr<const HttpRowFields> part = told->end_part()) kept.emplace(rider, std::move(part));
    if (kept.empty()) return;
    lane.building.ends.push_back(std::move(kept));
    LaneEvent end{LaneEvent::ReplyEnd, static_cast<std::uint32_t>(lane.building.ends.size() - 1), packet, &c, {}};
    end.row.stream_id = e.exchange;
    lane.add(end);
    return;
  }
  LaneEvent& ev = lane.new_row(packet, c);
  FrameRow& row = ev.row;
  row.ts = e.ts;
  row.kind = e.kind == HttpEventKind::Request    ? RowKind::HttpRequest
             : e.kind == HttpEventKind::Response ? RowKind::HttpResponse
             : e.kind == HttpEventKind::RiderRow ? RowKind::RiderRow
                                                 : RowKind::SseEvent;
  if (row.kind == RowKind::RiderRow) row.profile = e.rider;
  row.dir = e.dir;
  row.stream_id = e.exchange;
  row.token_count = e.tokens;
  row.http_status = static_cast<std::uint16_t>(std::clamp(e.status, 0, 999));
  lane.data.append(e.text);
  lane.end_row(ev, e.text.size(), e.summary);  // the summary is kept where a frame keeps its refusal's detail
}

// A frame of a profile's own dissector: its bytes kept with the secrets masked, a refusal's
// reason after them.
void CaptureIndex::dissected_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c,
                                 const DissectedFrame& f) {
  LaneEvent& ev = lane.new_row(packet, c);
  FrameRow& row = ev.row;
  row.kind = RowKind::Dissected;
  row.profile = c.profile.value_or(ProfileId::AnthroV1);
  row.ts = f.ts;
  row.stream_offset = f.offset;
  row.dir = f.dir;
  row.type = f.type;
  row.stream_id = f.stream;
  if (!f.refusal.empty()) row.status = FrameStatus::Refused;
  const Bytes kept = kept_bytes(f);
  lane.data.append(as_text(kept));
  const std::string_view facts = std::string_view(f.facts).substr(0, DissectedFrame::kMaxFacts);
  std::string detail(1, static_cast<char>(facts.size()));
  detail.append(facts).append(f.refusal);
  lane.end_row(ev, kept.size(), detail);
}

bool CaptureIndex::read_rows(std::size_t first, std::size_t count, FrameRow* out) const {
  return rows_.read({first * sizeof(FrameRow), count * sizeof(FrameRow)}, reinterpret_cast<char*>(out));
}

std::optional<FrameRow> CaptureIndex::row(std::size_t i) const {
  std::size_t available = frame_count();
  if (i >= available) return std::nullopt;
  std::size_t first = i / kRowsPerPage * kRowsPerPage;
  std::lock_guard lock(m_);
  for (std::size_t k = pages_.size(); k-- > 0;) {
    Page& p = pages_[k];
    if (p.first == first && i < p.first + p.count) {
      FrameRow r = p.rows[i - first];
      std::rotate(pages_.begin() + static_cast<std::ptrdiff_t>(k), pages_.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                  pages_.end());
      return r;
    }
  }
  Page page;
  page.first = first;
  page.count = std::min(kRowsPerPage, available - first);
  page.rows.resize(page.count);
  if (!read_rows(first, page.count, page.rows.data())) return std::nullopt;
  FrameRow r = page.rows[i - first];
  std::erase_if(pages_, [&](const Page& p) { return p.first == first; });
  if (pages_.size() == kCachedPages) pages_.erase(pages_.begin());
  pages_.push_back(std::move(page));
  return r;
}

std::optional<FrameDetail> CaptureIndex::detail(std::size_t i) const {
  {
    std::lock_guard lock(m_);
    for (const auto& [index, d] : details_)
      if (index == i) return *d;
  }
  auto r = row(i);
  if (!r) return std::nullopt;
  auto d = std::make_shared<FrameDetail>();
  d->row = *r;
  std::string stored(r->data_size + r->detail_size, '\0');
  if (r->data_file >= data_.size() || !data_[r->data_file].read({r->data_offset, stored.size()}, stored.data()))
    return std::nullopt;
  d->bytes.assign(stored.begin(), stored.begin() + r->data_size);
  std::string detail_text = stored.substr(r->data_size);
  if (r->kind == RowKind::Dissected) {
    dissected_detail(*d, detail_text);
    return cache(i, std::move(d));
  }
  if (r->kind != RowKind::Frame) {
    http_detail(*d, std::move(detail_text));
    std::lock_guard lock(m_);
    if (auto end = reply_ends_.find(static_cast<std::uint32_t>(i)); end != reply_ends_.end())
      merge_reply_end(d->rider_fields, end->second);
  }
  if (r->kind != RowKind::Frame) return cache(i, std::move(d));
  bool opened = r->status == FrameStatus::Ok && d->bytes.size() >= kSealedPrefix + kTagSize;
  if (opened) {
    ByteView plaintext(d->bytes.data() + kSealedPrefix, d->bytes.size() - kSealedPrefix - kTagSize);
    auto body = parse_body(static_cast<FrameType>(r->type), r->flags, plaintext);
    if (body) d->body = std::move(*body);
    else detail_text = body.error().detail;
  }
  d->fields = frame_fields(d->bytes, opened, d->body ? &*d->body : nullptr);
  if (d->body) {
    d->summary = describe_body(*d->body);
    d->pretty_json = pretty(*d->body);
  }
  if (r->status == FrameStatus::Refused) d->status = std::string(to_string(r->refusal)) + ": " + detail_text;
  else if (r->status == FrameStatus::NoKey) d->status = detail_text.empty() ? "no key" : detail_text;  // it says "no key for …"
  else if (!d->body && opened) d->status = "body: " + detail_text;
  else d->status = "ok";
  return cache(i, std::move(d));
}

FrameDetail CaptureIndex::cache(std::size_t i, std::shared_ptr<FrameDetail> d) const {
  std::lock_guard lock(m_);
  if (details_.size() == kCachedDetails) details_.erase(details_.begin());
  details_.emplace_back(i, d);
  return *d;
}

std::vector<CaptureConnection> CaptureIndex::connections() const {
  std::lock_guard lock(m_);
  return connections_;
}

std::shared_ptr<const CaptureAnalysis> CaptureIndex::analysis() const {
  std::lock_guard lock(m_);
  return analysis_;
}

std::vector<std::uint32_t> CaptureIndex::select(const FrameFilter& filter, const std::atomic<bool>* cancelled) const {
  std::vector<std::uint32_t> out;
  const std::size_t n = frame_count();
  if (n == 0) return out;  // the frame files may still be being made
  std::vector<FrameRow> rows(kRowsPerPage);
  // Frames lie in each lane's frame file in row order: read each in large blocks, not frame by
  // frame.
  struct Block {
    std::string bytes;
    std::uint64_t at = 0;
  };
  std::vector<Block> blocks(data_.size());
  auto frame_bytes = [&](const FrameRow& r) -> std::string_view {
    if (r.data_file >= data_.size()) return {};
    const SpillFile& file = data_[r.data_file];
    Block& b = blocks[r.data_file];
    if (r.data_offset < b.at || r.data_offset + r.data_size > b.at + b.bytes.size()) {
      b.at = r.data_offset;
      b.bytes.resize(std::max<std::size_t>(r.data_size, std::min<std::uint64_t>(1u << 20, file.size() - b.at)));
      if (!file.read({b.at, b.bytes.size()}, b.bytes.data())) b.bytes.clear();
    }
    if (r.data_offset + r.data_size > b.at + b.bytes.size()) return {};
    return std::string_view(b.bytes).substr(r.data_offset - b.at, r.data_size);
  };
  for (std::size_t first = 0; first < n; first += kRowsPerPage) {
    if (cancelled && cancelled->load(std::memory_order_relaxed)) break;
    std::size_t count = std::min(kRowsPerPage, n - first);
    if (!read_rows(first, count, rows.data())) break;
    for (std::size_t k = 0; k < count; ++k) {
      const FrameRow& r = rows[k];
      if (filter.connection && r.connection != *filter.connection) continue;
      if (filter.stream_id && r.stream_id != *filter.stream_id) continue;
      if (filter.type && *filter.type != row_type_name(r)) continue;
      if (!filter.text.empty() && r.kind != RowKind::Frame) {
        if (frame_bytes(r).find(filter.text) == std::string_view::npos) continue;
      } else if (!filter.text.empty()) {
        if (r.status != FrameStatus::Ok || r.data_size < kSealedPrefix + kTagSize) continue;
        std::string_view body = frame_bytes(r);
        if (body.size() < kSealedPrefix + kTagSize) continue;
        body = body.substr(kSealedPrefix, body.size() - kSealedPrefix - kTagSize);
        if (body.find(filter.text) == std::string_view::npos) continue;
      }
      out.push_back(static_cast<std::uint32_t>(first + k));
    }
  }
  return out;
}

}  // namespace anthro
