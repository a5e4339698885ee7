#include "anthro_v1/format.h"

#include "capture/connection_reader.h"
#include "endpoint/server_state.h"
#include "profile/profile.h"
#include "protocol/stream_decoder.h"

namespace anthro::anthro_v1 {

// Lab mode's first bytes are the preface (spec §1): its magic, then the offer.
bool recognise(ByteView first) { return as_text(first).substr(0, kPrefaceMagic.size()) == kPrefaceMagic; }

constexpr std::string_view kAlpn[] = {kAlpnAnthro};
constexpr ProfileScheme kSchemes[] = {{"anthro", true}, {"anthro+lab", false}};

// A connection's negotiation (in the TLS extension, else the preface) and its frames, opened
// with the key ring's keys, into the connection's record and the decoder's events.
class Reader : public ConnectionReader {
 public:
  explicit Reader(const ConnectionReaderContext& c)
      : info_(c.info), events_(c.events), decoder_(c.keys, decoder_events(), mode(c.tls)) {
    if (mode(c.tls) != PrefaceMode::None) return;
    feeding_ts_ = c.ts;
    decoder_.set_blobs(c.tls->extension_offer, c.tls->extension_answer);
  }
  void feed(Direction dir, ByteView data, double ts) override {
    feeding_ts_ = ts;
    decoder_.feed(dir, data, ts);
  }
  void finish() override { decoder_.finish(); }

 private:
  static PrefaceMode mode(const TlsHandshakeInfo* tls) {
    bool in_extension = tls && tls->extension_offer.size() == kBlobSize && tls->extension_answer.size() == kBlobSize;
    return in_extension ? PrefaceMode::None : PrefaceMode::Detect;
  }
  ConnectionDecoder::Events decoder_events();
  void negotiated(Direction d, const Blob& blob, std::optional<BlobRefusal> refusal);
  void framed(const FrameEvent& e);

  CaptureConnection& info_;
  const CaptureEvents& events_;
  double feeding_ts_ = 0;  // the arrival time of the bytes being fed, for the negotiation
  ConnectionDecoder decoder_;
};

ConnectionDecoder::Events Reader::decoder_events() {
  ConnectionDecoder::Events ev;
  ev.on_negotiation = [this](Direction d, const Blob& blob, std::optional<BlobRefusal> refusal) { negotiated(d, blob, refusal); };
  ev.on_frame = [this](const FrameEvent& e) { framed(e); };
  ev.on_desync = [this](const DesyncEvent& e) {
    if (events_.on_desync) events_.on_desync(info_, e);
  };
  return ev;
}

void Reader::negotiated(Direction d, const Blob& blob, std::optional<BlobRefusal> refusal) {
  (d == Direction::ClientToServer ? info_.offer : info_.answer) = blob;
  if (refusal) info_.negotiation_refusal = refusal;
  if (d == Direction::ServerToClient) {
    info_.negotiated_ts = feeding_ts_;
    if (!refusal && (blob.aead == kSuiteAes256Gcm || blob.aead == kSuiteChaCha20Poly1305)) info_.suite = static_cast<Suite>(blob.aead);
  }
  if (events_.on_negotiation) events_.on_negotiation(info_, d, blob);
}

void Reader::framed(const FrameEvent& e) {
  ++info_.frames;
  if (e.decrypted) ++info_.frames_opened;
  if (e.suite) info_.suite = e.suite;
  DecryptionState& d = info_.decryption;
  if (e.no_key && d == DecryptionState::Pending) d = DecryptionState::NoKey;
  if (e.refusal == FrameReason::Authentication && d == DecryptionState::Pending) d = DecryptionState::Authentication;
  if (e.decrypted && (d == DecryptionState::NoKey || d == DecryptionState::Authentication)) d = DecryptionState::Pending;
  if (events_.on_frame) events_.on_frame(info_, e);
}

// The lab port's connections have no extension; the TLS port's hand theirs over.
net::awaitable<void> serve(ServedConnection c, ServerState& state) {
  co_await serve_anthro(std::move(c.stream), state, std::move(c.extension), c.admission);
}

}  // namespace anthro::anthro_v1

namespace anthro {

// First in the registry: the TLS port prefers its ALPN id, and a cleartext connection no
// heuristic claims is read as anthro-v1 (unrecognised_cleartext_profile). Its checklist is
// the latency checklist and its plan moves traffic to it from the HTTP baseline.
void register_anthro_v1() {
  register_carrier_profile(Profile{.id = ProfileId::AnthroV1, .name = "anthro-v1", .display_name = "anthro-v1",
                                   .alpn = anthro_v1::kAlpn, .recognise = anthro_v1::recognise, .schemes = anthro_v1::kSchemes,
                                   .checklist_id = "latency", .rollout_plan_id = "anthro-v1-five-stages", .rides_on = {}});
  register_connection_reader(ProfileId::AnthroV1, [](const ConnectionReaderContext& c) { return std::unique_ptr<ConnectionReader>(new anthro_v1::Reader(c)); });
  register_emulation(ProfileId::AnthroV1, {.make_state = nullptr, .serve = anthro_v1::serve, .own_port = false, .embedded = nullptr});
}

}  // namespace anthro
