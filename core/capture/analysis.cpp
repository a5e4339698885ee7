// analyze_capture: one pass over a capture file, its connections split among decoding lanes,
// each stream's timeline built as its frames are decoded. The JSON and text forms of the result
// are in analysis_output.cpp.
#include "capture/analysis.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "capture/capture_file.h"
#include "capture/decode_lines.h"
#include "capture/lane_pool.h"
#include "capture/packet.h"
#include "crypto/keylog.h"
#include "metrics/request_json.h"
#include "util/files.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

// Keeps finished streams' texts in memory up to a budget, then in a temporary file. The buffers
// open streams' texts grow in come back here when the stream ends and go to the next streams, so
// a long pass does not regrow (and fault in) a text buffer per stream.
class TextKeeper {
 public:
  TextKeeper(std::size_t budget, std::vector<std::string>& warnings) : budget_(budget), warnings_(warnings) {}
  // An empty text for a stream that starts, with the room an earlier one grew.
  std::string fresh_text() {
    if (spare_.empty()) return {};
    std::string text = std::move(spare_.back());
    spare_.pop_back();
    return text;
  }
  std::optional<SpillExtent> keep(std::string& text) {
    if (resident_ + text.size() <= budget_ || text.empty()) {
      std::string exact(text);  // appending grew it up to twice its size
      recycle(text);
      text = std::move(exact);
      resident_ += text.size();
      return std::nullopt;
    }
    if (!spill_ && !spill_failed_) {
      auto file = SpillFile::create();
      if (file) spill_ = std::make_shared<SpillFile>(std::move(*file));
      else warnings_.push_back(file.error().detail + "; stream texts stay in memory");
      spill_failed_ = !file;
    }
    if (!spill_) {
      resident_ += text.size();
      return std::nullopt;
    }
    SpillExtent extent = spill_->add(text);
    recycle(text);
    return extent;
  }
  std::shared_ptr<const SpillFile> spill() const { return spill_; }

 private:
  // Bounded: a few streams' worth, none of an outsized text (nor one too short to matter).
  static constexpr std::size_t kSpareTexts = 16, kSpareCapacity = 64u << 10, kWorthKeeping = 256;
  // Leaves `text` empty and its buffer here or freed (assigning an empty string would keep it).
  void recycle(std::string& text) {
    if (spare_.size() < kSpareTexts && text.capacity() <= kSpareCapacity && text.capacity() >= kWorthKeeping) {
      text.clear();
      spare_.push_back(std::move(text));
    }
    std::string().swap(text);
  }

  std::size_t budget_;
  std::vector<std::string>& warnings_;
  std::shared_ptr<SpillFile> spill_;
  std::size_t resident_ = 0;
  bool spill_failed_ = false;
  std::vector<std::string> spare_;
};

// Builds each stream's timeline from the frames as they are decoded.
class StreamBook {
 public:
  StreamBook(TextKeeper& keeper, KeptSamples kept) : keeper_(keeper), kept_(kept) {}
  // `packet`: the file's packet (0-based) that completed the frame.
  void add(const FrameEvent& e, std::uint64_t packet) {
    if (!e.decrypted || !e.body) return;
    std::uint32_t id = body_stream_id(*e.body);
    if (id == 0) return;
    Entry& entry = entry_of(id);
    entry.result.stream_id = id;
    auto& packets = entry.result.packets;
    packets = {packets ? packets->first : packet + 1, packet + 1};  // numbered from 1, as Wireshark does
    std::visit([&](const auto& b) { on(entry, e, b); }, *e.body);
  }
  // An HTTP exchange, ended: its figures final, let go like a closed stream's.
  void add_finished(RequestResult& r) {
    std::optional<SpillExtent> spilled = let_go(r);
    finished_.emplace_back(std::move(r), spilled);
  }
  void finish(ConnectionAnalysis& out) {
    // Room for them all: a growing vector moves every request it holds (over 1 KiB apiece).
    out.streams.reserve(out.streams.size() + finished_.size() + streams_.size());
    out.spilled_text.reserve(out.streams.capacity());
    for (auto& [r, spilled] : finished_) {
      out.streams.push_back(std::move(r));
      out.spilled_text.push_back(spilled);
    }
    finished_.clear();
    std::vector<std::uint32_t> ids;
    for (const auto& [id, entry] : streams_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (std::uint32_t id : ids) {
      Entry& entry = streams_[id];
      if (!entry.closed) entry.recorder.finish(true, itl_samples());
      out.streams.push_back(std::move(entry.result));
      out.spilled_text.push_back(entry.spilled);
    }
    streams_.clear();
    last_ = nullptr;
  }

 private:
  struct Entry {
    Entry() : recorder(result) {}
    Entry(const Entry&) = delete;
    RequestResult result;
    RequestRecorder recorder;  // builds `result`
    bool closed = false;
    std::optional<SpillExtent> spilled;
  };

  // A stream's frames come in runs (a TLS record holds several): one lookup per run, not per frame.
  Entry& entry_of(std::uint32_t id) {
    if (!last_ || last_id_ != id) {
      last_ = &streams_[id];  // stays valid: elements of an unordered_map never move
      last_id_ = id;
    }
    return *last_;
  }

  void on(Entry& entry, const FrameEvent& e, const RequestBody& r) {
    RequestMeta meta = meta_of_request(r);
    // Its tokens' arrivals, one a frame: room for those it asked for (bounded), not regrown by doubling.
    entry.result.timeline.tokens.reserve(std::min<std::uint64_t>(meta.max_tokens.value_or(0), 4096));
    if (entry.result.text.empty()) entry.result.text = keeper_.fresh_text();
    entry.recorder.request_sent(e.ts, std::move(meta));
  }
  void on(Entry& entry, const FrameEvent& e, const TokenBody& t) {
    entry.recorder.tokens(e.ts, t.token_count, t.text_view(), !t.text.empty(), t.token_index, t.invalid_utf8);
  }
  void on(Entry& entry, const FrameEvent& e, const ResponseBody& r) {
    entry.recorder.response(e.ts, r.stop_reason, r.output_tokens, r.content.value_or(""), r.timing);
    close(entry);
  }
  void on(Entry& entry, const FrameEvent& e, const CancelBody&) { entry.recorder.cancel_sent(e.ts); }
  void on(Entry& entry, const FrameEvent& e, const ErrorBody& err) {
    entry.recorder.server_error(e.ts, err.code, err.retry_after_ms, err.message_view());
    close(entry);
  }

  // A stream's figures are final when it ends; its per-token samples are let go, and its text
  // may move to the temporary file, so memory does not grow with every token of a big capture.
  void close(Entry& entry) {
    entry.recorder.finish(true, itl_samples());
    entry.closed = true;
    entry.spilled = let_go(entry.result);
  }
  ItlSamples itl_samples() const { return kept_ == KeptSamples::None ? ItlSamples::Dropped : ItlSamples::Kept; }
  // A finished stream's samples freed and its text kept; where the text went.
  std::optional<SpillExtent> let_go(RequestResult& s) {
    if (kept_ == KeptSamples::Timelines) return keeper_.keep(s.text);
    s.timeline.tokens = decltype(s.timeline.tokens)();  // frees; `= {}` would keep the capacity
    // An HTTP exchange's figures come with their samples; a stream's kept none (itl_samples()).
    if (kept_ == KeptSamples::None) s.figures.itl_ms = std::vector<double>();
    return keeper_.keep(s.text);
  }

  TextKeeper& keeper_;
  KeptSamples kept_;
  std::unordered_map<std::uint32_t, Entry> streams_;
  Entry* last_ = nullptr;  // of last_id_
  std::uint32_t last_id_ = 0;
  std::vector<std::pair<RequestResult, std::optional<SpillExtent>>> finished_;  // HTTP exchanges, in order
};

Result<bool> load_keys(const CaptureKeySources& sources, KeyRing& ring, std::vector<std::string>& warnings) {
  for (const auto& path : sources.keylog_files) {
    auto text = read_file(path, file_limit::kKeyLog);
    if (!text) return make_error(ErrorClass::Input, text.error().detail);
    // Key logs are text; unknown lines are skipped as NSS's format says, so a binary file
    // (a capture or a key given by mistake) would otherwise pass as a log with no keys.
    if (auto nul = text->find('\0'); nul != std::string::npos)
      return make_error(ErrorClass::Input, path + ": not a key log: binary data (a NUL byte) at byte " + std::to_string(nul));
    KeyLog log = parse_keylog(*text, path);
    warnings.insert(warnings.end(), log.problems.begin(), log.problems.end());
    ring.add(log);
  }
  for (const auto& path : sources.server_key_files) {
    auto pem = read_file(path, file_limit::kPemKey);
    if (!pem) return make_error(ErrorClass::Input, pem.error().detail);
    auto key = load_x25519_private_pem(*pem, path);
    if (!key) return make_error(ErrorClass::Input, key.error().detail);
    ring.add_server_key(*key);
  }
  return true;
}

}  // namespace

namespace {

// One decoding lane: the connections routed to it, their streams and texts. Not movable: the
// decoder's callbacks point at its members.
class Lane {
 public:
  Lane(const KeyRing& ring, std::size_t text_budget, const DecodeSink& sink, KeptSamples kept, LaneObserver observer)
      : ring_(ring),
        keeper_(text_budget, warnings_),
        sink_(sink),
        kept_(kept),
        observer_(std::move(observer)),
        decoder_(ring_, events()) {}
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  // Keys embedded in the capture (pcapng DSBs) count from where they appear.
  void add_secrets(const std::string& keylog_text, const std::string& origin) {
    ring_.add(parse_keylog(keylog_text, origin));
  }
  void feed(const TcpSegment& segment) { decoder_.feed(segment); }
  // Everything of the packets below `packets` is fed.
  void fed_below(std::uint64_t packets) {
    if (observer_.progress) observer_.progress(packets);
  }
  void finish() {
    finishing_ = true;
    decoder_.finish();
    fed_below(LaneObserver::kEndOfCapture);
  }
  std::vector<ConnectionAnalysis>& connections() { return connections_; }
  std::vector<std::string>& warnings() { return warnings_; }
  std::map<ProfileId, std::vector<std::any>>& records() { return records_; }

 private:
  StreamBook& book(const CaptureConnection& c) {
    if (&c != last_connection_) {  // a connection's frames come in runs: one lookup a run
      last_book_ = &books_.try_emplace(&c, keeper_, kept_).first->second;
      last_connection_ = &c;
    }
    return *last_book_;
  }
  void emit(const json& line) const {
    if (sink_) sink_(dump_json(line));
  }
  CaptureEvents events();
  // The packet an observer is told: what the capture's end reports comes after every packet.
  std::uint64_t packet() const { return finishing_ ? LaneObserver::kEndOfCapture : decoder_.packet(); }

  KeyRing ring_;
  std::vector<std::string> warnings_;
  TextKeeper keeper_;
  const DecodeSink& sink_;
  KeptSamples kept_;
  LaneObserver observer_;
  bool finishing_ = false;
  // Keyed by the decoder's connection record, whose address is stable for the whole pass.
  std::unordered_map<const CaptureConnection*, StreamBook> books_;
  const CaptureConnection* last_connection_ = nullptr;
  StreamBook* last_book_ = nullptr;  // last_connection_'s
  std::vector<ConnectionAnalysis> connections_;
  std::map<ProfileId, std::vector<std::any>> records_;  // what each format's dissectors kept, by connection
  CaptureDecoder decoder_;  // last: its callbacks use the members above
};

CaptureEvents Lane::events() {
  CaptureEvents events;
  events.on_frame = [this](const CaptureConnection& c, const FrameEvent& e) {
    book(c).add(e, decoder_.packet());
    if (sink_) emit(frame_json(c, e));
    if (observer_.on_frame) observer_.on_frame(packet(), c, e);
  };
  events.on_connection_start = [this](const CaptureConnection& c) {
    if (observer_.on_connection) observer_.on_connection(packet(), c);
  };
  events.on_negotiation = [this](const CaptureConnection& c, Direction d, const Blob& b) {
    if (observer_.on_negotiation) observer_.on_negotiation(packet(), c, d, b);
    emit({{"kind", "negotiation"}, {"conn", c.name}, {"dir", to_string(d)}, {"transport", to_string(c.transport)},
          {d == Direction::ClientToServer ? "offer" : "answer", blob_json(b)},
          {"suite", c.suite ? json(std::string(to_string(*c.suite))) : json(nullptr)},
          {"alpn", c.alpn.empty() ? json(nullptr) : json(c.alpn)},
          {"tls_suite", c.tls_suite.empty() ? json(nullptr) : json(c.tls_suite)}});
  };
  events.on_gap = [this](const CaptureConnection& c, Direction d, std::uint64_t offset, std::uint64_t bytes) {
    emit({{"kind", "gap"}, {"conn", c.name}, {"dir", to_string(d)}, {"seq", offset}, {"bytes", bytes}});
  };
  events.on_desync = [this](const CaptureConnection& c, const DesyncEvent& e) {
    emit({{"kind", "desync"}, {"conn", c.name}, {"dir", to_string(e.dir)}, {"offset", e.offset},
          {"reason", e.reason}, {"detail", e.detail}});
  };
  events.on_http = [this](const CaptureConnection& c, const HttpEvent& e) {
    if (sink_)
      if (auto line = http_json(c, e)) emit(*line);
    if (observer_.on_http) observer_.on_http(packet(), c, e);
  };
  events.on_http_exchange = [this](const CaptureConnection& c, RequestResult& r) { book(c).add_finished(r); };
  events.on_record = [this](const CaptureConnection& c, std::any&& record) {
    records_[c.profile.value_or(ProfileId::AnthroV1)].push_back(std::move(record));
  };
  events.on_dissected = [this](const CaptureConnection& c, const DissectedFrame& f) {
    if (sink_) f.decode_line ? sink_(f.decode_line(c.name)) : emit(dissected_json(c, f));
    if (observer_.on_dissected) observer_.on_dissected(packet(), c, f);
  };
  events.on_connection_end = [this](const CaptureConnection& c) {
    if (c.transport == CaptureTransport::Tls)
      emit({{"kind", "tls"}, {"conn", c.name},
            {"status", c.decryption == DecryptionState::Tls           ? c.decryption_detail
                       : c.decryption == DecryptionState::NoHandshake ? "no handshake seen"
                                                                      : "ok"},
            {"alpn", c.alpn}, {"tls_suite", c.tls_suite}, {"version", c.tls_version}});
    ConnectionAnalysis done{c, {}, {}, {}};
    book(c).finish(done);
    done.spill = keeper_.spill();
    books_.erase(&c);
    last_connection_ = nullptr;
    connections_.push_back(std::move(done));
  };
  return events;
}

using capture_lanes::Batch;
using LanePool = capture_lanes::LanePool<Lane>;

std::uint64_t endpoint_hash(const IpEndpoint& e) {
  std::uint64_t low, high;
  std::memcpy(&low, e.address.data(), 8);
  std::memcpy(&high, e.address.data() + 8, 8);
  std::uint64_t h = (low ^ high * 0x9E3779B97F4A7C15ull ^ e.port) * 0xFF51AFD7ED558CCDull;
  return h ^ h >> 32;
}

// The same for both directions of a connection (a sum does not care which end is which). Two
// connections of one hash only share a lane.
std::uint64_t connection_hash(const TcpSegment& s) { return endpoint_hash(s.src) + endpoint_hash(s.dst); }

// Both directions of a connection go to the same lane; new connections take turns, so a few
// busy connections still spread evenly.
class LaneChooser {
 public:
  explicit LaneChooser(std::size_t lanes) : lanes_(lanes) {}
  std::size_t operator()(const TcpSegment& s) {
    auto [it, added] = lane_.try_emplace(connection_hash(s), next_);
    if (added) next_ = (next_ + 1) % lanes_;
    return it->second;
  }

 private:
  std::size_t lanes_, next_ = 0;
  std::unordered_map<std::uint64_t, std::size_t> lane_;
};

unsigned threads_for(const AnalyzeOptions& options, const DecodeSink& sink, std::uint64_t file_size) {
  // decode's lines come in capture order, which one lane keeps; small files are not worth threads.
  if (sink) return 1;
  if (options.threads) return std::min(options.threads, AnalyzeOptions::kMaxThreads);
  if (file_size < (8u << 20)) return 1;
  return std::max(std::thread::hardware_concurrency(), 1u);  // every core: no fixed cap
}

// Checksum offload: a host whose TCP checksums are computed by its NIC after the capture point
// (and every loopback packet) shows all of them wrong. Such a sender gets one warning and its
// checksums are not counted as bad; a few wrong ones among good ones still are.
class ChecksumTally {
 public:
  void add(const TcpSegment& s) {
    if (!s.checksum_checked) return;
    IpEndpoint host = s.src;
    host.port = 0;
    if (!last_ || host != last_host_) {  // a host's segments come in runs: one lookup a run
      last_ = &hosts_[host];  // stays valid: a std::map's elements never move
      last_host_ = host;
    }
    ++last_->checked;
    if (!s.checksum_ok) ++last_->bad;
  }
  void apply(CaptureAnalysis& analysis) const {
    for (const auto& [host, c] : hosts_) {
      if (!offloaded(c)) continue;
      std::string address = host.text();
      address = address.substr(0, address.rfind(':'));
      analysis.warnings.push_back("checksums not verified for packets from " + address + ": " + std::to_string(c.bad) +
                                  " of " + std::to_string(c.checked) +
                                  " TCP checksums wrong, as checksum offload leaves them (the NIC or loopback fills "
                                  "them in after the capture point); they are not counted as bad checksums");
    }
    for (auto& conn : analysis.connections) {
      TcpHealth& t = conn.info.tcp;
      std::uint64_t from_client = t.client_bad_checksums, from_server = t.bad_checksums - t.client_bad_checksums;
      if (offloaded(conn.info.client)) from_client = 0;
      if (offloaded(conn.info.server)) from_server = 0;
      t.bad_checksums = from_client + from_server;
      t.client_bad_checksums = from_client;
    }
  }

 private:
  struct Counts {
    std::uint64_t checked = 0, bad = 0;
  };
  static bool offloaded(const Counts& c) {
    // All wrong, or all but a handful of many: a real corruption rate is far lower.
    return c.bad > 0 && (c.bad == c.checked || (c.checked >= 20 && c.bad * 20 >= c.checked * 19));
  }
  bool offloaded(IpEndpoint host) const {
    host.port = 0;
    auto it = hosts_.find(host);
    return it != hosts_.end() && offloaded(it->second);
  }
  std::map<IpEndpoint, Counts> hosts_;
  Counts* last_ = nullptr;  // last_host_'s
  IpEndpoint last_host_;
};

// Reads packets, hands TCP segments to the lanes; false when the caller cancelled.
class Reader {
 public:
  Reader(CaptureReader& reader, CaptureAnalysis& analysis, const AnalyzeOptions& options, ChecksumTally& checksums)
      : reader_(reader), analysis_(analysis), options_(options), checksums_(checksums) {}

  template <class OnSecrets, class OnSegment>
  bool run(OnSecrets on_secrets, OnSegment on_segment) {
    std::size_t secrets_seen = 0;
    std::uint64_t next_progress = 0;
    while (auto packet = reader_.next()) {
      ++analysis_.packets;
      if (options_.progress && packet->file_offset >= next_progress) {
        if (!options_.progress(packet->file_offset, reader_.file_size())) return false;
        next_progress = packet->file_offset + (1u << 20);
      }
      const auto& secrets = reader_.secrets();
      for (; secrets_seen < secrets.size(); ++secrets_seen) {
        analysis_.embedded_keylogs.push_back(secrets[secrets_seen]);
        on_secrets(secrets[secrets_seen]);
      }
      auto segment = parse_tcp(*packet);
      if (!segment) {
        if (analysis_.warnings.size() < 100)
          analysis_.warnings.push_back(analysis_.file + ": packet " + std::to_string(packet->index + 1) + " at byte " +
                                       std::to_string(packet->file_offset) + ": " + segment.error().detail);
        continue;
      }
      if (!*segment) continue;
      ++analysis_.tcp_segments;
      checksums_.add(**segment);
      on_segment(**segment);
    }
    if (options_.progress) options_.progress(reader_.file_size(), reader_.file_size());
    return true;
  }

 private:
  CaptureReader& reader_;
  CaptureAnalysis& analysis_;
  const AnalyzeOptions& options_;
  ChecksumTally& checksums_;
};

using ConnectionRecords = std::map<ProfileId, std::vector<std::any>>;

void collect(CaptureAnalysis& analysis, Lane& lane, ConnectionRecords& records) {
  for (auto& c : lane.connections()) analysis.connections.push_back(std::move(c));
  for (auto& w : lane.warnings()) analysis.warnings.push_back(std::move(w));
  for (auto& [id, kept] : lane.records())
    for (auto& r : kept) records[id].push_back(std::move(r));
}

// Lanes split connections, and a session may continue on another lane than its start: each
// format joins its connections' records once every lane is in.
void join_records(CaptureAnalysis& analysis, ConnectionRecords&& records) {
  for (auto& [id, kept] : records) {
    const auto join = profile(id).join_records;
    analysis.records[id] = join ? join(std::move(kept)) : std::any(std::move(kept));
  }
}

bool run_one_lane(CaptureReader& reader, CaptureAnalysis& analysis, ConnectionRecords& records, const KeyRing& ring,
                  const DecodeSink& sink, const AnalyzeOptions& options, ChecksumTally& checksums) {
  Lane lane(ring, options.text_budget, sink, options.kept(),
            options.observe_lane ? options.observe_lane(0, 1) : LaneObserver{});
  std::string origin = analysis.file + " (DSB)";
  std::uint64_t fed = 0;
  bool done = Reader(reader, analysis, options, checksums)
                  .run([&](const std::string& text) { lane.add_secrets(text, origin); },
                       [&](const TcpSegment& segment) {
                         lane.feed(segment);
                         if (++fed % 256 == 0) lane.fed_below(segment.packet_index + 1);  // not per packet: it may lock
                       });
  if (!done) return false;
  lane.finish();
  collect(analysis, lane, records);
  return true;
}

// The reader's side of run_lanes: a batch a lane, flushed when full and whenever the reader moves
// on to its next buffer, so each batch holds exactly one buffer. The reader reads on only while
// fewer than buffers_ahead() buffers are held: memory stays bounded however the lanes are split.
class Router {
 public:
  Router(CaptureReader& reader, LanePool& pool, bool observed)
      : reader_(reader), pool_(pool), batches_(pool.size()), lane_of_(pool.size()), observed_(observed) {}

  // Every lane gets the keys before any later segment.
  void secrets(const std::string& text, std::uint64_t below) {
    flush(below);
    for (auto& batch : batches_) batch.secrets.push_back(text);
  }
  void segment(const TcpSegment& segment) {
    if (!block_ || !reader_.holds(*block_)) next_block(segment.packet_index);
    const std::size_t i = lane_of_(segment);
    if (batches_[i].bytes + segment.payload.size() > Batch::kBytes && !batches_[i].segments.empty()) {
      if (observed_) flush(segment.packet_index);
      else hand(i, segment.packet_index);
    }
    batches_[i].segments.push_back(segment);
    batches_[i].bytes += segment.payload.size();
  }
  // Hands each lane what it has; an observer merging the lanes' events in packet order waits
  // for the slowest lane's progress, so then even an idle lane hears how far the reader got.
  void flush(std::uint64_t below) {
    for (std::size_t i = 0; i < batches_.size(); ++i)
      if (observed_ || !batches_[i].segments.empty() || !batches_[i].secrets.empty()) hand(i, below);
  }

 private:
  // 2 MiB each (capture_file.cpp): a lane may lag the reader by some 10 MiB before it waits.
  // An observer merging the lanes holds what the lanes ahead reported until the last catches up:
  // there the reader keeps them closer together.
  std::size_t buffers_ahead() const { return observed_ ? 2 : 6; }
  using Hold = std::shared_ptr<const void>;  // the reader's buffer, held for the batches in it

  void next_block(std::uint64_t below) {
    flush(below);
    block_.reset();
    pool_.wait_until([&] {
      while (!held_.empty() && held_.front().expired()) held_.pop_front();
      return held_.size() < buffers_ahead();
    });
    block_ = std::make_shared<const Hold>(reader_.hold());
    held_.push_back(block_);
  }
  void hand(std::size_t i, std::uint64_t below) {
    Batch& batch = batches_[i];
    batch.below = below;
    if (!batch.segments.empty()) batch.block = block_;
    Batch full = std::move(batch);
    batch = Batch();
    batch.segments = pool_.push(i, std::move(full));
  }

  CaptureReader& reader_;
  LanePool& pool_;
  std::vector<Batch> batches_;
  LaneChooser lane_of_;
  bool observed_;
  std::shared_ptr<const Hold> block_;  // the reader's buffer the batches' segments are in
  std::deque<std::weak_ptr<const Hold>> held_;  // the buffers batches may still hold, oldest first
};

// More lanes than threads, so a free thread always finds one with work; the same result at any
// number of them. Not so for an observer merging the lanes in packet order: it holds every
// lane's events until the one furthest behind catches up, and a lane no thread runs for a while
// made it hold more than the whole reading did. Each lane holds a copy of the key ring: at most
// 256 lanes, or one a thread where there are more threads.
unsigned lanes_of(unsigned threads, bool observed) {
  return observed ? threads : std::max(threads, std::min(threads * 4, 256u));
}

const DecodeSink no_sink;  // lanes on threads decode for the analysis alone

bool run_lanes(CaptureReader& reader, CaptureAnalysis& analysis, ConnectionRecords& records, const KeyRing& ring,
               unsigned threads, const AnalyzeOptions& options, ChecksumTally& checksums) {
  const unsigned count = lanes_of(threads, static_cast<bool>(options.observe_lane));
  std::vector<std::unique_ptr<Lane>> lanes;
  for (unsigned i = 0; i < count; ++i)
    lanes.push_back(std::make_unique<Lane>(ring, options.text_budget / count, no_sink, options.kept(),
                                           options.observe_lane ? options.observe_lane(i, count) : LaneObserver{}));
  LanePool pool(threads, std::move(lanes), analysis.file + " (DSB)");
  Router router(reader, pool, static_cast<bool>(options.observe_lane));
  bool done = Reader(reader, analysis, options, checksums)
                  .run([&](const std::string& text) { router.secrets(text, analysis.packets - 1); },
                       [&](const TcpSegment& segment) { router.segment(segment); });
  if (done) router.flush(analysis.packets);
  std::exception_ptr failure = pool.close();
  for (std::size_t i = 0; i < pool.size(); ++i) collect(analysis, pool.lane(i), records);
  if (failure) std::rethrow_exception(failure);  // on this thread, to analyze_capture
  return done;
}

}  // namespace

Result<CaptureAnalysis> analyze_capture(const std::string& path, const CaptureKeySources& sources,
                                        const DecodeSink& sink, const AnalyzeOptions& options) {
  CaptureAnalysis analysis;
  analysis.file = path;
  KeyRing ring;
  if (auto ok = load_keys(sources, ring, analysis.warnings); !ok) return ok.error();
  auto reader = CaptureReader::open(path);
  if (!reader) return make_error(ErrorClass::Input, reader.error().detail);

  unsigned threads = threads_for(options, sink, (*reader)->file_size());
  analysis.threads = threads;
  ChecksumTally checksums;
  ConnectionRecords records;
  bool done = false;
  try {
    done = threads == 1 ? run_one_lane(**reader, analysis, records, ring, sink, options, checksums)
                        : run_lanes(**reader, analysis, records, ring, threads, options, checksums);
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, "internal", path + ": internal error at byte " +
                                                         std::to_string((*reader)->position()) + ": " + e.what());
  }
  if (!done)
    return make_error(ErrorClass::Cancelled, "analysis of " + path + " cancelled at byte " + std::to_string((*reader)->position()));
  // Connections in the order they first appear, however the lanes split them.
  std::stable_sort(analysis.connections.begin(), analysis.connections.end(),
                   [](const ConnectionAnalysis& a, const ConnectionAnalysis& b) {
                     return a.info.first_packet < b.info.first_packet;
                   });
  checksums.apply(analysis);
  join_records(analysis, std::move(records));
  for (const auto& w : (*reader)->warnings()) analysis.warnings.push_back(w);
  analysis.truncation = (*reader)->truncation();
  return analysis;
}

}  // namespace anthro
