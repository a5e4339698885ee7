// Spec §4 and §5 against the vectors: every frame in both suites, every negative with its
// reason (through the one-shot check and through the stream decoder), and the body cases.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include "body_answers.h"
#include "protocol/body.h"
#include "protocol/stream_decoder.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using nlohmann::json;

namespace {

Direction direction_of(const json& v) {
  return v["direction"] == "c2s" ? Direction::ClientToServer : Direction::ServerToClient;
}

Key32 key_for(Direction dir) { return dir == Direction::ClientToServer ? vector_keys().c2s : vector_keys().s2c; }

// Requests and cancels travel client to server; the rest server to client.
Direction direction_of_type(std::uint8_t type) {
  return type == 0x01 || type == 0x04 ? Direction::ClientToServer : Direction::ServerToClient;
}

HeaderContext vector_context() { return HeaderContext{vector_token(), std::uint8_t{0x01}}; }

// The decoded body as the vectors write it.
json body_as_json(const Body& body) {
  return std::visit(
      [](const auto& b) -> json {
        using T = std::decay_t<decltype(b)>;
        json out = {{"stream_id", b.stream_id}};
        if constexpr (std::is_same_v<T, RequestBody> || std::is_same_v<T, ResponseBody>) {
          out["json"] = json::parse(b.json);
        } else if constexpr (std::is_same_v<T, TokenBody>) {
          out["token_index"] = b.token_index;
          out["token_count"] = b.token_count;
          out["text"] = std::string(b.text_view());
        } else if constexpr (std::is_same_v<T, CancelBody>) {
          out["reason"] = b.raw_reason;
        } else {
          out["code"] = b.code;
          out["retry_after_ms"] = b.retry_after_ms;
          out["message"] = std::string(b.message_view());
        }
        return out;
      },
      body);
}

// What the stream decoder reports for one frame fed alone.
std::vector<FrameEvent> decode_alone(ByteView frame, Direction dir) {
  std::vector<FrameEvent> events;
  DirectionDecoder decoder(dir, PrefaceMode::None,
                           DecoderEvents{nullptr, [&](const FrameEvent& e) { events.push_back(e); }, nullptr},
                           [dir](std::uint64_t) { return std::vector<KeyCandidate>{{Suite::Aes256Gcm, key_for(dir)}}; });
  decoder.set_header_context(vector_context());
  decoder.feed(frame);
  decoder.finish();
  return events;
}

}  // namespace

class TestFrames : public QObject {
  Q_OBJECT
 private slots:
  void sealReproducesEveryFrame() {
    int count = 0;
    for (const auto& v : vectors()["frames"]) {
      std::string name = v["suite"].get<std::string>() + "/" + v["name"].get<std::string>();
      Aead aead(*parse_suite(v["suite"].get<std::string>()), key_for(direction_of(v)));
      Bytes frame = seal_frame(aead, static_cast<FrameType>(v["type"].get<int>()), v["flags"],
                               vector_token(), nonce12(v["nonce"]), hex(v["plaintext"]));
      QVERIFY2(to_hex(frame) == v["frame"].get<std::string>(), name.c_str());
      ++count;
    }
    QCOMPARE(count, 14);
  }

  void openYieldsPlaintextAndBody() {
    for (const auto& v : vectors()["frames"]) {
      std::string name = v["suite"].get<std::string>() + "/" + v["name"].get<std::string>();
      Aead aead(*parse_suite(v["suite"].get<std::string>()), key_for(direction_of(v)));
      auto result = check_and_open(hex(v["frame"]), vector_context(), aead);
      QVERIFY2(std::holds_alternative<OpenedFrame>(result), name.c_str());
      const auto& opened = std::get<OpenedFrame>(result);
      QCOMPARE(to_hex(opened.plaintext), v["plaintext"].get<std::string>());
      auto body = parse_body(opened.header.frame_type(), opened.header.flags, opened.plaintext);
      QVERIFY2(body.ok(), (name + ": " + (body.ok() ? "" : body.error().detail)).c_str());
      QVERIFY2(body_as_json(*body) == v["decoded"], (name + ": " + body_as_json(*body).dump()).c_str());
    }
  }

  void wrongSuiteOrKeyFailsAuthentication() {
    const auto& v = vectors()["frames"][0];
    Aead chacha(Suite::ChaCha20Poly1305, vector_keys().c2s);
    Aead other_direction(Suite::Aes256Gcm, vector_keys().s2c);
    for (Aead* aead : {&chacha, &other_direction}) {
      auto result = check_and_open(hex(v["frame"]), vector_context(), *aead);
      QVERIFY(std::holds_alternative<FrameRefusal>(result));
      QCOMPARE(std::get<FrameRefusal>(result).reason, FrameReason::Authentication);
    }
  }

  void everyNegativeHasItsReason() {
    QVERIFY(vectors()["negatives"].size() >= 12);
    for (const auto& v : vectors()["negatives"]) {
      std::string name = v["name"], want = v["reject"];
      Bytes frame = hex(v["frame"]);
      Direction dir = direction_of_type(frame[1]);
      Aead aead(Suite::Aes256Gcm, key_for(dir));
      auto result = check_and_open(frame, vector_context(), aead);
      QVERIFY2(std::holds_alternative<FrameRefusal>(result), name.c_str());
      std::string got = to_string(std::get<FrameRefusal>(result).reason);
      QVERIFY2(got == want, (name + ": expected " + want + ", got " + got).c_str());

      auto events = decode_alone(frame, dir);
      QVERIFY2(events.size() == 1, (name + ": decoder events " + std::to_string(events.size())).c_str());
      QVERIFY2(events[0].refusal && to_string(*events[0].refusal) == want, name.c_str());
      QCOMPARE(events[0].offset, std::uint64_t{0});
      QVERIFY(!events[0].decrypted);
    }
  }

  void bodyCasesHaveTheirOutcome() {
    for (const auto& v : vectors()["body_cases"]) {
      std::string name = v["name"], expect = v["expect"];
      Direction dir = direction_of(v);
      Aead aead(*parse_suite(v["suite"].get<std::string>()), key_for(dir));
      auto result = check_and_open(hex(v["frame"]), vector_context(), aead);
      QVERIFY2(std::holds_alternative<OpenedFrame>(result), name.c_str());
      const auto& opened = std::get<OpenedFrame>(result);
      auto body = parse_body(opened.header.frame_type(), opened.header.flags, opened.plaintext);
      if (expect == "body") {
        QVERIFY2(!body.ok(), name.c_str());
        QCOMPARE(body.error().reason, std::string("body"));
        auto events = decode_alone(hex(v["frame"]), dir);
        QVERIFY(events.size() == 1 && events[0].decrypted && events[0].refusal == FrameReason::Body);
        continue;
      }
      QVERIFY2(body.ok(), (name + ": " + (body.ok() ? "" : body.error().detail)).c_str());
      if (expect == "ok") {
        const auto& req = std::get<RequestBody>(*body);
        QVERIFY(!req.max_tokens);
        QCOMPARE(req.effective_max_tokens(1024), v["max_tokens"].get<std::uint32_t>());
        auto doc = json::parse(req.json);
        bool kept_unknown = false;
        for (auto& [k, _] : doc.items())
          if (k != "model" && k != "messages" && k != "stream" && k != "max_tokens") kept_unknown = true;
        QVERIFY2(kept_unknown, req.json.c_str());
      } else {
        QCOMPARE(expect, std::string("invalid_utf8"));
        const auto& tok = std::get<TokenBody>(*body);
        QVERIFY(tok.invalid_utf8);
        Bytes text(opened.plaintext.begin() + 10, opened.plaintext.end());
        QVERIFY(tok.text == text);  // raw bytes kept
        QCOMPARE(to_hex(text), std::string("eda0bdedb880"));
      }
    }
  }

  void headerChecksFollowSpecOrder() {
    // Every header field wrong at once: version comes first.
    Bytes frame = hex(vectors()["frames"][1]["frame"]);
    frame[0] = 2; frame[1] = 9; frame[2] = 0xFF; frame[3] = 1; frame[4] = 1;
    Aead aead(Suite::Aes256Gcm, vector_keys().s2c);
    const FrameReason order[] = {FrameReason::Version, FrameReason::Type, FrameReason::Flags,
                                 FrameReason::Reserved, FrameReason::Length};
    for (FrameReason want : order) {
      auto result = check_and_open(frame, vector_context(), aead);
      QCOMPARE(std::get<FrameRefusal>(result).reason, want);
      if (want == FrameReason::Version) frame[0] = 1;
      if (want == FrameReason::Type) frame[1] = 3;
      if (want == FrameReason::Flags) frame[2] = 1;
      if (want == FrameReason::Reserved) frame[3] = 0;
    }
  }

  void requestRules() {
    auto req = [](std::string_view json_text, std::uint8_t flags) {
      return parse_request(encode_raw(1, as_bytes(json_text)), flags);
    };
    const char* good = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":4294967295})";
    auto ok = req(good, 1);
    QVERIFY(ok.ok());
    QCOMPARE(*ok->max_tokens, 4294967295u);
    QVERIFY(ok->stream);  // from flags bit0
    QVERIFY(!req(R"({"model":"m","messages":[],"max_tokens":4294967296})", 1).ok());
    QVERIFY(!req(R"({"messages":[]})", 1).ok());
    QVERIFY(!req(R"({"model":"m"})", 1).ok());
    QVERIFY(!req(R"({"model":"m","messages":[{"role":"system","content":"x"}]})", 1).ok());
    QVERIFY(!req("\xEF\xBB\xBF{\"model\":\"m\",\"messages\":[]}", 1).ok());
    QVERIFY(!req(R"({"model":"m","messages":[],"stream":true})", 0).ok());
    QVERIFY(req(R"({"model":"m","messages":[],"stream":false})", 0).ok());
    QVERIFY(!req(R"([1,2])", 1).ok());
  }

  // parse_request and parse_response read plain bodies through SAX events and fall back to the
  // whole document for anything else: both ways must give every body the same answer, members
  // and error words alike, on the cases where they could part.
  void bothReadersGiveEveryBodyOneAnswer() {
    const std::string deep_64 = std::string(63, '[') + std::string(63, ']');
    const std::string deep_65 = std::string(64, '[') + std::string(64, ']');
    std::string many_messages = R"({"model":"m","messages":[)";
    for (int i = 0; i < 1500; ++i) many_messages += std::string(i ? "," : "") + R"({"role":"user","content":"x"})";
    many_messages += "]}";
    const std::vector<std::pair<std::string, std::uint8_t>> requests = {
        {R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":16,"stream":true})", 1},
        {R"( { "model" : "m" , "messages" : [ ] } )", 0},
        {R"({"model":"m","messages":[{"role":"assistant","content":"a","name":"x","extra":{"a":[1,2]}}]})", 1},
        {R"({"model":"m","messages":[],"system":"s","temperature":0.7,"api_key":"sk-1","metadata":{"a":{"b":[1]}},"tools":[{"x":1}]})", 1},
        {R"({"model":"m","model":"n","messages":[]})", 1},
        {R"({"model":"m","messages":[],"api_key":"a","api_\u006bey":"b"})", 1},
        // Escapes everywhere (not a raw string: moc misreads one holding \").
        {"{\"mod\\u0065l\":\"m\\u00e9\\ud83d\\ude00\",\"messages\":[{\"role\":\"user\",\"content\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}]}", 1},
        {R"({"model":"m","messages":[{"role":"user","role":"assistant","content":"x"}]})", 1},
        {R"({"model":"m","messages":[{"role":1,"content":"x"}]})", 1},
        {R"({"model":"m","messages":[{"role":"user","content":null}]})", 1},
        {R"({"model":"m","messages":[{"role":"user"}]})", 1},
        {R"({"model":"m","messages":["user"]})", 1},
        {R"({"model":"m","messages":{"0":{"role":"user","content":"x"}}})", 1},
        {R"({"model":7,"messages":[]})", 1},
        {R"({"model":"m","messages":[],"max_tokens":0})", 1},
        {R"({"model":"m","messages":[],"max_tokens":-1})", 1},
        {R"({"model":"m","messages":[],"max_tokens":1.0})", 1},
        {R"({"model":"m","messages":[],"max_tokens":1e3})", 1},
        {R"({"model":"m","messages":[],"max_tokens":4294967296})", 1},
        {R"({"model":"m","messages":[],"max_tokens":18446744073709551616})", 1},
        {R"({"model":"m","messages":[],"temperature":-0})", 1},
        {R"({"model":"m","messages":[],"temperature":-0.0})", 1},
        {R"({"model":"m","messages":[],"temperature":1})", 1},
        {R"({"model":"m","messages":[],"temperature":-3})", 1},
        {R"({"model":"m","messages":[],"temperature":1e-400})", 1},
        {R"({"model":"m","messages":[],"temperature":1e400})", 1},
        {R"({"model":"m","messages":[],"temperature":"0.5"})", 1},
        {R"({"model":"m","messages":[],"stream":true})", 0},
        {R"({"model":"m","messages":[],"stream":"yes"})", 1},
        {R"({"model":"m","messages":[],"system":null})", 1},
        {R"({"model":"m","messages":[],"metadata":[]})", 1},
        {R"({"model":"m","messages":[],"metadata":null})", 1},
        {R"({"model":"m","messages":[],"x":{"a":1,"a":2}})", 1},
        {R"({"model":"m","messages":[],"x":)" + deep_64 + "}", 1},
        {R"({"model":"m","messages":[],"x":)" + deep_65 + "}", 1},
        {many_messages, 1},
        {"[1,2]", 1},
        {R"("m")", 1},
        {"{}", 1},
        {R"({"model":"m","messages":[],})", 1},
        {R"({"model":"m","messages":[]} x)", 1},
        {"\xEF\xBB\xBF{\"model\":\"m\",\"messages\":[]}", 1},
        {"{\"model\":\"m\xff\",\"messages\":[]}", 1},
        {R"({"model":"\ud800","messages":[]})", 1},
        {"{\"model\":\"a\tb\",\"messages\":[]}", 1},
        {"", 1},
    };
    int parsed = 0;
    for (const auto& [text, flags] : requests) {
      Bytes body = encode_raw(9, as_bytes(text));
      const std::string fast = body_answer(parse_request(body, flags));
      QCOMPARE(fast, body_answer(parse_request_by_document(body, flags)));
      parsed += fast.rfind("error", 0) != 0;
    }
    QCOMPARE(parsed, 15);  // the plain ones, and those whose oddity the document shrugs off

    const std::vector<std::string> responses = {
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"max_tokens","content":"c\n","usage":{"input_tokens":1,"output_tokens":2,"cache":{"a":1}},"timing":{"queue_us":1,"decode_us":4,"other":"x"}})",
        R"({"id":"i","model":"m","stop_reason":"cancelled","usage":{"input_tokens":0,"output_tokens":0},"timing":{}})",
        R"({"id":"i","id":"j","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"input_tokens":3,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"paused","usage":{"input_tokens":1,"output_tokens":2}})",
        R"({"id":1,"model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","content":null,"usage":{"input_tokens":1,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":-1,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1.5,"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"output_tokens":2}})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":[1,2]})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2},"timing":[]})",
        R"({"id":"i","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2},"timing":{"prefill_us":-2}})",
        R"({"model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}})",
        R"([{"id":"i"}])",
    };
    parsed = 0;
    for (const std::string& text : responses) {
      Bytes body = encode_raw(9, as_bytes(text));
      const std::string fast = body_answer(parse_response(body));
      QCOMPARE(fast, body_answer(parse_response_by_document(body)));
      parsed += fast.rfind("error", 0) != 0;
    }
    QCOMPARE(parsed, 5);
  }

  void encodersRoundTrip() {
    RequestSpec spec{"claude", {{"user", "你好 👋"}}, 70000u, true, "sys", 0.5, "sk-secret", R"({"anthro_probe":"alpn"})"};
    auto req = parse_request(encode_request(3, spec), kFlagStreaming);
    QVERIFY(req.ok());
    QCOMPARE(req->stream_id, 3u);
    QCOMPARE(req->model, std::string("claude"));
    QVERIFY(req->messages == spec.messages);
    QCOMPARE(*req->max_tokens, 70000u);
    QCOMPARE(req->api_key.value_or(""), std::string("sk-secret"));
    std::string redacted = redact_request_json(req->json);
    QVERIFY(redacted.find("sk-secret") == std::string::npos);
    QCOMPARE(json::parse(redacted)["api_key"].get<std::string>(), std::string("***"));
    QVERIFY(json::parse(redacted)["metadata"]["anthro_probe"] == "alpn");
    QVERIFY(redact_request_json(R"({"api_key":"sk-x")").find("sk-x") == std::string::npos);

    ResponseSpec rs{"msg_1", "claude", StopReason::Cancelled, std::nullopt, 5, 7, Timing{1, 2, 3, 4}};
    auto resp = parse_response(encode_response(3, rs));
    QVERIFY(resp.ok());
    QCOMPARE(resp->stop_reason, StopReason::Cancelled);
    QCOMPARE(resp->output_tokens, std::uint64_t{7});
    QCOMPARE(resp->timing->context_wait_us, std::uint64_t{2});

    auto cancel = parse_cancel(encode_cancel(5, CancelReason::Deadline));
    QVERIFY(cancel.ok() && cancel->reason() == CancelReason::Deadline);
    QCOMPARE(parse_cancel(encode_raw(5, Bytes{0x00, 0x09}))->reason(), CancelReason::User);
    auto err = parse_error(encode_error(7, 429, 250, "busy"));
    QVERIFY(err.ok() && err->code == 429 && err->retry_after_ms == 250 && err->message_view() == "busy");
  }
};

QTEST_GUILESS_MAIN(TestFrames)
#include "test_frames.moc"
