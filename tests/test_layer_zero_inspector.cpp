// Layer Zero frames as capture-index rows and `decode` lines: a live session (tool
// calls on, cut once and resumed) captured on lo — cleartext and TLS with its key log — gives one
// row per frame the client's own trace says it wrote or read, in order per direction, with its
// type, sequence id, offset and decoded fields; the SessionToken's bytes masked and named by a
// fingerprint. A damaged CRC byte is a refused row saying `checksum`; an unknown type, a frame
// cut off, and random bytes are rows or nothing, never a crash.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <sodium.h>

#include <map>
#include <set>
#include <random>

#include "layerzero/format.h"
#include "capture_index_loaded.h"
#include "capture/capture_index.h"
#include "layerzero/view.h"
#include "capture_generator.h"
#include "crypto/hash.h"
#include "lz_capture.h"
#include "util/json.h"

using namespace anthro;
using namespace anthro::test;

namespace {

std::string field(const FrameDetail& d, const std::string& name) {
  for (const auto& f : d.fields)
    if (f.name == name) return f.value;
  return "(none)";
}

const FrameField* field_of(const FrameDetail& d, const std::string& name) {
  for (const auto& f : d.fields)
    if (f.name == name) return &f;
  return nullptr;
}

// (sequence id, payload type, payload length) of one direction, in order.
using Frame = std::tuple<std::uint32_t, lz::PayloadType, std::uint32_t>;

std::vector<Frame> traced(const lz::ConnectionTrace& c, Direction dir) {
  std::vector<Frame> out;
  for (const auto& f : c.frames)
    if (f.dir == dir) out.emplace_back(f.sequence_id, f.type, f.payload_length);
  return out;
}

// The index's Layer Zero rows of connection `conn`, read back from the row's own bytes' header.
std::vector<Frame> rows_of(const CaptureIndex& index, std::uint32_t conn, Direction dir) {
  std::vector<Frame> out;
  for (std::size_t i = 0; i < index.frame_count(); ++i) {
    auto d = index.detail(i);
    if (!d || d->row.kind != RowKind::Dissected || d->row.connection != conn || d->row.dir != dir) continue;
    if (d->bytes.size() < lz::kHeaderSize) continue;
    const lz::FrameHeader h = lz::parse_header(d->bytes.data());
    out.emplace_back(h.sequence_id, h.type, h.payload_length);
  }
  return out;
}

// The connections that carried Layer Zero rows, in the index's order.
std::vector<std::uint32_t> layer_zero_connections(const CaptureIndex& index) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < index.frame_count(); ++i) {
    auto r = index.row(i);
    if (r->kind == RowKind::Dissected && std::find(out.begin(), out.end(), r->connection) == out.end())
      out.push_back(r->connection);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// SHA-256's first 8 bytes as 16 hex digits, computed here, not by the code under test.
std::string sha256_prefix(const lz::SessionToken& token) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, token.data(), token.size());
  return to_hex(ByteView(digest, 8));
}

std::string frame(std::uint32_t seq, lz::PayloadType type, const Bytes& payload) {
  Bytes b = *lz::encode_frame(seq, type, payload);
  return std::string(b.begin(), b.end());
}

std::string fresh_init() {
  lz::SessionInit init{{"m", 1000, 0}, std::nullopt};
  return frame(0, lz::PayloadType::SessionInit, *lz::encode_payload(init));
}

std::string ack() {
  lz::SessionAck a;
  for (std::size_t i = 0; i < a.token.size(); ++i) a.token[i] = static_cast<std::uint8_t>(0xA0 + i);
  return frame(0, lz::PayloadType::SessionAck, *lz::encode_payload(a));
}

std::string text(std::uint32_t seq, lz::PayloadType type, std::string_view s) {
  return frame(seq, type, Bytes(s.begin(), s.end()));
}

}  // namespace

class TestLayerZeroInspector : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(sodium_init() >= 0); }

  void liveSessionIsOneRowPerFrame_data() {
    QTest::addColumn<bool>("tls");
    QTest::newRow("lz+lab") << false;
    QTest::newRow("lz over TLS, key log") << true;
  }
  void liveSessionIsOneRowPerFrame() {
    QFETCH(bool, tls);
    LzCaptured run = capture_lz_run({{"lz-cut=3"}, tls, true});
    QVERIFY2(run.live.complete, run.live.detail.c_str());
    QCOMPARE(run.live.trace.size(), std::size_t{2});
    QVERIFY(run.live.tool_calls > 0);
    auto index = loaded(run.capture, run.keys());

    // Every frame the client wrote or read, per connection and direction, in order.
    const auto conns = layer_zero_connections(*index);
    QCOMPARE(conns.size(), std::size_t{2});
    for (std::size_t i = 0; i < 2; ++i)
      for (Direction dir : {Direction::ClientToServer, Direction::ServerToClient}) {
        auto want = traced(run.live.trace[i], dir);
        QVERIFY(!want.empty());
        QCOMPARE(rows_of(*index, conns[i], dir), want);
      }
    const auto connections = index->connections();
    for (std::uint32_t c : conns) QCOMPARE(connections[c].profile, std::optional<ProfileId>(lz::profile_id()));

    // Each row: its type word, sequence id, offset in its direction, CRC and bytes.
    std::map<std::pair<std::uint32_t, Direction>, std::uint64_t> next_offset;
    std::map<std::uint32_t, std::string> outputs;  // MODEL_OUTPUT text by sequence id, resends once
    std::map<std::uint32_t, std::string> tool_calls;  // TOOL_CALL name by its sequence id
    std::vector<std::uint32_t> answered;
    std::size_t rows = 0;
    for (std::size_t i = 0; i < index->frame_count(); ++i) {
      auto d = index->detail(i);
      QVERIFY(d);
      if (d->row.kind != RowKind::Dissected) continue;
      ++rows;
      QCOMPARE(d->row.status, FrameStatus::Ok);
      QCOMPARE(d->status, std::string("ok"));
      const lz::FrameHeader h = lz::parse_header(d->bytes.data());
      QCOMPARE(d->bytes.size(), h.frame_size());
      QCOMPARE(std::string(row_type_name(d->row)), std::string(lz::to_string(h.type)));
      QCOMPARE(d->row.stream_id, h.sequence_id);
      std::uint64_t& offset = next_offset[{d->row.connection, d->row.dir}];
      QCOMPARE(d->row.stream_offset, offset);
      offset += d->bytes.size();
      const std::uint32_t stated = load_u32(d->bytes.data() + d->bytes.size() - 4);
      QCOMPARE(field(*d, "stated"), "0x" + to_hex(ByteView(d->bytes.data() + d->bytes.size() - 4, 4)));
      QVERIFY2(field(*d, "crc32c").ends_with("(matches)"), field(*d, "crc32c").c_str());
      if (h.type != lz::PayloadType::SessionAck && h.type != lz::PayloadType::SessionInit)
        QCOMPARE(crc32c(ByteView(d->bytes).first(d->bytes.size() - 4)), stated);  // no token masked
      QCOMPARE(field(*d, "sequence_id"), std::to_string(h.sequence_id));
      QCOMPARE(field(*d, "payload_length"), std::to_string(h.payload_length));
      const ByteView payload(d->bytes.data() + 8, h.payload_length);
      switch (h.type) {
        case lz::PayloadType::ModelOutput:
          QCOMPARE(field(*d, "text"), std::string(as_text(payload)));
          outputs.emplace(h.sequence_id, field(*d, "text"));
          break;
        case lz::PayloadType::UserInput: QCOMPARE(field(*d, "text"), std::string("查北京天气")); break;
        case lz::PayloadType::ToolCall: tool_calls.emplace(h.sequence_id, field(*d, "name")); break;
        case lz::PayloadType::ToolResult:
          QCOMPARE(field(*d, "result"), std::string("{\"ok\":true}"));
          answered.push_back(static_cast<std::uint32_t>(std::stoul(field(*d, "call_sequence_id"))));
          QCOMPARE(d->pretty_json, std::string("{\n  \"ok\": true\n}"));
          break;
        case lz::PayloadType::Heartbeat:
          if (d->row.dir == Direction::ClientToServer) QCOMPARE(field(*d, "client_buffer_usage"), std::string("0x40 (25 %)"));
          else QCOMPARE(field(*d, "server_time_ns"), std::to_string(load_u64(payload.data())));
          break;
        case lz::PayloadType::SessionInit:
          QCOMPARE(field(*d, "model_id"), std::string("claude-3-5-sonnet"));
          QCOMPARE(field(*d, "budget_ms"), std::string("5000"));
          QCOMPARE(field(*d, "constraints"), std::string("0x12 (tools, dynamic frame size)"));
          break;
        default: break;
      }
    }
    std::size_t traced_frames = 0;
    for (const auto& c : run.live.trace) traced_frames += c.frames.size();
    QCOMPARE(rows, traced_frames);

    // The answer, each MODEL_OUTPUT once by sequence id, is what the client delivered.
    std::string joined;
    for (const auto& [seq, t] : outputs) joined += t;
    QCOMPARE(joined, run.live.text);
    // Each TOOL_CALL's name as the client traced it, each answered by its sequence id.
    for (const auto& c : run.live.trace)
      for (const auto& f : c.frames)
        if (f.type == lz::PayloadType::ToolCall) QCOMPARE(tool_calls.at(f.sequence_id), f.name);
    QVERIFY(!answered.empty());
    for (std::uint32_t id : answered) QVERIFY(tool_calls.count(id));

    // The token: named by its length and SHA-256, its bytes masked. The first connection's ACK
    // issued the token the second's INIT presents.
    const lz::SessionToken issued = run.live.trace[0].ack->token;
    const std::string named = "64 bytes, sha256 " + sha256_prefix(issued) + "…";
    bool ack_seen = false, resume_seen = false;
    for (std::size_t i = 0; i < index->frame_count(); ++i) {
      auto d = index->detail(i);
      if (d->row.kind != RowKind::Dissected) continue;
      const FrameField* token = field_of(*d, "session_token");
      if (!token) continue;
      QCOMPARE(token->end - token->begin, std::size_t{64});
      QVERIFY(std::all_of(d->bytes.begin() + static_cast<std::ptrdiff_t>(token->begin),
                          d->bytes.begin() + static_cast<std::ptrdiff_t>(token->end), [](auto b) { return b == '*'; }));
      QVERIFY(std::search(d->bytes.begin(), d->bytes.end(), issued.begin(), issued.end()) == d->bytes.end());
      if (d->row.connection == conns[0] && row_type_name(d->row) == std::string_view("SESSION_ACK")) {
        ack_seen = true;
        QCOMPARE(token->value, named);
      }
      if (d->row.connection == conns[1] && row_type_name(d->row) == std::string_view("SESSION_INIT")) {
        resume_seen = true;
        QCOMPARE(token->value, named);
        QCOMPARE(field(*d, "last_server_sequence_id"), std::to_string(run.live.trace[1].init->resume->last_server_sequence_id));
      }
    }
    QVERIFY(ack_seen && resume_seen);

    // decode's lines: one per row, the same frames, the token by fingerprint only.
    std::vector<nlohmann::json> lines;
    auto analysis = analyze_capture(run.capture, run.keys(), [&](const std::string& line) {
      auto j = parse_json(line);
      QVERIFY(j);
      if ((*j)["kind"] == "layer_zero") lines.push_back(*j);
    });
    QVERIFY(analysis);
    QCOMPARE(lines.size(), rows);
    std::size_t line = 0;
    for (std::size_t i = 0; i < index->frame_count(); ++i) {
      auto d = index->detail(i);
      if (d->row.kind != RowKind::Dissected) continue;
      const nlohmann::json& j = lines[line++];
      QCOMPARE(j["sequence_id"].get<std::uint32_t>(), d->row.stream_id);
      QCOMPARE(j["type"].get<std::string>(), std::string(row_type_name(d->row)));
      QCOMPARE(j["dir"].get<std::string>(), std::string(to_string(d->row.dir)));
      QCOMPARE(j["offset"].get<std::uint64_t>(), d->row.stream_offset);
      QVERIFY(!j.contains("error"));
      if (j["type"] == "SESSION_ACK") {  // each ACK issues a fresh token: the one its connection's client read
        const std::size_t c = static_cast<std::size_t>(std::find(conns.begin(), conns.end(), d->row.connection) - conns.begin());
        QCOMPARE(j["session_token"]["sha256_prefix"].get<std::string>(), sha256_prefix(run.live.trace.at(c).ack->token));
      }
      if (j["type"] == "MODEL_OUTPUT") QCOMPARE(j["text"].get<std::string>(), field(*d, "text"));
      if (j["type"] == "TOOL_RESULT") QCOMPARE(j["result"], nlohmann::json::parse("{\"ok\":true}"));
    }
    QVERIFY(std::any_of(lines.begin(), lines.end(), [](const nlohmann::json& j) {
      return j["type"] == "TERMINATE" && j["dir"] == "s2c" && j["reason"] == "normal";
    }));
  }

  // A frame whose CRC byte was damaged is a refused row naming the checksum, both values; what
  // follows it in that direction is not read. The other direction goes on.
  // The API key a SESSION_INIT carries (fresh and resuming) is a secret as the token is: masked in
  // the bytes the index keeps and in the detail's ranges, named by its length in the fields.
  void apiKeyIsMaskedLikeTheToken() {
    const std::string key = "sk-lz-inspector-secret-0123";
    LzCaptured run = capture_lz_run({{"lz-cut=3"}, false, false, key});
    QVERIFY2(run.live.complete, run.live.detail.c_str());
    auto index = loaded(run.capture, run.keys());
    std::size_t inits = 0;
    for (std::size_t i = 0; i < index->frame_count(); ++i) {
      auto d = index->detail(i);
      if (!d || d->row.kind != RowKind::Dissected || lz::parse_header(d->bytes.data()).type != lz::PayloadType::SessionInit)
        continue;
      ++inits;
      QVERIFY(std::string(as_text(d->bytes)).find(key) == std::string::npos);
      QCOMPARE(field(*d, "api_key"), std::to_string(key.size()) + " bytes, not shown");
      QVERIFY2(field(*d, "constraints").find("API key") != std::string::npos, field(*d, "constraints").c_str());
      const FrameField* f = field_of(*d, "api_key");
      QVERIFY(f);
      const std::pair<std::size_t, std::size_t> range{f->begin, f->end};
      QVERIFY(std::find(d->masked.begin(), d->masked.end(), range) != d->masked.end());
      QVERIFY(d->summary.find(key) == std::string::npos);
    }
    QCOMPARE(inits, std::size_t{2});  // the fresh INIT and the resume, each with the key
  }

  void damagedCrcIsARefusedRow() {
    std::string bad = text(1, lz::PayloadType::UserInput, "hello");
    bad.back() = static_cast<char>(bad.back() ^ 0x01);
    std::string after = text(2, lz::PayloadType::UserInput, "after");
    QTemporaryDir dir;
    const std::string path = dir.filePath("crc.pcap").toStdString();
    write_capture(path, exchange({{true, fresh_init()}, {false, ack()}, {true, bad + after},
                                  {false, text(1, lz::PayloadType::ModelOutput, "still read")}}));
    auto index = loaded(path, {});
    QCOMPARE(index->frame_count(), std::size_t{4});
    std::vector<std::string> types;
    for (std::size_t i = 0; i < 4; ++i) types.push_back(row_type_name(*index->row(i)));
    QCOMPARE(types, (std::vector<std::string>{"SESSION_INIT", "SESSION_ACK", "USER_INPUT", "MODEL_OUTPUT"}));
    auto d = index->detail(2);
    QCOMPARE(d->row.status, FrameStatus::Refused);
    QVERIFY2(d->status.starts_with(std::string(lz::to_string(lz::TerminateReason::Checksum)) + ": "), d->status.c_str());
    QCOMPARE(d->row.stream_offset, std::uint64_t{fresh_init().size()});
    const std::uint32_t carried = load_u32(reinterpret_cast<const std::uint8_t*>(bad.data()) + bad.size() - 4);
    const std::uint32_t right = carried ^ 0x01;
    char expected[96];
    std::snprintf(expected, sizeof expected, "checksum: the frame carries CRC-32C 0x%08x, its bytes give 0x%08x", carried, right);
    QCOMPARE(d->status, std::string(expected));
    QVERIFY2(field(*d, "crc32c").ends_with("(differs)"), field(*d, "crc32c").c_str());
    QCOMPARE(field(*d, "text"), std::string("hello"));  // the payload is still shown for what it is
    QCOMPARE(d->bytes.size(), bad.size());
    QCOMPARE(index->detail(3)->status, std::string("ok"));

    std::vector<nlohmann::json> refused;
    auto analysis = analyze_capture(path, {}, [&](const std::string& line) {
      auto j = parse_json(line);
      if (j && (*j)["kind"] == "layer_zero" && j->contains("error")) refused.push_back(*j);
    });
    QVERIFY(analysis);
    QCOMPARE(refused.size(), std::size_t{1});
    QCOMPARE(refused[0]["error"].get<std::string>(), std::string("checksum"));
    QCOMPARE(refused[0]["type"].get<std::string>(), std::string("USER_INPUT"));
  }

  // A type outside the table is named LZ_UNKNOWN (not anthro-v1's UNKNOWN) and refused as `type`;
  // a frame cut off by the end of the capture is refused as `incomplete` with the bytes that came.
  void unknownTypeAndCutFrameAreRefusedRows() {
    std::string unknown = frame(1, static_cast<lz::PayloadType>(0x42), Bytes{1, 2, 3});
    std::string cut = text(1, lz::PayloadType::ModelOutput, "cut short");
    cut.resize(cut.size() - 9);  // 4 of the 9 payload bytes, no CRC
    QTemporaryDir dir;
    const std::string path = dir.filePath("refused.pcap").toStdString();
    write_capture(path, exchange({{true, fresh_init()}, {false, ack()}, {true, unknown}, {false, cut}}));
    auto index = loaded(path, {});
    QCOMPARE(index->frame_count(), std::size_t{4});
    auto type = index->detail(2);
    QCOMPARE(std::string(row_type_name(type->row)), std::string("LZ_UNKNOWN"));
    QVERIFY2(type->status.starts_with("type: payload type 66"), type->status.c_str());
    QCOMPARE(field(*type, "payload_type"), std::string("0x42 (not in the table)"));
    auto incomplete = index->detail(3);
    QCOMPARE(std::string(row_type_name(incomplete->row)), std::string("MODEL_OUTPUT"));
    QVERIFY2(incomplete->status.starts_with("incomplete: the stream ends"), incomplete->status.c_str());
    QCOMPARE(incomplete->bytes.size(), cut.size());
    QCOMPARE(field(*incomplete, "payload"), std::string("9 bytes, 4 arrived"));
    FrameFilter f;
    f.type = "LZ_UNKNOWN";
    QCOMPARE(index->select(f), std::vector<std::uint32_t>{2});
  }

  // Random bytes after a SESSION_INIT (so the connection is read as Layer Zero), in random
  // pieces: every row's detail is readable and no row claims more bytes than came.
  void garbageNeverCrashes() {
    std::mt19937 rng(11);
    QTemporaryDir dir;
    for (int round = 0; round < 40; ++round) {
      std::vector<std::pair<bool, std::string>> pieces = {{true, fresh_init()}};
      for (int k = 0; k < 6; ++k) {
        std::string junk(rng() % 40 + 1, '\0');
        for (auto& ch : junk) ch = static_cast<char>(rng());
        if (k == 2 && round % 2) junk = ack().substr(0, 8 + rng() % 70) + junk;  // a header, then noise
        pieces.emplace_back(k % 2 == 1, junk);
      }
      const std::string path = dir.filePath(QString("g%1.pcap").arg(round)).toStdString();
      write_capture(path, exchange(pieces));
      auto index = loaded(path, {});
      QVERIFY(index->frame_count() >= 1);
      for (std::size_t i = 0; i < index->frame_count(); ++i) {
        auto d = index->detail(i);
        QVERIFY(d);
        QVERIFY(!d->status.empty());
        for (const auto& f : d->fields) QVERIFY(f.end <= d->bytes.size());
      }
    }
  }

  // The Type column's words are distinct, so `type:` means one thing; Layer Zero's are the spec's.
  void typeNamesAreDistinct() {
    const auto& names = row_type_names();
    std::set<std::string> distinct(names.begin(), names.end());
    QCOMPARE(distinct.size(), names.size());
    for (const char* n : {"SESSION_INIT", "SESSION_ACK", "USER_INPUT", "MODEL_OUTPUT", "TOOL_CALL", "TOOL_RESULT",
                          "HEARTBEAT", "TERMINATE", "LZ_UNKNOWN", "REQUEST", "STREAM_TOKEN", "SSE_EVENT"})
      QVERIFY2(distinct.count(n), n);
  }
};

QTEST_GUILESS_MAIN(TestLayerZeroInspector)
#include "test_layer_zero_inspector.moc"
