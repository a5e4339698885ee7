// One pass over a capture file: the decode events of cli.md `decode` and the per-connection,
// per-stream timing and TCP health of `analyze`.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "capture/capture_decoder.h"
#include "capture/capture_file.h"
#include "metrics/request_result.h"
#include "metrics/stats.h"
#include "util/spill.h"

namespace anthro {

struct CaptureKeySources {
  std::vector<std::string> keylog_files;
  std::vector<std::string> server_key_files;  // X25519 PKCS#8 PEM
};

struct ConnectionAnalysis {
  CaptureConnection info;
  std::vector<RequestResult> streams;
  // Aligned with `streams`: where a finished stream's text went once the texts kept in memory
  // passed kResidentTextBudget (its `text` is then empty). Read it with CaptureAnalysis::text().
  std::vector<std::optional<SpillExtent>> spilled_text;
  std::shared_ptr<const SpillFile> spill;  // where they went; null when nothing was spilled
};

struct CaptureAnalysis {
  static constexpr std::size_t kResidentTextBudget = 4u << 20;
  static constexpr int kSchemaVersion = 1;  // of the analyze JSON document

  std::string file;
  std::vector<ConnectionAnalysis> connections;
  std::vector<std::string> warnings;  // truncation, malformed packets, key log problems
  std::optional<CaptureTruncation> truncation;  // the file ended inside a record (also a warning)
  std::uint64_t packets = 0, tcp_segments = 0;
  unsigned threads = 1;  // the pass's decoding threads; its JSON is rendered on as many
  std::vector<std::string> embedded_keylogs;  // the capture's own DSB key log texts
  // What each format kept beyond its rows, joined across connections (Profile::join_records:
  // the shape its live client records too).
  FormatRecords records;

  // A stream's text, wherever it is kept. Empty if the temporary file cannot be read back.
  static std::string text(const ConnectionAnalysis& c, std::size_t stream);
};

// One line of `decode --format jsonl`.
using DecodeSink = std::function<void(const std::string& json_line)>;

// What one decoding lane reports as it decodes, called on a thread of the pass (a lane's calls
// never overlap, each happening after the one before), so an observer does not hold the pass to
// one thread; it must never wait for another lane. `packet` is the file's packet (0-based) whose
// segment produced the event: a lane reports in packet order, lanes interleaved; what a lane reports at
// the capture's end (incomplete frames) carries kEndOfCapture. Connections open (on_connection)
// before anything else of theirs, so ordered by packet they open in the order of the result's
// `connections`. progress(packets): everything of the packets below `packets` is reported;
// the lane's last call says kEndOfCapture.
struct LaneObserver {
  static constexpr std::uint64_t kEndOfCapture = ~std::uint64_t{0};
  std::function<void(std::uint64_t packet, const CaptureConnection&)> on_connection;
  std::function<void(std::uint64_t packet, const CaptureConnection&, const FrameEvent&)> on_frame;
  std::function<void(std::uint64_t packet, const CaptureConnection&, Direction, const Blob&)> on_negotiation;
  // HTTP messages and SSE events.
  std::function<void(std::uint64_t packet, const CaptureConnection&, const HttpEvent&)> on_http;
  // Frames a profile's own dissector cut (CaptureEvents::on_dissected).
  std::function<void(std::uint64_t packet, const CaptureConnection&, const DissectedFrame&)> on_dissected;
  std::function<void(std::uint64_t packets)> progress;
};

// What a finished stream keeps of its samples: nothing, its ITL samples, or its whole timeline.
enum class KeptSamples { None, ItlSamples, Timelines };

struct AnalyzeOptions {
  // Called about every MiB of the file and at the end; returning false cancels the analysis.
  std::function<bool(std::uint64_t bytes_done, std::uint64_t file_size)> progress;
  // Decoding threads (connections are split among lanes, four a thread, that any free thread
  // runs); 0 is every core (one for a file under 8 MiB). A decode sink always gets one, so its
  // lines keep capture order. observe_lane does not. The result does not depend on it.
  unsigned threads = 0;
  static constexpr unsigned kMaxThreads = 1024;  // more is a mistake, not a machine
  // Finished streams' texts kept in memory beyond this go to a temporary file.
  std::size_t text_budget = CaptureAnalysis::kResidentTextBudget;
  // Keep each finished stream's ITL samples (figures.itl_ms), e.g. for a histogram; 8 bytes
  // per token. Off, none is kept: the figures are computed from samples held only meanwhile.
  bool keep_itl_samples = false;
  // Keep each finished stream's token arrivals too (timeline.tokens, with the text each carried),
  // for a replay; 24 bytes per token.
  bool keep_timelines = false;
  KeptSamples kept() const {
    return keep_timelines ? KeptSamples::Timelines : keep_itl_samples ? KeptSamples::ItlSamples : KeptSamples::None;
  }
  // Called once for each decoding lane (0 .. lanes - 1) before the pass, on the calling thread;
  // what it returns observes that lane.
  std::function<LaneObserver(unsigned lane, unsigned lanes)> observe_lane;
};

// Reads `path` once. Keys come from the files given and from the capture's own DSBs.
// Errors (reason "input") name the file and, where it applies, the byte offset; a cancelled
// run gives reason "cancelled". Connections come in the order of their first packet.
Result<CaptureAnalysis> analyze_capture(const std::string& path, const CaptureKeySources& keys,
                                        const DecodeSink& decode_sink = {}, const AnalyzeOptions& options = {});

// The document's `findings` and `checklist` arrays, as JSON text. core/capture walks no
// checklist: core/diagnosis does (write_analyze_json there) and hands them in.
struct AnalysisVerdicts {
  std::string findings = "[]", checklist = "[]";
};

// cli.md `analyze --format json` with kind "analysis" and schema_version
// (resources/schemas/analysis.schema.json), written to `out` piece by piece, or as one string.
void write_analysis_json(const CaptureAnalysis& analysis, std::ostream& out, const AnalysisVerdicts& verdicts = {});
// The same with the verdicts asked for once the connections are written (they come last), so
// they can be made on another thread meanwhile.
void write_analysis_json(const CaptureAnalysis& analysis, std::ostream& out,
                         const std::function<AnalysisVerdicts()>& verdicts);
std::string analysis_json(const CaptureAnalysis& analysis, const AnalysisVerdicts& verdicts = {});
std::string analysis_text(const CaptureAnalysis& analysis);  // the human summary

}  // namespace anthro
