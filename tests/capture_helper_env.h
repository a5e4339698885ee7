// The capture helper as a user meets it: CTest points ANTHRO_CAPTURE_HELPER at the build tree's
// anthro-capture; `UnprivilegedHelper` points it for a while at a copy without capabilities
// (a copy loses a setcap), run as nobody when the test runs as root (setpriv), as on a machine
// where the .deb's setcap never ran.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
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

class UnprivilegedHelper {
 public:
  UnprivilegedHelper() : override_(prepare()) {}
  // The copy that runs: the path its setcap message names.
  QString helper() const { return dir_.filePath("anthro-capture"); }

 private:
  QString prepare() {
    // nobody must reach the copy: the directory is world-readable, unlike QTemporaryDir's default.
    QFile::setPermissions(dir_.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther |
                                           QFile::ExeOther | QFile::ReadGroup | QFile::ExeGroup);
    QFile::copy(built_capture_helper(), helper());
    const QString wrapper = dir_.filePath("run-as-nobody");
    QFile f(wrapper);
    if (!f.open(QIODevice::WriteOnly)) return wrapper;  // the capture then fails naming this path
    const QByteArray copy = helper().toLocal8Bit();
    f.write("#!/bin/sh\n"
            "if [ \"$(id -u)\" = 0 ]; then\n"
            "  exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all '" + copy + "' \"$@\"\n"
            "fi\n"
            "exec '" + copy + "' \"$@\"\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return wrapper;
  }

  QTemporaryDir dir_;
  HelperOverride override_;
};
