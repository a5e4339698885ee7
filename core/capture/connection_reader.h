// How a carrier format (anthro-v1, HTTP/1.1, HTTP/2) reads one connection of a capture, as its
// folder registers it: the capture decoder hands the connection's application bytes (decrypted
// for TLS) to the reader of the profile chosen for it, or of the profile that one rides on. A
// format with a dissector of its own (Profile::dissect) needs no reader.
#pragma once

#include <cstdint>
#include <memory>

#include "capture/capture_decoder.h"
#include "capture/tls_decoder.h"

namespace anthro {

class ConnectionReader {
 public:
  virtual ~ConnectionReader() = default;
  // The next application bytes of one direction, in order.
  virtual void feed(Direction dir, ByteView data, double ts) = 0;
  // A direction's FIN or RST.
  virtual void close(Direction, double) {}
  // The capture ended: report what is still open into the connection's record.
  virtual void finish() = 0;
};

// What a reader reports into: the connection's record (its counters and state), the decoder's
// events, its keys, and the index of the packet being fed.
struct ConnectionReaderContext {
  CaptureConnection& info;
  const CaptureEvents& events;
  const KeyRing& keys;
  const std::uint64_t& packet;
  // TLS connections: the handshake that chose the reader; null in cleartext.
  const TlsHandshakeInfo* tls = nullptr;
  // The capture time of the bytes being fed (of the TLS records while the handshake is read).
  double ts = 0;
};

using MakeConnectionReader = std::unique_ptr<ConnectionReader> (*)(const ConnectionReaderContext& context);
// Called from the format's folder, once, when the built-in formats register.
void register_connection_reader(ProfileId id, MakeConnectionReader make);
// The reader registered for `id`, or nullptr.
MakeConnectionReader connection_reader(ProfileId id);

}  // namespace anthro
