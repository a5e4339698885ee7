// HTTP/1.1 and SSE in captured bytes (HttpDissector): keep-alive and pipelined requests paired
// with their replies, chunked and content-length bodies, interim and body-less replies, closes,
// each exchange timed from the bytes' arrival times; and hostile bytes that must end in a named
// error, never a crash or unbounded memory.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <random>

#include "affinity/format.h"
#include "affinity/http_rows.h"
#include "capture/http_dissector.h"
#include "http/messages_api.h"
#include "net/http_io.h"

using namespace anthro;

namespace {

// Session affinity's fields of a row (HttpEvent::rider_fields); empty when it has none.
const HttpAffinity& affinity_of(const HttpEvent& e) {
  static const HttpAffinity kNone;
  auto it = e.rider_fields.find(session_affinity_id());
  return it == e.rider_fields.end() ? kNone : dynamic_cast<const HttpAffinity&>(*it->second);
}

struct Seen {
  std::vector<RequestResult> exchanges;
  std::vector<HttpEvent> events;
};

struct Dissect {
  Seen seen;
  HttpDissector d{{[this](const HttpEvent& e) { seen.events.push_back(e); },
                   [this](RequestResult& r) { seen.exchanges.push_back(r); }}};
  std::uint64_t packet = 0;
  void client(std::string_view bytes, double ts) { d.feed(Direction::ClientToServer, as_bytes(bytes), ts, packet++); }
  void server(std::string_view bytes, double ts) { d.feed(Direction::ServerToClient, as_bytes(bytes), ts, packet++); }
};

std::string post(const std::string& path, const std::string& body, const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nhost: x\r\nx-api-key: sk-secret-key\r\ncontent-type: application/json\r\n" + extra +
         "content-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kBody = R"({"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]})";
const std::string kSseHead =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

// The Messages API events of one streamed reply, each as one chunk.
std::vector<std::string> sse_chunks(const std::vector<std::string>& tokens) {
  AnthropicSseWriter w;
  std::vector<std::string> out = {w.message_start("msg_1", "m", 3), w.content_block_start()};
  for (const auto& t : tokens) out.push_back(w.text_delta(t));
  out.push_back(w.content_block_stop());
  out.push_back(w.message_delta(StopReason::EndTurn, tokens.size()));
  out.push_back(w.message_stop());
  for (auto& e : out) e = net::http_chunk(e);
  return out;
}

}  // namespace

class TestCaptureHttp : public QObject {
  Q_OBJECT
 private slots:
  void aStreamedReplyIsTimedFromItsEvents() {
    Dissect x;
    x.client(post("/v1/messages", kBody), 10.0);
    x.server(kSseHead, 10.05);
    auto chunks = sse_chunks({"Hel", "lo", "!"});
    // message_start, block start at 10.1; tokens at 10.2, 10.25, 10.3; the end at 10.4.
    x.server(chunks[0] + chunks[1], 10.1);
    x.server(chunks[2], 10.2);
    x.server(chunks[3], 10.25);
    x.server(chunks[4].substr(0, 7), 10.29);  // a chunk split across packets
    x.server(chunks[4].substr(7), 10.3);
    x.server(chunks[5] + chunks[6] + chunks[7] + net::http_chunk(""), 10.4);
    QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
    const RequestResult& r = x.seen.exchanges[0];
    QCOMPARE(r.stream_id, std::uint32_t{1});
    QCOMPARE(r.end, RequestEnd::Response);
    QCOMPARE(r.text, std::string("Hello!"));
    QCOMPARE(r.figures.tokens, std::uint64_t{3});
    QVERIFY(std::abs(*r.figures.ttft_ms - 200.0) < 1e-6);
    QVERIFY(std::abs(*r.figures.e2e_ms - 400.0) < 1e-6);
    QVERIFY(std::abs(*r.figures.mean_itl_ms - 50.0) < 1e-6);
    QVERIFY(r.stop_reason == StopReason::EndTurn);
    QCOMPARE(r.packets->first, std::uint64_t{1});
    QCOMPARE(r.packets->second, std::uint64_t{8});  // the eighth packet fed ends it
    QCOMPARE(x.d.sse_events(), std::uint64_t{8});
    // Rows: the request (its key masked), the reply's head, each event with its time.
    QCOMPARE(x.seen.events.size(), std::size_t{11});  // and the reply's end
    QCOMPARE(x.seen.events[10].kind, HttpEventKind::ReplyEnd);
    QVERIFY(affinity_of(x.seen.events[10]).empty());  // no session headers: nothing to tell
    QCOMPARE(x.seen.events[0].kind, HttpEventKind::Request);
    QCOMPARE(x.seen.events[0].summary, std::string("POST /v1/messages"));
    QVERIFY(x.seen.events[0].text.find("sk-secret-key") == std::string::npos);
    QVERIFY(x.seen.events[0].text.find("x-api-key: *************") != std::string::npos);
    QCOMPARE(x.seen.events[1].kind, HttpEventKind::Response);
    QCOMPARE(x.seen.events[1].status, 200);
    QCOMPARE(x.seen.events[1].summary, std::string("200 OK text/event-stream"));
    QCOMPARE(x.seen.events[4].kind, HttpEventKind::SseEvent);
    QCOMPARE(x.seen.events[4].ts, 10.2);
    QVERIFY(x.seen.events[4].summary.rfind("content_block_delta {", 0) == 0);
  }

  void keepAliveAndPipelinedRequestsPairInOrder() {
    Dissect x;
    std::string chat = R"({"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]})";
    // Two requests in one packet (pipelined), a third after the first replies.
    x.client(post("/v1/messages", kBody) + post("/v1/messages", kBody), 1.0);
    std::string first, second;
    for (const auto& c : sse_chunks({"one"})) first += c;
    for (const auto& c : sse_chunks({"two", "2"})) second += c;
    x.server(kSseHead + first + net::http_chunk("") + kSseHead + second.substr(0, 40), 1.5);
    x.server(second.substr(40) + net::http_chunk(""), 2.0);
    // The third: a non-streamed chat completion with a content-length body.
    x.client(post("/v1/chat/completions", chat), 3.0);
    ResponseSpec reply;
    reply.content = "json reply";
    reply.output_tokens = 2;
    x.server(net::http_response(200, "application/json", chat_completions_response_json(reply, 0)), 3.2);
    QCOMPARE(x.seen.exchanges.size(), std::size_t{3});
    QCOMPARE(x.seen.exchanges[0].text, std::string("one"));
    QCOMPARE(x.seen.exchanges[1].text, std::string("two2"));
    QCOMPARE(x.seen.exchanges[1].stream_id, std::uint32_t{2});
    QVERIFY(std::abs(*x.seen.exchanges[1].figures.e2e_ms - 1000.0) < 1e-6);
    QCOMPARE(x.seen.exchanges[2].text, std::string("json reply"));
    QCOMPARE(x.seen.exchanges[2].end, RequestEnd::Response);
    QVERIFY(std::abs(*x.seen.exchanges[2].figures.e2e_ms - 200.0) < 1e-6);
    QCOMPARE(x.d.requests(), std::uint64_t{3});
    QVERIFY(x.d.error().empty());
  }

  // A non-200 reply's error text is the parsed error object's message: not a "message" key
  // found earlier in the body, nor one inside a string.
  void errorTextIsTheErrorObjectsMessage() {
    struct Case {
      std::string body, want;
    };
    const Case cases[] = {
        {R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", "429: Overloaded"},
        {R"({"note":{"message":"decoy"},"error":{"message":"real","type":"x"}})", "429: real"},
        {"{\"detail\":\"\\\"message\\\": \\\"decoy\\\"\",\"error\":{\"message\":\"real\"}}", "429: real"},
        {R"({"message":"top level only"})", R"(429: {"message":"top level only"})"},
        {"not json", "429: not json"},
    };
    for (const Case& c : cases) {
      Dissect x;
      x.client(post("/v1/messages", kBody), 1.0);
      x.server(net::http_response(429, "application/json", c.body, {{"retry-after-ms", "250"}}), 1.1);
      QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
      QCOMPARE(x.seen.exchanges[0].error.value_or(""), c.want);
      QCOMPARE(x.seen.exchanges[0].retry_after_ms, std::optional<std::uint32_t>(250));
    }
  }

  void errorsInterimRepliesHeadAndCloses() {
    Dissect x;
    x.client(post("/v1/messages", kBody), 1.0);
    x.server("HTTP/1.1 100 Continue\r\n\r\n", 1.01);
    x.server(net::http_response(429, "application/json", error_json("rate_limit_error", "slow down"),
                                {{"retry-after-ms", "250"}}),
             1.1);
    x.client("HEAD /v1/models HTTP/1.1\r\nhost: x\r\n\r\n", 2.0);
    x.server("HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n", 2.1);  // no body follows a HEAD's reply
    x.client(post("/v1/messages", kBody), 3.0);
    x.server("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n", 3.1);  // until the close
    auto chunks = sse_chunks({"a", "b"});
    std::string events;
    for (const auto& c : chunks) {
      net::HttpResponseReader unchunk;  // the same events without chunked framing
      unchunk.feed("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + c);
      events += unchunk.take_body();
    }
    x.server(events, 3.3);
    x.d.close(Direction::ServerToClient, 3.4);
    QCOMPARE(x.seen.exchanges.size(), std::size_t{3});
    const RequestResult& limited = x.seen.exchanges[0];
    QCOMPARE(limited.end, RequestEnd::Error);
    QCOMPARE(limited.error_code, std::optional<int>(429));
    QCOMPARE(limited.retry_after_ms, std::optional<std::uint32_t>(250));
    QCOMPARE(*limited.error, std::string("429: slow down"));
    QCOMPARE(x.seen.exchanges[1].end, RequestEnd::ProtocolError);  // a HEAD's 200 holds no Messages reply
    QCOMPARE(x.seen.exchanges[1].packets->second, std::uint64_t{5});  // ended by its head alone
    QCOMPARE(x.seen.exchanges[2].end, RequestEnd::Response);
    QCOMPARE(x.seen.exchanges[2].text, std::string("ab"));
    QVERIFY(std::abs(*x.seen.exchanges[2].figures.e2e_ms - 400.0) < 1e-6);
  }

  void aClientThatClosesMidReplyCancelled() {
    Dissect x;
    x.client(post("/v1/messages", kBody), 1.0);
    auto chunks = sse_chunks({"a", "b", "c"});
    x.server(kSseHead + chunks[0] + chunks[1] + chunks[2] + chunks[3], 1.2);
    x.d.close(Direction::ClientToServer, 1.3);
    x.d.finish();
    QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
    const RequestResult& r = x.seen.exchanges[0];
    QCOMPARE(r.end, RequestEnd::ClientClosed);
    QCOMPARE(r.timeline.cancel_written, std::optional<double>(1.3));
    QCOMPARE(r.text, std::string("ab"));
  }

  // Reassembly may deliver the client's FIN before the server's last bytes that it held (a full
  // receive window, out of order): the reply read to its end is still a response.
  void aClientFinBeforeTheReplysLastBytesIsNoCancel() {
    Dissect x;
    x.client(post("/v1/messages", kBody), 1.0);
    auto chunks = sse_chunks({"a", "b"});
    std::string rest;
    for (std::size_t i = 3; i < chunks.size(); ++i) rest += chunks[i];
    x.server(kSseHead + chunks[0] + chunks[1] + chunks[2], 1.2);
    x.d.close(Direction::ClientToServer, 1.5);
    x.server(rest + net::http_chunk(""), 1.4);
    x.d.finish();
    QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
    QCOMPARE(x.seen.exchanges[0].end, RequestEnd::Response);
    QVERIFY(!x.seen.exchanges[0].timeline.cancel_written);
    QVERIFY(x.d.error().empty());
  }

  void theCaptureEndingMidReplyLeavesItOpen() {
    Dissect x;
    x.client(post("/v1/messages", kBody), 1.0);
    auto chunks = sse_chunks({"a", "b"});
    x.server(kSseHead + chunks[0] + chunks[1] + chunks[2], 1.2);
    x.d.finish();
    QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
    QCOMPARE(x.seen.exchanges[0].end, RequestEnd::Open);
    QCOMPARE(x.seen.exchanges[0].text, std::string("a"));
    QVERIFY(x.seen.exchanges[0].figures.ttft_ms.has_value());
  }

  void hostileBytesEndInANamedError() {
    {
      Dissect x;  // not HTTP from the client
      x.client("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: banana\r\n\r\n", 1.0);
      QVERIFY2(x.d.error().find("malformed HTTP request") == 0, x.d.error().c_str());
      x.server("HTTP/1.1 200 OK\r\n\r\n", 1.1);  // ignored after the error
      QVERIFY(x.seen.exchanges.empty());
    }
    {
      Dissect x;  // a reply with no request
      x.server("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", 1.0);
      QVERIFY2(x.d.error().find("no request open") != std::string::npos, x.d.error().c_str());
    }
    {
      Dissect x;  // garbage for a reply
      x.client(post("/v1/messages", kBody), 1.0);
      x.server("SSH-2.0-OpenSSH_9.2\r\n\r\n", 1.1);
      QCOMPARE(x.seen.exchanges.size(), std::size_t{1});
      QCOMPARE(x.seen.exchanges[0].end, RequestEnd::ProtocolError);
      QVERIFY2(x.d.error().find("malformed HTTP response") == 0, x.d.error().c_str());
    }
    {
      Dissect x;  // a header that never ends is refused, not buffered without bound
      x.client(post("/v1/messages", kBody), 1.0);
      x.server("HTTP/1.1 200 OK\r\nx-long: ", 1.1);
      std::string filler(4096, 'a');
      for (int i = 0; i < 64 && x.d.error().empty(); ++i) x.server(filler, 1.2);
      QVERIFY2(!x.d.error().empty(), "a 256 KiB header was accepted");
    }
    {
      Dissect x;  // a bad chunk size mid-stream
      x.client(post("/v1/messages", kBody), 1.0);
      x.server(kSseHead + sse_chunks({"a"})[0] + "zz\r\n", 1.1);
      QCOMPARE(x.seen.exchanges.at(0).end, RequestEnd::ProtocolError);
    }
    {
      Dissect x;  // requests that never get replies are not queued without bound
      std::string many;
      for (std::size_t i = 0; i <= HttpDissector::kMaxOpen; ++i) many += "GET / HTTP/1.1\r\nhost: x\r\n\r\n";
      x.client(many, 1.0);
      QVERIFY2(x.d.error().find("wait for their replies") != std::string::npos, x.d.error().c_str());
      x.d.finish();
      QVERIFY(x.seen.exchanges.empty());
    }
    // Random bytes, and valid traffic cut at random places: no crash, every exchange reported once.
    std::mt19937 rng(7);
    std::string valid = post("/v1/messages", kBody);
    std::string reply = kSseHead;
    for (const auto& c : sse_chunks({"x", "y"})) reply += c;
    for (int round = 0; round < 300; ++round) {
      Dissect x;
      std::string c = valid, s = reply;
      for (int k = 0; k < 3; ++k) {
        std::string& victim = rng() % 2 ? c : s;
        if (!victim.empty()) victim[rng() % victim.size()] = static_cast<char>(rng());
      }
      c.resize(rng() % (c.size() + 1));
      x.client(c, 1.0);
      for (std::size_t at = 0; at < s.size();) {
        std::size_t n = 1 + rng() % 50;
        x.server(std::string_view(s).substr(at, n), 1.1);
        at += n;
      }
      x.d.finish();
      QCOMPARE(x.seen.exchanges.size(), std::size_t(x.d.requests()));
    }
  }

  // Session affinity's headers: names in any case, chunk extensions summed, the trailer apart,
  // the error type read from the JSON body (a message naming another type does not count).
  void sessionAffinityHeadersExtensionsAndTrailer() {
    Dissect x;
    x.client(post("/v1/messages", kBody, "X-ANTHROPIC-SESSION-ID: sess_1\r\nx-anthropic-context-hash: 00aa\r\n"), 1.0);
    std::string head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n"
                       "X-Anthropic-Session-Id: sess_1\r\nX-Anthropic-Context-Hash: 11bb\r\n"
                       "Trailer: X-Anthropic-Token-Count\r\n\r\n";
    auto chunks = sse_chunks({"a", "b", "c"});
    std::string body;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      std::string data = chunks[i].substr(chunks[i].find("\r\n") + 2);
      data.resize(data.size() - 2);
      body += net::http_chunk(data, i % 2 ? "X-Anthropic-Token-Count=2;other=\"q;x\"" : "x-anthropic-token-count=\"1\"");
    }
    x.server(head + body.substr(0, 17), 1.1);  // an extension split across packets
    x.server(body.substr(17) + net::http_last_chunk({{"x-anthropic-token-count", "13"}}), 1.2);
    const HttpAffinity& sent = affinity_of(x.seen.events[0]);
    QCOMPARE(sent.session_id, std::string("sess_1"));
    QCOMPARE(sent.context_hash, std::string("00aa"));
    QCOMPARE(affinity_of(x.seen.events[1]).context_hash, std::string("11bb"));
    const HttpEvent& end = x.seen.events.back();
    QCOMPARE(end.kind, HttpEventKind::ReplyEnd);
    QCOMPARE(end.status, 200);
    QCOMPARE(affinity_of(end).session_id, std::string("sess_1"));
    QCOMPARE(affinity_of(end).chunks_counted, std::uint64_t{8});
    QCOMPARE(affinity_of(end).chunk_token_sum, std::uint64_t{12});  // 4 × 1 + 4 × 2
    QCOMPARE(affinity_of(end).chunk_tokens.front(), std::uint64_t{1});
    QCOMPARE(affinity_of(end).trailer_total, std::optional<std::uint64_t>{13});
    QVERIFY(affinity_of(end).error_type.empty());

    // A 409 and a 400: their headers and the type of their JSON bodies.
    auto reply = [](int status, const std::string& extra, const std::string& json) {
      return "HTTP/1.1 " + std::to_string(status) + " X\r\ncontent-type: application/json\r\n" + extra +
             "content-length: " + std::to_string(json.size()) + "\r\n\r\n" + json;
    };
    Dissect y;
    y.client(post("/v1/messages", kBody) + post("/v1/messages", kBody) + post("/v1/messages", kBody), 1.0);
    y.server(reply(409, "x-anthropic-new-session-id: sess_2\r\n",
                   R"({"type":"error","error":{"type":"session_migrated","message":"moved"}})") +
                 reply(400, "X-Anthropic-Expected-Hash: 22cc\r\n",
                       R"({"type":"error","error":{"type":"invalid_context_hash","message":"m"}})") +
                 reply(400, "", R"({"error":{"type":"invalid_request_error","message":"not invalid_context_hash"}})"),
             1.1);
    std::vector<HttpAffinity> ends;
    for (const auto& e : y.seen.events)
      if (e.kind == HttpEventKind::ReplyEnd) ends.push_back(affinity_of(e));
    QCOMPARE(ends.size(), std::size_t{3});
    QCOMPARE(ends[0].error_type, std::string("session_migrated"));
    QCOMPARE(ends[0].new_session_id, std::string("sess_2"));
    QCOMPARE(ends[1].error_type, std::string("invalid_context_hash"));
    QCOMPARE(ends[1].expected_hash, std::string("22cc"));
    QCOMPARE(ends[2].error_type, std::string("invalid_request_error"));
  }

  // Hostile values: oversized headers and extensions cut, counts that are no numbers kept
  // apart, a sum that would overflow saturated; nothing crashes.
  void hostileSessionValuesAreBounded() {
    Dissect x;
    std::string huge(6000, 'A');
    x.client(post("/v1/messages", kBody, "x-anthropic-session-id: " + huge + "\r\nx-anthropic-context-hash: \xff\xfe\r\n"), 1.0);
    std::string head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n"
                       "x-anthropic-expected-hash: " + huge + "\r\n\r\n";
    std::string body = net::http_chunk("a", "x-anthropic-token-count=18446744073709551615") +
                       net::http_chunk("b", "x-anthropic-token-count=5") +
                       net::http_chunk("c", "x-anthropic-token-count=-3") +
                       net::http_chunk("d", "x-anthropic-token-count=99999999999999999999999") +
                       net::http_chunk("e", "x-anthropic-token-count=\"" + huge + "\"");
    for (int i = 0; i < 40; ++i) body += net::http_chunk("f", "e1;e2;e3;e4;e5;e6;e7;e8;e9;e10;e11;e12;e13;e14;e15;e16;x-anthropic-token-count=1");
    x.server(head + body + net::http_last_chunk({{"X-Anthropic-Token-Count", "1e3"}}), 1.1);
    const HttpAffinity& sent = affinity_of(x.seen.events[0]);
    QCOMPARE(sent.session_id.size(), HttpAffinity::kMaxValue);
    QVERIFY(sent.cut);
    QCOMPARE(sent.context_hash, std::string("\xff\xfe"));
    const HttpAffinity& a = affinity_of(x.seen.events.back());
    QCOMPARE(x.seen.events.back().kind, HttpEventKind::ReplyEnd);
    QCOMPARE(a.expected_hash.size(), HttpAffinity::kMaxValue);
    QCOMPARE(a.chunks_counted, std::uint64_t{2});  // the 17th extension of a chunk is not read
    QCOMPARE(a.chunk_token_sum, std::numeric_limits<std::uint64_t>::max());
    QVERIFY(!a.trailer_total);
    QVERIFY(!a.bad_count.empty() && a.bad_count.size() <= HttpAffinity::kMaxValue);

    // Garbage chunk extensions: an unterminated quote reads no count (Beast waits for its end);
    // a nameless one ends the reading with a named error. Never a crash.
    Dissect y;
    y.client(post("/v1/messages", kBody), 1.0);
    y.server(kSseHead + "1;x-anthropic-token-count=\"unterminated\r\na\r\n0\r\n\r\n", 1.1);
    y.d.finish();
    for (const auto& e : y.seen.events) QCOMPARE(affinity_of(e).chunks_counted, std::uint64_t{0});
    Dissect z;
    z.client(post("/v1/messages", kBody), 1.0);
    z.server(kSseHead + "1;=7\r\na\r\n0\r\n\r\n", 1.1);
    QVERIFY2(z.d.error().find("chunk") != std::string::npos, z.d.error().c_str());
  }
};

QTEST_GUILESS_MAIN(TestCaptureHttp)
#include "test_capture_http.moc"
