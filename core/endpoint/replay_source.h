// Where `endpoint --replay` gets its recorded streams: a capture, through the same analysis
// `analyze` runs (keys from the files given and the capture's own), or a saved result with
// request records (session requests[], bench records[], analyze and diagnose
// connections[].streams[]).
#pragma once

#include <string>
#include <vector>

#include "capture/analysis.h"
#include "model/replay_model.h"
#include "util/result.h"

namespace anthro {

struct ReplaySource {
  std::string file;
  std::vector<RecordedStream> streams;  // in the order their requests were sent
  std::vector<std::string> notes;       // for a person: what was left out, and why
};

// Errors (ErrorClass::Input) name the file and what is wrong: unreadable, neither a capture
// nor a result with request records, a record of the wrong shape, or no stream to replay
// (with why: connections no key opened, formats the endpoint does not replay).
Result<ReplaySource> load_replay(const std::string& path, const CaptureKeySources& keys);

// What a start-up says, one line each: the streams per protocol the endpoint serves, a
// protocol with none (its requests get any protocol's), and the notes.
std::vector<std::string> replay_summary(const ReplaySource& source);

}  // namespace anthro
