// The HTTP rider seam, its reading half: a wire format that rides on the HTTP Messages API
// (its own media type, headers and body on the same requests) reads the reply of a request it
// claimed through a RiderReply, which HttpReplyRecorder hands the head, body, trailers and end.
// The live clients and the capture's HTTP dissector make one per exchange from the parts the
// format registered (session/http_rider.h, capture/http_rider.h), so a reply reads one way
// live and captured; docs/profiles.md ("Adding a wire format") shows the whole seam.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace anthro {

class HttpReplyRecorder;

class RiderReply {
 public:
  using HeaderLookup = std::function<std::string(const char* name)>;
  virtual ~RiderReply() = default;
  // The reply's head: read its fields into the record (reply.result()) and give the recorder
  // the status and the error's Retry-After (reply.head(status, ms)). True: the body is the
  // rider's to read; false: the API's reader reads it (SSE, JSON, an error).
  virtual bool head(int status, const HeaderLookup& header, HttpReplyRecorder& reply) = 0;
  // Body bytes that arrived at `t`, when head() took the body: tokens go to reply.token().
  virtual void body(std::string_view piece, double t, HttpReplyRecorder& reply) = 0;
  // A chunked body's trailer fields (names lowercased), whoever reads the body.
  virtual void trailers(const std::vector<std::pair<std::string, std::string>>& fields, HttpReplyRecorder& reply) = 0;
  // The body head() took ended at `t` with a 200: record the request's end (reply.recorder()).
  virtual void end(double t, HttpReplyRecorder& reply) = 0;

  // A rider that adds fields to the API's own replies reads them and never the body: the
  // recorder is handed another rider's reader, or none; the engine gives it the parts below.
  virtual bool fields_only() const { return false; }
  // One chunk's extensions (`;name=value` after its size), as the reply arrives.
  virtual void chunk_extensions(const std::vector<std::pair<std::string, std::string>>& /*extensions*/) {}
  // The reply was read whole, whoever read its body: its status, head fields and trailer
  // fields again, and its recorder (the record, the error body's type).
  virtual void finished(int /*status*/, const HeaderLookup& /*header*/,
                        const std::vector<std::pair<std::string, std::string>>& /*trailers*/, HttpReplyRecorder& /*reply*/) {}
};

}  // namespace anthro
