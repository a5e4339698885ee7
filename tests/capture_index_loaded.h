// A capture file's index, loaded whole: what the index suites read rows and details from.
#pragma once

#include <QFloat16>
#include <QTest>

#include <memory>

#include "capture/capture_index.h"

namespace anthro::test {

inline std::shared_ptr<CaptureIndex> loaded(const std::string& path, const CaptureKeySources& keys) {
  auto index = CaptureIndex::create();
  if (!index) qFatal("%s", index.error().detail.c_str());
  auto ok = (*index)->load(path, keys);
  if (!ok) qFatal("%s", ok.error().detail.c_str());
  return *index;
}

}  // namespace anthro::test
