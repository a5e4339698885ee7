// Property tests: random frames round-trip in both suites, and 100,000 random mutations of
// valid frames and blobs are each refused with a reason or decode to exactly what was sealed.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <random>

#include "protocol/body.h"
#include "protocol/stream_decoder.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

struct Sealed {
  Direction dir;
  Suite suite;
  Bytes frame;
  Bytes plaintext;
};

std::string random_text(std::mt19937_64& rng) {
  static const char* pieces[] = {"a", "Z", " ", "é", "你好", "👋", "\n", "\"", "\\", "token"};
  std::string out;
  int n = std::uniform_int_distribution<int>(0, 12)(rng);
  for (int i = 0; i < n; ++i) out += pieces[rng() % std::size(pieces)];
  return out;
}

Bytes random_body(FrameType type, std::mt19937_64& rng) {
  auto id = static_cast<std::uint32_t>(rng() | 1);
  switch (type) {
    case FrameType::Request: {
      RequestSpec spec;
      spec.model = random_text(rng);
      spec.messages = {{"user", random_text(rng)}};
      spec.max_tokens = static_cast<std::uint32_t>(rng() % 0xFFFFFFFF + 1);
      return encode_request(id, spec);
    }
    case FrameType::Response: {
      ResponseSpec spec;
      spec.id = "msg_" + std::to_string(rng() % 1000);
      spec.model = random_text(rng);
      spec.stop_reason = StopReason::MaxTokens;
      spec.output_tokens = rng() % 100;
      return encode_response(id, spec);
    }
    case FrameType::StreamToken: {
      std::string text = random_text(rng);
      return encode_token(id, static_cast<std::uint32_t>(rng()), static_cast<std::uint16_t>(rng() % 65535 + 1),
                          as_bytes(text));
    }
    case FrameType::Cancel: return encode_cancel(id, CancelReason::Shutdown);
    case FrameType::Error: return encode_error(id, 429, static_cast<std::uint32_t>(rng()), random_text(rng));
  }
  return {};
}

Sealed random_frame(std::mt19937_64& rng, NonceSequence& nonces) {
  auto type = static_cast<FrameType>(rng() % 5 + 1);
  Suite suite = rng() % 2 ? Suite::Aes256Gcm : Suite::ChaCha20Poly1305;
  Direction dir = type == FrameType::Request || type == FrameType::Cancel ? Direction::ClientToServer
                                                                          : Direction::ServerToClient;
  Aead aead(suite, dir == Direction::ClientToServer ? vector_keys().c2s : vector_keys().s2c);
  Bytes plaintext = random_body(type, rng);
  std::uint8_t flags = type == FrameType::Error ? 0 : kFlagStreaming;
  return {dir, suite, seal_frame(aead, type, flags, vector_token(), nonces.next(), plaintext), plaintext};
}

void mutate(Bytes& b, std::mt19937_64& rng) {
  int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < edits; ++i) {
    std::size_t at = b.empty() ? 0 : rng() % b.size();
    switch (rng() % 6) {
      case 0: if (!b.empty()) b[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
      case 1: if (!b.empty()) b[at] = static_cast<std::uint8_t>(rng()); break;
      case 2: b.resize(at); break;
      case 3: b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
      case 4: if (!b.empty()) b.erase(b.begin() + static_cast<std::ptrdiff_t>(at)); break;
      default: for (int k = rng() % 40; k > 0; --k) b.push_back(static_cast<std::uint8_t>(rng())); break;
    }
  }
}

}  // namespace

class TestProperties : public QObject {
  Q_OBJECT
 private slots:
  void randomFramesRoundTrip() {
    std::mt19937_64 rng(1);
    NonceSequence nonces;
    for (int i = 0; i < 5000; ++i) {
      Sealed s = random_frame(rng, nonces);
      Aead aead(s.suite, s.dir == Direction::ClientToServer ? vector_keys().c2s : vector_keys().s2c);
      auto result = check_and_open(s.frame, HeaderContext{vector_token(), std::uint8_t{1}}, aead);
      QVERIFY(std::holds_alternative<OpenedFrame>(result));
      const auto& opened = std::get<OpenedFrame>(result);
      QVERIFY(opened.plaintext == s.plaintext);
      auto body = parse_body(opened.header.frame_type(), opened.header.flags, opened.plaintext);
      QVERIFY2(body.ok(), body.ok() ? "" : body.error().detail.c_str());
      QCOMPARE(body_stream_id(*body), load_u32(s.plaintext.data()));
    }
  }

  void mutatedFramesAreRefusedOrExact() {
    std::mt19937_64 rng(2);
    NonceSequence nonces;
    std::vector<Sealed> pool;
    for (const auto& v : vectors()["frames"]) {
      Direction dir = v["direction"] == "c2s" ? Direction::ClientToServer : Direction::ServerToClient;
      pool.push_back({dir, *parse_suite(v["suite"].get<std::string>()), hex(v["frame"]), hex(v["plaintext"])});
    }
    for (int i = 0; i < 50; ++i) pool.push_back(random_frame(rng, nonces));
    std::map<std::string, int> outcomes;
    for (int i = 0; i < 100000; ++i) {
      const Sealed& s = pool[rng() % pool.size()];
      Bytes m = s.frame;
      mutate(m, rng);
      Aead aead(s.suite, s.dir == Direction::ClientToServer ? vector_keys().c2s : vector_keys().s2c);
      auto result = check_and_open(m, HeaderContext{vector_token(), std::uint8_t{1}}, aead);
      if (auto* refusal = std::get_if<FrameRefusal>(&result)) {
        QVERIFY(!refusal->detail.empty());
        ++outcomes[to_string(refusal->reason)];
        continue;
      }
      const auto& opened = std::get<OpenedFrame>(result);
      // Anything that authenticates must be exactly the sealed frame.
      QVERIFY(opened.plaintext == s.plaintext);
      QVERIFY(std::equal(s.frame.begin(), s.frame.end(), m.begin()));
      auto body = parse_body(opened.header.frame_type(), opened.header.flags, opened.plaintext);
      QVERIFY(body.ok());
      ++outcomes["exact"];
    }
    for (const char* reason : {"version", "type", "flags", "length", "token", "incomplete", "authentication"})
      QVERIFY2(outcomes[reason] > 0, reason);
    QVERIFY(outcomes["exact"] > 0);  // trailing bytes after a whole frame
    int total = 0;
    for (auto& [_, n] : outcomes) total += n;
    QCOMPARE(total, 100000);
  }

  void mutatedStreamsNeverCrashTheDecoder() {
    std::mt19937_64 rng(3);
    KeyRing ring;
    ring.add_frame_keys(vector_token(), vector_keys());
    Bytes c2s = hex(vectors()["conversation"]["client_to_server"]);
    Bytes s2c = hex(vectors()["conversation"]["server_to_client"]);
    std::string want = vectors()["conversation"]["expected"]["text"];
    for (int i = 0; i < 20000; ++i) {
      Bytes a = c2s, b = s2c;
      mutate(rng() % 2 ? a : b, rng);
      std::string text;
      std::uint64_t fed[2] = {0, 0};
      ConnectionDecoder decoder(ring, {nullptr, [&](const FrameEvent& e) {
                                         QVERIFY(e.offset < fed[e.dir == Direction::ServerToClient]);
                                         if (e.decrypted && e.body)
                                           if (auto* t = std::get_if<TokenBody>(&*e.body)) text += t->text_view();
                                       }, nullptr});
      std::size_t chunk = rng() % 64 + 1;
      for (auto [dir, bytes] : {std::pair{Direction::ClientToServer, &a}, std::pair{Direction::ServerToClient, &b}})
        for (std::size_t at = 0; at < bytes->size(); at += chunk) {
          ByteView piece = ByteView(*bytes).subspan(at, std::min(chunk, bytes->size() - at));
          fed[dir == Direction::ServerToClient] += piece.size();
          decoder.feed(dir, piece);
        }
      decoder.finish();
      // Tokens that authenticate are the sealed ones, so the text can only lose pieces.
      QVERIFY2(text.size() <= want.size() + 1, text.c_str());
    }
  }

  void mutatedBlobsAreRefusedOrValid() {
    std::mt19937_64 rng(4);
    Bytes offer = hex(vectors()["blobs"]["offer"]);
    Bytes answer = hex(vectors()["blobs"]["answer"]);
    std::map<std::string, int> outcomes;
    for (int i = 0; i < 100000; ++i) {
      bool mutate_answer = rng() % 2;
      Bytes o = offer, a = answer;
      mutate(mutate_answer ? a : o, rng);
      std::optional<BlobRefusal> refusal = check_offer(o);
      if (!refusal) {
        Blob ob = *decode_blob(o);
        QVERIFY(encode_blob(ob) == o);
        refusal = check_answer(ob, a);
        if (!refusal) {
          Blob ab = *decode_blob(a);
          QVERIFY(encode_blob(ab) == a);
          QCOMPARE(ab.connection_token, ob.connection_token);
          QVERIFY(ab.max_streams >= 1 && ab.max_streams <= ob.max_streams);
          QVERIFY((ab.aead & ob.aead) && (ab.aead == 1 || ab.aead == 2));
        }
      }
      ++outcomes[refusal ? to_string(refusal->reason) : "valid"];
    }
    // (`token` needs all eight token bytes zeroed: too rare for random edits; the vectors cover it.)
    for (const char* reason : {"size", "version", "role", "reserved", "max-streams", "flags", "aead",
                               "ring", "token-echo", "valid"})
      QVERIFY2(outcomes[reason] > 0, reason);
  }
};

QTEST_GUILESS_MAIN(TestProperties)
#include "test_properties.moc"
