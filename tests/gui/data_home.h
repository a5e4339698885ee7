// The embedded endpoint keeps its generated credentials under XDG_DATA_HOME: a GUI suite points
// it at a folder of its own, so no test writes into the tester's home.
#pragma once

#include <QString>
#include <QTemporaryDir>

namespace anthro::test {

struct PrivateDataHome {
  QTemporaryDir dir;
  bool set() { return dir.isValid() && qputenv("XDG_DATA_HOME", dir.path().toUtf8()); }
  QString filePath(const QString& name) const { return dir.filePath(name); }
};

}  // namespace anthro::test
