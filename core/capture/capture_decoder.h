// A capture as anthro-v1 traffic: TCP segments in, per connection the protocol recognised,
// the negotiation, frames stamped with capture time (spec §6), gaps and desyncs.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "capture/tcp_reassembly.h"
#include "protocol/stream_decoder.h"

namespace anthro {

enum class CaptureTransport { Unknown, Lab, Tls, Http };
const char* to_string(CaptureTransport t);

// What one connection of the capture is, as far as the decoder got.
struct CaptureConnection {
  std::string name;  // client_ip:port-server_ip:port
  std::uint64_t first_packet = 0;  // index in the file of the packet that opened it
  CaptureTransport transport = CaptureTransport::Unknown;
  std::string decryption;  // "ok", "no key", or why frames could not be opened
  std::optional<Blob> offer, answer;
  std::optional<BlobRefusal> negotiation_refusal;
  std::optional<Suite> suite;
  std::string alpn, tls_suite, tls_version;  // TLS connections: what the handshake said
  Bytes tls_client_random;                   // which key log lines belong to it
  std::optional<double> syn_ts, synack_ts, preface_start_ts, negotiated_ts;
  TcpHealth tcp;
  std::uint64_t frames = 0, frames_opened = 0;
};

struct CaptureEvents {
  std::function<void(const CaptureConnection&, const FrameEvent&)> on_frame;
  std::function<void(const CaptureConnection&, Direction, const Blob&)> on_negotiation;
  std::function<void(const CaptureConnection&, Direction, std::uint64_t offset, std::uint64_t bytes)> on_gap;
  std::function<void(const CaptureConnection&, const DesyncEvent&)> on_desync;
  // The application bytes of a connection (decrypted for TLS), in order, as they arrive.
  std::function<void(const CaptureConnection&, Direction, ByteView, double ts)> on_plaintext;
  // Called once per connection at the end, with its final state.
  std::function<void(const CaptureConnection&)> on_connection_end;
};

class CaptureDecoder {
 public:
  CaptureDecoder(const KeyRing& keys, CaptureEvents events);
  ~CaptureDecoder();
  void feed(const TcpSegment& segment);
  void finish();

 private:
  struct Conn;
  TcpEvents events_for(TcpConnection& tcp);
  void on_data(Conn& c, Direction dir, ByteView data, double ts);
  void feed_anthro(Conn& c, Direction dir, ByteView data, double ts);
  void start_anthro(Conn& c, PrefaceMode mode);
  void start_tls(Conn& c);

  const KeyRing& keys_;
  CaptureEvents events_;
  std::uint64_t packet_ = 0;  // of the segment being fed
  std::vector<std::unique_ptr<Conn>> conns_;
  TcpTracker tracker_;
};

}  // namespace anthro
