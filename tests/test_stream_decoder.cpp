// The incremental decoder on the vector conversation: whole, byte by byte, in random chunks,
// with key log or server key, and on broken streams.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include <random>

#include "crypto/keylog.h"
#include "protocol/stream_decoder.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

struct Transcript {
  std::vector<FrameEvent> frames;
  std::vector<DesyncEvent> desyncs;
  std::vector<std::pair<Direction, std::optional<BlobRefusal>>> negotiations;
  std::size_t max_buffered = 0;

  std::string text() const {
    std::string out;
    for (const auto& f : frames)
      if (f.body)
        if (auto* t = std::get_if<TokenBody>(&*f.body)) out += t->text_view();
    return out;
  }
};

using Chunker = std::function<std::size_t(std::size_t remaining)>;

Transcript decode(const KeyRing& ring, const Chunker& chunk) {
  Transcript t;
  ConnectionDecoder decoder(ring, {[&](Direction d, const Blob&, std::optional<BlobRefusal> r) {
                                     t.negotiations.emplace_back(d, r);
                                   },
                                   [&](const FrameEvent& e) { t.frames.push_back(e); },
                                   [&](const DesyncEvent& e) { t.desyncs.push_back(e); }});
  const auto& conv = vectors()["conversation"];
  for (auto [dir, key] : {std::pair{Direction::ClientToServer, "client_to_server"},
                          std::pair{Direction::ServerToClient, "server_to_client"}}) {
    Bytes bytes = hex(conv[key]);
    ByteView rest(bytes);
    while (!rest.empty()) {
      std::size_t n = std::min(rest.size(), std::max<std::size_t>(1, chunk(rest.size())));
      decoder.feed(dir, rest.first(n));
      t.max_buffered = std::max(t.max_buffered, decoder.direction(dir).buffered());
      rest = rest.subspan(n);
    }
  }
  decoder.finish();
  return t;
}

KeyRing keylog_ring() {
  KeyRing ring;
  ring.add(parse_keylog(read_file(vectors_path("lab-conversation.keylog")), "lab.keylog"));
  return ring;
}

KeyRing server_key_ring() {
  KeyRing ring;
  ring.add_server_key(*load_x25519_private_pem(read_file(vectors_path("server-static.pem")), "pem"));
  return ring;
}

}  // namespace

class TestStreamDecoder : public QObject {
  Q_OBJECT
 private slots:
  void conversation_data() {
    QTest::addColumn<QString>("keys");
    QTest::addColumn<int>("chunking");  // 0 whole, 1 byte by byte, 2 random
    for (QString keys : {"keylog", "server-key"}) {
      QTest::newRow(qPrintable(keys + " whole")) << keys << 0;
      QTest::newRow(qPrintable(keys + " byte by byte")) << keys << 1;
      QTest::newRow(qPrintable(keys + " random")) << keys << 2;
    }
  }

  void conversation() {
    QFETCH(QString, keys);
    QFETCH(int, chunking);
    std::mt19937 rng(chunking);
    Chunker chunk = [&](std::size_t remaining) -> std::size_t {
      if (chunking == 0) return remaining;
      if (chunking == 1) return 1;
      return std::uniform_int_distribution<std::size_t>(1, 90)(rng);
    };
    KeyRing ring = keys == "keylog" ? keylog_ring() : server_key_ring();
    Transcript t = decode(ring, chunk);
    const auto& expected = vectors()["conversation"]["expected"];
    QCOMPARE(t.negotiations.size(), std::size_t{2});
    QVERIFY(!t.negotiations[0].second && !t.negotiations[1].second);
    QCOMPARE(t.frames.size(), std::size_t{6});
    QVERIFY(t.desyncs.empty());
    int tokens = 0;
    for (const auto& f : t.frames) {
      QVERIFY2(f.decrypted && !f.refusal, f.detail.c_str());
      QCOMPARE(*f.suite, Suite::Aes256Gcm);
      if (auto* tok = std::get_if<TokenBody>(&*f.body)) tokens += tok->token_count;
    }
    QCOMPARE(tokens, expected["tokens"].get<int>());
    QCOMPARE(t.text(), expected["text"].get<std::string>());
    const auto& last = std::get<ResponseBody>(*t.frames.back().body);
    QCOMPARE(std::string(to_string(last.stop_reason)), expected["stop_reason"].get<std::string>());
    QCOMPARE(t.frames.front().header.frame_type(), FrameType::Request);
    QCOMPARE(t.frames.front().offset, std::uint64_t{kPrefaceSize});
    std::size_t largest = kPrefaceSize;
    for (const auto& f : t.frames) largest = std::max(largest, f.header.frame_size());
    QVERIFY(t.max_buffered <= largest);
    if (chunking == 1) QVERIFY(t.max_buffered > 0);
  }

  void withoutKeysFramesAreReportedNotRefused() {
    KeyRing empty;
    Transcript t = decode(empty, [](std::size_t r) { return r; });
    QCOMPARE(t.frames.size(), std::size_t{6});
    for (const auto& f : t.frames) {
      QVERIFY(f.no_key && !f.decrypted && !f.refusal);
      QVERIFY(f.detail.find("1234567890abcdef") != std::string::npos);
    }
  }

  void wrongKeyIsAuthentication() {
    KeyRing ring;
    FrameKeys wrong = vector_keys();
    wrong.c2s[0] ^= 1;
    wrong.s2c[0] ^= 1;
    ring.add_frame_keys(vector_token(), wrong);
    Transcript t = decode(ring, [](std::size_t r) { return r; });
    QCOMPARE(t.frames.size(), std::size_t{6});
    for (const auto& f : t.frames) QCOMPARE(*f.refusal, FrameReason::Authentication);
  }

  void severalKeyLinesForOneTokenAreEachTried() {
    KeyRing ring;
    FrameKeys wrong = vector_keys();
    wrong.c2s[5] ^= 0x80;
    wrong.s2c[5] ^= 0x80;
    ring.add_frame_keys(vector_token(), wrong);
    ring.add(parse_keylog(read_file(vectors_path("lab-conversation.keylog")), "lab.keylog"));
    Transcript t = decode(ring, [](std::size_t r) { return r; });
    QCOMPARE(t.text(), std::string("Hello, world!"));
  }

  void midConnectionCaptureUsesFrameToken() {
    // No preface seen: the decoder finds the key by the frame's token and guesses the suite.
    KeyRing ring = keylog_ring();
    std::vector<FrameEvent> frames;
    DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::Detect,
                             DecoderEvents{nullptr, [&](const FrameEvent& e) { frames.push_back(e); }, nullptr},
                             [&](std::uint64_t token) {
                               return ring.candidates(token, Direction::ServerToClient, nullptr, std::nullopt);
                             });
    Bytes s2c = hex(vectors()["conversation"]["server_to_client"]);
    decoder.feed(ByteView(s2c).subspan(kPrefaceSize));
    decoder.finish();
    QCOMPARE(frames.size(), std::size_t{5});
    QVERIFY(frames[0].decrypted);
    QCOMPARE(frames[0].offset, std::uint64_t{0});

    // A chacha frame with no answer seen: AES is tried first, then ChaCha opens it.
    KeyRing vring;
    vring.add_frame_keys(vector_token(), vector_keys());
    frames.clear();
    DirectionDecoder chacha(Direction::ServerToClient, PrefaceMode::Detect,
                            DecoderEvents{nullptr, [&](const FrameEvent& e) { frames.push_back(e); }, nullptr},
                            [&](std::uint64_t token) {
                              return vring.candidates(token, Direction::ServerToClient, nullptr, std::nullopt);
                            });
    chacha.feed(hex(vectors()["frames"][8]["frame"]));
    QCOMPARE(frames.size(), std::size_t{1});
    QVERIFY(frames[0].decrypted);
    QCOMPARE(*frames[0].suite, Suite::ChaCha20Poly1305);
  }

  void badLengthDesyncsAndReportsWhere() {
    Bytes s2c = hex(vectors()["conversation"]["server_to_client"]);
    std::size_t second_frame = kPrefaceSize + 16 + load_u32(s2c.data() + kPrefaceSize + 4);
    s2c[second_frame + 4] = 0x7F;  // top byte of payload_length
    KeyRing ring = keylog_ring();
    std::vector<FrameEvent> frames;
    std::vector<DesyncEvent> desyncs;
    ConnectionDecoder decoder(ring, {nullptr, [&](const FrameEvent& e) { frames.push_back(e); },
                                     [&](const DesyncEvent& e) { desyncs.push_back(e); }});
    decoder.feed(Direction::ServerToClient, s2c);
    decoder.finish();
    QCOMPARE(frames.size(), std::size_t{2});
    QCOMPARE(*frames[1].refusal, FrameReason::Length);
    QCOMPARE(frames[1].offset, std::uint64_t{second_frame});
    QCOMPARE(desyncs.size(), std::size_t{1});
    QCOMPARE(desyncs[0].offset, std::uint64_t{second_frame});
    QCOMPARE(desyncs[0].reason, std::string("length"));
  }

  void headerRefusalWithValidLengthIsSkipped() {
    Bytes s2c = hex(vectors()["conversation"]["server_to_client"]);
    std::size_t first = kPrefaceSize;
    s2c[first + 3] = 0x01;  // reserved byte: refused, but the length still frames it
    KeyRing ring = keylog_ring();
    Transcript t;
    ConnectionDecoder decoder(ring, {nullptr, [&](const FrameEvent& e) { t.frames.push_back(e); },
                                     [&](const DesyncEvent& e) { t.desyncs.push_back(e); }});
    for (std::uint8_t b : s2c) decoder.feed(Direction::ServerToClient, ByteView(&b, 1));
    decoder.finish();
    QCOMPARE(t.frames.size(), std::size_t{5});
    QCOMPARE(*t.frames[0].refusal, FrameReason::Reserved);
    QVERIFY(t.desyncs.empty());
    QCOMPARE(t.text(), std::string(", world!"));  // only the refused "Hello" is missing
    QVERIFY(t.frames[1].decrypted);
  }

  void truncatedStreamIsIncomplete() {
    Bytes c2s = hex(vectors()["conversation"]["client_to_server"]);
    c2s.resize(c2s.size() - 3);
    KeyRing ring = keylog_ring();
    std::vector<FrameEvent> frames;
    ConnectionDecoder decoder(ring, {nullptr, [&](const FrameEvent& e) { frames.push_back(e); }, nullptr});
    decoder.feed(Direction::ClientToServer, c2s);
    decoder.finish();
    QCOMPARE(frames.size(), std::size_t{1});
    QCOMPARE(*frames[0].refusal, FrameReason::Incomplete);
    QCOMPARE(frames[0].offset, std::uint64_t{kPrefaceSize});
  }

  void expectedPrefaceRefusesHttp() {
    std::vector<DesyncEvent> desyncs;
    DirectionDecoder decoder(Direction::ClientToServer, PrefaceMode::Expect,
                             DecoderEvents{nullptr, nullptr, [&](const DesyncEvent& e) { desyncs.push_back(e); }},
                             nullptr);
    std::string http = "POST /v1/messages HTTP/1.1\r\n";
    decoder.feed(as_bytes(http));
    QCOMPARE(desyncs.size(), std::size_t{1});
    QCOMPARE(desyncs[0].reason, std::string("preface"));
    QVERIFY(decoder.desynced());
  }

  void frameTimeIsTheLatestArrivalOfItsBytes() {
    Bytes frame = hex(vectors()["frames"][1]["frame"]);
    for (auto [first, second] : {std::pair{1.0, 2.0}, std::pair{2.0, 1.0}}) {
      std::vector<double> times;
      DirectionDecoder d(Direction::ServerToClient, PrefaceMode::None,
                         DecoderEvents{nullptr, [&](const FrameEvent& e) { times.push_back(e.ts); }, nullptr}, nullptr);
      d.set_key({Suite::Aes256Gcm, vector_keys().s2c});
      d.feed(ByteView(frame).first(20), first);
      d.feed(ByteView(frame).subspan(20), second);
      d.feed(frame, 3.0);  // whole in one piece: its own arrival
      QCOMPARE(times, (std::vector<double>{2.0, 3.0}));
    }
  }

  void consecutiveAuthDropsAreCounted() {
    Bytes frame = hex(vectors()["frames"][1]["frame"]);
    Bytes broken = frame;
    broken.back() ^= 1;
    DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::None, DecoderEvents{}, nullptr);
    decoder.set_key({Suite::Aes256Gcm, vector_keys().s2c});
    for (int i = 0; i < 16; ++i) decoder.feed(broken);
    QCOMPARE(decoder.consecutive_auth_drops(), 16u);
    decoder.feed(frame);
    QCOMPARE(decoder.consecutive_auth_drops(), 0u);
    QCOMPARE(decoder.auth_drops(), std::uint64_t{16});
    QCOMPARE(decoder.frames(), std::uint64_t{1});
  }

  // The decoder reuses one event, a token's body included: nothing of a frame may show in the
  // next one's (a refusal, a failed tag, a stream that ends mid-frame), and a token's text is its
  // bytes whether it is held inline (up to 32) or not.
  void eachFrameEventStartsAfresh() {
    Aead aead(Suite::ChaCha20Poly1305, vector_keys().s2c);
    NonceSequence nonces;
    const std::vector<Bytes> texts = {Bytes(32, 'a'), Bytes(33, 'b'), Bytes(5, 'c'), Bytes(7, 'd'), Bytes(9, 'e'), Bytes(3, 'f')};
    Bytes stream;
    std::vector<std::size_t> starts;
    for (std::uint32_t i = 0; i < texts.size(); ++i) {
      starts.push_back(stream.size());
      seal_frame(aead, FrameType::StreamToken, 1, vector_token(), nonces.next(), encode_token(1, i, 1, texts[i]), stream);
    }
    stream[starts[4] - 1] ^= 0x01;  // the 4th frame's tag: authentication
    stream[starts[4] + 3] = 0x01;   // the 5th frame's reserved byte: refused, skipped
    std::vector<FrameEvent> events;
    DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::None,
                             DecoderEvents{nullptr, [&](const FrameEvent& e) { events.push_back(e); }, nullptr}, nullptr);
    decoder.set_key({Suite::ChaCha20Poly1305, vector_keys().s2c});
    decoder.feed(stream);
    QCOMPARE(events.size(), texts.size());
    Bytes cut;  // a frame the stream ends in, right after a token
    seal_frame(aead, FrameType::StreamToken, 1, vector_token(), nonces.next(), encode_token(1, 9, 1, Bytes(4, 'g')), cut);
    decoder.feed(ByteView(cut).first(kHeaderSize + 5));
    decoder.finish();
    QCOMPARE(events.size(), texts.size() + 1);
    QVERIFY(events.back().refusal == FrameReason::Incomplete && !events.back().body && !events.back().decrypted);
    for (std::size_t i : {0, 1, 2, 5}) {
      const FrameEvent& e = events[i];
      QVERIFY(e.decrypted && !e.refusal && e.detail.empty() && e.body);
      QVERIFY(std::get<TokenBody>(*e.body).text == ByteView(texts[i]));
      QCOMPARE(std::get<TokenBody>(*e.body).token_index, static_cast<std::uint32_t>(i));
    }
    QVERIFY(!events[3].decrypted && events[3].refusal == FrameReason::Authentication);
    QVERIFY(!events[3].body && events[3].plaintext.empty() && !events[3].suite);
    QVERIFY(!events[4].decrypted && events[4].refusal == FrameReason::Reserved);
    QVERIFY(!events[4].body && events[4].plaintext.empty() && !events[4].suite && !events[4].detail.empty());
    QCOMPARE(events[4].wire.size(), kHeaderSize);
  }

  void largeFrameBufferIsBoundedByOneFrame() {
    Aead aead(Suite::ChaCha20Poly1305, vector_keys().s2c);
    NonceSequence nonces;
    Bytes text(kMaxPayload - kNonceSize - kTagSize - 10, 'x');
    Bytes stream;
    seal_frame(aead, FrameType::StreamToken, 1, vector_token(), nonces.next(), encode_token(1, 0, 1, text), stream);
    seal_frame(aead, FrameType::StreamToken, 1, vector_token(), nonces.next(), encode_token(1, 1, 1, as_bytes("y")), stream);
    QCOMPARE(load_u32(stream.data() + 4), kMaxPayload);
    std::size_t max_buffered = 0;
    std::vector<std::size_t> sizes;
    DirectionDecoder decoder(Direction::ServerToClient, PrefaceMode::None,
                             DecoderEvents{nullptr, [&](const FrameEvent& e) {
                                             QVERIFY(e.decrypted && !e.refusal);
                                             sizes.push_back(std::get<TokenBody>(*e.body).text.size());
                                           }, nullptr},
                             nullptr);
    decoder.set_key({Suite::ChaCha20Poly1305, vector_keys().s2c});
    ByteView rest(stream);
    while (!rest.empty()) {
      std::size_t n = std::min<std::size_t>(rest.size(), 65536 + 7);
      decoder.feed(rest.first(n));
      max_buffered = std::max(max_buffered, decoder.buffered());
      rest = rest.subspan(n);
    }
    QCOMPARE(sizes.size(), std::size_t{2});
    QCOMPARE(sizes[0], text.size());
    QVERIFY(max_buffered <= kMaxFrame);
  }
};

QTEST_GUILESS_MAIN(TestStreamDecoder)
#include "test_stream_decoder.moc"
