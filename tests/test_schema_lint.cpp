// The tool-schema linter of the Layer Zero spec §5.3 (profiles/layer-zero.md, lz-tool-schema): the
// spec's own example (symbol minLength 3 against 2, market's enum, a required list), agreement
// however the schemas are spelled (key order, set order, 3 against 3.0, "string" against
// ["string"]), nested properties, items and combinators, `$ref` never followed, hostile documents
// refused with the file and the path, and `anthro-wb lint-schema` end to end: exit codes, the table
// and the JSON.
#include <QByteArray>
#include <QChar>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <tuple>

#include "layerzero/schema_lint.h"
#include "test_paths.h"

using namespace anthro;
using nlohmann::json;

namespace {

// The model side's input_schema of the spec's get_stock_price tool.
const char* kModelSide = R"({
  "type": "object",
  "properties": {
    "symbol": {"type": "string", "minLength": 3},
    "market": {"type": "string", "enum": ["NASDAQ", "NYSE"]},
    "page_size": {"type": "integer", "minimum": 1, "default": 20}
  },
  "required": ["symbol", "page_size"]
})";

// The client handler's schema: minLength 2, AMEX added, page_size no longer required.
const char* kHandler = R"({
  "required": ["symbol"],
  "properties": {
    "page_size": {"default": 20.0, "minimum": 1.0, "type": ["integer"]},
    "market": {"enum": ["NYSE", "NASDAQ", "AMEX"], "type": "string"},
    "symbol": {"minLength": 2, "type": "string"}
  },
  "type": "object"
})";

std::vector<SchemaDifference> lint(const json& a, const json& b) {
  auto r = lint_schemas(a, "A.json", b, "B.json");
  if (!r) qFatal("lint failed: %s", r.error().detail.c_str());
  return *r;
}

std::vector<SchemaDifference> lint(const char* a, const char* b) { return lint(json::parse(a), json::parse(b)); }

std::string error_of(const json& a, const json& b) {
  auto r = lint_schemas(a, "A.json", b, "B.json");
  if (r) qFatal("expected an error, got %zu differences", r->size());
  if (r.error().kind != ErrorClass::Input) qFatal("not an input error");
  return r.error().detail;
}

// "path keyword kind" per difference, for comparing whole results at a glance.
QStringList summary(const std::vector<SchemaDifference>& diffs) {
  QStringList out;
  for (const auto& d : diffs)
    out << QString::fromStdString(d.path + " " + d.keyword + " " + to_string(d.kind));
  return out;
}

json nested(int levels) {
  json root = json::object();
  json* at = &root;
  for (int i = 0; i < levels; ++i) at = &((*at)["properties"]["a"] = json::object());
  return root;
}

struct Run {
  int code;
  QByteArray out, err;
};

Run wb(const QStringList& args) {
  QProcess p;
  p.start(ANTHRO_WB, QStringList{"lint-schema"} + args);
  p.closeWriteChannel();
  if (!p.waitForFinished(30000)) p.kill();
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}

}  // namespace

class TestSchemaLint : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void seedExample() {
    auto diffs = lint(kModelSide, kHandler);
    QCOMPARE(summary(diffs), (QStringList{"/properties/market enum differs", "/properties/page_size required differs",
                                          "/properties/symbol minLength differs"}));
    const auto& market = diffs[0];
    QVERIFY(market.only_a.empty());
    QCOMPARE(market.only_b, std::vector<json>{"AMEX"});
    QCOMPARE(*market.a, json({"NASDAQ", "NYSE"}));
    QCOMPARE(*market.b, json({"NYSE", "NASDAQ", "AMEX"}));
    QCOMPARE(*diffs[1].a, json(true));
    QCOMPARE(*diffs[1].b, json(false));
    QCOMPARE(*diffs[2].a, json(3));
    QCOMPARE(*diffs[2].b, json(2));
    // The other way round: the same fields, the sides swapped.
    auto back = lint(kHandler, kModelSide);
    QCOMPARE(summary(back), summary(diffs));
    QCOMPARE(back[0].only_a, std::vector<json>{"AMEX"});
    QCOMPARE(*back[1].a, json(false));
  }

  void identicalSchemasAgree() {
    QVERIFY(lint(kModelSide, kModelSide).empty());
    QVERIFY(lint(kHandler, kHandler).empty());
    // Spelling that means nothing: member order, set order and repeats, number spelling.
    QVERIFY(lint(R"({"type": ["string", "null"], "enum": ["a", 1, null], "required": ["x", "y"], "maxLength": 1e2})",
                 R"({"maxLength": 100, "required": ["y", "x", "x"], "enum": [null, 1.0, "a", "a"], "type": ["null", "string"]})")
                .empty());
    QVERIFY(lint("{}", "{}").empty());
    QVERIFY(lint(R"({"properties": {}, "required": []})", "{}").empty());  // empty is absent
  }

  void numbersByValue() {
    QVERIFY(lint(R"({"minimum": 3, "maximum": 3.0, "multipleOf": 0.1, "default": [1, {"n": 2}]})",
                 R"({"minimum": 3.0, "maximum": 3, "multipleOf": 0.1, "default": [1.0, {"n": 2e0}]})")
                .empty());
    QCOMPARE(summary(lint(R"({"minimum": 3})", R"({"minimum": 3.5})")), QStringList{" minimum differs"});
    QCOMPARE(summary(lint(R"({"const": 1})", R"({"const": "1"})")), QStringList{" const differs"});
    QCOMPARE(summary(lint(R"({"exclusiveMaximum": 18446744073709551615})", R"({"exclusiveMaximum": 1.8446744073709552e19})")),
             QStringList{" exclusiveMaximum differs"});  // 2^64 − 1 is not 2^64
  }

  void typeAsSet() {
    QVERIFY(lint(R"({"type": "string"})", R"({"type": ["string"]})").empty());
    auto diffs = lint(R"({"type": ["string", "null"]})", R"({"type": "string"})");
    QCOMPARE(summary(diffs), QStringList{" type differs"});
    QCOMPARE(diffs[0].only_a, std::vector<json>{"null"});
    QVERIFY(diffs[0].only_b.empty());
    QCOMPARE(*diffs[0].b, json("string"));  // reported as written
  }

  void everyConstraintKeyword() {
    const char* keys[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                          "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
                          "additionalProperties", "default", "const", "x-vendor", "title"};
    const json values[] = {1, 2, 3, 4, 5, 6, 7, "^a", "date", 8, 9, true, false, "d", json::array({1}), "v", "t"};
    json a = json::object(), b = json::object(), b2 = json::object();
    for (std::size_t i = 0; i < std::size(keys); ++i) {
      a[keys[i]] = values[i];
      b[keys[i]] = values[i].is_boolean() ? json(!values[i].get<bool>()) : json::array({values[i]});
    }
    auto diffs = lint(a, b);
    QCOMPARE(diffs.size(), std::size(keys));
    for (const auto& d : diffs) QCOMPARE(d.kind, SchemaDiffKind::Differs);
    // Missing on one side, both ways.
    diffs = lint(a, b2);
    QCOMPARE(diffs.size(), std::size(keys));
    for (const auto& d : diffs) QVERIFY(d.kind == SchemaDiffKind::MissingOnB && d.a && !d.b);
    diffs = lint(b2, a);
    for (const auto& d : diffs) QVERIFY(d.kind == SchemaDiffKind::MissingOnA && !d.a && d.b);
  }

  void nestedPropertiesItemsAndCombinators() {
    auto diffs = lint(R"({"properties": {"order": {"properties": {"id": {"type": "string", "pattern": "^[0-9]"}},
                                                   "required": ["id"]},
                                         "lines": {"type": "array", "items": {"type": "object",
                                                   "properties": {"qty": {"type": "integer", "maximum": 10}}}},
                                         "pair": {"items": [{"type": "string"}, {"type": "number"}]},
                                         "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                                         "a/b~c": {"type": "string"}}})",
                      R"({"properties": {"order": {"properties": {"id": {"type": "string", "pattern": "^[1-9]"}}},
                                         "lines": {"type": "array", "items": {"type": "object",
                                                   "properties": {"qty": {"type": "integer", "maximum": 99}}}},
                                         "pair": {"items": [{"type": "string"}]},
                                         "either": {"anyOf": [{"type": "string"}]},
                                         "extra": true}})");
    QCOMPARE(summary(diffs), (QStringList{"/properties/a~1b~0c  missing_on_b", "/properties/either/anyOf/1  missing_on_b",
                                          "/properties/extra  missing_on_a",
                                          "/properties/lines/items/properties/qty maximum differs",
                                          "/properties/order/properties/id pattern differs",
                                          "/properties/order/properties/id required differs",
                                          "/properties/pair/items/1  missing_on_b"}));
    QCOMPARE(*diffs[0].a, json({{"type", "string"}}));  // the whole schema of the field B lacks
    QCOMPARE(*diffs[2].b, json(true));
    // A boolean schema against another, or items as one schema against a list of them.
    QCOMPARE(summary(lint(R"({"properties": {"x": true}, "items": {}})", R"({"properties": {"x": {}}, "items": [{}]})")),
             (QStringList{" items differs", "/properties/x  differs"}));
  }

  // (JSON with '#' or '//' is built here, not written raw: moc reads a raw string as plain ones.)
  void refsAreNotFollowed() {
    const json local = {{"$ref", "#/definitions/t"}, {"definitions", {{"t", {{"type", "string"}}}}}};
    QVERIFY(lint(local, local).empty());  // the target is compared where it is defined
    json other = local;
    other["definitions"]["t"]["type"] = "number";
    QCOMPARE(summary(lint(local, other)), QStringList{"/definitions/t type differs"});
    QCOMPARE(summary(lint(json{{"$ref", "#/$defs/a"}}, json{{"$ref", "#/$defs/b"}})), QStringList{" $ref differs"});
    const json remote = {{"properties", {{"p", {{"$ref", "https://example.com/p.json"}}}}}};
    auto diffs = lint(remote, remote);
    QCOMPARE(summary(diffs), QStringList{"/properties/p $ref not_followed"});
    QCOMPARE(*diffs[0].a, json("https://example.com/p.json"));
  }

  void depthBombRefusedWithThePath() {
    std::string detail = error_of(json::object(), nested(200));
    QVERIFY2(detail.starts_with("B.json: nested deeper than 64 levels at /properties/a/properties/a/"), detail.c_str());
    QVERIFY2(detail.ends_with("/properties/a"), detail.c_str());
    QCOMPARE(std::count(detail.begin(), detail.end(), '/'), 64);  // the first container too deep
    QVERIFY(lint(nested(31), nested(31)).empty());                // 63 levels: fine
    QVERIFY(error_of(nested(40), json::object()).starts_with("A.json: nested deeper than 64 levels at /"));
  }

  // Many differences under a long name would each carry it in their path: refused past 64 MiB.
  void tooManyDifferencesToList() {
    const std::string name(1 << 20, 'n');
    json a = json::object(), b = json::object();
    for (int i = 0; i < 70; ++i) {
      a["properties"][name]["properties"]["p" + std::to_string(i)] = {{"minimum", 1}};
      b["properties"][name]["properties"]["p" + std::to_string(i)] = {{"minimum", 2}};
    }
    std::string detail = error_of(a, b);
    QVERIFY2(detail.starts_with("A.json and B.json differ in more places than can be listed"), detail.c_str());
    b = a;
    QVERIFY(lint(a, b).empty());
  }

  void nonSchemasRefusedWithFileAndPlace() {
    QCOMPARE(error_of(json::array(), json::object()), std::string("A.json: the schema at the root is an array, not an object"));
    QCOMPARE(error_of(json::object(), json("x")), std::string("B.json: the schema at the root is a string, not an object"));
    QCOMPARE(error_of(json::object(), json()), std::string("B.json: the schema at the root is null, not an object"));
    QCOMPARE(error_of(json::parse(R"({"properties": {"a": {"properties": {"b": 5}}}})"),
                      json::parse(R"({"properties": {"a": {"properties": {"b": {}}}}})")),
             std::string("A.json: the schema at /properties/a/properties/b is a number, not an object or a boolean"));
    QCOMPARE(error_of(json::object(), json::parse(R"({"anyOf": [{}, "string"]})")),
             std::string("B.json: the schema at /anyOf/1 is a string, not an object or a boolean"));
    // A name that is no printable text stays on the error's one line.
    std::string detail = error_of(json::object(), json::parse(R"({"properties": {"a\nb\u0001": []}})"));
    QVERIFY2(detail.find('\n') == std::string::npos && detail.find('\x01') == std::string::npos, detail.c_str());
    QVERIFY2(detail.find("a\\nb\\u0001") != std::string::npos, detail.c_str());
  }

  // Keywords of the wrong shape are compared as values, never walked, never thrown on.
  void garbageKeywordsAreValues() {
    auto diffs = lint(R"({"properties": [1], "required": "x", "type": 5, "enum": {}, "items": 3, "$ref": 7})",
                      R"({"properties": [2], "required": ["x"], "type": [5], "enum": [], "items": "y", "$ref": 7})");
    QCOMPARE(summary(diffs), (QStringList{" $ref not_followed", " enum differs", " items differs", " properties differs",
                                          " required differs", " type differs"}));
    // Strings that are not UTF-8: compared by their bytes, written with U+FFFD.
    const json bad_a = {{"const", std::string("\xff")}}, bad_b = {{"const", std::string("\xfe")}};
    QVERIFY(lint(bad_a, bad_a).empty());
    diffs = lint(bad_a, bad_b);
    QCOMPARE(summary(diffs), QStringList{" const differs"});
    QCOMPARE(json::parse(schema_lint_json(diffs, "a", "b"))["differences"][0]["a"], json("\uFFFD"));
    QVERIFY(QString::fromStdString(schema_lint_text(diffs, "a", "b")).contains(QChar(0xFFFD)));
  }

  void sortedAndDeterministic() {
    auto diffs = lint(kModelSide, kHandler);
    for (int i = 0; i < 5; ++i) QCOMPARE(summary(lint(kModelSide, kHandler)), summary(diffs));
    auto big = lint(R"({"z": 1, "a": 1, "properties": {"m": {"b": 1, "a": 1}, "b": {"x": 1}}})",
                    R"({"z": 2, "a": 2, "properties": {"m": {"b": 2, "a": 2}, "b": {"x": 2}}})");
    for (std::size_t i = 1; i < big.size(); ++i)
      QVERIFY(std::tie(big[i - 1].path, big[i - 1].keyword) < std::tie(big[i].path, big[i].keyword));
    QCOMPARE(big.size(), std::size_t(5));
  }

  void textTable() {
    auto diffs = lint(kModelSide, kHandler);
    QString text = QString::fromStdString(schema_lint_text(diffs, "model.json", "handler.json"));
    QStringList lines = text.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 7);
    QCOMPARE(lines[0], QString("A: model.json"));
    QCOMPARE(lines[1], QString("B: handler.json"));
    QVERIFY2(lines[2].simplified() == "field keyword A B verdict", qPrintable(lines[2]));
    QCOMPARE(lines[3].simplified(),
             QString(R"(/properties/market enum ["NASDAQ","NYSE"] ["NYSE","NASDAQ","AMEX"] differs; only B has "AMEX")"));
    QCOMPARE(lines[4].simplified(), QString("/properties/page_size required true false differs"));
    QCOMPARE(lines[5].simplified(), QString("/properties/symbol minLength 3 2 differs"));
    QCOMPARE(lines[6], QString("3 differences"));
    QCOMPARE(lines[3].indexOf("enum"), lines[5].indexOf("minLength"));  // columns line up
    QCOMPARE(QString::fromStdString(schema_lint_text({}, "a", "b")), QString("A: a\nB: b\n0 differences: the schemas agree\n"));
    // Missing sides and long values.
    json long_enum = json::array();
    for (int i = 0; i < 50; ++i) long_enum.push_back("value-" + std::to_string(i));
    text = QString::fromStdString(schema_lint_text(lint(json{{"enum", long_enum}}, json{{"minLength", 1}}), "a", "b"));
    QVERIFY2(text.contains("(absent)") && text.contains("missing in A") && text.contains("missing in B"), qPrintable(text));
    QVERIFY2(text.contains("…"), qPrintable(text));
    text = QString::fromStdString(schema_lint_text(lint(json{{"enum", long_enum}}, json{{"enum", json::array()}}), "a", "b"));
    QVERIFY2(text.contains(R"(only A has "value-0", "value-1")") && text.contains("and 42 more"), qPrintable(text));
  }

  void jsonForm() {
    auto doc = json::parse(schema_lint_json(lint(kModelSide, R"({"properties": {"symbol": {"minLength": 3}}})"), "a.json", "b.json"));
    QCOMPARE(doc["kind"], json("schema_lint"));
    QCOMPARE(doc["a"], json("a.json"));
    QCOMPARE(doc["agree"], json(false));
    QCOMPARE(doc["count"], json(doc["differences"].size()));
    bool saw_missing = false;
    for (const auto& d : doc["differences"]) {
      QVERIFY(d.contains("path") && d.contains("keyword") && d.contains("kind"));
      if (d["kind"] == "missing_on_b") {
        QVERIFY2(d.contains("a") && !d.contains("b"), d.dump().c_str());  // absent, not null
        saw_missing = true;
      }
    }
    QVERIFY(saw_missing);
    doc = json::parse(schema_lint_json({}, "a", "b"));
    QCOMPARE(doc["agree"], json(true));
    QCOMPARE(doc["differences"], json::array());
  }

  // --- anthro-wb lint-schema ---------------------------------------------------------------

  void cliFindsTheSeedsDifferences() {
    const QString a = write("model.json", kModelSide), b = write("handler.json", kHandler);
    Run r = wb({a, b});
    QCOMPARE(r.code, 1);  // cli.md: the work ran and the check failed
    QVERIFY(r.err.isEmpty());
    QVERIFY2(r.out.startsWith("A: " + a.toUtf8() + "\nB: " + b.toUtf8() + "\n"), r.out.constData());
    QVERIFY2(r.out.contains("/properties/symbol") && r.out.contains("minLength"), r.out.constData());
    QVERIFY2(r.out.contains(R"(only B has "AMEX")"), r.out.constData());
    QVERIFY2(r.out.endsWith("\n3 differences\n"), r.out.constData());

    for (QStringList json_args : {QStringList{"--json"}, QStringList{"--format", "json"}}) {
      r = wb(QStringList{a, b} + json_args);
      QCOMPARE(r.code, 1);
      auto doc = json::parse(r.out.toStdString());
      QCOMPARE(doc["kind"], json("schema_lint"));
      QCOMPARE(doc["a"], json(a.toStdString()));
      QCOMPARE(doc["b"], json(b.toStdString()));
      QCOMPARE(doc["agree"], json(false));
      QCOMPARE(doc["count"], json(3));
      const auto& symbol = doc["differences"][2];
      QCOMPARE(symbol["path"], json("/properties/symbol"));
      QCOMPARE(symbol["keyword"], json("minLength"));
      QCOMPARE(symbol["kind"], json("differs"));
      QCOMPARE(symbol["a"], json(3));
      QCOMPARE(symbol["b"], json(2));
      QCOMPARE(doc["differences"][0]["only_b"], json({"AMEX"}));
    }
  }

  void cliAgreementExitsZero() {
    const QString a = write("same-a.json", kModelSide), b = write("same-b.json", json::parse(kModelSide).dump(2).c_str());
    Run r = wb({a, b});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.endsWith("\n0 differences: the schemas agree\n"), r.out.constData());
    r = wb({"--json", a, b});
    QCOMPARE(r.code, 0);
    auto doc = json::parse(r.out.toStdString());
    QCOMPARE(doc["agree"], json(true));
    QCOMPARE(doc["count"], json(0));
  }

  // Unreadable or bad input: exit 2 and one line naming the file and where.
  void cliBadInputsExitTwo() {
    const QString good = write("good.json", kModelSide);
    QByteArray junk("\x7f" "ELF\0", 5);
    for (int i = 0; i < 500; ++i) junk.append(char(i * 37 + 11));
    const QString bin = write("junk.bin", junk), empty = write("empty.json", ""), array = write("array.json", "[1, 2]"),
                  sub = write("sub.json", R"({"properties": {"p": "string"}})"),
                  deep = write("deep.json", QByteArray(70, '[') + QByteArray(70, ']')),
                  none = dir_.filePath("none.json");
    struct Case {
      QStringList args;
      QString says;
    };
    const QList<Case> cases = {
        {{good, none}, none + ": cannot open"},
        {{none, good}, none + ": cannot open"},
        {{good, dir_.path()}, dir_.path() + ": is a directory"},
        {{good, bin}, bin + ": not valid JSON at byte 0"},
        {{empty, good}, empty + ": not valid JSON at byte 0"},
        {{good, array}, array + ": the schema at the root is an array, not an object"},
        {{sub, good, "--json"}, sub + ": the schema at /properties/p is a string, not an object or a boolean"},
        {{good, deep}, deep + ": nested deeper than 64 levels at byte 64"},
        {{good}, "expects two schema files"},
        {{good, good, good}, "expects two schema files"},
        {{good, good, "--format", "xml"}, "--format \"xml\""},
        {{good, good, "--json", "--format", "text"}, "--json and --format text disagree"},
        {{good, good, "--bogus"}, "unknown option --bogus"},
    };
    for (const Case& c : cases) {
      Run r = wb(c.args);
      QString what = c.args.join(' ') + " -> " + QString::number(r.code) + ": " + QString::fromUtf8(r.err);
      QVERIFY2(r.code == 2, qPrintable(what));
      QVERIFY2(r.out.isEmpty(), qPrintable(what));
      QVERIFY2(r.err.count('\n') == 1 && r.err.startsWith("anthro-wb lint-schema: "), qPrintable(what));
      QVERIFY2(r.err.contains(c.says.toUtf8()), qPrintable(what + " lacks " + c.says));
    }
  }

  void cliHelp() {
    Run r = wb({"--help"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.startsWith("Usage: anthro-wb lint-schema"));
    QVERIFY(r.out.contains("--json"));
  }

 private:
  QString write(const QString& name, const QByteArray& bytes) {
    QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
  }

  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSchemaLint)
#include "test_schema_lint.moc"
