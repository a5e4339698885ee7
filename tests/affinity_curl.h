// Session affinity's headers driven through curl, as a client meets them: a reply's head and
// its raw body (chunk framing kept) read back from curl's own files, for tests that check what
// was really sent and received.
#pragma once

#include <QFloat16>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vectors.h"

namespace anthro::test {

struct CurlReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;                            // as sent: chunked bodies keep their framing (--raw)
};

// curl with `args`, its TLS keys written to `keylog` when given; its standard output. A failed
// run ends the test.
inline QString run_curl(const QStringList& args, const QString& keylog = {}) {
  QProcess p;
  if (!keylog.isEmpty()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SSLKEYLOGFILE", keylog);
    p.setProcessEnvironment(env);
  }
  p.start("curl", args);
  if (!p.waitForFinished(60000) || p.exitCode() != 0) qFatal("curl failed: %s", p.readAllStandardError().constData());
  return QString::fromUtf8(p.readAllStandardOutput());
}

// A request through curl with exactly these header fields (an empty body: a GET), its head and
// raw body read back from curl's own files. `extra`: more curl arguments (e.g. -k and --http1.1
// for TLS); `keylog`: where curl writes its TLS keys.
inline CurlReply curl_request(const std::string& url, const std::string& body, const std::vector<std::string>& headers,
                              const QStringList& extra = {}, const QString& keylog = {}) {
  QTemporaryDir dir;
  QStringList args = extra;
  args << QStringList{"-sS", "--raw", "-D", dir.filePath("head"), "-o", dir.filePath("body")};
  if (!body.empty()) args << "--data-binary" << QString::fromStdString(body);
  for (const auto& h : headers) args << "-H" << QString::fromStdString(h);
  args << QString::fromStdString(url);
  run_curl(args, keylog);
  CurlReply r;
  r.body = read_file(dir.filePath("body").toStdString());
  for (const auto& line : QString::fromStdString(read_file(dir.filePath("head").toStdString())).split("\r\n")) {
    if (line.startsWith("HTTP/")) r.status = line.section(' ', 1, 1).toInt();
    int colon = line.indexOf(':');
    if (colon > 0) r.headers[line.left(colon).toLower().toStdString()] = line.mid(colon + 1).trimmed().toStdString();
  }
  return r;
}

// A Messages API POST (anthropic-version, JSON) with these header fields besides.
inline CurlReply post(const std::string& url, const std::string& body, const std::vector<std::string>& headers,
                      const QStringList& extra = {}, const QString& keylog = {}) {
  std::vector<std::string> all{"anthropic-version: 2023-06-01", "content-type: application/json"};
  all.insert(all.end(), headers.begin(), headers.end());
  return curl_request(url, body, all, extra, keylog);
}

struct Chunks {
  std::vector<std::string> data;
  std::vector<std::uint64_t> counts;  // each chunk's x-anthropic-token-count
  std::map<std::string, std::string> trailers;
};

// A chunked body read by hand, so the extensions and trailers are the bytes the server sent.
inline Chunks chunks_of(const std::string& raw) {
  Chunks out;
  std::size_t at = 0;
  for (;;) {
    std::size_t eol = raw.find("\r\n", at);
    if (eol == std::string::npos) qFatal("chunk size line not ended at byte %zu", at);
    std::string line = raw.substr(at, eol - at);
    std::size_t size = std::stoul(line, nullptr, 16);
    auto ext = line.find(";x-anthropic-token-count=");
    at = eol + 2;
    if (size == 0) break;
    out.counts.push_back(ext == std::string::npos ? UINT64_MAX : std::stoull(line.substr(ext + 25)));
    out.data.push_back(raw.substr(at, size));
    at += size + 2;
  }
  for (std::size_t eol; (eol = raw.find("\r\n", at)) != std::string::npos && eol > at; at = eol + 2) {
    std::string line = raw.substr(at, eol - at);
    out.trailers[line.substr(0, line.find(':'))] = line.substr(line.find(':') + 2);
  }
  return out;
}

// The streamed reply's text, from its text_delta events.
inline std::string streamed_text(const Chunks& c) {
  std::string text;
  for (const auto& d : c.data) {
    auto at = d.find("data: ");
    if (at == std::string::npos) continue;
    auto event = nlohmann::json::parse(d.substr(at + 6, d.find('\n', at) - at - 6));
    if (event["type"] == "content_block_delta") text += event["delta"]["text"].get<std::string>();
  }
  return text;
}

inline std::string request_body(const nlohmann::ordered_json& messages, bool stream) {
  nlohmann::ordered_json body = {{"model", "m"}, {"max_tokens", 4}, {"stream", stream}, {"messages", messages}};
  return body.dump();
}

}  // namespace anthro::test
