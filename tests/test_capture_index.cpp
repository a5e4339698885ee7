// The capture index a GUI pages through: rows and decoded bytes in temporary files, details on
// demand, filters, secrets masked in the bytes, rows readable while it loads, cancellation.
#include <QFloat16>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <random>
#include <thread>

#include "capture_index_loaded.h"
#include "capture/capture_index.h"
#include "capture_generator.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

const FrameField* field(const FrameDetail& d, const std::string& name) {
  for (const auto& f : d.fields)
    if (f.name == name) return &f;
  return nullptr;
}

std::string field_bytes(const FrameDetail& d, const FrameField& f) {
  return std::string(d.bytes.begin() + static_cast<std::ptrdiff_t>(f.begin),
                     d.bytes.begin() + static_cast<std::ptrdiff_t>(f.end));
}

}  // namespace

class TestCaptureIndex : public QObject {
  Q_OBJECT
 private slots:
  void vectorCaptureGivesSixFramesAndTheirFields() {
    auto index = loaded(vectors_path("lab-conversation.pcap"), {{vectors_path("lab-conversation.keylog")}, {}});
    QVERIFY(index->finished());
    QCOMPARE(index->frame_count(), std::size_t{6});
    std::vector<std::string> types;
    for (std::size_t i = 0; i < 6; ++i) types.push_back(to_string(static_cast<FrameType>(index->row(i)->type)));
    QCOMPARE(types, (std::vector<std::string>{"REQUEST", "STREAM_TOKEN", "STREAM_TOKEN", "STREAM_TOKEN",
                                              "STREAM_TOKEN", "RESPONSE"}));
    auto d = index->detail(1);
    QVERIFY(d);
    QCOMPARE(d->status, std::string("ok"));
    QCOMPARE(d->row.stream_id, 1u);
    const FrameField* text = field(*d, "text");
    QVERIFY(text);
    QCOMPARE(text->value, std::string("Hello"));
    QCOMPARE(field_bytes(*d, *text), std::string("Hello"));  // the range a hex view highlights
    const FrameField* type = field(*d, "type");
    QCOMPARE(type->begin, std::size_t{1});
    QCOMPARE(d->bytes[1], std::uint8_t{0x03});
    QCOMPARE(d->summary, std::string("token 0 \"Hello\""));
    // The frame's decoded bytes have the wire frame's length: plaintext replaces ciphertext.
    QCOMPARE(d->bytes.size(), std::size_t{16 + load_u32(d->bytes.data() + 4)});

    auto connections = index->connections();
    QCOMPARE(connections.size(), std::size_t{1});
    QVERIFY(connections[0].offer && connections[0].answer);
    QCOMPARE(decryption_text(connections[0]), std::string("ok"));
    auto analysis = index->analysis();
    QVERIFY(analysis);
    QVERIFY(std::abs(*analysis->connections.at(0).streams.at(0).figures.ttft_ms - 180.0) < 1e-3);
  }

  // Connection A opens first but sends its first frame after connection B's: the rows'
  // connection numbers are still the analysis's (by first packet), during the load and after.
  void connectionNumbersFollowTheFirstPacket() {
    std::vector<Segment> a = conversation(1000), b = many_connections(1, 1, 3);
    std::vector<Segment> segments(a.begin(), a.begin() + kHandshake);
    segments.insert(segments.end(), b.begin(), b.end());
    segments.insert(segments.end(), a.begin() + kHandshake, a.end());
    QTemporaryDir dir;
    std::string path = dir.filePath("late.pcap").toStdString();
    write_capture(path, segments);
    auto index = loaded(path, {{vectors_path("lab-conversation.keylog")}, {}});
    auto analysis = index->analysis();
    auto connections = index->connections();
    QCOMPARE(connections.size(), std::size_t{2});
    QCOMPARE(analysis->connections.size(), std::size_t{2});
    for (std::size_t i = 0; i < 2; ++i) QCOMPARE(connections[i].name, analysis->connections[i].info.name);
    QCOMPARE(connections[0].client.port, std::uint16_t{40000});
    QCOMPARE(index->row(0)->connection, 1u);  // B's REQUEST, the first frame in the file
    QCOMPARE(index->row(index->frame_count() - 1)->connection, 0u);
    FrameFilter of_a;
    of_a.connection = 0;
    QCOMPARE(index->select(of_a).size(), std::size_t{6});  // the vector conversation's six frames
  }

  // The pass's lanes build rows on their own threads; merged, they are one lane's rows in the
  // same order with the same bytes, connections numbered alike (a late connection included).
  void lanesGiveTheRowsOfOneLane() {
    std::vector<Segment> a = conversation(1000), b = many_connections(7, 12, 20);
    std::vector<Segment> segments(a.begin(), a.begin() + kHandshake);
    segments.insert(segments.end(), b.begin(), b.end());
    segments.insert(segments.end(), a.begin() + kHandshake, a.end());
    QTemporaryDir dir;
    std::string path = dir.filePath("lanes.pcap").toStdString();
    write_capture(path, segments);
    const CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    auto load = [&](unsigned threads) {
      auto index = *CaptureIndex::create();
      auto ok = index->load(path, keys, {}, threads);
      if (!ok) qFatal("%s", ok.error().detail.c_str());
      return index;
    };
    auto one = load(1);
    QCOMPARE(one->frame_count(), std::size_t{6 + 7 * 12 * 22});
    for (unsigned threads : {2u, 3u, 8u}) {
      auto many = load(threads);
      QCOMPARE(many->frame_count(), one->frame_count());
      for (std::size_t i = 0; i < one->frame_count(); ++i) {
        auto x = one->detail(i), y = many->detail(i);
        QVERIFY(x && y);
        QCOMPARE(y->row.connection, x->row.connection);
        QCOMPARE(y->row.stream_id, x->row.stream_id);
        QCOMPARE(y->row.ts, x->row.ts);
        QCOMPARE(y->row.stream_offset, x->row.stream_offset);
        QCOMPARE(y->bytes, x->bytes);
        QCOMPARE(y->summary, x->summary);
      }
      auto cx = one->connections(), cy = many->connections();
      QCOMPARE(cy.size(), cx.size());
      for (std::size_t k = 0; k < cx.size(); ++k) QCOMPARE(cy[k].name, cx[k].name);
    }
  }

  // The same over several of the reader's 2 MiB buffers: every lane hears how far the reader
  // got at each buffer, so the merge keeps packet order across them.
  void lanesOfManyReadBuffersGiveTheRowsOfOneLane() {
    QTemporaryDir dir;
    std::string path = dir.filePath("big.pcap").toStdString();
    write_capture(path, many_connections(9, 60, 150));
    QVERIFY(std::filesystem::file_size(path) > (6u << 20));
    const CaptureKeySources keys{{vectors_path("lab-conversation.keylog")}, {}};
    std::vector<std::shared_ptr<CaptureIndex>> indexes;
    for (unsigned threads : {1u, 2u, 8u}) {
      indexes.push_back(*CaptureIndex::create());
      auto ok = indexes.back()->load(path, keys, {}, threads);
      QVERIFY2(ok, ok ? "" : ok.error().detail.c_str());
    }
    const CaptureIndex& one = *indexes[0];
    QCOMPARE(one.frame_count(), std::size_t{9 * 60 * 152});  // REQUEST, 150 tokens, RESPONSE
    for (std::size_t k = 1; k < indexes.size(); ++k) {
      QCOMPARE(indexes[k]->frame_count(), one.frame_count());
      for (std::size_t i = 0; i < one.frame_count(); ++i) {
        auto x = one.row(i), y = indexes[k]->row(i);
        QVERIFY(x && y);
        if (y->connection != x->connection || y->stream_id != x->stream_id || y->ts != x->ts ||
            y->stream_offset != x->stream_offset)
          QFAIL(qPrintable("row " + QString::number(i) + " differs at " + QString::number(k == 1 ? 2 : 8) + " threads"));
      }
    }
    // Each lane keeps its frames' bytes in a file of its own: details and a search of the bodies
    // read them back the same at any thread count.
    FrameFilter by_text;
    by_text.text = "c4s11";
    const std::vector<std::uint32_t> found = one.select(by_text);
    QVERIFY(!found.empty());
    for (std::size_t k = 1; k < indexes.size(); ++k) {
      QCOMPARE(indexes[k]->select(by_text), found);
      for (std::size_t i = 0; i < one.frame_count(); i += 101) QCOMPARE(indexes[k]->detail(i)->bytes, one.detail(i)->bytes);
    }
  }

  void withoutKeysRowsSayWhy() {
    auto index = loaded(vectors_path("lab-conversation.pcap"), {});
    QCOMPARE(index->frame_count(), std::size_t{6});
    auto d = index->detail(2);
    QCOMPARE(d->row.status, FrameStatus::NoKey);
    QVERIFY2(d->status.rfind("no key", 0) == 0, d->status.c_str());
    QVERIFY(field(*d, "ciphertext"));
    QVERIFY(!field(*d, "text"));
  }

  void pagesFiltersAndBoundedCaches() {
    constexpr unsigned kConns = 6, kStreams = 30, kTokens = 30;
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(kConns, kStreams, kTokens));
    auto index = loaded(path, {{vectors_path("lab-conversation.keylog")}, {}});
    const std::size_t per_stream = kTokens + 2;
    QCOMPARE(index->frame_count(), std::size_t{kConns * kStreams * per_stream});
    QCOMPARE(index->connections().size(), std::size_t{kConns});

    // Every row read in order equals the same row read after jumping around.
    std::vector<FrameRow> in_order;
    for (std::size_t i = 0; i < index->frame_count(); ++i) in_order.push_back(*index->row(i));
    std::mt19937 rng(7);
    for (int k = 0; k < 2000; ++k) {
      std::size_t i = rng() % in_order.size();
      auto r = index->row(i);
      QVERIFY(r);
      QCOMPARE(r->data_offset, in_order[i].data_offset);
      QCOMPARE(r->stream_id, in_order[i].stream_id);
    }
    QVERIFY(std::is_sorted(in_order.begin(), in_order.end(),
                           [](const FrameRow& a, const FrameRow& b) { return a.ts < b.ts; }));

    // Texts of every token frame of one stream, through details, make the stream's text.
    FrameFilter stream3;
    stream3.connection = 2;
    stream3.stream_id = 7;  // the 4th stream
    stream3.type = to_string(FrameType::StreamToken);
    auto rows = index->select(stream3);
    QCOMPARE(rows.size(), std::size_t{kTokens});
    std::string text;
    for (auto i : rows) text += field(*index->detail(i), "text")->value;
    QCOMPARE(text, expected_text(2, 3, kTokens));

    FrameFilter responses;
    responses.type = to_string(FrameType::Response);
    QCOMPARE(index->select(responses).size(), std::size_t{kConns * kStreams});

    FrameFilter by_text;
    by_text.text = "c4s11";
    QCOMPARE(index->select(by_text).size(), std::size_t{kTokens});
    by_text.text = "no such text";
    QVERIFY(index->select(by_text).empty());

    std::atomic<bool> cancel{true};
    QVERIFY(index->select({}, &cancel).empty());
  }

  void secretsAreMaskedInBytesAndFields() {
    const std::string key = "sk-ant-very-secret-key-123";
    QTemporaryDir dir;
    std::string path = dir.filePath("key.pcap").toStdString();
    write_capture(path, many_connections(1, 2, 3, key));
    auto index = loaded(path, {{vectors_path("lab-conversation.keylog")}, {}});
    auto d = index->detail(0);
    QCOMPARE(to_string(static_cast<FrameType>(d->row.type)), "REQUEST");
    std::string bytes(d->bytes.begin(), d->bytes.end());
    QVERIFY(bytes.find("sk-ant") == std::string::npos);
    QVERIFY(bytes.find(std::string(key.size(), '*')) != std::string::npos);
    QVERIFY(bytes.find("\"model\"") != std::string::npos);  // the rest stays readable
    QVERIFY(d->pretty_json.find("sk-ant") == std::string::npos);
    QVERIFY(d->pretty_json.find("\n") != std::string::npos);
    for (const auto& f : d->fields) QVERIFY2(f.value.find("sk-ant") == std::string::npos, f.name.c_str());
    FrameFilter search;
    search.text = "sk-ant";
    QVERIFY(index->select(search).empty());
  }

  void maskSecretsCases() {
    auto mask = [](std::string text) {
      mask_secrets(std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(text.data()), text.size()));
      return text;
    };
    QCOMPARE(mask("{\"api_key\":\"abc\",\"model\":\"m\"}"), std::string("{\"api_key\":\"***\",\"model\":\"m\"}"));
    QCOMPARE(mask("{\"api_key\" : \"a\\\"b\"}"), std::string("{\"api_key\" : \"****\"}"));
    QCOMPARE(mask("{\"note\":\"api_key\",\"x\":1}"), std::string("{\"note\":\"api_key\",\"x\":1}"));
    QCOMPARE(mask("{\"\\u0061pi_key\":\"abc\"}"), std::string(22, '*'));
    QCOMPARE(mask("{\"model\":\"m\"}"), std::string("{\"model\":\"m\"}"));
  }

  void rowsAreReadableWhileLoading() {
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(8, 80, 60));
    auto created = CaptureIndex::create();
    QVERIFY(created);
    auto index = *created;
    std::atomic<bool> done{false};
    std::thread loader([&] {
      auto ok = index->load(path, {{vectors_path("lab-conversation.keylog")}, {}});
      if (!ok) qWarning("%s", ok.error().detail.c_str());
      done = true;
    });
    std::size_t last = 0, reads_while_loading = 0;
    while (!done) {
      std::size_t n = index->frame_count();
      QVERIFY(n >= last);
      if (n > 0 && !index->finished()) {
        auto r = index->row(n - 1);
        QVERIFY(r);
        QVERIFY(index->detail(n - 1));
        ++reads_while_loading;
      }
      last = n;
    }
    loader.join();
    QVERIFY(index->finished());
    QCOMPARE(index->frame_count(), std::size_t{8 * 80 * 62});
    qInfo("rows read while loading: %zu", reads_while_loading);
  }

  void cancelledLoadStopsWithAReason() {
    QTemporaryDir dir;
    std::string path = dir.filePath("many.pcap").toStdString();
    write_capture(path, many_connections(8, 60, 60));
    auto index = *CaptureIndex::create();
    auto ok = index->load(path, {{vectors_path("lab-conversation.keylog")}, {}},
                          [](std::uint64_t done, std::uint64_t) { return done < (1u << 20); });
    QVERIFY(!ok);
    QCOMPARE(ok.error().reason, std::string("cancelled"));
    QVERIFY(index->finished());
    QVERIFY(index->frame_count() > 0);
    QVERIFY(index->frame_count() < 8 * 60 * 62);
    QVERIFY(!index->analysis());
  }

  void missingFileIsAnError() {
    auto index = *CaptureIndex::create();
    auto ok = index->load("/no/such/capture.pcap", {});
    QVERIFY(!ok);
    QVERIFY(ok.error().detail.find("/no/such/capture.pcap") != std::string::npos);
    QVERIFY(index->finished());
    QCOMPARE(index->frame_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestCaptureIndex)
#include "test_capture_index.moc"
