// Spec §5: "ring_buffer_kib bounds frame size from server to client: the server never sends a
// frame whose 16 + payload_length exceeds it." A client offering the minimum ring (64 KiB)
// and asking for replies longer than that: every frame the endpoint sends is decoded and
// measured, the streamed text is whole, a non-streamed reply that cannot fit is ERROR 413.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include "model/simulated_model.h"
#include "raw_peer.h"

using namespace anthro;
using namespace anthro::test;

namespace {

constexpr std::uint16_t kRingKib = 64;
constexpr std::size_t kRing = kRingKib * 1024;
constexpr std::uint32_t kTokens = 30000;  // ~150 KB of text from the simulated model

Bytes request(RawPeer& peer, std::uint32_t id, bool stream, const std::string& model = "m") {
  RequestSpec spec;
  spec.model = model;
  spec.messages = {{"user", "hi"}};
  spec.max_tokens = kTokens;
  spec.stream = stream;
  return peer.frame(FrameType::Request, stream ? kFlagStreaming : 0, encode_request(id, spec));
}

// The largest frame the server sent, from the headers themselves (16 + payload_length).
std::size_t largest_frame(const std::vector<FrameEvent>& frames) {
  std::size_t largest = 0;
  for (const auto& e : frames) largest = std::max(largest, e.header.frame_size());
  return largest;
}

}  // namespace

class TestRingBound : public QObject {
  Q_OBJECT
 private slots:
  void streamedReplyLongerThanTheRing() {
    EndpointFixture f({}, 1, 0, kTokens);
    f.start();
    RawPeer peer(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(peer.negotiate(kRingKib));
    peer.send(request(peer, 1, true));
    auto frames = peer.read_until_ended(1);
    QVERIFY(!frames.empty() && frames.back().body && std::holds_alternative<ResponseBody>(*frames.back().body));
    std::string text;
    for (const auto& e : frames)
      if (auto* t = e.body ? std::get_if<TokenBody>(&*e.body) : nullptr) text += t->text_view();
    std::string want = SimulatedModel(f.config().model).full_text({"m", "hi", kTokens, 0, {}});
    QVERIFY(want.size() > kRing);
    QVERIFY(text == want);
    QVERIFY2(largest_frame(frames) <= kRing, std::to_string(largest_frame(frames)).c_str());
  }

  // A RESPONSE is one frame and ends its stream: a whole text beyond the ring is refused with
  // ERROR 413 saying why, never cut. The same request with the default ring gets its text.
  void nonStreamedReplyLongerThanTheRingIs413() {
    EndpointFixture f({}, 1, 0, kTokens);
    f.start();
    RawPeer small(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(small.negotiate(kRingKib));
    small.send(request(small, 1, false));
    auto frames = small.read_until_ended(1);
    QVERIFY(largest_frame(frames) <= kRing);
    QCOMPARE(frames.size(), std::size_t{1});
    QVERIFY(error_of(frames[0]));
    QCOMPARE(error_of(frames[0])->code, std::uint16_t{413});
    QVERIFY(std::string(error_of(frames[0])->message_view()).find("ring_buffer_kib 64") != std::string::npos);

    RawPeer big(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(big.negotiate());
    big.send(request(big, 1, false));
    frames = big.read_until_ended(1);
    auto* response = frames.empty() || !frames.back().body ? nullptr : std::get_if<ResponseBody>(&*frames.back().body);
    QVERIFY(response && response->content && response->content->size() > kRing);
  }

  // The RESPONSE echoes the model name, and an ERROR may quote the request: neither is let
  // past the ring. The ERROR's message is cut at a character and says so.
  void echoedRequestTextStaysWithinTheRing() {
    EndpointFixture f({}, 1, 0, 3);
    f.start();
    RawPeer peer(port_of(f.endpoint().url("anthro+lab")));
    QVERIFY(peer.negotiate(kRingKib));
    std::string huge(kRing, 'x');
    peer.send(request(peer, 1, true, huge));
    std::string bad_max_tokens = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":\"" +
                                 std::string(kRing, 'y') + "\"}";
    peer.send(peer.raw_request(3, bad_max_tokens));
    auto frames = peer.read_until_ended(2);
    QVERIFY(largest_frame(frames) <= kRing);
    std::map<std::uint32_t, std::uint16_t> codes;
    std::string message;
    for (const auto& e : frames)
      if (auto* error = error_of(e)) {
        codes[error->stream_id] = error->code;
        if (error->stream_id == 3) message = error->message_view();
      }
    QCOMPARE(codes[1], std::uint16_t{413});
    QCOMPARE(codes[3], std::uint16_t{400});
    QVERIFY2(message.find("max_tokens") != std::string::npos && message.find("[cut to fit the client's ring]") != std::string::npos,
             message.substr(0, 200).c_str());
  }
};

QTEST_GUILESS_MAIN(TestRingBound)
#include "test_ring_bound.moc"
