// What the sources of a diagnosis measured, in one shape whether it came from a live run or a
// capture, so each checklist item is computed one way. Built by observe_capture (capture
// analysis) and the live workload (live_workload.h); system probes fill `system`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/request_result.h"
#include "profile/profile.h"
#include "util/message.h"

namespace anthro {

struct ObservedConnection {
  std::string name;   // capture: client-server address pair; live: "live#N"
  std::string alpn;   // what the server selected; empty when none (lab, cleartext) or hidden
  std::optional<ProfileId> profile;  // the wire format it spoke, when a capture could tell
  std::vector<std::string> alpn_offered;  // the ClientHello's list, when captured
  bool offered_anthro = false;  // the client offered anthro-v1 in ALPN (or spoke it in the clear)
  bool anthro = false;          // anthro-v1 frames flowed on it
  bool probe_only = false;      // it carried only the workbench's own probe requests
  std::optional<double> opened, closed;  // seconds, the clock of its requests
  // Intervals in which the client advertised a zero receive window (its ring was full).
  std::vector<std::pair<double, double>> client_zero_windows;
  bool client_closed_first = false;  // the client sent FIN or RST before the server did
  bool server_closed_first = false;
};

// A request as the checklist sees it. Its record is its own (a live run's), or borrowed from the
// capture analysis it was observed in (observe_capture without texts: not a copy of every
// record, which a big capture's findings made; the caller keeps the analysis for as long).
struct ObservedRequest {
  ObservedRequest() = default;
  ObservedRequest(const ObservedRequest& other)
      : connection(other.connection), anthro(other.anthro), borrowed_(other.borrowed_),
        own_(other.own_ ? std::make_unique<RequestResult>(*other.own_) : nullptr) {}
  ObservedRequest& operator=(const ObservedRequest& other) { return *this = ObservedRequest(other); }
  ObservedRequest(ObservedRequest&&) noexcept = default;
  ObservedRequest& operator=(ObservedRequest&&) noexcept = default;

  const RequestResult& record() const { return own_ ? *own_ : borrowed_ ? *borrowed_ : empty(); }
  void own(RequestResult r) {
    own_ = std::make_unique<RequestResult>(std::move(r));
    borrowed_ = nullptr;
  }
  // Its own record to change (a borrowed one is copied first).
  RequestResult& edit() {
    if (!own_) own_ = std::make_unique<RequestResult>(record());
    borrowed_ = nullptr;
    return *own_;
  }
  void borrow(const RequestResult& r) {
    own_.reset();
    borrowed_ = &r;
  }

  std::size_t connection = 0;  // index into Observations::connections
  bool anthro = true;          // anthro-v1, else the HTTP baseline

 private:
  static const RequestResult& empty() {
    static const RequestResult none;
    return none;
  }
  const RequestResult* borrowed_ = nullptr;
  std::unique_ptr<RequestResult> own_;
};

// A prompt sent over the HTTP baseline and over anthro-v1 (the utf8-mismatch probe).
struct Utf8Pair {
  std::optional<std::size_t> baseline, candidate;  // indexes into Observations::requests
};

struct NicReading {
  double t = 0;  // seconds, monotonic
  std::uint64_t drops = 0;  // rx_missed_errors + rx_dropped + rx_fifo_errors over the interfaces
};

struct SystemState {
  bool probed = false;
  std::optional<unsigned long> openssl_version;  // OPENSSL_VERSION_NUMBER form
  std::string openssl_text;
  std::vector<std::string> governors;  // per CPU, as read
  std::optional<double> cpu_mhz;       // the mean current frequency
  std::vector<NicReading> nic;
  std::vector<std::string> nic_interfaces;
  std::optional<double> clock_offset_ms;     // chronyc tracking, when chronyc exists
  std::optional<std::uint64_t> rmem_max, wmem_max;  // net.core.{r,w}mem_max
  std::vector<std::string> problems;         // what could not be read, and why
};

// A tool's input_schema as the model side holds it against its client handler's schema, for a
// probe that compares them. No wire carries schemas, so the pair comes from the files given to
// diagnose (--tool-schema, --handler-schema), whatever else is measured.
struct ToolSchemaPair {
  std::string tool_file, handler_file;
  nlohmann::json tool, handler;
};

struct Observations {
  bool live = false, capture = false;
  std::string target, capture_file;
  std::vector<ObservedConnection> connections;
  std::vector<ObservedRequest> requests;  // HTTP-baseline requests included (see `connections`)
  std::vector<Utf8Pair> utf8_pairs;
  // Frames that could not be used though keys were there (authentication failures); the
  // token-index gaps and repeats are per request.
  std::uint64_t frames = 0, frames_refused = 0;
  SystemState system;
  // What each wire format kept beyond requests (say, its sessions), from the live client
  // or a capture's dissector (Profile::join_records).
  FormatRecords records;
  std::vector<ToolSchemaPair> tool_schemas;
  // For a person, each in any language; a lower layer's English line (a session's, a
  // capture's) rides as `plain_text`.
  std::vector<MessageText> warnings;
};

}  // namespace anthro
