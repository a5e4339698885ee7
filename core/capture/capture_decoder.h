// A capture as anthro-v1 traffic: TCP segments in, per connection the protocol recognised,
// the negotiation, frames stamped with capture time (spec §6), gaps and desyncs.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>

#include "util/message.h"
#include "capture/http_event.h"
#include "metrics/request_result.h"
#include "capture/tcp_reassembly.h"
#include "profile/profile.h"
#include "protocol/stream_decoder.h"

namespace anthro {

// What carries a connection, as cli.md's `transport` names it: TLS, cleartext HTTP, or any
// other cleartext ("lab"). Not a protocol: which profile reads it is `profile`.
enum class CaptureTransport { Unknown, Lab, Tls, Http };
const char* to_string(CaptureTransport t);

struct TlsHandshakeInfo;

// Whether a connection's frames could be read and, when not, why.
enum class DecryptionState {
  Pending,         // the pass has not finished the connection
  Ok,              // its frames were opened
  NoFrames,        // no anthro-v1 frame and no HTTP request in it
  NoKey,           // frames, and no key for their connection token
  Authentication,  // keys were tried and none opened the frames
  Tls,             // its TLS records could not be decrypted (decryption_detail says why)
  NoHandshake,     // TLS records from its first byte on, its handshake before the capture: never read
};

// What one connection of the capture is, as far as the decoder got.
struct CaptureConnection {
  std::string name;  // client_ip:port-server_ip:port
  IpEndpoint client, server;  // the TCP endpoints the name spells
  std::uint64_t first_packet = 0;  // index in the file of the packet that opened it
  CaptureTransport transport = CaptureTransport::Unknown;
  DecryptionState decryption = DecryptionState::Pending;
  std::string decryption_detail;  // Tls: the TLS decoder's reason
  std::optional<Blob> offer, answer;
  std::optional<BlobRefusal> negotiation_refusal;
  std::optional<Suite> suite;
  std::string alpn, tls_suite, tls_version;  // TLS connections: what the handshake said
  Bytes tls_client_random;                   // which key log lines belong to it
  std::optional<double> syn_ts, synack_ts;
  // Spec §6 handshake: from the first client byte (the ClientHello; lab: the preface) to the
  // later of the TLS Finished (the handshake's last) and the negotiation's answer. See handshake_ms.
  std::optional<double> handshake_start_ts, tls_finished_ts, negotiated_ts;
  std::vector<std::string> alpn_offered;  // TLS: the ClientHello's ALPN list
  std::optional<Direction> first_close;   // who sent the first FIN or RST
  std::optional<double> closed_ts;        // when
  // The client's receive window at zero (its ring full), from start to end, or filled by the
  // server's bytes at an instant (start == end).
  std::vector<std::pair<double, double>> client_zero_windows;
  std::uint64_t http_requests = 0, http_probe_requests = 0;  // HTTP: requests read; those marked anthro_probe
  std::uint64_t sse_events = 0;                               // HTTP: SSE events read in the replies
  std::string http_error;  // HTTP: why the connection stopped being read as HTTP, if it did
  // A connection to a forward proxy that began with CONNECT: the authority it asked for, the
  // proxy's status line, and the round trip from the CONNECT's first byte to that answer's
  // end. A tunnel opened (2xx) is read from its next byte as any connection is from its first.
  std::string tunnel, tunnel_status;
  std::optional<double> tunnel_ms;
  TcpHealth tcp;
  std::uint64_t frames = 0, frames_opened = 0;
  std::uint64_t dissected_frames = 0;  // a profile's own dissector: frames cut (refusals not counted)
  // The profile whose dissector reads it (by ALPN, or by its first client bytes); none while
  // TLS keeps it hidden or nothing was read yet.
  std::optional<ProfileId> profile;
};

// cli.md's `decryption`: "ok", "no frames", "no key", "authentication: no key opens the frames",
// "TLS: no handshake seen", "TLS: <why>"; empty while pending.
std::string decryption_text(const CaptureConnection& c);
// The same in any language (util/message.h); empty while pending. TLS's own reason stays as the
// decoder wrote it.
MessageText decryption_message(const CaptureConnection& c);
// The capture's texts in the message catalogue.
void register_capture_messages();
// Whether something of the connection was read: frames opened, HTTP requests or a format's own
// frames, none of it refused as undecryptable (what a capture's "N decrypted" counts).
bool connection_decrypted(const CaptureConnection& c);

// Spec §6 `handshake` from packet times; null while a piece it needs was not seen (a TLS
// handshake without its secrets, a capture that starts mid-connection).
std::optional<double> handshake_ms(const CaptureConnection& c);

struct CaptureEvents {
  std::function<void(const CaptureConnection&, const FrameEvent&)> on_frame;
  std::function<void(const CaptureConnection&, Direction, const Blob&)> on_negotiation;
  std::function<void(const CaptureConnection&, Direction, std::uint64_t offset, std::uint64_t bytes)> on_gap;
  std::function<void(const CaptureConnection&, const DesyncEvent&)> on_desync;
  // The application bytes of a connection (decrypted for TLS), in order, as they arrive.
  std::function<void(const CaptureConnection&, Direction, ByteView, double ts)> on_plaintext;
  // HTTP connections: each request, reply head and SSE event, and each exchange as it ends
  // (its `packets` and `stream_id` set; streams end before their connection does).
  std::function<void(const CaptureConnection&, const HttpEvent&)> on_http;
  std::function<void(const CaptureConnection&, RequestResult&)> on_http_exchange;
  // Connections a profile's own dissector reads (profile/dissector.h): each frame as it is cut.
  std::function<void(const CaptureConnection&, const DissectedFrame&)> on_dissected;
  // What such a dissector keeps of its connection beyond the frames (ConnectionDissector::
  // take_record), once the connection ended (before on_connection_end).
  std::function<void(const CaptureConnection&, std::any&&)> on_record;
  // Called once per connection at its first packet (so in the order analyze_capture lists
  // connections), and once at the end with its final state.
  std::function<void(const CaptureConnection&)> on_connection_start;
  std::function<void(const CaptureConnection&)> on_connection_end;
};

class CaptureDecoder {
 public:
  CaptureDecoder(const KeyRing& keys, CaptureEvents events);
  ~CaptureDecoder();
  void feed(const TcpSegment& segment);
  void finish();
  // The packet (0-based index in the file) whose segment is being fed: the one that completes
  // a frame reported now.
  std::uint64_t packet() const { return packet_; }

 private:
  struct Conn;
  TcpEvents events_for(TcpConnection& tcp);
  void on_data(Conn& c, Direction dir, ByteView data, double ts);
  void recognise(Conn& c, Direction dir, ByteView first, double ts);
  void read_tunnel_heads(Conn& c, Direction dir, ByteView data, double ts);
  void start_reader(Conn& c, const Profile& p, const TlsHandshakeInfo* tls, double ts);
  void read_application(Conn& c, Direction dir, ByteView data, double ts);
  void start_tls(Conn& c);
  void end_tls(Conn& c);

  const KeyRing& keys_;
  CaptureEvents events_;
  std::uint64_t packet_ = 0;  // of the segment being fed
  std::vector<std::unique_ptr<Conn>> conns_;
  TcpTracker tracker_;
};

}  // namespace anthro
