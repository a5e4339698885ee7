// analyze's output: the cli.md `analyze --format json` document, written piece by piece, and
// the human summary. The pass itself is in analysis.cpp.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "capture/analysis.h"
#include "metrics/request_json.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {


// A connection's fields; its streams are written after them, one at a time.
json connection_json(const CaptureConnection& i) {
  const TcpHealth& t = i.tcp;
  std::optional<double> connect_ms;
  if (i.syn_ts && i.synack_ts) connect_ms = (*i.synack_ts - *i.syn_ts) * 1000;
  return {{"conn", i.name}, {"transport", to_string(i.transport)},
          {"alpn", i.alpn.empty() ? json(nullptr) : json(i.alpn)},
          {"suite", i.suite ? json(std::string(to_string(*i.suite))) : json(nullptr)},
          {"tls_suite", i.tls_suite.empty() ? json(nullptr) : json(i.tls_suite)},
          {"decryption", decryption_text(i)}, {"connect_ms", json_or_null(connect_ms)}, {"handshake_ms", json_or_null(handshake_ms(i))},
          {"tcp", {{"retransmissions", t.retransmissions}, {"out_of_order", t.out_of_order},
                   {"zero_window_events", t.zero_window_events}, {"zero_window_ms", t.zero_window_ms},
                   {"gaps", t.gaps}, {"bad_checksums", t.bad_checksums}, {"duplicate_acks", t.duplicate_acks},
                   {"keepalives", t.keepalives}, {"window_full_events", t.window_full_events}}},
          {"frames", i.frames}, {"frames_opened", i.frames_opened}, {"http_requests", i.http_requests},
          {"sse_events", i.sse_events}, {"http_error", i.http_error.empty() ? json(nullptr) : json(i.http_error)},
          {"tunnel", i.tunnel.empty() ? json(nullptr) : json(i.tunnel)},
          {"tunnel_status", i.tunnel_status.empty() ? json(nullptr) : json(i.tunnel_status)},
          {"tunnel_ms", json_or_null(i.tunnel_ms)}};
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
  return {{"requests", requests}, {"ttft_ms", summary_json(summarize(ttft))}};
}

// Where a stream's text went, if it went to the temporary file.
const SpillExtent* spilled_at(const ConnectionAnalysis& c, std::size_t stream) {
  return stream < c.spilled_text.size() && c.spilled_text[stream] && c.spill ? &*c.spilled_text[stream] : nullptr;
}

}  // namespace

std::string CaptureAnalysis::text(const ConnectionAnalysis& c, std::size_t stream) {
  if (const SpillExtent* at = spilled_at(c, stream)) return c.spill->read(*at).value_or(std::string());
  return stream < c.streams.size() ? c.streams[stream].text : std::string();
}

namespace {

// Streams [first, last) of a connection, comma-separated, appended to `out` (their texts may
// come from the spill).
void append_streams_json(std::string& out, const ConnectionAnalysis& c, std::size_t first, std::size_t last) {
  std::size_t room = 0;
  for (std::size_t i = first; i < last; ++i)
    room += 800 + (spilled_at(c, i) ? spilled_at(c, i)->size : c.streams[i].text.size()) * 11 / 10;
  out.reserve(out.size() + room);
  std::string spilled;  // one buffer for the piece's texts read back
  for (std::size_t i = first; i < last; ++i) {
    if (i) out += ',';
    std::string_view text = c.streams[i].text;
    if (const SpillExtent* at = spilled_at(c, i)) {
      spilled.resize(at->size);
      if (!c.spill->read(*at, spilled.data())) spilled.clear();  // as CaptureAnalysis::text
      text = spilled;
    }
    append_request_json_line(out, c.streams[i], text);
  }
}

// Renders pieces 0..n-1 on `threads` threads of its own and hands each to `write` in order, on
// the calling thread, with at most `window` rendered and not yet written, so memory stays far
// below the document's size. (A thread a piece, as std::async gave, cost about what a piece's
// rendering does.)
template <class Render, class Write>
void render_in_order(std::size_t n, unsigned threads, std::size_t window, Render render, Write write) {
  std::mutex m;
  std::condition_variable changed;
  std::vector<std::optional<std::string>> slots(window);  // piece i in slot i % window
  std::size_t next = 0, written = 0;
  std::exception_ptr failure;
  auto work = [&] {
    std::unique_lock lock(m);
    for (;;) {
      changed.wait(lock, [&] { return next == n || next < written + window; });
      if (next == n) return;
      const std::size_t i = next++;
      lock.unlock();
      std::string text;
      try {
        text = render(i);
      } catch (...) {
        lock.lock();
        failure = std::current_exception();
        next = n;  // the others stop too
        changed.notify_all();
        return;
      }
      lock.lock();
      slots[i % window] = std::move(text);
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {  // the process's thread limit: fewer threads do, or this one
    if (pool.empty()) {
      for (std::size_t i = 0; i < n; ++i) write(render(i));
      return;
    }
  }
  while (written < n) {
    std::string text;
    {
      std::unique_lock lock(m);
      changed.wait(lock, [&] { return slots[written % window] || failure; });
      if (failure) break;
      text = std::move(*slots[written % window]);
      slots[written % window].reset();
      ++written;
    }
    changed.notify_all();
    write(text);
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// A piece of the connections' part: a connection's head before its first streams, its end after
// its last (a connection without streams is one piece of both).
struct Piece {
  std::size_t connection, first, last;
  bool head, end;
};

std::vector<Piece> pieces_of(const CaptureAnalysis& a, std::size_t streams_a_piece) {
  std::vector<Piece> pieces;
  for (std::size_t c = 0; c < a.connections.size(); ++c) {
    const std::size_t streams = a.connections[c].streams.size();
    std::size_t first = 0;
    do {
      const std::size_t last = std::min(first + streams_a_piece, streams);
      pieces.push_back({c, first, last, first == 0, last == streams});
      first = last;
    } while (first < streams);
  }
  return pieces;
}

std::string piece_json(const CaptureAnalysis& a, const Piece& p) {
  const ConnectionAnalysis& conn = a.connections[p.connection];
  std::string out;
  if (p.head) {
    out = dump_json(connection_json(conn.info));
    out.pop_back();  // the closing brace: the streams come first
    out.insert(0, p.connection ? "," : "");
    out += ",\"streams\":[";
  }
  append_streams_json(out, conn, p.first, p.last);
  if (p.end) out += "]}";
  return out;
}

// The connections' part of the document, in pieces of a few dozen streams rendered on as many
// threads as the pass used and written in order: rendering is most of the document's time, and
// the pass's lanes are idle by then. At most two pieces a thread are held. One thread renders
// them in place.
void write_connections(const CaptureAnalysis& a, std::ostream& out) {
  constexpr std::size_t kPieceStreams = 64;
  const std::vector<Piece> pieces = pieces_of(a, kPieceStreams);
  const unsigned threads = std::max(a.threads, 1u);
  auto render = [&](std::size_t i) { return piece_json(a, pieces[i]); };
  auto write = [&](const std::string& text) { out << text; };
  if (threads == 1) {
    for (std::size_t i = 0; i < pieces.size(); ++i) write(render(i));
    return;
  }
  render_in_order(pieces.size(), threads, 2 * threads, render, write);
}

}  // namespace

void write_analysis_json(const CaptureAnalysis& a, std::ostream& out, const std::function<AnalysisVerdicts()>& verdicts) {
  // Written piece by piece: one document for a capture of millions of frames would otherwise
  // be a second copy of everything in memory.
  out << "{\"kind\":\"analysis\",\"schema_version\":" << CaptureAnalysis::kSchemaVersion
      << ",\"file\":" << dump_json(json(a.file)) << ",\"packets\":" << a.packets << ",\"tcp_segments\":" << a.tcp_segments
      << ",\"connections\":[";
  write_connections(a, out);
  out << "],\"summary\":" << dump_json(summary_json(a)) << ",\"warnings\":" << dump_json(json(a.warnings));
  const AnalysisVerdicts v = verdicts();
  out << ",\"findings\":" << v.findings << ",\"checklist\":" << v.checklist << "}";
}

void write_analysis_json(const CaptureAnalysis& a, std::ostream& out, const AnalysisVerdicts& verdicts) {
  write_analysis_json(a, out, [&] { return verdicts; });
}

std::string analysis_json(const CaptureAnalysis& a, const AnalysisVerdicts& verdicts) {
  std::ostringstream out;
  write_analysis_json(a, out, verdicts);
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
                  c.info.name.c_str(), to_string(c.info.transport), decryption_text(c.info).c_str(),
                  static_cast<unsigned long long>(c.info.frames), static_cast<unsigned long long>(c.info.tcp.retransmissions),
                  static_cast<unsigned long long>(c.info.tcp.gaps));
    out += line;
    if (c.info.http_requests) {
      std::snprintf(line, sizeof line, "  HTTP: %llu requests, %llu SSE events\n",
                    static_cast<unsigned long long>(c.info.http_requests), static_cast<unsigned long long>(c.info.sse_events));
      out += line;
    }
    if (!c.info.http_error.empty()) out += "  HTTP not read further: " + c.info.http_error + "\n";
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
