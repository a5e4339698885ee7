// `anthro-wb merge` (cli.md): results of one workload from several workers (machines, an
// Indexed Job's pods) merged into one result of their kind, as if one run had made every
// request: counts add up, figures are recomputed from the pooled records, each record keeps
// the file it came from (`worker`).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "session/bench.h"
#include "session/session.h"
#include "util/result.h"

namespace anthro {

struct MergedResult {
  std::variant<BenchResult, SessionResult> result;
  std::string text() const;  // bench_json or session_json
};

// Reads each file (a result file's limit) and merges them. Refused (ErrorClass::Input, naming
// the files): a file that cannot be read or is not a bench or session result, a file given
// twice, results of different kinds, targets or workloads.
Result<MergedResult> merge_result_files(const std::vector<std::string>& paths);

// The merge itself, of results read with bench_from_json / session_from_json, each with the
// name its records keep. Bench: the run spans from the earliest start to the latest end (by
// the wall clock), record times and request numbers are moved onto that one run. Sessions: the
// requests in file order, sent_s moved onto the earliest session's clock by the same rule
// (RunStart::shift_of; a session without anchors is merged unmoved, with a warning); the
// connection's fields are the first file's, `workers` lists each file's own.
BenchResult merge_bench(std::vector<std::pair<std::string, BenchResult>> parts);
SessionResult merge_sessions(std::vector<std::pair<std::string, SessionResult>> parts);

}  // namespace anthro
