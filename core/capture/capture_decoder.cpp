#include "capture/capture_decoder.h"

#include <algorithm>

#include "capture/http2_dissector.h"
#include "capture/http_dissector.h"
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

CaptureTransport cleartext_transport(const Profile& p) {
  bool http = p.dissector == Dissector::Http || p.dissector == Dissector::Http2;
  return http ? CaptureTransport::Http : CaptureTransport::Lab;
}

}  // namespace

struct CaptureDecoder::Conn {
  CaptureConnection info;
  TcpConnection* tcp = nullptr;
  std::unique_ptr<ConnectionDecoder> anthro;
  std::unique_ptr<TlsDecoder> tls;
  std::unique_ptr<HttpDissector> http;  // HTTP connections
  std::unique_ptr<Http2Dissector> http2;  // HTTP/2 connections
  std::unique_ptr<ConnectionDissector> own;  // a profile's own dissector
  bool recognised = false;
  double feeding_ts = 0;      // the arrival time of the bytes being fed, for the negotiation
  double feeding_tls_ts = 0;  // the same for TLS records, for a negotiation in the handshake
};

std::string decryption_text(const CaptureConnection& c) {
  switch (c.decryption) {
    case DecryptionState::Pending: return "";
    case DecryptionState::Ok: return "ok";
    case DecryptionState::NoFrames: return "no frames";
    case DecryptionState::NoKey: return "no key";
    case DecryptionState::Authentication: return "authentication: no key opens the frames";
    case DecryptionState::Tls: return "TLS: " + c.decryption_detail;
  }
  return "";
}

std::optional<double> handshake_ms(const CaptureConnection& c) {
  if (!c.handshake_start_ts) return std::nullopt;
  bool tls = c.transport == CaptureTransport::Tls;
  const Profile* by_alpn = profile_for_alpn(c.alpn);
  bool anthro = c.transport == CaptureTransport::Lab || (by_alpn && by_alpn->dissector == Dissector::AnthroV1);
  if ((tls && !c.tls_finished_ts) || (anthro && !c.negotiated_ts) || (!tls && !anthro)) return std::nullopt;
  double end = std::max(tls ? *c.tls_finished_ts : 0.0, anthro ? *c.negotiated_ts : 0.0);
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
    if (c->tls) {
      c->tls->finish();
      c->info.tls_client_random = c->tls->handshake().client_random;
      c->info.alpn_offered = c->tls->handshake().alpn_offered;  // in the clear, keys or not
      c->info.tls_finished_ts = c->tls->handshake().finished_ts;
      if (!c->tls->decrypted()) {
        c->info.decryption = DecryptionState::Tls;
        c->info.decryption_detail = c->tls->status();
      }
    }
    if (c->anthro) c->anthro->finish();
    if (c->http) {
      c->http->finish();
      c->info.http_error = c->http->error();
    }
    if (c->http2) {
      c->http2->finish();
      c->info.http_error = c->http2->error();
    }
    if (c->own) end_own(*c);
    c->info.tcp = c->tcp->health();
    c->info.syn_ts = c->tcp->syn_ts;
    c->info.synack_ts = c->tcp->synack_ts;
    if (c->info.decryption == DecryptionState::Pending)
      c->info.decryption = c->info.frames == 0 && c->info.http_requests == 0 && c->info.dissected_frames == 0 ? DecryptionState::NoFrames : DecryptionState::Ok;
    if (events_.on_connection_end) events_.on_connection_end(c->info);
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
    if (c.http) c.http->close(dir, ts);
    if (c.http2) c.http2->close(dir, ts);
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
  if (dir == Direction::ClientToServer && !c.info.handshake_start_ts) c.info.handshake_start_ts = ts;
  if (!c.recognised) {
    c.recognised = true;
    recognise(c, dir, data);
  }
  if (c.tls) {
    c.feeding_tls_ts = ts;
    c.tls->feed(dir, data, ts);
    return;
  }
  feed_anthro(c, dir, data, ts);
}

// The registry picks the cleartext dissector from the client's first bytes; when the server
// spoke first (or the client's bytes were not captured) no heuristic can, and the fallback reads it.
void CaptureDecoder::recognise(Conn& c, Direction dir, ByteView first) {
  bool from_client = dir == Direction::ClientToServer;
  if (from_client && is_tls_record(first)) {
    c.info.transport = CaptureTransport::Tls;
    start_tls(c);
    return;
  }
  const Profile* found = from_client ? recognise_connection(first) : nullptr;
  const Profile& p = found ? *found : unrecognised_cleartext_profile();
  c.info.transport = cleartext_transport(p);
  start_dissector(c, p, PrefaceMode::Detect);
}

void CaptureDecoder::start_dissector(Conn& c, const Profile& p, PrefaceMode mode) {
  c.info.profile = p.id;
  switch (p.dissector) {
    case Dissector::AnthroV1: start_anthro(c, mode); break;
    case Dissector::Http: start_http(c); break;
    case Dissector::Http2: start_http2(c); break;
    case Dissector::Own: start_own(c, p); break;
  }
}

void CaptureDecoder::start_own(Conn& c, const Profile& p) { c.own = p.dissect(); }

DissectedSink CaptureDecoder::dissected_sink(Conn& c) {
  return [this, &c](const DissectedFrame& f) {
    if (f.refusal.empty()) ++c.info.dissected_frames;
    if (events_.on_dissected) events_.on_dissected(c.info, f);
  };
}

void CaptureDecoder::feed_anthro(Conn& c, Direction dir, ByteView data, double ts) {
  if (events_.on_plaintext) events_.on_plaintext(c.info, dir, data, ts);
  if (c.http) read_http(c, dir, data, ts);
  if (c.http2) read_http2(c, dir, data, ts);
  if (c.own) c.own->feed(dir, data, ts, dissected_sink(c));
  if (!c.anthro) return;
  c.feeding_ts = ts;
  c.anthro->feed(dir, data, ts);
}

void CaptureDecoder::start_anthro(Conn& c, PrefaceMode mode) {
  ConnectionDecoder::Events ev;
  ev.on_negotiation = [this, &c](Direction d, const Blob& blob, std::optional<BlobRefusal> refusal) {
    (d == Direction::ClientToServer ? c.info.offer : c.info.answer) = blob;
    if (refusal) c.info.negotiation_refusal = refusal;
    if (d == Direction::ServerToClient) {
      c.info.negotiated_ts = c.feeding_ts;
      if (!refusal && (blob.aead == kSuiteAes256Gcm || blob.aead == kSuiteChaCha20Poly1305))
        c.info.suite = static_cast<Suite>(blob.aead);
    }
    if (events_.on_negotiation) events_.on_negotiation(c.info, d, blob);
  };
  ev.on_frame = [this, &c](const FrameEvent& e) {
    ++c.info.frames;
    if (e.decrypted) ++c.info.frames_opened;
    if (e.suite) c.info.suite = e.suite;
    DecryptionState& d = c.info.decryption;
    if (e.no_key && d == DecryptionState::Pending) d = DecryptionState::NoKey;
    if (e.refusal == FrameReason::Authentication && d == DecryptionState::Pending) d = DecryptionState::Authentication;
    if (e.decrypted && (d == DecryptionState::NoKey || d == DecryptionState::Authentication)) d = DecryptionState::Pending;
    if (events_.on_frame) events_.on_frame(c.info, e);
  };
  ev.on_desync = [this, &c](const DesyncEvent& e) {
    if (events_.on_desync) events_.on_desync(c.info, e);
  };
  c.anthro = std::make_unique<ConnectionDecoder>(keys_, std::move(ev), mode);
}

void CaptureDecoder::start_http(Conn& c) {
  HttpDissector::Events ev;
  ev.on_event = [this, &c](const HttpEvent& e) {
    if (events_.on_http) events_.on_http(c.info, e);
  };
  ev.on_exchange = [this, &c](RequestResult& r) {
    if (events_.on_http_exchange) events_.on_http_exchange(c.info, r);
  };
  c.http = std::make_unique<HttpDissector>(std::move(ev));
}

void CaptureDecoder::start_http2(Conn& c) {
  Http2Dissector::Events ev;
  ev.on_event = [this, &c](const HttpEvent& e) {
    if (events_.on_http) events_.on_http(c.info, e);
  };
  ev.on_exchange = [this, &c](RequestResult& r) {
    if (events_.on_http_exchange) events_.on_http_exchange(c.info, r);
  };
  c.http2 = std::make_unique<Http2Dissector>(std::move(ev));
}

void CaptureDecoder::read_http2(Conn& c, Direction dir, ByteView data, double ts) {
  c.http2->feed(dir, data, ts, packet_);
  c.info.http_requests = c.http2->requests();
  c.info.http_probe_requests = c.http2->probe_requests();
  c.info.sse_events = c.http2->sse_events();
}

// An HTTP connection's requests and replies, counted with those the workbench sent as probes.
void CaptureDecoder::read_http(Conn& c, Direction dir, ByteView data, double ts) {
  c.http->feed(dir, data, ts, packet_);
  c.info.http_requests = c.http->requests();
  c.info.http_probe_requests = c.http->probe_requests();
  c.info.sse_events = c.http->sse_events();
}

// What the dissector keeps of the connection goes to the analysis, which joins it with the
// format's other connections (Profile::join_records).
void CaptureDecoder::end_own(Conn& c) {
  c.own->finish(c.info.closed_ts, dissected_sink(c));
  std::any record = c.own->take_record();
  if (record.has_value() && events_.on_record) events_.on_record(c.info, std::move(record));
  c.own.reset();
}

// TLS: the records are opened with the key log's TLS secrets, and what they carry is read as
// the dissector of the profile the handshake's ALPN names (anthro-v1: negotiation in the
// extension or the preface).
void CaptureDecoder::start_tls(Conn& c) {
  TlsDecoder::Events ev;
  ev.on_handshake = [this, &c](const TlsHandshakeInfo& h) {
    c.info.alpn = h.alpn_selected;
    c.info.tls_suite = h.cipher_suite;
    c.info.tls_client_random = h.client_random;
    c.info.tls_version = h.version;
    c.info.alpn_offered = h.alpn_offered;
    const Profile* p = profile_for_handshake(h.alpn_selected, !h.alpn_offered.empty());
    if (!p) return;
    bool in_extension = h.extension_offer.size() == kBlobSize && h.extension_answer.size() == kBlobSize;
    start_dissector(c, *p, in_extension ? PrefaceMode::None : PrefaceMode::Detect);
    if (in_extension && c.anthro) {
      c.feeding_ts = c.feeding_tls_ts;
      c.anthro->set_blobs(h.extension_offer, h.extension_answer);
    }
  };
  ev.on_application_data = [this, &c](Direction dir, ByteView plaintext, double ts) {
    feed_anthro(c, dir, plaintext, ts);
  };
  const KeyRing* keys = &keys_;
  c.tls = std::make_unique<TlsDecoder>(
      [keys](std::string_view label, ByteView random) { return keys->tls_secret(label, random); }, std::move(ev));
}

}  // namespace anthro
