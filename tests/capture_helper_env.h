// The capture helper as a user meets it: CTest points ANTHRO_CAPTURE_HELPER at the build tree's
// anthro-capture; `UnprivilegedHelper` points it for a while at a wrapper that runs that helper
// as nobody when the test runs as root (setpriv), so the helper has no capability, as on a
// machine where its setcap was never done.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QtGlobal>

inline QString built_capture_helper() { return qEnvironmentVariable("ANTHRO_CAPTURE_HELPER"); }

class HelperOverride {
 public:
  explicit HelperOverride(const QString& path) : saved_(qgetenv("ANTHRO_CAPTURE_HELPER")) {
    if (path.isNull()) qunsetenv("ANTHRO_CAPTURE_HELPER");
    else qputenv("ANTHRO_CAPTURE_HELPER", path.toLocal8Bit());
  }
  ~HelperOverride() { qputenv("ANTHRO_CAPTURE_HELPER", saved_); }
  HelperOverride(const HelperOverride&) = delete;
  HelperOverride& operator=(const HelperOverride&) = delete;

 private:
  QByteArray saved_;
};

class UnprivilegedHelper : public HelperOverride {
 public:
  // `dir`: a directory of the test's own for the wrapper script.
  explicit UnprivilegedHelper(const QString& dir) : HelperOverride(write_wrapper(dir)) {}

 private:
  static QString write_wrapper(const QString& dir) {
    const QString helper = built_capture_helper();
    const QString path = dir + "/anthro-capture-unprivileged";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return path;  // the capture then fails naming this path
    f.write("#!/bin/sh\n"
            "if [ \"$(id -u)\" = 0 ]; then\n"
            "  exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all '" +
            helper.toLocal8Bit() + "' \"$@\"\n"
            "fi\n"
            "exec '" + helper.toLocal8Bit() + "' \"$@\"\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
  }
};
