// Layer Zero's codec (../shared/spec/profiles/layer-zero.md) against the profiles'
// vectors bit for bit: CRC-32C, every frame encoded and decoded with its payload's fields, every
// negative refused with its reason in the spec's order, the SessionToken (issue, tamper, expiry,
// clock skew, the resume's reissue), where resending starts, and the splitter fed the
// conversation cut at every byte and hostile bytes that must end in frames or a reason.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <random>
#include <set>

#include "crypto/hash.h"
#include "layerzero/frame.h"
#include "layerzero/payload.h"
#include "layerzero/resume.h"
#include "layerzero/session_token.h"
#include "layerzero/splitter.h"
#include "profiles_vectors.h"

using namespace anthro;
using namespace anthro::lz;
using nlohmann::json;

namespace {

const json& lz_vectors() { return test::profiles_vectors("layer_zero"); }
const json& frame_vector(const std::string& name) { return test::lz_frame_vector(name); }

std::optional<Direction> direction_of(const json& c) {
  if (!c.contains("dir")) return std::nullopt;
  return c["dir"] == "c2s" ? Direction::ClientToServer : Direction::ServerToClient;
}

Key32 token_key() { return test::key32(lz_vectors()["token_key"]); }

SessionToken token_of(const json& hex) { return test::lz_token_of(hex); }
SessionTerms vector_terms() { return test::lz_vector_terms(); }

TokenFields vector_fields() {
  const json& v = lz_vectors();
  auto id = from_hex_array<kSessionIdSize>(v["session_id"].get<std::string>());
  return {*id, v["expiry_ns"].get<std::uint64_t>(), v["issued_ns"].get<std::uint64_t>()};
}

// A frame vector's payload, decoded as its type says in its direction.
template <class T>
T payload_of(const std::string& name) {
  const json& f = frame_vector(name);
  auto p = decode_payload(static_cast<PayloadType>(f["payload_type"].get<int>()), test::hex(f["payload"]), direction_of(f));
  if (!p) qFatal("%s: %s", name.c_str(), p.error().detail.c_str());
  if (!std::holds_alternative<T>(*p)) qFatal("%s decodes to another payload", name.c_str());
  return std::get<T>(*p);
}

Bytes conversation_bytes() {
  Bytes all;
  for (const auto& f : lz_vectors()["frames"]) append(all, test::hex(f["frame"]));
  return all;
}

// Bit by bit, straight from the definition: the reference for the sliced tables.
std::uint32_t crc32c_bitwise(ByteView data) {
  std::uint32_t c = 0xFFFFFFFF;
  for (std::uint8_t b : data) {
    c ^= b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ ((c & 1) ? 0x82F63B78 : 0);
  }
  return ~c;
}

struct Split {
  std::vector<DataFrame> frames;
  std::uint64_t delivered_bytes = 0;
  std::optional<FrameRefusal> refusal;
};

// Feeds `bytes` in pieces of at most `piece` bytes (random sizes when `rng` is given), then ends.
Split split(FrameSplitter& s, ByteView bytes, std::size_t piece, std::mt19937_64* rng = nullptr) {
  Split out;
  auto on_frame = [&](const FrameView& f) {
    QCOMPARE(f.offset, out.delivered_bytes);  // frames come in order, back to back
    out.delivered_bytes += f.wire.size();
    out.frames.push_back(f.to_frame());
  };
  for (std::size_t at = 0; at < bytes.size();) {
    std::size_t n = std::min(rng ? std::size_t((*rng)() % (piece + 1)) : piece, bytes.size() - at);
    s.feed(bytes.subspan(at, n), on_frame);
    at += n;
  }
  out.refusal = s.finish();
  return out;
}

FrameRefusal refusal_of(const FrameOutcome& outcome) {
  if (!outcome.ok()) return outcome.error();
  qFatal("the frame was accepted");
}

// A failure message: the refusal's detail, or nothing for an accepted frame.
std::string why(const FrameOutcome& outcome) {
  return outcome.ok() ? std::string() : outcome.error().detail;
}

}  // namespace

class TestLayerZero : public QObject {
  Q_OBJECT
 private slots:
  void crcCheckValue() {
    const json& c = lz_vectors()["crc32c_check"];
    const std::string input = c["input"].get<std::string>();
    QCOMPARE(crc32c(as_bytes(input)), static_cast<std::uint32_t>(std::stoul(c["crc"].get<std::string>(), nullptr, 16)));
    QCOMPARE(crc32c(as_bytes(input)), kCrc32cCheck);
    QCOMPARE(crc32c({}), 0u);
    for (std::size_t cut = 0; cut <= input.size(); ++cut)
      QCOMPARE(crc32c_extend(crc32c(as_bytes(input).first(cut)), as_bytes(input).subspan(cut)), kCrc32cCheck);
  }

  void crcMatchesTheBitwiseDefinition() {
    std::mt19937_64 rng(2);
    Bytes data(4096 + 7);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    // Every length around the 8-byte stride, from every alignment.
    for (std::size_t start = 0; start < 8; ++start)
      for (std::size_t n = 0; n < 80; ++n) QCOMPARE(crc32c(ByteView(data).subspan(start, n)), crc32c_bitwise(ByteView(data).subspan(start, n)));
    QCOMPARE(crc32c(data), crc32c_bitwise(data));
  }

  void framesEncodeToTheVectors_data() { frameRows(); }
  void framesEncodeToTheVectors() {
    QFETCH(int, index);
    const json& f = lz_vectors()["frames"][static_cast<std::size_t>(index)];
    auto type = static_cast<PayloadType>(f["payload_type"].get<int>());
    auto frame = encode_frame(f["sequence_id"].get<std::uint32_t>(), type, test::hex(f["payload"]));
    QVERIFY(frame.ok());
    QCOMPARE(to_hex(*frame), f["frame"].get<std::string>());
    Bytes appended{0xAA};
    QVERIFY(append_frame(appended, f["sequence_id"].get<std::uint32_t>(), type, test::hex(f["payload"])));
    QCOMPARE(to_hex(ByteView(appended).subspan(1)), f["frame"].get<std::string>());
  }

  void framesDecodeToTheirFields_data() { frameRows(); }
  void framesDecodeToTheirFields() {
    QFETCH(int, index);
    const json& f = lz_vectors()["frames"][static_cast<std::size_t>(index)];
    const Bytes wire = test::hex(f["frame"]);
    const FrameHeader h = parse_header(wire.data());
    QCOMPARE(h.sequence_id, f["sequence_id"].get<std::uint32_t>());
    QCOMPARE(static_cast<int>(h.type), f["payload_type"].get<int>());
    QCOMPARE(h.frame_size(), wire.size());
    // Trailing bytes are the next frame's, not this one's.
    Bytes longer = wire;
    longer.push_back(0);
    auto outcome = decode_frame(longer, direction_of(f));
    QVERIFY2(outcome.ok(), why(outcome).c_str());
    const DecodedFrame* d = &*outcome;
    QCOMPARE(d->size, wire.size());
    QCOMPARE(d->frame.sequence_id, f["sequence_id"].get<std::uint32_t>());
    QCOMPARE(static_cast<int>(d->frame.type), f["payload_type"].get<int>());
    QCOMPARE(to_hex(d->frame.payload), f["payload"].get<std::string>());
    // The payload decodes, and encodes back to the same bytes under the same type.
    auto payload = decode_payload(d->frame, direction_of(f));
    QVERIFY2(payload.ok(), payload.ok() ? "" : payload.error().detail.c_str());
    QCOMPARE(payload_type_of(*payload, *direction_of(f)), d->frame.type);
    auto again = encode_payload(*payload);
    QVERIFY(again.ok());
    QCOMPARE(to_hex(*again), f["payload"].get<std::string>());
  }

  void sessionPayloads() {
    const SessionInit init = payload_of<SessionInit>("session_init");
    QCOMPARE(init.terms, vector_terms());
    QVERIFY(!init.resume);
    QCOMPARE(init.terms.constraints, kConstraintTools | kConstraintJsonOnly | kConstraintDynamicFrameSize);

    const SessionAck ack = payload_of<SessionAck>("session_ack");
    QCOMPARE(to_hex(ack.token), lz_vectors()["session_token"].get<std::string>());
    QCOMPARE(ack.last_client_sequence_id, 0u);
    QCOMPARE(ack.server_time_ns, std::uint64_t{1764500000001000000});  // a millisecond after the token's issue

    const SessionInit resume = payload_of<SessionInit>("resume_init");
    QCOMPARE(resume.terms, vector_terms());
    QVERIFY(resume.resume);
    QCOMPARE(to_hex(resume.resume->token), lz_vectors()["session_token"].get<std::string>());
    QCOMPARE(resume.resume->last_server_sequence_id, 2u);
    QCOMPARE(resume.resume->client_time_ns, std::uint64_t{1764500039998000000});

    const SessionAck resumed = payload_of<SessionAck>("resume_ack");
    QCOMPARE(to_hex(resumed.token), lz_vectors()["resume"]["reissued_token"].get<std::string>());
    QCOMPARE(resumed.last_client_sequence_id, 2u);
    QCOMPARE(resumed.server_time_ns, std::uint64_t{1764500040000000000});
  }

  // The profile's authentication: constraint 0x40 and u8 length + key after every other field, on a
  // fresh INIT and on a resume; the length rule grows by 1 + key length.
  void sessionInitCarriesAKey() {
    const std::string key = "sk-ant-test-key";
    const SessionInit fresh{vector_terms(), std::nullopt, key};
    const SessionInit resume{vector_terms(), ResumeFields{test::lz_token_of(lz_vectors()["session_token"]), 2, 7}, key};
    for (const SessionInit& init : {fresh, resume}) {
      const Bytes bytes = *encode_payload(init);
      QCOMPARE(bytes.size(), std::size_t{9} + init.terms.model_id.size() + (init.resume ? 76 : 0) + 1 + key.size());
      QVERIFY(length_allowed(PayloadType::SessionInit, bytes, Direction::ClientToServer));
      auto back = decode_session_init(bytes);
      QVERIFY(back.ok());
      QCOMPARE(back->api_key, init.api_key);
      QCOMPARE(back->resume, init.resume);
      QCOMPARE(back->terms.constraints, init.terms.constraints | kConstraintApiKey);
      for (Bytes wrong : {Bytes(bytes.begin(), bytes.end() - 1), Bytes(bytes.begin(), bytes.end() - 1 - key.size())}) {
        QVERIFY(!length_allowed(PayloadType::SessionInit, wrong, Direction::ClientToServer));  // the key cut short; the bit with no key
        QCOMPARE(decode_session_init(wrong).error().reason, std::string("length"));
      }
      Bytes empty_key(bytes.begin(), bytes.end() - key.size());
      empty_key.back() = 0;
      QVERIFY(!decode_session_init(empty_key).ok());
    }
    const Bytes plain = *encode_payload(SessionInit{vector_terms(), std::nullopt, std::nullopt});
    QVERIFY(!decode_session_init(plain)->api_key);
    QVERIFY(!encode_payload(SessionInit{vector_terms(), std::nullopt, std::string(256, 'k')}).ok());
    QVERIFY(!encode_payload(SessionInit{vector_terms(), std::nullopt, std::string()}).ok());
  }

  void dataPayloads() {
    QCOMPARE(payload_of<TextPayload>("user_input").text, std::string("查北京天气"));
    QCOMPARE(payload_of<TextPayload>("model_output").text, std::string("北京今天晴，25度"));
    const auto small = payload_of<TextPayload>("model_output_small_after_backpressure");
    QCOMPARE(small.text, std::string("（以下分块≤512字节）"));

    const ClientHeartbeat full = payload_of<ClientHeartbeat>("heartbeat_client_full");
    QCOMPARE(full.buffer_usage, std::uint8_t{0xFF});
    // With 0x10 set, a full buffer gets chunks of at most 512 B; 0xAA (the spec's "70 %") none.
    QCOMPARE(output_chunk_limit(vector_terms().constraints, full.buffer_usage), kBackpressureChunk);
    QVERIFY(small.text.size() <= kBackpressureChunk);
    QCOMPARE(output_chunk_limit(vector_terms().constraints, 0xAA), kMaxOutputChunk);
    QCOMPARE(output_chunk_limit(vector_terms().constraints, kBackpressureUsage), kBackpressureChunk);
    QCOMPARE(output_chunk_limit(kConstraintJsonOnly, 0xFF), kMaxOutputChunk);

    const ToolCall call = payload_of<ToolCall>("tool_call");
    QCOMPARE(call.name, std::string("get_stock_price"));
    QCOMPARE(call.parameters_json, std::string(R"({"symbol":"ACME","market":"NASDAQ"})"));
    const ToolResult result = payload_of<ToolResult>("tool_result");
    QCOMPARE(result.call_sequence_id, frame_vector("tool_call")["sequence_id"].get<std::uint32_t>());
    QCOMPARE(result.result_json, std::string(R"({"price":152.34})"));
    QCOMPARE(payload_of<ToolResult>("tool_result_resent"), result);

    QCOMPARE(payload_of<ServerHeartbeat>("heartbeat_server").server_time_ns, std::uint64_t{1764500041000000000});
    const Terminate end = payload_of<Terminate>("terminate");
    QCOMPARE(end.code, std::uint16_t{0});
    QVERIFY(end.reason() == TerminateReason::Normal);
  }

  void negativesRefusedWithTheirReason_data() {
    QTest::addColumn<int>("index");
    int i = 0;
    for (const auto& n : lz_vectors()["negatives"]) QTest::newRow(n["name"].get<std::string>().c_str()) << i++;
  }
  void negativesRefusedWithTheirReason() {
    QFETCH(int, index);
    const json& n = lz_vectors()["negatives"][static_cast<std::size_t>(index)];
    std::optional<std::uint32_t> previous;
    if (n.contains("previous")) previous = n["previous"].get<std::uint32_t>();
    const Bytes wire = test::hex(n["frame"]);
    const FrameRefusal r = refusal_of(decode_frame(wire, direction_of(n), previous));
    QCOMPARE(std::string(to_string(r.reason)), n["reject"].get<std::string>());
    QVERIFY(parse_terminate_reason(n["reject"].get<std::string>()) == r.reason);
    QVERIFY(!r.detail.empty());
    // The splitter refuses it the same way, at offset 0.
    FrameSplitter s(direction_of(n), previous);
    Split got = split(s, wire, 3);
    QVERIFY(got.frames.empty());
    QVERIFY(got.refusal);
    QVERIFY(got.refusal->reason == r.reason);
    QCOMPARE(got.refusal->offset, std::uint64_t{0});
  }

  void sequenceNegativeNamesThePrevious() {
    for (const auto& n : lz_vectors()["negatives"]) {
      if (n["reject"] != "sequence") continue;
      const Bytes wire = test::hex(n["frame"]);
      const auto previous = n["previous"].get<std::uint32_t>();
      const FrameRefusal r = refusal_of(decode_frame(wire, direction_of(n), previous));
      QVERIFY2(r.detail.find("after " + std::to_string(previous)) != std::string::npos, r.detail.c_str());
      // The same frame is in order after its predecessor, and unchecked without a previous.
      QVERIFY(decode_frame(wire, direction_of(n), parse_header(wire.data()).sequence_id - 1).ok());
      QVERIFY(decode_frame(wire, direction_of(n)).ok());
    }
  }

  void sequenceRule() {
    const FrameHeader init{0, PayloadType::SessionInit, 9};
    QVERIFY(sequence_allowed(init, 0));
    QVERIFY(sequence_allowed(init, 41));  // INIT/ACK carry 0 whatever came before
    QVERIFY(!sequence_allowed({1, PayloadType::SessionAck, 76}, 0));
    QVERIFY(sequence_allowed({1, PayloadType::UserInput, 0}, 0));
    QVERIFY(!sequence_allowed({1, PayloadType::UserInput, 0}, 1));  // a repeat
    QVERIFY(!sequence_allowed({0, PayloadType::UserInput, 0}, 0xFFFFFFFF));  // no wrap-around
    // A non-zero INIT is refused even when no previous id is known.
    Bytes payload = test::hex(frame_vector("session_init")["payload"]);
    QCOMPARE(refusal_of(decode_frame(*encode_frame(7, PayloadType::SessionInit, payload))).reason, TerminateReason::Sequence);
  }

  void lengthRules() {
    auto ok = [](PayloadType t, std::size_t n, std::optional<Direction> dir = std::nullopt, std::uint8_t first = 0) {
      Bytes p(n, 0x20);
      if (n) p[0] = first;
      return length_allowed(t, p, dir);
    };
    const auto c2s = Direction::ClientToServer, s2c = Direction::ServerToClient;
    QVERIFY(ok(PayloadType::UserInput, 0) && ok(PayloadType::UserInput, 70000));
    QVERIFY(ok(PayloadType::ModelOutput, kMaxOutputChunk) && !ok(PayloadType::ModelOutput, kMaxOutputChunk + 1));
    QVERIFY(!ok(PayloadType::ToolCall, 0) && !ok(PayloadType::ToolCall, 1) && ok(PayloadType::ToolCall, 2));
    QVERIFY(!ok(PayloadType::ToolCall, 6, {}, 5) && ok(PayloadType::ToolCall, 7, {}, 5));
    QVERIFY(!ok(PayloadType::ToolResult, 3) && ok(PayloadType::ToolResult, 4));
    QVERIFY(ok(PayloadType::Heartbeat, 1, c2s) && !ok(PayloadType::Heartbeat, 8, c2s));
    QVERIFY(ok(PayloadType::Heartbeat, 8, s2c) && !ok(PayloadType::Heartbeat, 1, s2c));
    QVERIFY(ok(PayloadType::Heartbeat, 1) && ok(PayloadType::Heartbeat, 8) && !ok(PayloadType::Heartbeat, 2));
    QVERIFY(ok(PayloadType::Terminate, 2) && !ok(PayloadType::Terminate, 1) && !ok(PayloadType::Terminate, 3));
    QVERIFY(!ok(PayloadType::SessionInit, 0) && ok(PayloadType::SessionInit, 9) && ok(PayloadType::SessionInit, 85));
    QVERIFY(ok(PayloadType::SessionInit, 12, {}, 3) && ok(PayloadType::SessionInit, 88, {}, 3));
    QVERIFY(!ok(PayloadType::SessionInit, 9, {}, 3) && !ok(PayloadType::SessionInit, 50, {}, 3));
    QVERIFY(ok(PayloadType::SessionAck, 76) && !ok(PayloadType::SessionAck, 75));
    QVERIFY(!ok(static_cast<PayloadType>(0x07), 1));
  }

  void reasonsAndTypesByName() {
    const char* names[] = {"normal",     "checksum", "type",       "length",          "sequence",
                           "state-hash", "expired",  "clock-skew", "budget-exceeded", "unauthorized"};
    for (std::uint16_t code = 0; code < 10; ++code) {
      auto r = terminate_reason_from_code(code);
      QVERIFY(r);
      QCOMPARE(std::string(to_string(*r)), std::string(names[code]));
      QVERIFY(parse_terminate_reason(names[code]) == r);
    }
    QVERIFY(!terminate_reason_from_code(10));
    QVERIFY(!terminate_reason_from_code(0xFFFF));  // `incomplete` never travels
    QVERIFY(parse_terminate_reason("incomplete") == TerminateReason::Incomplete);
    QVERIFY(!parse_terminate_reason("bogus"));
    QCOMPARE(std::string(to_string(PayloadType::SessionAck)), std::string("SESSION_ACK"));
    int known = 0;
    for (int t = 0; t < 256; ++t) known += is_known_payload_type(static_cast<std::uint8_t>(t));
    QCOMPARE(known, 8);
  }

  void encodersRefuseWhatCannotBeSent() {
    Bytes too_big(std::size_t{kMaxPayload} + 1);
    auto frame = encode_frame(1, PayloadType::UserInput, too_big);
    QVERIFY(!frame.ok());
    QCOMPARE(frame.error().reason, std::string("length"));
    Bytes out{1, 2};
    QVERIFY(!append_frame(out, 1, PayloadType::UserInput, too_big));
    QCOMPARE(out.size(), std::size_t{2});
    QVERIFY(!encode_payload(ToolCall{std::string(256, 'x'), "{}"}).ok());
    QVERIFY(!encode_payload(ToolCall{"", "{}"}).ok());
    QVERIFY(!encode_payload(ToolCall{"f", ""}).ok());
    QVERIFY(!encode_payload(SessionInit{{std::string(256, 'm'), 1, 0}, std::nullopt}).ok());
    QVERIFY(!issue_token(token_key(), vector_fields(), {std::string(256, 'm'), 1, 0}).ok());
  }

  void payloadDecodersBoundEveryPrefix() {
    // Every strict prefix of a fixed-layout payload is refused as `length`, never read past.
    for (const auto& f : lz_vectors()["frames"]) {
      const auto type = static_cast<PayloadType>(f["payload_type"].get<int>());
      if (type == PayloadType::UserInput || type == PayloadType::ModelOutput) continue;
      const Bytes p = test::hex(f["payload"]);
      for (std::size_t n = 0; n < p.size(); ++n) {
        auto r = decode_payload(type, ByteView(p).first(n), direction_of(f));
        if (type == PayloadType::ToolResult && n >= 4) continue;  // the JSON may be any length
        if (type == PayloadType::ToolCall && n >= 2 + std::size_t{p[0]}) continue;
        if (type == PayloadType::SessionInit && n == 9 + std::size_t{p[0]}) continue;  // the fresh form
        QVERIFY2(!r.ok(), f["name"].get<std::string>().c_str());
        QCOMPARE(r.error().reason, std::string("length"));
      }
    }
    QCOMPARE(decode_payload(static_cast<PayloadType>(0x42), {}).error().reason, std::string("type"));
  }

  void sessionTokenIssuedAndVerified() {
    const json& v = lz_vectors();
    auto token = issue_token(token_key(), vector_fields(), vector_terms());
    QVERIFY(token.ok());
    QCOMPARE(to_hex(*token), v["session_token"].get<std::string>());
    const TokenView view = read_token(*token);
    QCOMPARE(view.expiry_ns, v["expiry_ns"].get<std::uint64_t>());
    QCOMPARE(view.issued_ns, v["issued_ns"].get<std::uint64_t>());
    QCOMPARE(view.expiry_ns - view.issued_ns, v["session_timeout_ns"].get<std::uint64_t>());
    QCOMPARE(to_hex(*reissue_token(token_key(), vector_fields().session_id, vector_terms(), v["issued_ns"].get<std::uint64_t>())),
             v["session_token"].get<std::string>());

    auto fields = verify_token(token_key(), *token, vector_terms(), v["expiry_ns"].get<std::uint64_t>() - 1);
    QVERIFY2(fields.ok(), fields.ok() ? "" : fields.error().detail.c_str());
    QCOMPARE(*fields, vector_fields());
  }

  void sessionTokenRefusals() {
    const json& v = lz_vectors();
    const SessionToken token = token_of(v["session_token"]);
    const std::uint64_t now = v["issued_ns"].get<std::uint64_t>();
    auto tampered = verify_token(token_key(), token_of(v["tampered_token"]), vector_terms(), now);
    QVERIFY(!tampered.ok());
    QCOMPARE(tampered.error().reason, v["tampered_reject"].get<std::string>());
    auto expired = verify_token(token_key(), token, vector_terms(), v["expired_example"]["server_time_ns"].get<std::uint64_t>());
    QVERIFY(!expired.ok());
    QCOMPARE(expired.error().reason, v["expired_example"]["reject"].get<std::string>());
    // Another key, or terms the token was not issued for: no key verifies it.
    Key32 other = token_key();
    other[0] ^= 1;
    QCOMPARE(verify_token(other, token, vector_terms(), now).error().reason, std::string("state-hash"));
    SessionTerms changed = vector_terms();
    changed.budget_ms += 1;
    QCOMPARE(verify_token(token_key(), token, changed, now).error().reason, std::string("state-hash"));
    // Every bit of the token matters.
    for (std::size_t bit = 0; bit < kTokenSize * 8; ++bit) {
      SessionToken flipped = token;
      flipped[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      QVERIFY(!verify_token(token_key(), flipped, vector_terms(), now).ok());
    }
    // Rotation: any known key that verifies it will do.
    const Key32 keys[] = {other, token_key()};
    QVERIFY(verify_token(keys, token, vector_terms(), now).ok());
  }

  void resumeVectors() {
    const json& v = lz_vectors();
    const SessionInit init = payload_of<SessionInit>("resume_init");
    const SessionAck ack = payload_of<SessionAck>("resume_ack");
    // The resume is accepted on the clock the ACK reports, and the ACK's token is the one
    // reissued then: issued = now, expiry = now + session_timeout.
    auto fields = verify_resume(token_key(), init, ack.server_time_ns);
    QVERIFY2(fields.ok(), fields.ok() ? "" : fields.error().detail.c_str());
    QCOMPARE(fields->session_id, vector_fields().session_id);
    auto reissued = reissue_token(token_key(), fields->session_id, init.terms, ack.server_time_ns,
                                  v["session_timeout_ns"].get<std::uint64_t>());
    QVERIFY(reissued.ok());
    QCOMPARE(to_hex(*reissued), v["resume"]["reissued_token"].get<std::string>());
    QCOMPARE(*reissued, ack.token);

    const ResumePlan plan = resume_plan(*init.resume, ack);
    QCOMPARE(plan.client_resends_from, v["resume"]["client_resends_from"].get<std::uint64_t>());
    QCOMPARE(plan.server_resends_from, v["resume"]["server_resends_from"].get<std::uint64_t>());
    QCOMPARE(plan.client_resends_from, std::uint64_t{frame_vector("tool_result_resent")["sequence_id"].get<std::uint32_t>()});
    QCOMPARE(resend_from(0xFFFFFFFF), std::uint64_t{0x100000000});
  }

  void clockSkewRefusesTheResume() {
    const json& c = lz_vectors()["clock_skew_example"];
    SessionInit init = payload_of<SessionInit>("resume_init");
    init.resume->client_time_ns = c["client_time_ns"].get<std::uint64_t>();
    const auto server = c["server_time_ns"].get<std::uint64_t>();
    auto refused = verify_resume(token_key(), init, server);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().reason, c["reject"].get<std::string>());
    // Exactly 0.5 s either way still agrees; a nanosecond more does not.
    QVERIFY(!clock_skewed(server - kMaxClockSkewNs, server) && !clock_skewed(server + kMaxClockSkewNs, server));
    QVERIFY(clock_skewed(server - kMaxClockSkewNs - 1, server) && clock_skewed(server + kMaxClockSkewNs + 1, server));
    // A token that does not verify is refused for that, whatever the clocks say.
    init.resume->token = token_of(lz_vectors()["tampered_token"]);
    QCOMPARE(verify_resume(token_key(), init, server).error().reason, std::string("state-hash"));
    QCOMPARE(verify_resume(token_key(), payload_of<SessionInit>("session_init"), server).error().reason, std::string("length"));
  }

  void splitterAtEveryBoundary() {
    const Bytes all = conversation_bytes();
    const std::size_t count = lz_vectors()["frames"].size();
    for (std::size_t cut = 0; cut <= all.size(); ++cut) {
      FrameSplitter s;
      std::vector<DataFrame> got;
      auto on_frame = [&](const FrameView& f) { got.push_back(f.to_frame()); };
      QVERIFY(!s.feed(ByteView(all).first(cut), on_frame));
      QVERIFY(!s.feed(ByteView(all).subspan(cut), on_frame));
      QVERIFY(!s.finish());
      QCOMPARE(got.size(), count);
      QCOMPARE(s.offset(), std::uint64_t{all.size()});
      std::size_t i = 0;
      for (const auto& f : lz_vectors()["frames"]) QCOMPARE(to_hex(*encode_frame(got[i++])), f["frame"].get<std::string>());
    }
    FrameSplitter bytewise;
    Split one = split(bytewise, all, 1);
    QVERIFY(!one.refusal);
    QCOMPARE(one.frames.size(), count);
  }

  void splitterKeepsEachDirectionsSequence() {
    // The client's frames, with the count the server keeps: fresh from 0, then resumed from
    // the last one it had (2, as its ACK says).
    checkDirection({"session_init", "user_input", "heartbeat_client_full", "tool_result"}, Direction::ClientToServer, 0, 3);
    checkDirection({"resume_init", "tool_result_resent", "terminate"}, Direction::ClientToServer, 2, 4);
    checkDirection({"session_ack", "model_output", "heartbeat_client_full"}, Direction::ServerToClient, 0, 1, "length");
    checkDirection({"session_ack", "model_output", "model_output_small_after_backpressure", "tool_call"}, Direction::ServerToClient, 0, 3);
    // The server resends its TOOL_CALL 3 with its original id before heartbeat 4; the vectors
    // leave that resent frame out, and without it 4 does not follow 2.
    checkDirection({"resume_ack", "tool_call", "heartbeat_server"}, Direction::ServerToClient, 2, 4);
    checkDirection({"resume_ack", "heartbeat_server"}, Direction::ServerToClient, 2, 2, "sequence");
  }

  void splitterStopsAtTheFirstRefusal() {
    Bytes stream = test::hex(frame_vector("user_input")["frame"]);
    const std::size_t good = stream.size();
    append(stream, test::hex(lz_vectors()["negatives"][1]["frame"]));  // bad_crc
    append(stream, test::hex(frame_vector("terminate")["frame"]));
    FrameSplitter s(Direction::ClientToServer);
    Split got = split(s, stream, 5);
    QCOMPARE(got.frames.size(), std::size_t{1});
    QVERIFY(got.refusal && got.refusal->reason == TerminateReason::Checksum);
    QCOMPARE(got.refusal->offset, std::uint64_t{good});
    // Nothing is read after it.
    const std::uint64_t frames = s.frames();
    QVERIFY(s.feed(test::hex(frame_vector("terminate")["frame"]), [](const FrameView&) { QFAIL("read after a refusal"); }));
    QCOMPARE(s.frames(), frames);
  }

  void splitterTrustsNoLengthField() {
    // A header announcing 16 MiB − 1 holds only the bytes that came.
    Bytes header(kHeaderSize, 0);
    store_u32(header.data(), 1);
    header[4] = static_cast<std::uint8_t>(PayloadType::UserInput);
    header[5] = header[6] = header[7] = 0xFF;
    FrameSplitter s;
    QVERIFY(!s.feed(header, {}));
    QVERIFY(!s.feed(Bytes(100, 'x'), {}));
    QCOMPARE(s.buffered(), kHeaderSize + 100);
    auto end = s.finish();
    QVERIFY(end && end->reason == TerminateReason::Incomplete);
    QCOMPARE(end->offset, std::uint64_t{0});
    QCOMPARE(s.buffered(), std::size_t{0});
    // A few bytes of a header are incomplete too.
    FrameSplitter partial;
    QVERIFY(!partial.feed(ByteView(header).first(3), {}));
    QCOMPARE(partial.finish()->reason, TerminateReason::Incomplete);
  }

  void largestFrame() {
    Bytes payload(kMaxPayload);
    std::mt19937_64 rng(3);
    for (auto& b : payload) b = static_cast<std::uint8_t>(rng());
    auto frame = encode_frame(1, PayloadType::UserInput, payload);
    QVERIFY(frame.ok());
    QCOMPARE(frame->size(), kMaxFrame);
    auto outcome = decode_frame(*frame, Direction::ClientToServer, 0);
    QVERIFY(outcome.ok());
    QVERIFY(outcome->frame.payload == payload);
    FrameSplitter s(Direction::ClientToServer, 0);
    Split got = split(s, *frame, 65536);
    QVERIFY(!got.refusal);
    QCOMPARE(got.frames.size(), std::size_t{1});
    QVERIFY(got.frames[0].payload == payload);
    // Its CRC covers the last byte: one flipped there is a checksum refusal.
    (*frame)[kMaxFrame - kCrcSize - 1] ^= 1;
    QCOMPARE(refusal_of(decode_frame(*frame)).reason, TerminateReason::Checksum);
  }

  void hostileBytesEndInFramesOrAReason() {
    std::mt19937_64 rng(4);
    const Bytes conversation = conversation_bytes();
    std::set<std::string> reasons;
    for (int round = 0; round < 3000; ++round) {
      const Bytes input = hostileInput(rng, conversation, round);
      const std::optional<Direction> dir = round % 3 == 0 ? std::nullopt : std::optional(Direction(round % 2));
      const std::optional<std::uint32_t> previous = round % 4 == 0 ? std::nullopt : std::optional<std::uint32_t>(rng() % 3);
      FrameSplitter s(dir, previous);
      Split got = split(s, input, 40, &rng);
      // Either every byte became a frame, or the refusal sits right after the last frame.
      if (!got.refusal) {
        QCOMPARE(got.delivered_bytes, std::uint64_t{input.size()});
      } else {
        QCOMPARE(got.refusal->offset, got.delivered_bytes);
        QVERIFY(!got.refusal->detail.empty());
        reasons.insert(to_string(got.refusal->reason));
      }
      // A frame that passes the checks always has a payload its type can decode.
      for (const auto& f : got.frames) QVERIFY(decode_payload(f, dir).ok());
      // Whole-buffer decoding agrees on the first frame.
      auto first = decode_frame(input, dir, previous);
      QCOMPARE(first.ok(), !got.frames.empty());
    }
    QCOMPARE(reasons, (std::set<std::string>{"incomplete", "checksum", "type", "length", "sequence"}));
  }

 private:
  void frameRows() {
    QTest::addColumn<int>("index");
    int i = 0;
    for (const auto& f : lz_vectors()["frames"]) QTest::newRow(f["name"].get<std::string>().c_str()) << i++;
  }

  // Splits the named frames as one direction's stream; every frame passes but, when `reason`
  // is given, the last, which is refused with it. `last` is the splitter's count at the end.
  void checkDirection(const std::vector<std::string>& names, Direction dir, std::uint32_t previous, std::uint32_t last,
                      const char* reason = nullptr) {
    Bytes stream;
    for (const auto& name : names) append(stream, test::hex(frame_vector(name)["frame"]));
    FrameSplitter s(dir, previous);
    Split got = split(s, stream, 7);
    QCOMPARE(got.frames.size(), reason ? names.size() - 1 : names.size());
    QCOMPARE(got.refusal ? std::string(to_string(got.refusal->reason)) : std::string(), std::string(reason ? reason : ""));
    QCOMPARE(s.previous(), std::optional<std::uint32_t>(last));
  }

  // Random bytes; the conversation with bytes flipped, cut or repeated; and frames with valid
  // CRCs around random types, lengths and sequence ids, so every check is reached.
  static Bytes hostileInput(std::mt19937_64& rng, const Bytes& conversation, int round) {
    Bytes out;
    if (round % 3 == 0) {
      out.resize(rng() % 200);
      for (auto& b : out) b = static_cast<std::uint8_t>(rng());
    } else if (round % 3 == 1) {
      out = conversation;
      for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) out[rng() % out.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
      out.resize(rng() % (out.size() + 1));
    } else {
      for (int i = 0, n = static_cast<int>(1 + rng() % 6); i < n; ++i) {
        Bytes payload(rng() % 100);
        for (auto& b : payload) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? rng() : rng() % 12);
        const PayloadType types[] = {PayloadType::UserInput, PayloadType::ModelOutput, PayloadType::ToolCall, PayloadType::ToolResult,
                                     PayloadType::Heartbeat, PayloadType::Terminate, PayloadType::SessionInit, PayloadType::SessionAck,
                                     static_cast<PayloadType>(rng())};
        append(out, *encode_frame(static_cast<std::uint32_t>(rng() % 4), types[rng() % 9], payload));
      }
    }
    return out;
  }
};

QTEST_GUILESS_MAIN(TestLayerZero)
#include "test_layer_zero.moc"
