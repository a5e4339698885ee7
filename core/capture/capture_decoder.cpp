#include "capture/capture_decoder.h"

#include <algorithm>

#include "capture/connection_reader.h"
#include "capture/tls_decoder.h"
#include "profile/profile.h"

namespace anthro {

const char* to_string(CaptureTransport t) {
  switch (t) {
    case CaptureTransport::Lab: return "lab";
    case CaptureTransport::Tls: return "tls";
    case CaptureTransport::Http: return "http";
    case CaptureTransport::Unknown: break;
  }
  return "unknown";
}

namespace {

// TLS lies below the profiles: its records are recognised here, what they carry by ALPN.
bool is_tls_record(ByteView first) { return first.size() >= 3 && first[0] == 0x16 && first[1] == 0x03; }

// A TLS record header (RFC 8446 §5.1: ChangeCipherSpec, alert, handshake or application data,
// version 3.1-3.4, a length no record exceeds) that is not the client's first: a connection
// whose handshake came before the capture. Its bytes are ciphertext, no profile's cleartext.
bool is_tls_record_mid_stream(ByteView first) {
  constexpr std::size_t kMaxRecord = (1u << 14) + 2048;  // TLSCiphertext's limit
  if (first.size() < 5 || first[0] < 0x14 || first[0] > 0x17 || first[1] != 0x03 || first[2] > 0x04) return false;
  const std::size_t length = (std::size_t{first[3]} << 8) | first[4];
  return length > 0 && length <= kMaxRecord;
}

PerProfile<MakeConnectionReader>& reader_table() {
  static PerProfile<MakeConnectionReader> table("register_connection_reader");
  return table;
}

// A format read by a dissector of its own (Profile::dissect): its frames, and at the end what
// it kept of the connection, which the analysis joins with the format's other connections
// (Profile::join_records).
class OwnReader : public ConnectionReader {
 public:
  OwnReader(const Profile& p, const ConnectionReaderContext& context)
      : dissector_(p.dissect()), info_(context.info), events_(context.events) {}
  void feed(Direction dir, ByteView data, double ts) override { dissector_->feed(dir, data, ts, sink()); }
  void finish() override {
    dissector_->finish(info_.closed_ts, sink());
    std::any record = dissector_->take_record();
    if (record.has_value() && events_.on_record) events_.on_record(info_, std::move(record));
  }

 private:
  DissectedSink sink() {
    return [this](const DissectedFrame& f) {
      if (f.refusal.empty()) ++info_.dissected_frames;
      if (events_.on_dissected) events_.on_dissected(info_, f);
    };
  }
  std::unique_ptr<ConnectionDissector> dissector_;
  CaptureConnection& info_;
  const CaptureEvents& events_;
};

}  // namespace

void register_connection_reader(ProfileId id, MakeConnectionReader make) { reader_table().add(id, make); }

MakeConnectionReader connection_reader(ProfileId id) {
  const MakeConnectionReader* make = reader_table().find(id);
  return make ? *make : nullptr;
}

// A CONNECT and the proxy's answer, before the tunnel's own bytes: each side's head, and what
// came after it before the tunnel opened.
struct TunnelHeads {
  static constexpr std::size_t kMaxHead = 16 * 1024;  // a head beyond it is no proxy's
  // What one side may send past its head before the tunnel opens: a client's first flight (a
  // ClientHello, a request), never a stream.
  static constexpr std::size_t kMaxEarly = 256 * 1024;
  std::string head[2];
  Bytes after[2];
  bool complete[2] = {false, false};
  double started = 0;
};

struct CaptureDecoder::Conn {
  CaptureConnection info;
  std::unique_ptr<TunnelHeads> tunnel;  // while a CONNECT waits for its answer
  TcpConnection* tcp = nullptr;
  std::unique_ptr<TlsDecoder> tls;
  std::unique_ptr<ConnectionReader> reader;  // the chosen profile's (or its carrier's)
  bool recognised = false;
  double feeding_tls_ts = 0;  // the arrival time of the TLS records being fed, for the handshake
};

namespace {

// The English is cli.md's `decryption` value.
const MessageTemplate kCaptureMessages[] = {
    {"decryption.ok", "ok", "成功"},
    {"decryption.no_frames", "no frames", "没有帧"},
    {"decryption.no_key", "no key", "没有密钥"},
    {"decryption.authentication", "authentication: no key opens the frames", "认证：没有密钥能打开这些帧"},
    {"decryption.tls", "TLS: {why}", "TLS：{why}"},
    {"decryption.no_handshake", "TLS: no handshake seen", "TLS：未见握手"},
};

}  // namespace

void register_capture_messages() { register_messages(kCaptureMessages); }

MessageText decryption_message(const CaptureConnection& c) {
  switch (c.decryption) {
    case DecryptionState::Pending: return {};
    case DecryptionState::Ok: return {Message("decryption.ok")};
    case DecryptionState::NoFrames: return {Message("decryption.no_frames")};
    case DecryptionState::NoKey: return {Message("decryption.no_key")};
    case DecryptionState::Authentication: return {Message("decryption.authentication")};
    case DecryptionState::Tls: return {Message("decryption.tls", {{"why", c.decryption_detail}})};
    case DecryptionState::NoHandshake: return {Message("decryption.no_handshake")};
  }
  return {};
}

std::string decryption_text(const CaptureConnection& c) { return render(decryption_message(c)); }

bool connection_decrypted(const CaptureConnection& c) {
  return c.decryption == DecryptionState::Ok && (c.frames_opened > 0 || c.http_requests > 0 || c.dissected_frames > 0);
}

std::optional<double> handshake_ms(const CaptureConnection& c) {
  if (!c.handshake_start_ts) return std::nullopt;
  bool tls = c.transport == CaptureTransport::Tls;
  // anthro-v1's handshake ends with its negotiation (spec §6), in the TLS extension or the preface.
  bool negotiates = c.profile == ProfileId::AnthroV1;
  if ((tls && !c.tls_finished_ts) || (negotiates && !c.negotiated_ts) || (!tls && !negotiates)) return std::nullopt;
  double end = std::max(tls ? *c.tls_finished_ts : 0.0, negotiates ? *c.negotiated_ts : 0.0);
  return (end - *c.handshake_start_ts) * 1000;
}

CaptureDecoder::CaptureDecoder(const KeyRing& keys, CaptureEvents events)
    : keys_(keys), events_(std::move(events)), tracker_([this](TcpConnection& tcp) { return events_for(tcp); }) {}

CaptureDecoder::~CaptureDecoder() = default;

void CaptureDecoder::feed(const TcpSegment& segment) {
  packet_ = segment.packet_index;
  tracker_.feed(segment);
}

void CaptureDecoder::finish() {
  tracker_.finish();
  for (auto& c : conns_) {
    if (c->tls) end_tls(*c);
    if (c->reader) c->reader->finish();
    c->reader.reset();
    c->info.tcp = c->tcp->health();
    c->info.syn_ts = c->tcp->syn_ts;
    c->info.synack_ts = c->tcp->synack_ts;
    if (c->info.decryption == DecryptionState::Pending)
      c->info.decryption = c->info.frames == 0 && c->info.http_requests == 0 && c->info.dissected_frames == 0 ? DecryptionState::NoFrames : DecryptionState::Ok;
    if (events_.on_connection_end) events_.on_connection_end(c->info);
  }
}

void CaptureDecoder::end_tls(Conn& c) {
  c.tls->finish();
  c.info.tls_client_random = c.tls->handshake().client_random;
  c.info.alpn_offered = c.tls->handshake().alpn_offered;  // in the clear, keys or not
  c.info.tls_finished_ts = c.tls->handshake().finished_ts;
  if (!c.tls->decrypted()) {
    c.info.decryption = DecryptionState::Tls;
    c.info.decryption_detail = c.tls->status();
  }
}

TcpEvents CaptureDecoder::events_for(TcpConnection& tcp) {
  auto& c = *conns_.emplace_back(std::make_unique<Conn>());
  c.tcp = &tcp;
  c.info.name = tcp.name();
  c.info.client = tcp.client();
  c.info.server = tcp.server();
  c.info.first_packet = packet_;
  if (events_.on_connection_start) events_.on_connection_start(c.info);
  TcpEvents e;
  e.on_data = [this, &c](Direction dir, std::uint64_t, ByteView data, double ts) {
    on_data(c, dir, data, ts);
  };
  e.on_gap = [this, &c](Direction dir, std::uint64_t offset, std::uint64_t bytes, double) {
    if (events_.on_gap) events_.on_gap(c.info, dir, offset, bytes);
  };
  e.on_close = [&c](Direction dir, double ts, bool) {
    if (c.reader) c.reader->close(dir, ts);
    if (c.info.first_close) return;
    c.info.first_close = dir;
    c.info.closed_ts = ts;
  };
  e.on_zero_window = [&c](Direction dir, double start, double end) {
    if (dir == Direction::ServerToClient) c.info.client_zero_windows.emplace_back(start, end);
  };
  e.on_window_full = [&c](Direction dir, double ts) {
    if (dir == Direction::ServerToClient) c.info.client_zero_windows.emplace_back(ts, ts);
  };
  return e;
}

void CaptureDecoder::on_data(Conn& c, Direction dir, ByteView data, double ts) {
  if (c.tunnel) return read_tunnel_heads(c, dir, data, ts);
  if (dir == Direction::ClientToServer && !c.info.handshake_start_ts) c.info.handshake_start_ts = ts;
  if (!c.recognised && dir == Direction::ClientToServer && as_text(data).starts_with("CONNECT ")) {
    c.tunnel = std::make_unique<TunnelHeads>();
    c.tunnel->started = ts;
    c.info.handshake_start_ts.reset();  // the handshake is the tunnel's, once it opens
    return read_tunnel_heads(c, dir, data, ts);
  }
  if (!c.recognised) {
    c.recognised = true;
    recognise(c, dir, data, ts);
  }
  if (c.tls) {
    c.feeding_tls_ts = ts;
    c.tls->feed(dir, data, ts);
    return;
  }
  read_application(c, dir, data, ts);
}

// A proxy's tunnel (RFC 9110 §9.3.6): the CONNECT's head and the answer's are read whole; on
// a 2xx the bytes after them are the tunnelled connection's first, recognised afresh.
void CaptureDecoder::read_tunnel_heads(Conn& c, Direction dir, ByteView data, double ts) {
  TunnelHeads& t = *c.tunnel;
  const int side = dir == Direction::ClientToServer ? 0 : 1;
  std::string& head = t.head[side];
  if (t.complete[side]) {
    if (t.after[side].size() + data.size() > TunnelHeads::kMaxEarly) {
      c.info.http_error = std::string(side == 0 ? "the client" : "the proxy") + " sent over 256 KiB before the tunnel opened";
      c.tunnel.reset();
      c.recognised = true;  // nothing more of it is read
      return;
    }
    t.after[side].insert(t.after[side].end(), data.begin(), data.end());
  } else {
    const std::size_t before = head.size();
    head.append(as_text(data));
    const std::size_t end = head.find("\r\n\r\n", before < 3 ? 0 : before - 3);
    if (end != std::string::npos) {
      t.after[side].assign(head.begin() + static_cast<std::ptrdiff_t>(end + 4), head.end());
      head.resize(end + 4);
      t.complete[side] = true;
    }
  }
  if (!t.complete[side] && head.size() > TunnelHeads::kMaxHead) {
    c.info.http_error = std::string(side == 0 ? "a CONNECT" : "the proxy's answer") + " with a head over 16 KiB";
    c.tunnel.reset();
    c.recognised = true;  // nothing more of it is read
    return;
  }
  if (!t.complete[0] || !t.complete[1]) return;
  auto line_of = [](const std::string& h) { return h.substr(0, std::min<std::size_t>(h.find("\r\n"), 200)); };
  const std::string request = line_of(t.head[0]), answer = line_of(t.head[1]);
  c.info.tunnel = request.substr(8, request.find(' ', 8) == std::string::npos ? std::string::npos : request.find(' ', 8) - 8);
  c.info.tunnel_status = answer;
  c.info.tunnel_ms = (ts - t.started) * 1000;
  const bool opened = answer.size() >= 12 && answer.starts_with("HTTP/1.") && answer[9] == '2';
  c.info.transport = CaptureTransport::Http;  // until the tunnel's bytes say otherwise
  std::unique_ptr<TunnelHeads> done = std::move(c.tunnel);
  if (!opened) {
    c.recognised = true;  // refused: nothing follows but the proxy's body
    return;
  }
  if (!done->after[0].empty()) on_data(c, Direction::ClientToServer, done->after[0], ts);
  if (!done->after[1].empty()) on_data(c, Direction::ServerToClient, done->after[1], ts);
}

// The registry picks the cleartext profile from the client's first bytes; when the server
// spoke first (or the client's bytes were not captured) no heuristic can, and the fallback reads
// it, unless those bytes are TLS records: a TLS connection whose handshake was not captured.
void CaptureDecoder::recognise(Conn& c, Direction dir, ByteView first, double ts) {
  bool from_client = dir == Direction::ClientToServer;
  if (from_client && is_tls_record(first)) {
    c.info.transport = CaptureTransport::Tls;
    start_tls(c);
    return;
  }
  const Profile* found = from_client ? recognise_connection(first) : nullptr;
  if (!found && is_tls_record_mid_stream(first)) {
    c.info.transport = CaptureTransport::Tls;
    c.info.decryption = DecryptionState::NoHandshake;
    return;  // no reader: nothing of it is read
  }
  c.info.transport = CaptureTransport::Lab;  // unless its reader says what it is (HTTP's: http)
  start_reader(c, found ? *found : unrecognised_cleartext_profile(), nullptr, ts);
}

// The profile's own dissector, else its carrier's reader.
void CaptureDecoder::start_reader(Conn& c, const Profile& p, const TlsHandshakeInfo* tls, double ts) {
  c.info.profile = p.id;
  ConnectionReaderContext context{c.info, events_, keys_, packet_, tls, ts};
  if (p.dissect) c.reader = std::make_unique<OwnReader>(p, context);
  else if (MakeConnectionReader make = connection_reader(carrier_of(p).id)) c.reader = make(context);
}

void CaptureDecoder::read_application(Conn& c, Direction dir, ByteView data, double ts) {
  if (events_.on_plaintext) events_.on_plaintext(c.info, dir, data, ts);
  if (c.reader) c.reader->feed(dir, data, ts);
}

// TLS: the records are opened with the key log's TLS secrets, and what they carry is read as
// the profile the handshake's ALPN names.
void CaptureDecoder::start_tls(Conn& c) {
  TlsDecoder::Events ev;
  ev.on_handshake = [this, &c](const TlsHandshakeInfo& h) {
    c.info.alpn = h.alpn_selected;
    c.info.tls_suite = h.cipher_suite;
    c.info.tls_client_random = h.client_random;
    c.info.tls_version = h.version;
    c.info.alpn_offered = h.alpn_offered;
    if (const Profile* p = profile_for_handshake(h.alpn_selected, !h.alpn_offered.empty())) start_reader(c, *p, &h, c.feeding_tls_ts);
  };
  ev.on_application_data = [this, &c](Direction dir, ByteView plaintext, double ts) {
    read_application(c, dir, plaintext, ts);
  };
  const KeyRing* keys = &keys_;
  c.tls = std::make_unique<TlsDecoder>(
      [keys](std::string_view label, ByteView random) { return keys->tls_secret(label, random); }, std::move(ev));
}

}  // namespace anthro
