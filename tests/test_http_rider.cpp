// The HTTP rider seam from outside core: a toy format riding on HTTP registers, from this file
// alone, its part of a request's record, the reader of its replies and its capture part, and the
// generic HTTP dissector reads a connection through them: its requests get the toy's part (in
// the request JSON under its own key, kept through copies), its replies' bodies are read as its
// tokens with rows of its own, and its own side request makes no request record.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include <nlohmann/json.hpp>

#include "capture/http_dissector.h"
#include "http/reply_recorder.h"
#include "metrics/request_json.h"
#include "net/http_io.h"

using namespace anthro;

namespace {

// What the toy adds to a request: its header's value, and the lines its reply's body held.
struct ToyPart : RecordExtensionOf<ToyPart> {
  std::string mode;
  std::uint64_t lines = 0;
  std::string_view json_key() const override { return "toy"; }
  void write_json(nlohmann::json& out) const override { out = {{"mode", mode}, {"lines", lines}}; }
  std::string text() const override { return ", " + std::to_string(lines) + " toy lines"; }
};

ProfileId toy_id();

// A reply in application/x-toy: each line a token, counted in the part.
class ToyReply : public RiderReply {
 public:
  explicit ToyReply(RiderRowSink row) : row_(std::move(row)) {}
  bool head(int status, const HeaderLookup& header, HttpReplyRecorder& reply) override {
    reply.head(status, header("x-toy-retry-ms"));
    return status == 200 && header("content-type") == "application/x-toy";
  }
  void body(std::string_view piece, double t, HttpReplyRecorder& reply) override {
    pending_ += piece;
    for (std::size_t eol; (eol = pending_.find('\n')) != std::string::npos; pending_.erase(0, eol + 1)) {
      reply.token(t, pending_.substr(0, eol));
      ++reply.result().extensions.find<ToyPart>(toy_id())->lines;
      if (row_) row_(t, "toy line\ntext: " + pending_.substr(0, eol) + "\n", "line " + pending_.substr(0, eol), 1);
    }
  }
  void trailers(const std::vector<std::pair<std::string, std::string>>&, HttpReplyRecorder&) override {}
  void end(double t, HttpReplyRecorder& reply) override { reply.recorder().response(t, std::nullopt, std::nullopt, ""); }

 private:
  RiderRowSink row_;
  std::string pending_;
};

// One captured connection: GET /toy/hello is the toy's own; x-toy marks a model request as its.
class ToyCaptured : public CapturedHttpRider {
 public:
  std::optional<OwnKind> request(const net::HttpRequest& req, RequestResult& r, RequestResult*) override {
    if (req.target == "/toy/hello") return OwnKind{0};
    auto mode = req.headers.find("x-toy");
    if (mode != req.headers.end()) r.extensions.emplace<ToyPart>(toy_id()).mode = mode->second;
    return std::nullopt;
  }
  std::unique_ptr<RiderReply> reply(const RequestResult& r, RiderRowSink row) override {
    if (!r.extensions.find<ToyPart>(toy_id())) return nullptr;
    return std::make_unique<ToyReply>(std::move(row));
  }
  void replied(std::optional<OwnKind>, int, const HttpReplyRecorder&, const RequestResult&, double, const RiderRowSink&) override {}
  bool holds(const RequestResult&) const override { return false; }
};

ProfileId toy_id() {
  static const ProfileId id = [] {
    const Profile& toy = register_profile(Profile{.id = {}, .name = "toy-rider", .display_name = "Toy rider", .alpn = {},
                                                  .recognise = nullptr, .schemes = {}, .checklist_id = {},
                                                  .rollout_plan_id = {}, .rides_on = "http"});
    register_captured_http_rider(toy.id, [] { return std::unique_ptr<CapturedHttpRider>(new ToyCaptured); });
    return toy.id;
  }();
  return id;
}
[[maybe_unused]] const ProfileId registered = toy_id();

// The toy's fields of an HTTP row: none to tell, only the columns it declares beside session
// affinity's, one of them a title that one declared too.
struct ToyRowFields : HttpRowFields {
  std::unique_ptr<HttpRowFields> clone() const override { return std::make_unique<ToyRowFields>(); }
  void read_head(const FieldLookup&) override {}
  bool empty() const override { return true; }
  std::unique_ptr<HttpRowFields> end_part() const override { return nullptr; }
  void merge(const HttpRowFields&) override {}
  std::string_view json_key() const override { return "toy"; }
  void write_json(nlohmann::json&) const override {}
  HttpCell cell(std::string_view) const override { return {}; }
};
std::unique_ptr<HttpRowFields> make_toy_row_fields() { return std::make_unique<ToyRowFields>(); }
constexpr HttpRowColumn kToyColumns[] = {{.title = "Toy mode"}, {.title = "Status", .width = 44, .status_prefix = true}};
[[maybe_unused]] const bool columns_registered = [] {
  register_http_row_fields(toy_id(), make_toy_row_fields, kToyColumns);
  return true;
}();

std::string request(const std::string& target, const std::string& extra, const std::string& body = "") {
  return "POST " + target + " HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" + extra +
         "content-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Dissect {
  std::vector<RequestResult> exchanges;
  std::vector<HttpEvent> events;
  HttpDissector d{{[this](const HttpEvent& e) { events.push_back(e); }, [this](RequestResult& r) { exchanges.push_back(r); }}};
  std::uint64_t packet = 0;
  void client(std::string_view bytes, double ts) { d.feed(Direction::ClientToServer, as_bytes(bytes), ts, packet++); }
  void server(std::string_view bytes, double ts) { d.feed(Direction::ServerToClient, as_bytes(bytes), ts, packet++); }
};

const std::string kBody = R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]})";

}  // namespace

class TestHttpRider : public QObject {
  Q_OBJECT
 private slots:
  void aRidersRequestIsReadThroughItsParts() {
    Dissect x;
    x.client(request("/v1/messages", "x-toy: loud\r\n", kBody), 1.0);
    x.server("HTTP/1.1 200 OK\r\ncontent-type: application/x-toy\r\ntransfer-encoding: chunked\r\n\r\n", 1.1);
    x.server(net::http_chunk("one\ntwo\nthr"), 1.2);  // a line cut across pieces
    x.server(net::http_chunk("ee\n") + net::http_chunk(""), 1.3);
    x.d.finish();
    QCOMPARE(x.exchanges.size(), std::size_t{1});
    const RequestResult copy = x.exchanges[0];  // the part is cloned with the record
    const ToyPart* part = copy.extensions.find<ToyPart>(toy_id());
    QVERIFY(part);
    QCOMPARE(part->mode, std::string("loud"));
    QCOMPARE(part->lines, std::uint64_t{3});
    QCOMPARE(copy.end, RequestEnd::Response);
    QCOMPARE(copy.figures.tokens, std::uint64_t{3});
    QCOMPARE(copy.text, std::string("onetwothree"));
    const nlohmann::json j = request_json(copy);
    QCOMPARE(j.at("toy").at("mode").get<std::string>(), std::string("loud"));
    QCOMPARE(j.at("toy").at("lines").get<std::uint64_t>(), std::uint64_t{3});
    const auto rows = std::count_if(x.events.begin(), x.events.end(), [](const HttpEvent& e) { return e.kind == HttpEventKind::RiderRow; });
    QCOMPARE(rows, 3L);
  }

  void itsOwnRequestMakesNoRecordAndOthersAreThePlainAPIs() {
    Dissect x;
    x.client(request("/toy/hello", ""), 1.0);
    x.server("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi", 1.1);
    x.client(request("/v1/messages", "", kBody), 2.0);
    x.server("HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after-ms: 250\r\ncontent-length: 2\r\n\r\n{}", 2.1);
    x.d.finish();
    QCOMPARE(x.exchanges.size(), std::size_t{1});
    const RequestResult& plain = x.exchanges[0];
    QVERIFY(plain.extensions.all().empty());
    QCOMPARE(plain.retry_after_ms, std::optional<std::uint32_t>(250));  // the API's header, not the rider's
    QVERIFY(!request_json(plain).contains("toy"));
  }

  void itsColumnsFollowTheRegisteredOnesOnce() {
    std::vector<std::string_view> titles;
    for (const HttpRowColumn& c : http_row_columns()) titles.emplace_back(c.title);
    QCOMPARE(titles, (std::vector<std::string_view>{"Session ID", "Context Hash", "Token Count", "Status", "Toy mode"}));
    QVERIFY(http_row_columns()[3].status_prefix);
    // A shared column starts with the status for both riders or for neither.
    const HttpRowColumn status_plain[] = {{.title = "Status"}};
    try {
      register_http_row_fields(toy_id(), make_toy_row_fields, status_plain);
      QFAIL("declared both ways");
    } catch (const std::logic_error& e) {
      QVERIFY2(std::string_view(e.what()).find("\"Status\" declared with and without") != std::string_view::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestHttpRider)
#include "test_http_rider.moc"
