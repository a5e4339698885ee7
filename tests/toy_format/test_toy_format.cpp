// The toy format of this folder, registered by toy_format.cpp alone: a capture of it is
// dissected into its own rows (types, streams, the AUTH secret masked, a refusal), the
// inspector shows its column only when the capture has its connections, `decode` prints its
// lines, `type:` filters on its words and its checklist probe is judged like a built-in one.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "capture_generator.h"
#include "capture_inspector.h"
#include "diagnosis/diagnosis.h"
#include "frame_table_model.h"
#include "toy_format.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

int toy_text() { return first_profile_column(); }  // the only registered column here

// A toy connection: the client's hello, a secret, a stream's line each way, then the server
// sends something that is no toy line.
std::string toy_capture(const QTemporaryDir& dir) {
  std::string path = dir.filePath("toy.pcap").toStdString();
  write_capture(path, exchange({{true, "HELLO 0 toy/1\n"}, {true, "AUTH 0 hunter2\n"}, {true, "SAY 3 what is it\n"},
                                {false, "SAY 3 a toy\n"}, {true, "BYE 0 done\n"}, {false, "HTTP/1.1 200 OK\r\n"}}));
  return path;
}

std::shared_ptr<CaptureIndex> load(const std::string& path) {
  auto index = CaptureIndex::create();
  if (!index || !(*index)->load(path, {})) qFatal("cannot load %s", path.c_str());
  return *index;
}

QString cell(const FrameTableModel& m, int row, int column) { return m.data(m.index(row, column), Qt::DisplayRole).toString(); }

bool wait_loaded(CaptureInspector& inspector) {
  for (int i = 0; i < 500 && inspector.loading(); ++i) QTest::qWait(20);
  return !inspector.loading();
}

Checklist toy_checklist(double max) {
  const std::string json = R"({"$schema": "checklist.schema.json", "schema_version": 1, "id": "toy", "title": {"en": "Toy"},
    "items": [{"id": "toy-count", "probe": "toy-connections", "title": {"en": "Toy connections"},
               "remedy": {"en": "Fewer toys."}, "sources": ["capture"], "min_n": 1, "n_unit": "connections",
               "thresholds": [{"name": "max", "value": )" + std::to_string(max) + R"(, "unit": "", "verdict": "warn",
                               "compare": "above"}], "seed": "test", "fault": "none"}]})";
  auto checklist = parse_checklist(json, "toy checklist");
  if (!checklist) qFatal("%s", checklist.error().detail.c_str());
  return *checklist;
}

}  // namespace

class TestToyFormat : public QObject {
  Q_OBJECT
 private slots:
  void registeredAfterTheBuiltIns() {
    const Profile* toy = find_profile(toy::kName);
    QVERIFY(toy);
    QCOMPARE(toy, profiles().back());
    QCOMPARE(&profile(toy->id), toy);
    QVERIFY(recognise_connection(as_bytes("HELLO 0 toy/1\n")) == toy);
    QVERIFY(recognise_connection(as_bytes("HELLO 0 toy/2\n")) != toy);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, register_profile(*toy));  // its name is taken
  }

  void dissectsItsConnections() {
    QTemporaryDir dir;
    auto index = load(toy_capture(dir));
    const auto conns = index->connections();
    QCOMPARE(conns.size(), std::size_t{1});
    QCOMPARE(conns[0].profile, find_profile(toy::kName)->id);
    QCOMPARE(conns[0].dissected_frames, std::uint64_t{5});
    QCOMPARE(decryption_text(conns[0]), std::string("ok"));
    QCOMPARE(index->frame_count(), std::size_t{6});
    std::vector<std::string> types;
    for (std::size_t i = 0; i < 6; ++i) types.push_back(row_type_name(*index->row(i)));
    QCOMPARE(types, (std::vector<std::string>{"TOY_HELLO", "TOY_AUTH", "TOY_SAY", "TOY_SAY", "TOY_BYE", "TOY_UNREADABLE"}));
    auto say = index->detail(3);
    QCOMPARE(say->row.dir, Direction::ServerToClient);
    QCOMPARE(say->row.stream_id, 3u);
    QCOMPARE(say->summary, std::string("SAY #3 a toy"));
    QCOMPARE(say->fields.at(2).name, std::string("text"));
    QCOMPARE(say->fields.at(2).value, std::string("a toy"));
    QCOMPARE(std::string(say->bytes.begin() + static_cast<long>(say->fields[2].begin),
                         say->bytes.begin() + static_cast<long>(say->fields[2].end)), std::string("a toy"));
    // The secret is masked in what is kept, so in every field too.
    auto auth = index->detail(1);
    QCOMPARE(std::string(auth->bytes.begin(), auth->bytes.end()), std::string("AUTH 0 *******\n"));
    QCOMPARE(auth->fields.at(2).value, std::string("*******"));
    // The server's line that is no toy line stops its direction, with why.
    auto refused = index->detail(5);
    QCOMPARE(refused->row.status, FrameStatus::Refused);
    QCOMPARE(refused->status, std::string("not VERB STREAM TEXT"));
    // type: takes the format's words.
    QVERIFY(std::ranges::count(row_type_names(), std::string("TOY_SAY")) == 1);
    FrameFilter says;
    says.type = "TOY_SAY";
    QCOMPARE(index->select(says), (std::vector<std::uint32_t>{2, 3}));
  }

  void aLineBeyondTheBoundIsRefusedNotKept() {
    QTemporaryDir dir;
    std::string path = dir.filePath("long.pcap").toStdString();
    write_capture(path, exchange({{true, "HELLO 0 toy/1\n"}, {true, "SAY 1 " + std::string(3 * toy::kMaxLine, 'x') + "\n"}}));
    auto index = load(path);
    QCOMPARE(index->frame_count(), std::size_t{2});
    auto long_line = index->detail(1);
    QCOMPARE(long_line->status, "a line longer than " + std::to_string(toy::kMaxLine) + " bytes");
    QCOMPARE(long_line->bytes.size(), toy::kMaxLine + 1);
    QVERIFY(long_line->fields.empty());  // a refused line is not read as one
  }

  void showsItsColumn() {
    QTemporaryDir dir;
    FrameTableModel model;
    model.setIndex(load(toy_capture(dir)));
    QCOMPARE(model.columnCount(), first_profile_column() + 1);
    QCOMPARE(model.headerData(toy_text(), Qt::Horizontal, Qt::DisplayRole).toString(), QString("Toy text"));
    QCOMPARE(cell(model, 2, toy_text()), QString("what is it"));
    QCOMPARE(cell(model, 3, toy_text()), QString("a toy"));
    QCOMPARE(cell(model, 2, FrameTableModel::Type), QString("TOY_SAY"));
    QCOMPARE(cell(model, 2, summary_column()), QString("SAY #3 what is it"));
    QCOMPARE(cell(model, 5, toy_text()), QString());  // refused: nothing to show
    // Sorted by the column, as any text column is.
    auto order = sort_frames(*model.captureIndex(), {0, 1, 2, 3, 4}, toy_text(), Qt::AscendingOrder);
    QCOMPARE(order.back(), 2u);  // "what is it" last
    QVERIFY(model.rowsText({2}).contains("\twhat is it\n"));
  }

  void theInspectorShowsTheColumnOnlyWithToyConnections() {
    QTemporaryDir dir;
    CaptureInspector inspector;
    inspector.resize(1200, 800);
    inspector.show();
    inspector.open(QString::fromStdString(toy_capture(dir)), {});
    QVERIFY(wait_loaded(inspector));
    QVERIFY(!inspector.frameView()->isColumnHidden(toy_text()));
    QCOMPARE(inspector.frames()->rowCount(), 6);
    CaptureInspector other;
    other.show();
    other.open(QString::fromStdString(vectors_path("lab-conversation.pcap")), {{vectors_path("lab-conversation.keylog")}, {}});
    QVERIFY(wait_loaded(other));
    QVERIFY(other.frameView()->isColumnHidden(toy_text()));
  }

  void decodePrintsItsLines() {
    QTemporaryDir dir;
    std::vector<nlohmann::json> lines;
    auto result = analyze_capture(toy_capture(dir), {}, [&](const std::string& line) { lines.push_back(nlohmann::json::parse(line)); });
    QVERIFY(result);
    std::vector<nlohmann::json> toy;
    for (const auto& l : lines)
      if (l["kind"] == "toy") toy.push_back(l);
    QCOMPARE(toy.size(), std::size_t{6});
    QCOMPARE(toy[3]["type"], "TOY_SAY");
    QCOMPARE(toy[3]["dir"], "s2c");
    QCOMPARE(toy[3]["summary"], "SAY #3 a toy");
    QCOMPARE(toy[1]["fields"][2]["value"], "*******");
    QVERIFY(toy[5].contains("refusal"));
    for (const auto& l : lines) QVERIFY(l.dump().find("hunter2") == std::string::npos);
  }

  void itsProbeJudgesACapture() {
    QTemporaryDir dir;
    auto analysis = analyze_capture(toy_capture(dir), {});
    QVERIFY(analysis);
    Diagnosis warned = diagnose_analysis(*analysis, toy_checklist(0));
    QCOMPARE(warned.items.size(), std::size_t{1});
    QCOMPARE(warned.items[0].verdict, Verdict::Warn);
    QCOMPARE(warned.items[0].n, std::size_t{1});
    Diagnosis passed = diagnose_analysis(*analysis, toy_checklist(5));
    QCOMPARE(passed.items[0].verdict, Verdict::Pass);
    QCOMPARE(passed.items[0].reason, std::string("1 toy connections"));
  }
};

QTEST_MAIN(TestToyFormat)
#include "test_toy_format.moc"
