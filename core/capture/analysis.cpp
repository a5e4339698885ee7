#include "capture/analysis.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <sstream>
#include <set>
#include <unordered_map>

#include "capture/capture_file.h"
#include "capture/packet.h"
#include "crypto/keylog.h"
#include "util/files.h"

namespace anthro {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json text_fields(ByteView text, bool invalid) {
  if (!invalid) return {{"text", std::string(as_text(text))}};
  return {{"text", nullptr}, {"invalid_utf8", true}, {"text_hex", to_hex(text)}};
}

json body_fields(const Body& body) {
  return std::visit(
      [](const auto& b) -> json {
        using T = std::decay_t<decltype(b)>;
        json j = {{"stream_id", b.stream_id}};
        if constexpr (std::is_same_v<T, RequestBody>) {
          j["json"] = json::parse(redact_request_json(b.json), nullptr, false);
        } else if constexpr (std::is_same_v<T, ResponseBody>) {
          j["json"] = json::parse(b.json, nullptr, false);
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          j["token_index"] = b.token_index;
          j["token_count"] = b.token_count;
          j.update(text_fields(b.text, b.invalid_utf8));
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          j["reason"] = b.raw_reason;
        } else {
          j["code"] = b.code;
          j["retry_after_ms"] = b.retry_after_ms;
          j["message"] = b.invalid_utf8 ? json(to_hex(b.message)) : json(std::string(b.message_view()));
        }
        return j;
      },
      body);
}

json frame_json(const CaptureConnection& c, const FrameEvent& e) {
  json j = {{"kind", "frame"},    {"conn", c.name},          {"dir", to_string(e.dir)},
            {"ts", e.ts},         {"offset", e.offset},       {"type", to_string(e.header.frame_type())},
            {"flags", e.header.flags}, {"token", token_hex(e.header.token)}, {"decrypted", e.decrypted}};
  if (e.body) j.update(body_fields(*e.body));
  if (e.refusal) j["error"] = to_string(*e.refusal);
  else if (e.no_key) j["error"] = "no key";
  if (!e.detail.empty() && (e.refusal || e.no_key)) j["detail"] = e.detail;
  return j;
}

json blob_json(const Blob& b) {
  return {{"role", b.role}, {"max_streams", b.max_streams}, {"default_max_tokens", b.default_max_tokens},
          {"flags", b.flags}, {"aead", b.aead}, {"ring_buffer_kib", b.ring_buffer_kib},
          {"connection_token", token_hex(b.connection_token)}};
}

// Keeps finished streams' texts in memory up to a budget, then in a temporary file.
class TextKeeper {
 public:
  explicit TextKeeper(CaptureAnalysis& analysis) : analysis_(analysis) {}
  std::optional<SpillExtent> keep(std::string& text) {
    if (resident_ + text.size() <= CaptureAnalysis::kResidentTextBudget || text.empty()) {
      text.shrink_to_fit();  // appending grew it up to twice its size
      resident_ += text.size();
      return std::nullopt;
    }
    if (!analysis_.spill && !spill_failed_) {
      auto file = SpillFile::create();
      if (file) analysis_.spill = std::make_shared<SpillFile>(std::move(*file));
      else analysis_.warnings.push_back(file.error().detail + "; stream texts stay in memory");
      spill_failed_ = !file;
    }
    std::optional<SpillExtent> extent;
    if (analysis_.spill) extent = analysis_.spill->append(text);
    if (!extent) {
      resident_ += text.size();
      return std::nullopt;
    }
    std::string().swap(text);  // frees: assigning an empty string keeps the capacity
    return extent;
  }

 private:
  CaptureAnalysis& analysis_;
  std::size_t resident_ = 0;
  bool spill_failed_ = false;
};

// Builds each stream's timeline from the frames as they are decoded.
class StreamBook {
 public:
  explicit StreamBook(TextKeeper& keeper) : keeper_(keeper) {}
  void add(const FrameEvent& e) {
    if (!e.decrypted || !e.body) return;
    std::uint32_t id = body_stream_id(*e.body);
    if (id == 0) return;
    Entry& entry = streams_[id];
    entry.result.stream_id = id;
    std::visit([&](const auto& b) { on(entry, e, b); }, *e.body);
  }
  void finish(ConnectionAnalysis& out) {
    std::vector<std::uint32_t> ids;
    for (const auto& [id, entry] : streams_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (std::uint32_t id : ids) {
      Entry& entry = streams_[id];
      if (!entry.closed) entry.result.figures = compute_figures(entry.result.timeline);
      out.streams.push_back(std::move(entry.result));
      out.spilled_text.push_back(entry.spilled);
    }
    streams_.clear();
  }

 private:
  struct Entry {
    RequestResult result;
    std::uint32_t next_index = 0;
    bool closed = false;
    std::optional<SpillExtent> spilled;
  };

  void on(Entry& entry, const FrameEvent& e, const RequestBody& r) {
    RequestResult& s = entry.result;
    s.timeline.request_written = e.ts;
    auto doc = json::parse(r.json, nullptr, false);
    if (doc.is_object() && doc.contains("metadata") && doc["metadata"].is_object() &&
        doc["metadata"].contains("anthro_probe") && doc["metadata"]["anthro_probe"].is_string())
      s.probe = doc["metadata"]["anthro_probe"].get<std::string>();
  }
  void on(Entry& entry, const FrameEvent& e, const TokenBody& t) {
    RequestResult& s = entry.result;
    if (t.token_index > entry.next_index) ++s.token_gaps;
    if (t.token_index < entry.next_index) ++s.token_duplicates;
    entry.next_index = t.token_index + t.token_count;
    if (t.invalid_utf8) ++s.invalid_utf8_frames;
    s.timeline.tokens.push_back({e.ts, t.token_count, !t.text.empty()});
    s.text += t.text_view();
  }
  void on(Entry& entry, const FrameEvent& e, const ResponseBody& r) {
    RequestResult& s = entry.result;
    s.timeline.end = e.ts;
    s.stop_reason = r.stop_reason;
    s.timeline.usage_output_tokens = r.output_tokens;
    if (r.content) s.text += *r.content;
    if (r.stop_reason == StopReason::Cancelled) s.timeline.cancelled_response = e.ts;
    close(entry);
  }
  void on(Entry& entry, const FrameEvent& e, const CancelBody&) { entry.result.timeline.cancel_written = e.ts; }
  void on(Entry& entry, const FrameEvent& e, const ErrorBody& err) {
    entry.result.timeline.end = e.ts;
    entry.result.error_code = err.code;
    close(entry);
  }

  // A stream's figures are final when it ends; its per-token samples are let go, and its text
  // may move to the temporary file, so memory does not grow with every token of a big capture.
  void close(Entry& entry) {
    RequestResult& s = entry.result;
    s.figures = compute_figures(s.timeline);
    s.timeline.tokens = decltype(s.timeline.tokens)();  // frees; `= {}` would keep the capacity
    s.figures.itl_ms = std::vector<double>();
    entry.closed = true;
    entry.spilled = keeper_.keep(s.text);
  }

  TextKeeper& keeper_;
  std::unordered_map<std::uint32_t, Entry> streams_;
};

Result<bool> load_keys(const CaptureKeySources& sources, KeyRing& ring, std::vector<std::string>& warnings) {
  for (const auto& path : sources.keylog_files) {
    auto text = read_file(path);
    if (!text) return make_error("input", text.error().detail);
    KeyLog log = parse_keylog(*text, path);
    warnings.insert(warnings.end(), log.problems.begin(), log.problems.end());
    ring.add(log);
  }
  for (const auto& path : sources.server_key_files) {
    auto pem = read_file(path);
    if (!pem) return make_error("input", pem.error().detail);
    auto key = load_x25519_private_pem(*pem, path);
    if (!key) return make_error("input", key.error().detail);
    ring.add_server_key(*key);
  }
  return true;
}

}  // namespace

Result<CaptureAnalysis> analyze_capture(const std::string& path, const CaptureKeySources& sources,
                                        const DecodeSink& sink) {
  CaptureAnalysis analysis;
  analysis.file = path;
  KeyRing ring;
  if (auto ok = load_keys(sources, ring, analysis.warnings); !ok) return ok.error();
  auto reader = CaptureReader::open(path);
  if (!reader) return make_error("input", reader.error().detail);

  TextKeeper keeper(analysis);
  // Keyed by the decoder's connection record, whose address is stable for the whole pass.
  std::unordered_map<const CaptureConnection*, StreamBook> books;
  auto book = [&](const CaptureConnection& c) -> StreamBook& {
    return books.try_emplace(&c, keeper).first->second;
  };
  CaptureEvents events;
  events.on_frame = [&](const CaptureConnection& c, const FrameEvent& e) {
    book(c).add(e);
    if (sink) sink(frame_json(c, e).dump());
  };
  events.on_negotiation = [&](const CaptureConnection& c, Direction d, const Blob& b) {
    if (sink)
      sink(json{{"kind", "negotiation"}, {"conn", c.name}, {"dir", to_string(d)}, {"transport", to_string(c.transport)},
                {d == Direction::ClientToServer ? "offer" : "answer", blob_json(b)},
                {"suite", c.suite ? json(std::string(to_string(*c.suite))) : json(nullptr)},
                {"alpn", c.alpn.empty() ? json(nullptr) : json(c.alpn)},
                {"tls_suite", c.tls_suite.empty() ? json(nullptr) : json(c.tls_suite)}}
               .dump());
  };
  events.on_gap = [&](const CaptureConnection& c, Direction d, std::uint64_t offset, std::uint64_t bytes) {
    if (sink) sink(json{{"kind", "gap"}, {"conn", c.name}, {"dir", to_string(d)}, {"seq", offset}, {"bytes", bytes}}.dump());
  };
  events.on_desync = [&](const CaptureConnection& c, const DesyncEvent& e) {
    if (sink)
      sink(json{{"kind", "desync"}, {"conn", c.name}, {"dir", to_string(e.dir)}, {"offset", e.offset},
                {"reason", e.reason}, {"detail", e.detail}}.dump());
  };
  events.on_connection_end = [&](const CaptureConnection& c) {
    if (sink && c.transport == CaptureTransport::Tls)
      sink(json{{"kind", "tls"}, {"conn", c.name}, {"status", c.decryption.rfind("TLS: ", 0) == 0 ? c.decryption.substr(5) : "ok"},
                {"alpn", c.alpn}, {"tls_suite", c.tls_suite}, {"version", c.tls_version}}.dump());
    ConnectionAnalysis done{c, {}, {}};
    book(c).finish(done);
    books.erase(&c);
    analysis.connections.push_back(std::move(done));
  };

  CaptureDecoder decoder(ring, events);
  std::size_t secrets_seen = 0;
  while (auto packet = (*reader)->next()) {
    ++analysis.packets;
    // Keys embedded in the capture (pcapng DSBs) count as soon as they appear.
    const auto& secrets = (*reader)->secrets();
    for (; secrets_seen < secrets.size(); ++secrets_seen) ring.add(parse_keylog(secrets[secrets_seen], path + " (DSB)"));
    auto segment = parse_tcp(*packet);
    if (!segment) {
      if (analysis.warnings.size() < 100)
        analysis.warnings.push_back(path + ": packet " + std::to_string(packet->index + 1) + " at byte " +
                                    std::to_string(packet->file_offset) + ": " + segment.error().detail);
      continue;
    }
    if (!*segment) continue;
    ++analysis.tcp_segments;
    decoder.feed(**segment);
  }
  decoder.finish();
  for (const auto& w : (*reader)->warnings()) analysis.warnings.push_back(w);
  return analysis;
}

namespace {

json stream_json(const RequestResult& s, const std::string& text) {
  const RequestFigures& f = s.figures;
  json sj = {{"stream_id", s.stream_id}, {"ttft_ms", opt(f.ttft_ms)}, {"e2e_ms", opt(f.e2e_ms)},
             {"tokens", f.tokens}, {"mean_itl_ms", opt(f.mean_itl_ms)}, {"p99_itl_ms", opt(f.p99_itl_ms)},
             {"max_gap_ms", opt(f.max_gap_ms)}, {"tokens_per_s", opt(f.tokens_per_s)}, {"tpot_ms", opt(f.tpot_ms)},
             {"stop_reason", s.stop_reason ? json(to_string(*s.stop_reason)) : json(nullptr)},
             {"cancel_latency_ms", opt(f.cancel_latency_ms)},
             {"usage_output_tokens", f.usage_output_tokens ? json(*f.usage_output_tokens) : json(nullptr)},
             {"error_code", s.error_code ? json(*s.error_code) : json(nullptr)},
             {"token_gaps", s.token_gaps}, {"token_duplicates", s.token_duplicates},
             {"invalid_utf8_frames", s.invalid_utf8_frames},
             {"probe", s.probe ? json(*s.probe) : json(nullptr)}};
  sj.update(text_fields(as_bytes(text), !is_valid_utf8(as_bytes(text))));
  return sj;
}

// A connection's fields; its streams are written after them, one at a time.
json connection_json(const CaptureConnection& i) {
  const TcpHealth& t = i.tcp;
  std::optional<double> connect_ms, handshake_ms;
  if (i.syn_ts && i.synack_ts) connect_ms = (*i.synack_ts - *i.syn_ts) * 1000;
  if (i.preface_start_ts && i.negotiated_ts) handshake_ms = (*i.negotiated_ts - *i.preface_start_ts) * 1000;
  return {{"conn", i.name}, {"transport", to_string(i.transport)},
          {"alpn", i.alpn.empty() ? json(nullptr) : json(i.alpn)},
          {"suite", i.suite ? json(std::string(to_string(*i.suite))) : json(nullptr)},
          {"tls_suite", i.tls_suite.empty() ? json(nullptr) : json(i.tls_suite)},
          {"decryption", i.decryption}, {"connect_ms", opt(connect_ms)}, {"handshake_ms", opt(handshake_ms)},
          {"tcp", {{"retransmissions", t.retransmissions}, {"out_of_order", t.out_of_order},
                   {"zero_window_events", t.zero_window_events}, {"zero_window_ms", t.zero_window_ms},
                   {"gaps", t.gaps}, {"bad_checksums", t.bad_checksums}, {"duplicate_acks", t.duplicate_acks},
                   {"keepalives", t.keepalives}, {"window_full_events", t.window_full_events}}},
          {"frames", i.frames}, {"frames_opened", i.frames_opened}};
}

json summary_json(const CaptureAnalysis& a) {
  std::vector<double> ttft;
  std::size_t requests = 0;
  for (const auto& c : a.connections)
    for (const auto& s : c.streams)
      if (!s.probe) {
        ++requests;
        if (s.figures.ttft_ms) ttft.push_back(*s.figures.ttft_ms);
      }
  Summary s = summarize(ttft);
  auto num = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  return {{"requests", requests},
          {"ttft_ms", {{"n", s.n}, {"p50", num(s.p50)}, {"p90", num(s.p90)}, {"p95", num(s.p95)}, {"p99", num(s.p99)},
                       {"mean", num(s.mean)}, {"stddev", num(s.stddev)}}}};
}

}  // namespace

std::string CaptureAnalysis::text(const ConnectionAnalysis& c, std::size_t stream) const {
  if (stream < c.spilled_text.size() && c.spilled_text[stream] && spill)
    return spill->read(*c.spilled_text[stream]).value_or(std::string());
  return stream < c.streams.size() ? c.streams[stream].text : std::string();
}

void write_analysis_json(const CaptureAnalysis& a, std::ostream& out) {
  // Written piece by piece: one document for a capture of millions of frames would otherwise
  // be a second copy of everything in memory.
  out << "{\"file\":" << json(a.file).dump() << ",\"packets\":" << a.packets << ",\"tcp_segments\":" << a.tcp_segments
      << ",\"connections\":[";
  for (std::size_t c = 0; c < a.connections.size(); ++c) {
    std::string head = connection_json(a.connections[c].info).dump();
    head.pop_back();  // the closing brace: the streams come first
    out << (c ? "," : "") << head << ",\"streams\":[";
    const auto& streams = a.connections[c].streams;
    for (std::size_t i = 0; i < streams.size(); ++i)
      out << (i ? "," : "") << stream_json(streams[i], a.text(a.connections[c], i)).dump();
    out << "]}";
  }
  out << "],\"summary\":" << summary_json(a).dump() << ",\"warnings\":" << json(a.warnings).dump()
      << ",\"findings\":[],\"checklist\":[]}";
}

std::string analysis_json(const CaptureAnalysis& a) {
  std::ostringstream out;
  write_analysis_json(a, out);
  return out.str();
}

std::string analysis_text(const CaptureAnalysis& a) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%s: %llu packets, %llu TCP segments, %zu connections\n", a.file.c_str(),
                static_cast<unsigned long long>(a.packets), static_cast<unsigned long long>(a.tcp_segments),
                a.connections.size());
  out += line;
  auto ms = [](const std::optional<double>& v) { return v ? *v : -1.0; };
  for (const auto& c : a.connections) {
    std::snprintf(line, sizeof line, "%s  %s, decryption: %s, %llu frames, retransmissions %llu, gaps %llu\n",
                  c.info.name.c_str(), to_string(c.info.transport), c.info.decryption.c_str(),
                  static_cast<unsigned long long>(c.info.frames), static_cast<unsigned long long>(c.info.tcp.retransmissions),
                  static_cast<unsigned long long>(c.info.tcp.gaps));
    out += line;
    for (const auto& s : c.streams) {
      std::snprintf(line, sizeof line,
                    "  stream %u: TTFT %.1f ms, E2E %.1f ms, %llu tokens, mean ITL %.1f ms, %.1f tokens/s, stop %s\n",
                    s.stream_id, ms(s.figures.ttft_ms), ms(s.figures.e2e_ms),
                    static_cast<unsigned long long>(s.figures.tokens), ms(s.figures.mean_itl_ms),
                    ms(s.figures.tokens_per_s), s.stop_reason ? to_string(*s.stop_reason) : "none");
      out += line;
    }
  }
  for (const auto& w : a.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace anthro
