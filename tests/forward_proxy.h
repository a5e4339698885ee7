// A real forward proxy for the client's tests: Debian's squid on two loopback ports, one open
// and one that asks for Basic credentials (user alice), started for the test and stopped with
// it. Its access log is the proxy's own word on what went through it.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli_run.h"

namespace anthro::test {

class ForwardProxy {
 public:
  static constexpr const char* kUser = "alice";
  static constexpr const char* kPassword = "pr0xy-s3cret";

  ForwardProxy() : open_port_(free_port()), auth_port_(free_port()) {
    const QString d = dir_.path();
    QProcess hash;  // an Apache MD5 hash, which squid's basic_ncsa_auth reads
    hash.start("openssl", {"passwd", "-apr1", kPassword});
    hash.waitForFinished(10000);
    write(d + "/passwd", QByteArray(kUser) + ":" + hash.readAllStandardOutput());
    write(d + "/squid.conf", QString(R"(http_port 127.0.0.1:%1 name=open
http_port 127.0.0.1:%2 name=auth
pid_filename %3/squid.pid
cache_log %3/cache.log
access_log stdio:%3/access.log
buffered_logs off
cache deny all
coredump_dir %3
pinger_enable off
shutdown_lifetime 0 seconds
visible_hostname workbench-test
auth_param basic program /usr/lib/squid/basic_ncsa_auth %3/passwd
auth_param basic realm workbench
acl open_port myportname open
acl authed proxy_auth REQUIRED
http_access allow localhost open_port
http_access allow localhost authed
http_access deny all
)").arg(open_port_).arg(auth_port_).arg(d).toUtf8());
    // Run as root, squid drops to its own user, who must read the passwords and write the logs.
    if (::geteuid() == 0)
      if (const passwd* pw = ::getpwnam("proxy")) {
        QFile::setPermissions(d, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther);
        for (const QString& f : {d, d + "/passwd", d + "/squid.conf"})
          if (::chown(f.toLocal8Bit().constData(), pw->pw_uid, pw->pw_gid) != 0) qWarning("chown %s failed", qPrintable(f));
      }
    process_.setProcessChannelMode(QProcess::MergedChannels);
    process_.start("squid", {"-N", "-f", d + "/squid.conf"});
    process_.waitForStarted();
    QElapsedTimer waited;
    waited.start();
    while (!(listening(open_port_) && listening(auth_port_)) && process_.state() == QProcess::Running &&
           waited.elapsed() < 30000)
      QTest::qWait(100);
  }
  ~ForwardProxy() {
    process_.terminate();
    if (!process_.waitForFinished(10000)) process_.kill();
    process_.waitForFinished();
  }

  bool ready() const { return listening(open_port_) && listening(auth_port_); }
  QString why_not() { return QString::fromUtf8(process_.readAll() + read(dir_.path() + "/cache.log").right(2000)); }
  // http://127.0.0.1:PORT, and http://alice@127.0.0.1:PORT for the port that asks.
  QString open_url() const { return QString("http://127.0.0.1:%1").arg(open_port_); }
  QString auth_url(bool with_password = false) const {
    return QString("http://%1%2@127.0.0.1:%3").arg(kUser, with_password ? QString(":") + kPassword : QString()).arg(auth_port_);
  }
  // The access log's lines so far: "... CONNECT 127.0.0.1:7443 alice HIER_DIRECT/..." per request.
  QByteArray access_log() const { return read(dir_.path() + "/access.log"); }

 private:
  static bool listening(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
  }
  static void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qWarning("cannot write %s", qPrintable(path));
  }
  static QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }

  QTemporaryDir dir_;
  int open_port_, auth_port_;
  QProcess process_;
};

}  // namespace anthro::test
