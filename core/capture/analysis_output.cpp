// analyze's output: the cli.md `analyze --format json` document, written piece by piece, and
// the human summary. The pass itself is in analysis.cpp.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "capture/analysis.h"
#include "capture/analysis_json.h"

namespace anthro {

using nlohmann::json;

json text_fields(ByteView text, bool invalid) {
  if (!invalid) return {{"text", std::string(as_text(text))}};
  return {{"text", nullptr}, {"invalid_utf8", true}, {"text_hex", to_hex(text)}};
}

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// `text` (valid UTF-8) as a JSON string, escaped as nlohmann::json escapes it: the texts are
// most of analyze's output, and its general serializer re-validates every byte.
void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text, run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += "\\u00"; out += kHex[c >> 4]; out += kHex[c & 15];
    }
  }
  out.append(text, run, text.size() - run);
  out += '"';
}

// A stream as JSON; its text member is written last, by hand when it is valid UTF-8.
std::string stream_json(const RequestResult& s, const std::string& text) {
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
  if (!is_valid_utf8(as_bytes(text))) {
    sj.update(text_fields(as_bytes(text), true));
    return sj.dump();
  }
  std::string out = sj.dump();
  out.pop_back();
  out += ",\"text\":";
  append_json_string(out, text);
  out += '}';
  return out;
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

std::string CaptureAnalysis::text(const ConnectionAnalysis& c, std::size_t stream) {
  if (stream < c.spilled_text.size() && c.spilled_text[stream] && c.spill)
    return c.spill->read(*c.spilled_text[stream]).value_or(std::string());
  return stream < c.streams.size() ? c.streams[stream].text : std::string();
}

namespace {

// A connection's streams, comma-separated, one at a time (their texts may come from the spill).
void write_streams(const ConnectionAnalysis& c, std::ostream& out) {
  for (std::size_t i = 0; i < c.streams.size(); ++i)
    out << (i ? "," : "") << stream_json(c.streams[i], CaptureAnalysis::text(c, i));
}

}  // namespace

void write_analysis_json(const CaptureAnalysis& a, std::ostream& out) {
  // Written piece by piece: one document for a capture of millions of frames would otherwise
  // be a second copy of everything in memory.
  out << "{\"file\":" << json(a.file).dump() << ",\"packets\":" << a.packets << ",\"tcp_segments\":" << a.tcp_segments
      << ",\"connections\":[";
  for (std::size_t c = 0; c < a.connections.size(); ++c) {
    std::string head = connection_json(a.connections[c].info).dump();
    head.pop_back();  // the closing brace: the streams come first
    out << (c ? "," : "") << head << ",\"streams\":[";
    write_streams(a.connections[c], out);
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
