// The client through forward proxies (cli.md "Proxies"): curl's reading of proxy URLs and
// NO_PROXY, the route a target takes, and Debian's squid (tests/forward_proxy.h) between
// anthro-wb and its local endpoint on every protocol, with and without credentials; a hostile
// proxy; captures of the client's side read through the tunnel.
#include <QElapsedTimer>
#include <QFile>
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "capture_generator.h"
#include "cli_run.h"
#include "forward_proxy.h"
#include "head_catcher.h"
#include "lo_capture.h"
#include "net/proxy.h"
#include "test_paths.h"

using namespace anthro;
using namespace anthro::test;
using json = nlohmann::json;

class TestProxies : public QObject {
  Q_OBJECT
 private slots:
  // Proxy URLs as curl and the environment write them; a command line's never holds a password.
  void proxyUrlsAreReadAsCurlReadsThem_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("password_allowed");
    QTest::addColumn<QString>("expected");  // host|port|user|password, or the error's words
    QTest::newRow("plain") << "http://proxy.corp:3128" << false << "proxy.corp|3128||";
    QTest::newRow("no scheme, curl's port") << "proxy.corp" << false << "proxy.corp|1080||";
    QTest::newRow("trailing slash") << "http://10.0.0.1:8080/" << false << "10.0.0.1|8080||";
    QTest::newRow("user") << "http://alice@p:1" << false << "p|1|alice|";
    QTest::newRow("env password, escaped") << "http://al%40ce:p%3Ass@p:8" << true << "p|8|al@ce|p:ss";
    QTest::newRow("ipv6") << "http://[::1]:3128" << false << "::1|3128||";
    QTest::newRow("scheme case") << "HTTP://p:2" << false << "p|2||";
    QTest::newRow("password on the command line") << "http://alice:pw@p:1" << false << "never comes on the command line";
    QTest::newRow("socks") << "socks5://p:1080" << true << "\"socks5://\" proxies are not supported";
    QTest::newRow("https proxy") << "https://p:443" << true << "\"https://\" proxies are not supported";
    QTest::newRow("path") << "http://p:1/x" << true << "no path";
    QTest::newRow("port zero") << "http://p:0" << true << "not a number from 1 to 65535";
    QTest::newRow("port words") << "http://p:http" << true << "not a number";
    QTest::newRow("empty port") << "http://p:" << true << "not a number";
    QTest::newRow("no host") << "http://:8080" << true << "no proxy host";
    QTest::newRow("broken escape") << "http://a%4@p:1" << true << "%-escape";
    QTest::newRow("a password where the port goes") << "http://alice:pw" << true << "not a number from 1 to 65535";
    QTest::newRow("control byte") << "http://p\r\nx:1" << true << "space or control byte";
  }
  void proxyUrlsAreReadAsCurlReadsThem() {
    QFETCH(QString, url);
    QFETCH(bool, password_allowed);
    QFETCH(QString, expected);
    auto proxy = net::parse_proxy_url(url.toStdString(), "HTTPS_PROXY", password_allowed);
    if (!expected.contains('|')) {
      QVERIFY(!proxy);
      const QString detail = QString::fromStdString(proxy.error().detail);
      QVERIFY2(detail.startsWith("HTTPS_PROXY: ") && detail.contains(expected), qPrintable(detail));
      QVERIFY2(!detail.contains("pw"), qPrintable(detail));
      return;
    }
    QVERIFY2(proxy, proxy ? "" : proxy.error().detail.c_str());
    const QString got = QString::fromStdString(proxy->host + "|" + std::to_string(proxy->port) + "|" + proxy->user + "|" + proxy->password);
    QCOMPARE(got, expected);
    QVERIFY(proxy->url().find(proxy->password.empty() ? "\x01" : proxy->password) == std::string::npos);
  }

  void noProxyExemptsAsCurlDoes_data() {
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("exempt");
    QTest::newRow("star") << "*" << "api.anthropic.com" << true;
    QTest::newRow("star among others is a name") << "x.org,*" << "api.anthropic.com" << true;
    QTest::newRow("exact") << "api.anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("subdomain") << "anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("leading dot") << ".anthropic.com" << "api.anthropic.com" << true;
    QTest::newRow("case") << "ANTHROPIC.com" << "Api.Anthropic.COM" << true;
    QTest::newRow("suffix is no subdomain") << "thropic.com" << "api.anthropic.com" << false;
    QTest::newRow("parent is not exempt") << "api.anthropic.com" << "anthropic.com" << false;
    QTest::newRow("spaces and commas") << " x.org , ,anthropic.com " << "api.anthropic.com" << true;
    QTest::newRow("ip") << "127.0.0.1" << "127.0.0.1" << true;
    QTest::newRow("other ip") << "127.0.0.1" << "127.0.0.2" << false;
    QTest::newRow("cidr") << "10.0.0.0/8" << "10.200.3.4" << true;
    QTest::newRow("cidr outside") << "10.0.0.0/8" << "11.0.0.1" << false;
    QTest::newRow("ipv6 cidr") << "fd00::/8" << "fd12::1" << true;
    QTest::newRow("ipv6 bracketed") << "[::1]" << "::1" << true;
    QTest::newRow("name does not match an ip") << "localhost" << "127.0.0.1" << false;
    QTest::newRow("empty list") << "" << "127.0.0.1" << false;
  }
  void noProxyExemptsAsCurlDoes() {
    QFETCH(QString, list);
    QFETCH(QString, host);
    QFETCH(bool, exempt);
    QCOMPARE(net::no_proxy_exempts(list.toStdString(), host.toStdString()), exempt);
  }

  // TLS targets take HTTPS_PROXY, the others HTTP_PROXY (lower case first, then ALL_PROXY);
  // http:// targets are forwarded, the rest tunnelled; NO_PROXY and --no-proxy win.
  void proxyRoutesFollowTheEnvironment() {
    using net::ProxySetting;
    using net::ProxyWay;
    const ProxySetting environment{}, off{ProxySetting::Source::Off, {}};
    auto route = [](const ProxySetting& s, bool tls, bool http) -> QString {
      auto r = net::proxy_route(s, "api.example.com", tls, http);
      if (!r) return "error: " + QString::fromStdString(r.error().detail);
      if (!*r) return "direct";
      return QString::fromStdString((*r)->server.url()) + ((*r)->way == ProxyWay::Tunnel ? " tunnel" : " forward");
    };
    QCOMPARE(route(environment, true, true), QString("direct"));
    ScopedVariable https("HTTPS_PROXY", "http://tls-proxy:1");
    ScopedVariable http("HTTP_PROXY", "http://plain-proxy:2");
    QCOMPARE(route(environment, true, true), QString("http://tls-proxy:1 tunnel"));    // https://
    QCOMPARE(route(environment, true, false), QString("http://tls-proxy:1 tunnel"));   // anthro://, lz://
    QCOMPARE(route(environment, false, false), QString("http://plain-proxy:2 tunnel")); // anthro+lab://, lz+lab://
    QCOMPARE(route(environment, false, true), QString("http://plain-proxy:2 forward")); // http://
    QCOMPARE(route(off, true, true), QString("direct"));
    {
      ScopedVariable lower("https_proxy", "http://u:secret@lower:3");
      QCOMPARE(route(environment, true, true), QString("http://u@lower:3 tunnel"));
    }
    {
      ScopedVariable exempt("NO_PROXY", "example.com");
      QCOMPARE(route(environment, true, true), QString("direct"));
      ProxySetting given{ProxySetting::Source::Given, {"given", 4, "", ""}};
      QCOMPARE(route(given, true, true), QString("direct"));
    }
    ProxySetting given{ProxySetting::Source::Given, {"given", 4, "", ""}};
    QCOMPARE(route(given, false, true), QString("http://given:4 forward"));
    ScopedVariable broken("HTTPS_PROXY", "socks5://x:1");
    QVERIFY2(route(environment, true, true).startsWith("error: HTTPS_PROXY: "), qPrintable(route(environment, true, true)));
    qunsetenv("HTTPS_PROXY");
    qunsetenv("HTTP_PROXY");
    ScopedVariable all("ALL_PROXY", "http://all:5");
    QCOMPARE(route(environment, true, true), QString("http://all:5 tunnel"));
  }

  // Every protocol through Debian's squid, to the local endpoint: from the environment to the
  // open port, with --proxy and a password to the one that asks. squid's access log says each
  // went through it (CONNECT host:port, or the absolute-form POST), and by whom.
  void everyProtocolGoesThroughARealProxy() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {"--lz-listen", "127.0.0.1:0"});
    QVERIFY(endpoint.ready());
    const QString http = endpoint.url("http"), https = endpoint.url("https");
    const QList<QPair<QString, bool>> targets = {  // the target, and whether it is tunnelled
        {endpoint.url("anthro"), true}, {endpoint.url("anthro+lab"), true}, {https + "/v1/messages", true},
        {http + "/v1/chat/completions", false}, {endpoint.url("lz"), true}, {endpoint.url("lz+lab"), true}};
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    for (bool with_credentials : {false, true})
      for (const auto& [target, tunnelled] : targets) {
        const bool tls = target.startsWith("anthro://") || target.startsWith("https://") || target.startsWith("lz://");
        QStringList args = {"session", "--target", target, "--prompt", "hi", "--format", "json", "--timeout-s", "30"};
        std::optional<ScopedVariable> from_environment;
        if (with_credentials) args << "--proxy" << proxy.auth_url() << "--proxy-password-env" << "WB_PROXY_PASSWORD";
        else from_environment.emplace(tls ? "HTTPS_PROXY" : "HTTP_PROXY", proxy.open_url().toUtf8());
        Run r = run(args, dir.path(), 90000);
        const QByteArray where = (target + (with_credentials ? " with credentials: " : ": ")).toUtf8() + r.err;
        QVERIFY2(r.code == 0, where.constData());
        QVERIFY2(!r.out.contains(ForwardProxy::kPassword) && !r.err.contains(ForwardProxy::kPassword), where.constData());
        json doc = json::parse(r.out.constData());
        QCOMPARE(QString::fromStdString(doc["proxy"].get<std::string>()), with_credentials ? proxy.auth_url() : proxy.open_url());
        QCOMPARE(doc["requests"].size(), std::size_t(1));
        QVERIFY2(doc["requests"][0]["tokens"].get<int>() > 0, where.constData());
        QVERIFY2(doc["requests"][0]["error"].is_null(), doc.dump().c_str());
        if (!target.startsWith("lz")) {  // (Layer Zero's own client reports no connection figures)
          QVERIFY2(doc["connect_ms"].is_number(), doc.dump().c_str());
          QCOMPARE(doc["proxy_connect_ms"].is_number(), tunnelled);
        }
        const QString port = target.section(':', 2).section('/', 0, 0);
        const QString seen = tunnelled ? "CONNECT 127.0.0.1:" + port : "POST " + target;
        QElapsedTimer waited;
        waited.start();
        auto logged = [&] {
          for (const QByteArray& line : proxy.access_log().split('\n'))
            if (line.contains(seen.toUtf8()) && line.contains(with_credentials ? " alice " : " - ")) return true;
          return false;
        };
        while (!logged() && waited.elapsed() < 5000) QTest::qWait(50);
        QVERIFY2(logged(), qPrintable(seen + " not in squid's log:\n" + proxy.access_log()));
      }
  }

  // The proxy's refusal is the run's failure: exit 3 and one line with the proxy's status line,
  // whether it refuses a tunnel or a forwarded request; a proxy that is not there says so.
  void aProxysRefusalIsExitThreeWithItsStatusLine() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {"--lz-listen", "127.0.0.1:0"});
    QVERIFY(endpoint.ready());
    ScopedVariable wrong("WB_PROXY_PASSWORD", "not-the-password");
    for (const QString& target : {endpoint.url("anthro"), endpoint.url("http") + "/v1/messages", endpoint.url("lz+lab")})
      for (bool with_password : {true, false}) {
        QStringList args = {"session", "--target", target, "--prompt", "hi", "--proxy", proxy.auth_url()};
        if (with_password) args << "--proxy-password-env" << "WB_PROXY_PASSWORD";
        Run r = run(args, dir.path(), 60000);
        const QByteArray where = target.toUtf8() + ": " + r.err + r.out;
        QVERIFY2(r.code == 3, where.constData());
        const auto lines = r.err.trimmed().split('\n');
        QVERIFY2(std::count_if(lines.begin(), lines.end(), [](const QByteArray& l) {
                   return l.contains("407 Proxy Authentication Required") && l.contains("proxy http://alice@127.0.0.1:");
                 }) >= 1, where.constData());
        QVERIFY2(!r.err.contains("not-the-password") && !r.out.contains("not-the-password"), where.constData());
      }
    Run absent = run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--proxy",
                      QString("http://127.0.0.1:%1").arg(free_port())}, dir.path(), 60000);
    QCOMPARE(absent.code, 3);
    QVERIFY2(absent.err.contains("cannot connect to proxy http://127.0.0.1:"), absent.err.constData());
    const QList<QPair<QStringList, QString>> usage = {
        {{"--proxy", "http://alice:pw@127.0.0.1:1"}, "--proxy-password-env"},
        {{"--proxy", "socks5://127.0.0.1:1"}, "not supported"},
        {{"--no-proxy", "--proxy", "http://127.0.0.1:1"}, "--no-proxy: not with --proxy"},
        {{"--proxy-password-env", "WB_PROXY_PASSWORD"}, "needs --proxy"},
        {{"--proxy", "http://127.0.0.1:1", "--proxy-password-env", "WB_PROXY_PASSWORD"}, "names no USER@"},
        {{"--proxy", "http://a@127.0.0.1:1", "--proxy-password-env", "WB_UNSET_VARIABLE"}, "WB_UNSET_VARIABLE: that variable is not set"}};
    for (const auto& [extra, words] : usage) {
      Run r = run(QStringList{"session", "--target", endpoint.url("anthro"), "--prompt", "hi"} + extra, dir.path());
      QVERIFY2(r.code == 2 && r.err.contains(words.toUtf8()) && !r.err.contains(":pw@"), (extra.join(' ') + ": " + r.err).toUtf8().constData());
    }
    ScopedVariable broken("HTTPS_PROXY", "socks5://127.0.0.1:1");
    Run r = run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi"}, dir.path());
    QVERIFY2(r.code == 2 && r.err.contains("HTTPS_PROXY: \"socks5://\" proxies are not supported"), r.err.constData());
    QCOMPARE(run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--no-proxy"}, dir.path()).code, 0);
  }

  // A proxy is a peer like any other: what it answers is read bounded, and each way it can fail
  // ends the run with exit 3 and one line saying how, its bytes made printable.
  void aHostileProxyIsToldApart_data() {
    QTest::addColumn<QByteArray>("answer");  // empty: a proxy that never answers
    QTest::addColumn<QString>("words");
    QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n\r\n") << "not an HTTP answer: SSH-2.0-OpenSSH_9.2";
    QTest::newRow("a head without end") << QByteArray("HTTP/1.1 200 OK\r\nx: ") + QByteArray(20000, 'a') + "\r\n\r\n"
                                        << "an answer head over 16 KiB";
    QTest::newRow("closed mid-answer") << QByteArray("HTTP/1.1 200 Conn") << "closed mid-answer";
    QTest::newRow("control bytes") << QByteArray("HTTP/1.1 403 \x1b[31mno\r\n\r\n") << "refused: HTTP/1.1 403 ?[31mno";
    QTest::newRow("a tunnel to nothing") << QByteArray("HTTP/1.1 200 Connection established\r\n\r\n") << "TLS handshake with";
    QTest::newRow("silent") << QByteArray() << "no answer within 1 s (--timeout-s)";
  }
  void aHostileProxyIsToldApart() {
    QFETCH(QByteArray, answer);
    QFETCH(QString, words);
    QTemporaryDir dir;
    std::optional<HeadCatcher> talking;
    std::optional<LoopbackListener> silent;  // the kernel accepts for it; nothing is ever read or sent
    if (answer.isEmpty()) silent.emplace();
    else talking.emplace(answer.toStdString());
    const int port = silent ? silent->port() : talking->port();
    Run r = run({"session", "--target", "anthro://127.0.0.1:9", "--prompt", "hi", "--timeout-s", "1", "--proxy",
                 QString("http://127.0.0.1:%1").arg(port)}, dir.path(), 60000);
    QVERIFY2(r.code == 3, r.err.constData());
    QVERIFY2(r.err.contains(words.toUtf8()) && r.err.contains(QString("proxy http://127.0.0.1:%1").arg(port).toUtf8()),
             r.err.constData());
    QVERIFY2(!r.err.contains('\x1b'), r.err.constData());
    if (talking) QVERIFY2(talking->head().rfind("CONNECT 127.0.0.1:9 HTTP/1.1\r\n", 0) == 0, talking->head().c_str());
  }

  // analyze reads a capture's CONNECT tunnels however the bytes fall: a request sent in the
  // CONNECT's own segment waits for the tunnel, a refusal keeps the proxy's line, and a CONNECT
  // head or early bytes past their bounds stop the reading with a reason instead of growing.
  void aCapturesTunnelsAreReadBounded() {
    QTemporaryDir dir;
    const std::string body = R"({"model":"m","max_tokens":8,"stream":false,"messages":[{"role":"user","content":"hi"}]})";
    const std::string request = "POST /v1/messages HTTP/1.1\r\nhost: h\r\ncontent-type: application/json\r\ncontent-length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    const std::string reply_body = R"({"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"yo"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}})";
    const std::string reply = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " +
                              std::to_string(reply_body.size()) + "\r\n\r\n" + reply_body;
    auto analyzed = [&](const std::vector<std::pair<bool, std::string>>& pieces) {
      const QString path = dir.filePath("tunnel.pcap");
      write_capture(path.toStdString(), exchange(pieces));
      Run r = run({"analyze", path, "--format", "json"}, dir.path());
      return r.code == 0 ? json::parse(r.out.constData())["connections"][0] : json{{"error", r.err.toStdString()}};
    };
    json c = analyzed({{true, "CONNECT h:80 HTTP/1.1\r\nHost: h:80\r\n\r\n" + request},
                       {false, "HTTP/1.1 200 Connection established\r\n\r\n"}, {false, reply}});
    QVERIFY2(c["tunnel"] == "h:80" && c["transport"] == "http" && c["http_requests"] == 1, c.dump().c_str());
    QVERIFY2(c["streams"].size() == 1 && c["streams"][0]["end"] == "response", c.dump().c_str());
    c = analyzed({{true, "CONNECT h:443 HTTP/1.1\r\n\r\n"},
                  {false, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"}});
    QVERIFY2(c["tunnel_status"] == "HTTP/1.1 407 Proxy Authentication Required" && c["streams"].empty(), c.dump().c_str());
    c = analyzed({{true, "CONNECT h:443 HTTP/1.1\r\nx: " + std::string(17000, 'a')}, {true, "\r\n\r\n"}});
    QVERIFY2(c["http_error"] == "a CONNECT with a head over 16 KiB" && c["tunnel"].is_null(), c.dump().c_str());
    std::vector<std::pair<bool, std::string>> early = {{true, "CONNECT h:443 HTTP/1.1\r\n\r\n"}};
    for (int i = 0; i < 40; ++i) early.push_back({true, std::string(8000, 'x')});  // and no answer yet
    c = analyzed(early);
    QVERIFY2(c["http_error"] == "the client sent over 256 KiB before the tunnel opened", c.dump().c_str());
  }

  // bench's connections and diagnose's live workload take the proxy as a session does.
  void benchAndDiagnoseGoThroughTheProxy() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {"--lz-listen", "127.0.0.1:0"});
    QVERIFY(endpoint.ready());
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    const QStringList through = {"--proxy", proxy.auth_url(), "--proxy-password-env", "WB_PROXY_PASSWORD"};
    // Whether squid logged at least `n` of `target`'s CONNECTs (or forwarded POSTs) since `before`.
    // It logs a tunnel when the tunnel closes, which may be after the client has exited.
    auto logged = [&](const QByteArray& before, const QString& target, qsizetype n) {
      const QByteArray seen = target.startsWith("http://") ? ("POST " + target).toUtf8()
                                                           : ("CONNECT 127.0.0.1:" + target.section(':', 2).section('/', 0, 0)).toUtf8();
      QElapsedTimer waited;
      waited.start();
      while (proxy.access_log().mid(before.size()).count(seen) < n && waited.elapsed() < 10000) QTest::qWait(50);
      return proxy.access_log().mid(before.size()).count(seen) >= n;
    };
    // bench on each protocol it speaks, with the password and through the open port in turn.
    const QStringList targets = {endpoint.url("anthro"), endpoint.url("anthro+lab"), endpoint.url("https") + "/v1/messages",
                                 endpoint.url("http") + "/v1/chat/completions"};
    for (int i = 0; i < targets.size(); ++i) {
      const bool with_credentials = i % 2 == 0;
      const QByteArray before = proxy.access_log();
      Run bench = run(QStringList{"bench", "--target", targets[i], "--requests", "6", "--concurrency", "2", "--format", "json"} +
                          (with_credentials ? through : QStringList{"--proxy", proxy.open_url()}),
                      dir.path());
      QVERIFY2(bench.code == 0, (targets[i] + ": " + bench.err).toUtf8().constData());
      const json benched = json::parse(bench.out.constData());
      QCOMPARE(benched["requests"].get<int>(), 6);
      QCOMPARE(QString::fromStdString(benched["proxy"].get<std::string>()), with_credentials ? proxy.auth_url() : proxy.open_url());
      QVERIFY2(logged(before, targets[i], targets[i].startsWith("http://") ? 6 : 2), proxy.access_log().constData());
    }
    // diagnose's live workload: the environment's proxy with its password, and --proxy for a
    // Layer Zero target (its own checklist).
    {
      ScopedVariable https_proxy("HTTPS_PROXY", proxy.auth_url(true).toUtf8());
      const QByteArray before = proxy.access_log();
      const QString target = endpoint.url("https") + "/v1/messages";
      Run diagnose = run({"diagnose", "--target", target, "--requests", "20", "--quiet", "--format", "json"}, dir.path());
      QVERIFY2(diagnose.code == 0 || diagnose.code == 1, diagnose.err.constData());
      QVERIFY(!diagnose.out.contains(ForwardProxy::kPassword) && !diagnose.err.contains(ForwardProxy::kPassword));
      const json diagnosis = json::parse(diagnose.out.constData());
      QVERIFY2(diagnosis["checklist"].size() > 0 && diagnosis["summary"]["requests"].get<int>() > 0, diagnose.out.left(600).constData());
      QVERIFY2(logged(before, target, 1), proxy.access_log().constData());
    }
    const QByteArray before = proxy.access_log();
    Run lz = run(QStringList{"diagnose", "--checklist", "layer-zero", "--target", endpoint.url("lz+lab"), "--requests", "4", "--quiet",
                             "--format", "json"} + through,
                 dir.path());
    QVERIFY2(lz.code == 0 || lz.code == 1, lz.err.constData());
    QCOMPARE(QString::fromStdString(json::parse(lz.out.constData())["checklist_id"].get<std::string>()), QString("layer-zero"));
    QVERIFY2(logged(before, endpoint.url("lz+lab"), 1), proxy.access_log().constData());
  }

  // A capture of the client's side of the proxy holds CONNECT, the proxy's answer, then the
  // tunnel: analysis reads the tunnel as the connection it is, and decrypts it with the keys.
  void aCaptureThroughTheProxyDecodes() {
    QTemporaryDir dir;
    ForwardProxy proxy;
    QVERIFY2(proxy.ready(), qPrintable(proxy.why_not()));
    EndpointProcess endpoint(dir.path(), {});
    QVERIFY(endpoint.ready());
    const QString pcap = dir.path() + "/proxied.pcapng", keylog = dir.path() + "/keys.log";
    LoCapture capture(proxy.auth_url().toStdString(), pcap.toStdString(), keylog.toStdString());
    QVERIFY2(capture.start(), capture.error().c_str());
    ScopedVariable password("WB_PROXY_PASSWORD", ForwardProxy::kPassword);
    ScopedVariable keys("SSLKEYLOGFILE", keylog.toUtf8());
    for (const QString& target : {endpoint.url("anthro"), endpoint.url("https") + "/v1/messages"}) {
      Run r = run({"session", "--target", target, "--prompt", "hi", "--proxy", proxy.auth_url(), "--proxy-password-env",
                   "WB_PROXY_PASSWORD"}, dir.path());
      QVERIFY2(r.code == 0, r.err.constData());
    }
    ScopedVariable wrong("WB_PROXY_PASSWORD", "not-the-password");
    QCOMPARE(run({"session", "--target", endpoint.url("anthro"), "--prompt", "hi", "--proxy", proxy.auth_url(),
                  "--proxy-password-env", "WB_PROXY_PASSWORD"}, dir.path()).code, 3);
    QVERIFY2(capture.stop().ok(), capture.error().c_str());
    Run analyzed = run({"analyze", pcap, "--format", "json"}, dir.path());
    QVERIFY2(analyzed.code == 0, analyzed.err.constData());
    const std::string tunnel = endpoint.url("anthro").section("://", 1).toStdString();
    std::map<std::string, int> seen;  // ALPN (or the refusal) -> connections
    const json analysis = json::parse(analyzed.out.constData());
    for (const auto& c : analysis["connections"]) {
      QVERIFY2(c["tunnel"] == tunnel, c.dump().c_str());
      if (c["tunnel_status"] != "HTTP/1.1 200 Connection established") {
        QVERIFY2(c["tunnel_status"].get<std::string>().find(" 407 ") != std::string::npos, c.dump().c_str());
        ++seen["refused"];
        continue;
      }
      QVERIFY2(c["transport"] == "tls" && c["decryption"] == "ok" && c["tunnel_ms"].is_number(), c.dump().c_str());
      QVERIFY2(c["streams"].size() == 1 && c["streams"][0]["tokens"] == 40 && c["streams"][0]["error"].is_null(), c.dump().c_str());
      ++seen[c["alpn"].get<std::string>()];
    }
    std::string counted;
    for (const auto& [what, n] : seen) counted += what + "=" + std::to_string(n) + " ";
    QVERIFY2((seen == std::map<std::string, int>{{"anthro-v1", 1}, {"http/1.1", 1}, {"refused", 1}}), counted.c_str());
    Run decoded = run({"decode", pcap, "--format", "jsonl"}, dir.path());
    QVERIFY2(decoded.code == 0 && decoded.out.contains("\"RESPONSE\""), decoded.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestProxies)
#include "test_proxies.moc"
