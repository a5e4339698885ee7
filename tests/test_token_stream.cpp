// The token-stream codec (../shared/spec/profiles/token-stream.md): the profiles'
// vectors bit for bit (bodies, refusals with their reasons, context ids, Retry-After), the
// incremental decoder given each body cut at every byte, encode→decode round trips, and random
// garbage, which must decode or be refused with a reason, never crash; then what a server makes
// of a request's headers, its contexts' lifetime and its vocabulary.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <algorithm>
#include <random>
#include <set>

#include "tokenstream/admission.h"
#include "tokenstream/context_id.h"
#include "tokenstream/contexts.h"
#include "tokenstream/token_body.h"
#include "tokenstream/vocabulary.h"
#include "profiles_vectors.h"

using namespace anthro;

namespace {

const nlohmann::json& token_stream_vectors() { return test::profiles_vectors("token_stream"); }

std::string ids_text(const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return "[" + out + "]";
}

// The body a vector names, checked against what it says it decodes to.
void check_body(const TokenStreamResult<TokenStreamBody>& r, const nlohmann::json& v) {
  const std::string name = v["name"].get<std::string>();
  QVERIFY2(r.ok(), (name + ": " + (r ? "" : r.error().detail)).c_str());
  const auto expected = v["tokens"].get<std::vector<std::uint32_t>>();
  QVERIFY2(r->tokens == expected, (name + ": " + ids_text(r->tokens) + " != " + ids_text(expected)).c_str());
  QCOMPARE(r->padding, v["padding"].get<std::size_t>());
  if (v["degraded_at"].is_null()) QVERIFY2(!r->degraded_at, name.c_str());
  else QCOMPARE(r->degraded_at, std::optional<std::size_t>(v["degraded_at"].get<std::size_t>()));
}

// Every vector body, accepted or refused.
std::vector<Bytes> all_vector_bodies() {
  std::vector<Bytes> out;
  for (const char* group : {"bodies", "negatives"})
    for (const auto& v : token_stream_vectors()[group]) out.push_back(test::hex(v["body"]));
  return out;
}

// The same outcome: equal bodies, or the same reason at the same byte.
bool same_outcome(const TokenStreamResult<TokenStreamBody>& a, const TokenStreamResult<TokenStreamBody>& b) {
  if (a.ok() != b.ok()) return false;
  if (a.ok()) return *a == *b;
  return a.error().reason == b.error().reason && a.error().offset == b.error().offset;
}

TokenStreamResult<TokenStreamBody> decode_in_pieces(ByteView body, const std::vector<std::size_t>& cuts) {
  TokenStreamBodyDecoder d;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    d.feed(body.subspan(from, cut - from));
    from = cut;
  }
  d.feed(body.subspan(from));
  return d.finish();
}

}  // namespace

class TestTokenStream : public QObject {
  Q_OBJECT
 private slots:
  void vectorBodiesDecodeAndEncode() {
    const auto& bodies = token_stream_vectors()["bodies"];
    QVERIFY(bodies.size() >= 4);
    for (const auto& v : bodies) {
      const Bytes body = test::hex(v["body"]);
      auto r = decode_token_stream_body(body);
      check_body(r, v);
      if (!r) return;
      QCOMPARE(encode_token_stream_body(r->tokens, r->padding), body);
    }
  }

  // The degraded marker stays in the tokens, where its index says.
  void degradedMarkerIsAToken() {
    for (const auto& v : token_stream_vectors()["bodies"]) {
      if (v["degraded_at"].is_null()) continue;
      auto r = decode_token_stream_body(test::hex(v["body"]));
      QVERIFY(r.ok() && r->degraded_at);
      QCOMPARE(r->tokens.at(*r->degraded_at), kTokenStreamDegraded);
    }
    // A second marker is a token too; the first one is where the degraded path began.
    const std::vector<std::uint32_t> twice = {7, kTokenStreamDegraded, 8, kTokenStreamDegraded};
    auto r = decode_token_stream_body(encode_token_stream_body(twice, 1));
    QVERIFY(r.ok());
    QCOMPARE(r->degraded_at, std::optional<std::size_t>(1));
    QVERIFY(r->tokens == twice);
  }

  void vectorNegativesWithTheirReasons() {
    std::set<std::string> reasons;
    for (const auto& v : token_stream_vectors()["negatives"]) {
      auto r = decode_token_stream_body(test::hex(v["body"]));
      QVERIFY2(!r.ok(), v["name"].get<std::string>().c_str());
      QCOMPARE(std::string(to_string(r.error().reason)), v["reject"].get<std::string>());
      QVERIFY(!r.error().detail.empty());
      reasons.insert(to_string(r.error().reason));
    }
    QCOMPARE(reasons, (std::set<std::string>{"alignment", "padding-inside"}));
  }

  // The offset names the byte where the body goes wrong; the first fault in the body wins.
  void refusalsSayWhere() {
    auto partial = decode_token_stream_body(as_bytes(std::string_view("\x01\x00\x00\x00\x02\x00", 6)));
    QVERIFY(!partial.ok());
    QCOMPARE(partial.error().reason, TokenStreamReject::Alignment);
    QCOMPARE(partial.error().offset, std::size_t{4});
    // Padding inside and a partial last token: the padding comes first in the body.
    auto both = decode_token_stream_body(as_bytes(std::string_view("\x00\x00\x00\x00\x02\x00\x00\x00\x03", 9)));
    QVERIFY(!both.ok());
    QCOMPARE(both.error().reason, TokenStreamReject::PaddingInside);
    QCOMPARE(both.error().offset, std::size_t{4});
    // Padding followed by only part of a token: the partial token is no id, so the body is misaligned.
    auto tail = decode_token_stream_body(as_bytes(std::string_view("\x05\x00\x00\x00\x00\x00\x00\x00\x01", 9)));
    QVERIFY(!tail.ok());
    QCOMPARE(tail.error().reason, TokenStreamReject::Alignment);
    QCOMPARE(tail.error().offset, std::size_t{8});
    Error e = to_error(both.error());
    QCOMPARE(e.reason, std::string("padding-inside"));
    QCOMPARE(e.kind, ErrorClass::Input);
  }

  void vectorContextIds() {
    for (const auto& v : token_stream_vectors()["context_ids"]) {
      const std::string header = v["header"].get<std::string>();
      auto r = parse_context_id(header);
      if (v.contains("reject")) {
        QVERIFY2(!r.ok(), header.c_str());
        QCOMPARE(std::string(to_string(r.error().reason)), v["reject"].get<std::string>());
        QVERIFY(r.error().offset <= header.size());
        continue;
      }
      QVERIFY2(r.ok(), (header + ": " + (r ? "" : r.error().detail)).c_str());
      QCOMPARE(r->tenant, v["tenant"].get<std::uint32_t>());
      QCOMPARE(r->seq, v["seq"].get<std::uint32_t>());
      QCOMPARE(format_context_id(*r), header);
    }
  }

  void contextIdEdges() {
    // "No leading zero" leaves a lone "0" a well-formed zero.
    auto zero = parse_context_id("0");
    QVERIFY(zero.ok());
    QCOMPARE(zero->value(), std::uint64_t{0});
    for (const char* bad : {"00", "01", "+1", "1 ", "1\t", "١", "1n", "n", "-", "4294967296.0", "99999999999999999999999"})
      QVERIFY2(!parse_context_id(bad).ok(), bad);
    QVERIFY(!parse_context_id(std::string_view("4\0" "2", 3)).ok());
    // The token stream spec's client: a tenant from 2^31 in a signed int64_t comes out negative.
    const auto packed = static_cast<std::int64_t>((std::uint64_t{0x80000000} << 32) | 5);
    auto negative = parse_context_id(std::to_string(packed));
    QVERIFY(!negative.ok());
    QVERIFY2(negative.error().detail.find("negative") != std::string::npos, negative.error().detail.c_str());
    // The same id as a u64 is well formed.
    auto unsigned_id = parse_context_id(std::to_string(static_cast<std::uint64_t>(packed)));
    QVERIFY(unsigned_id.ok());
    QCOMPARE(*unsigned_id, (TokenStreamContextId{0x80000000, 5}));
    QCOMPARE(format_context_id({7, 42}), std::string("30064771114"));
    QCOMPARE(TokenStreamContextId::from_value(std::uint64_t{7} << 32 | 42), (TokenStreamContextId{7, 42}));
  }

  void contextIdsRoundTrip() {
    std::mt19937_64 rng(0x5eed001);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t value = rng() >> (rng() % 64);
      const auto id = TokenStreamContextId::from_value(value);
      auto back = parse_context_id(format_context_id(id));
      QVERIFY(back.ok());
      QCOMPARE(*back, id);
      QCOMPARE(back->value(), value);
    }
  }

  void retryAfterInMilliseconds() {
    const auto& v = token_stream_vectors()["retry_after"];
    auto r = parse_token_stream_retry_after(v["header"].get<std::string>());
    QVERIFY(r);
    QCOMPARE(r->milliseconds, v["milliseconds"].get<std::uint64_t>());
    QCOMPARE(r->cause, TokenStreamRetryCause::Quota);  // 1500 > 1000: the quota, not congestion
    QCOMPARE(parse_token_stream_retry_after("1000")->cause, TokenStreamRetryCause::GpuMemoryFull);
    QCOMPARE(parse_token_stream_retry_after("1001")->cause, TokenStreamRetryCause::Quota);
    QCOMPARE(parse_token_stream_retry_after("0")->cause, TokenStreamRetryCause::GpuMemoryFull);
    QCOMPARE(parse_token_stream_retry_after("0250")->milliseconds, std::uint64_t{250});
    QCOMPARE(parse_token_stream_retry_after("18446744073709551615")->cause, TokenStreamRetryCause::Quota);
    for (const char* bad : {"", "-1", "1.5", "1500ms", " 1500", "18446744073709551616", "Wed, 21 Oct 2015 07:28:00 GMT"})
      QVERIFY2(!parse_token_stream_retry_after(bad), bad);
    QCOMPARE(std::string(to_string(TokenStreamRetryCause::Quota)), std::string("quota"));
    QCOMPARE(std::string(to_string(TokenStreamRetryCause::GpuMemoryFull)), std::string("gpu-memory-full"));
  }

  // A token may straddle two DATA frames or chunks: every body cut at every byte (and at every
  // pair of bytes), and fed byte by byte, decodes as the whole does.
  void incrementalAtEveryCut() {
    for (const Bytes& body : all_vector_bodies()) {
      const auto whole = decode_token_stream_body(body);
      for (std::size_t a = 0; a <= body.size(); ++a) {
        QVERIFY(same_outcome(decode_in_pieces(body, {a}), whole));
        for (std::size_t b = a; b <= body.size(); ++b) QVERIFY(same_outcome(decode_in_pieces(body, {a, b}), whole));
      }
      TokenStreamBodyDecoder d;
      for (std::uint8_t byte : body) d.feed(ByteView(&byte, 1));
      QCOMPARE(d.bytes_fed(), body.size());
      QVERIFY(same_outcome(d.finish(), whole));
    }
  }

  // A refused body stays refused; what follows is not read.
  void decoderStopsAtTheFirstRefusal() {
    TokenStreamBodyDecoder d;
    QVERIFY(d.feed(as_bytes(std::string_view("\x01\x00\x00\x00\x00\x00", 6))));
    QVERIFY(!d.feed(as_bytes(std::string_view("\x00\x00\x02\x00\x00\x00", 6))));
    QVERIFY(!d.feed(as_bytes(std::string_view("\x03\x00\x00\x00", 4))));
    QVERIFY(d.rejection());
    auto r = d.finish();
    QVERIFY(!r.ok());
    QCOMPARE(r.error().reason, TokenStreamReject::PaddingInside);
    QCOMPARE(r.error().offset, std::size_t{8});
    QVERIFY(d.body().tokens == std::vector<std::uint32_t>{1});
  }

  void encodeDecodeRoundTrips() {
    std::mt19937_64 rng(0x70c5);
    for (int i = 0; i < 5000; ++i) {
      std::vector<std::uint32_t> tokens(rng() % 64);
      for (auto& t : tokens) t = rng() % 8 == 0 ? kTokenStreamDegraded : static_cast<std::uint32_t>(rng() % 0xFFFFFFFF) + 1;
      const std::size_t padding = rng() % 5;
      const Bytes body = encode_token_stream_body(tokens, padding);
      QCOMPARE(body.size(), (tokens.size() + padding) * kTokenStreamAlignment);
      auto r = decode_token_stream_body(body);
      QVERIFY(r.ok());
      QVERIFY(r->tokens == tokens);
      QCOMPARE(r->padding, padding);
      auto first = std::find(tokens.begin(), tokens.end(), kTokenStreamDegraded);
      if (first == tokens.end()) QVERIFY(!r->degraded_at);
      else QCOMPARE(r->degraded_at, std::optional<std::size_t>(static_cast<std::size_t>(first - tokens.begin())));
      QCOMPARE(encode_token_stream_body(r->tokens, r->padding), body);
    }
    Bytes one;
    append_token_stream_id(one, 0x04030201);
    QCOMPARE(one, (Bytes{1, 2, 3, 4}));
  }

  // Random bytes, zeros frequent so padding runs and misplaced padding both happen: each body
  // decodes or is refused with one of the body's reasons, in one piece or in random pieces
  // alike; a decoded body re-encodes to the same bytes. The same bytes as headers must not crash.
  void hostileGarbage() {
    std::mt19937_64 rng(0xbad);
    std::set<std::string> seen;
    for (int i = 0; i < 50000; ++i) {
      Bytes body(rng() % 48);
      for (auto& b : body) b = rng() % 3 == 0 ? 0 : static_cast<std::uint8_t>(rng());
      const auto whole = decode_token_stream_body(body);
      if (whole.ok()) {
        QCOMPARE(encode_token_stream_body(whole->tokens, whole->padding), body);
        seen.insert("ok");
      } else {
        const std::string reason = to_string(whole.error().reason);
        QVERIFY2(reason == "alignment" || reason == "padding-inside", reason.c_str());
        QVERIFY(whole.error().offset <= body.size());
        seen.insert(reason);
      }
      std::vector<std::size_t> cuts;
      for (std::size_t at = 0; at < body.size(); at += rng() % 7) cuts.push_back(at);
      QVERIFY(same_outcome(decode_in_pieces(body, cuts), whole));

      const std::string_view text = as_text(body);
      auto id = parse_context_id(text);
      if (!id) QCOMPARE(id.error().reason, TokenStreamReject::ContextId);
      else QCOMPARE(format_context_id(*id), std::string(text));
      if (auto ms = parse_token_stream_retry_after(text)) {
        QVERIFY(std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }));
        QCOMPARE(ms->cause, classify_retry_after_ms(ms->milliseconds));
      }
    }
    QCOMPARE(seen, (std::set<std::string>{"ok", "alignment", "padding-inside"}));
  }

  // The table's rules, in its order: alignment, context id, tenant (header, then key).
  void admissionFollowsTheHeaderTable() {
    TokenStreamRequestHeaders ok{kTokenStreamMediaType, "4", "34359738373", std::nullopt, std::nullopt};
    auto a = admit_token_stream_request(ok, std::nullopt);
    QCOMPARE(a.status(), 200);
    QCOMPARE(a.context, (TokenStreamContextId{8, 5}));  // 8 << 32 | 5
    QVERIFY(a.streaming);

    struct Case {
      std::optional<std::string> alignment, context_id, tenant, streaming;
      std::optional<std::uint32_t> key_tenant;
      int status;
      const char* names;  // what the reason must name
    };
    const Case cases[] = {
        {std::nullopt, "5", {}, {}, {}, 400, "X-Claude-Token-Alignment"},
        {"8", "5", {}, {}, {}, 400, "X-Claude-Token-Alignment"},
        {"4 ", "5", {}, {}, {}, 400, "X-Claude-Token-Alignment"},
        {"4", std::nullopt, {}, {}, {}, 400, "X-Claude-Context-ID"},
        {"4", "12n", {}, {}, {}, 400, "X-Claude-Context-ID"},
        {"4", "-1", {}, {}, {}, 400, "X-Claude-Context-ID"},
        {"4", "18446744073709551616", {}, {}, {}, 400, "X-Claude-Context-ID"},
        {"4", "34359738373", "7", {}, {}, 401, "X-Claude-Tenant-ID"},
        {"4", "34359738373", "8x", {}, {}, 401, "X-Claude-Tenant-ID"},
        {"4", "34359738373", "8", {}, 7u, 401, "API key"},
        {"4", "34359738373", {}, {}, 7u, 401, "API key"},
        {"4", "34359738373", "8", "maybe", 8u, 400, "X-Claude-Streaming"},
        // Alignment is judged before the context id, the context id before the tenant.
        {"2", "12n", "7", {}, {}, 400, "X-Claude-Token-Alignment"},
        {"4", "12n", "7", {}, 7u, 400, "X-Claude-Context-ID"},
    };
    for (const auto& c : cases) {
      TokenStreamRequestHeaders h{kTokenStreamMediaType, c.alignment, c.context_id, c.tenant, c.streaming};
      auto r = admit_token_stream_request(h, c.key_tenant);
      QCOMPARE(r.status(), c.status);
      QVERIFY2(r.reason.find(c.names) != std::string::npos, r.reason.c_str());
    }
    TokenStreamRequestHeaders quiet{kTokenStreamMediaType, "4", "34359738373", "8", "false"};
    auto q = admit_token_stream_request(quiet, 8u);
    QCOMPARE(q.status(), 200);
    QVERIFY(!q.streaming);
  }

  void hostileHeaderValuesAreShownSafely() {
    TokenStreamRequestHeaders h{kTokenStreamMediaType, std::string("4\x01\"\xff") + std::string(200, 'a'), "5", {}, {}};
    auto r = admit_token_stream_request(h, std::nullopt);
    QCOMPARE(r.status(), 400);
    QVERIFY2(r.reason.find("\\x01") != std::string::npos && r.reason.find("\\xFF") != std::string::npos, r.reason.c_str());
    QVERIFY2(r.reason.size() < 200, r.reason.c_str());
    for (char c : r.reason) QVERIFY(static_cast<unsigned char>(c) >= 0x20);
  }

  void mediaTypeSelectsThePassthrough() {
    QVERIFY(selects_token_stream(std::string(kTokenStreamMediaType)));
    QVERIFY(selects_token_stream(std::string("Application/Vnd.Claude.Token-Stream; v=1")));
    QVERIFY(!selects_token_stream(std::string("application/json")));
    QVERIFY(!selects_token_stream(std::string("application/vnd.claude.token-streamx")));
    QVERIFY(!selects_token_stream(std::nullopt));
  }

  // min(now + 24 h, created + 7 d), renewed by each request; unknown again after expiry.
  void contextLifetime() {
    TokenStreamContexts contexts;
    const TokenStreamContextId id{3, 9};
    const double hour = 3600, day = 24 * hour;
    QCOMPARE(contexts.touch(id, 0), ContextTouch::Created);
    QCOMPARE(*contexts.expiry(id, 0), day);
    QCOMPARE(contexts.touch(id, 23 * hour), ContextTouch::Renewed);
    QCOMPARE(*contexts.expiry(id, 23 * hour), 47 * hour);
    for (double t = 1.5 * day; t < 6.5 * day; t += 12 * hour) QCOMPARE(contexts.touch(id, t), ContextTouch::Renewed);
    QCOMPARE(*contexts.expiry(id, 6.5 * day), 7 * day);  // the cap: created + 7 d
    QVERIFY(contexts.known(id, 7 * day - 1));
    QVERIFY(!contexts.known(id, 7 * day));
    QCOMPARE(contexts.touch(id, 7 * day), ContextTouch::Created);  // created anew
    QCOMPARE(*contexts.expiry(id, 7 * day), 8 * day);
    QVERIFY(!contexts.known({3, 10}, 0));
  }

  void contextsStayWithinTheirCapacity() {
    TokenStreamContexts contexts(3);
    for (std::uint32_t i = 0; i < 10; ++i) contexts.touch({1, i}, i);
    QCOMPARE(contexts.size(), std::size_t{3});
    QVERIFY(contexts.known({1, 9}, 9) && contexts.known({1, 8}, 9) && contexts.known({1, 7}, 9));
    QVERIFY(!contexts.known({1, 6}, 9));
  }

  void vocabularyRoundTripsThroughJson() {
    TokenStreamVocabulary v({"Hello", " world", "\"quoted\"\n", "Hello", "🙂"});
    QCOMPARE(v.size(), std::size_t{5});  // padding + 4 distinct
    QCOMPARE(v.id_of("Hello"), std::optional<std::uint32_t>(1));
    QCOMPARE(v.id_of("🙂"), std::optional<std::uint32_t>(4));
    QVERIFY(!v.text_of(0));
    auto json = nlohmann::json::parse(v.to_json());
    QCOMPARE(json.size(), std::size_t{5});
    QCOMPARE(json[3].get<std::string>(), std::string("\"quoted\"\n"));
    auto back = TokenStreamVocabulary::from_json(v.to_json());
    QVERIFY(back.ok());
    for (std::uint32_t id = 0; id < 6; ++id) QCOMPARE(back->text_of(id), v.text_of(id));
    const std::vector<std::uint32_t> ids{1, 2, kTokenStreamDegraded, 4, 77, 0, 0};
    QCOMPARE(token_stream_text(ids, v), std::string("Hello world⟦degraded⟧🙂⟦77⟧"));
  }

  void hostileVocabularies() {
    for (const char* body : {"", "{}", "[\"\", 3]", "[\"\", \"a\", null]", "[[[[", "\"text\""}) {
      auto v = TokenStreamVocabulary::from_json(body);
      QVERIFY2(!v.ok(), body);
      QVERIFY(!v.error().detail.empty());
    }
    auto bad = TokenStreamVocabulary::from_json("[\"\", \"a\", 5]");
    QVERIFY2(bad.error().detail.find("entry 2") != std::string::npos, bad.error().detail.c_str());
  }
};

QTEST_GUILESS_MAIN(TestTokenStream)
#include "test_token_stream.moc"
