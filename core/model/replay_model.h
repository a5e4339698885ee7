// The endpoint's second source of reply plans (`anthro-wb endpoint --replay`): streams recorded
// in a capture or a saved result, played again in turn by the same servers that play the
// simulated model's plans — their texts, TTFT, gaps (stalls included) and ends as recorded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/request_result.h"
#include "model/simulated_model.h"
#include "profile/profile.h"

namespace anthro {

// The longest wait a replay plays (a TTFT or a gap): a longer one is cut to it and counted, so
// a hostile or clock-jumped recording cannot park a stream for hours.
inline constexpr double kMaxReplayWaitMs = 10 * 60 * 1000;

struct RecordedStream {
  ProfileId protocol = ProfileId::AnthroV1;  // the carrier the request came on
  std::optional<std::string> probe;          // the checklist item its request fed, if a probe
  ReplyPlan plan;                            // as recorded
  std::uint32_t waits_cut = 0;               // waits beyond kMaxReplayWaitMs, cut to it
};

// A record as the plan that plays it again: the TTFT split as the server's timing said (else
// all prefill), one token step per recorded arrival with its text and the gap before it, and
// its end — a reply with its stop reason (a cancelled one ends as end_turn unless the new
// client cancels too), the server's error with code and retry_after_ms after the tokens before
// it, or a reset after the last token seen when the connection was cut. A stream the server
// never answered (no token, no end) has no plan. `text` is the record's text (a capture's may
// wait in a temporary file).
std::optional<RecordedStream> recorded_stream(const RequestResult& r, std::string_view text, ProfileId protocol);

// Recorded streams in turn, per protocol and probe: a probe request gets the next stream of
// its own item, any other request the next ordinary stream of its protocol; a request whose
// protocol or item has none gets the next of any protocol (then any stream at all). Each list
// cycles when it runs out. Nothing is drawn at random: the same requests in the same order get
// the same streams. Used on the endpoint's loop thread only.
class ReplayModel {
 public:
  explicit ReplayModel(std::vector<RecordedStream> streams);
  // The next plan for `request` on `protocol`, cut to its max_tokens (stop max_tokens).
  ReplyPlan plan(ProfileId protocol, const ReplyRequest& request);
  // How many streams each protocol has (for the start-up line).
  std::map<ProfileId, std::size_t> counts() const;
  bool empty() const { return streams_.empty(); }

 private:
  struct Queue {
    std::vector<std::size_t> streams;
    std::size_t next = 0;
  };
  using Key = std::pair<std::optional<ProfileId>, std::string>;  // no protocol: any; "" : ordinary
  Queue* find(const Key& key);

  std::vector<RecordedStream> streams_;
  std::map<Key, Queue> queues_;
  Queue all_;
};

}  // namespace anthro
