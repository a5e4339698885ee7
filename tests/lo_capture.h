// A capture of one endpoint port on lo for tests that check what went over the wire: listening
// before the first byte is sent, stopped once the last packets are in, keys embedded.
#pragma once

#include <QElapsedTimer>
#include <QFloat16>
#include <QTest>

#include <atomic>
#include <string>
#include <thread>

#include "capture/live_capture.h"

namespace anthro::test {

class LoCapture {
 public:
  // `url`: the endpoint port to capture (its last ":PORT"); the pcapng goes to `output`, and the
  // client writes its keys to `keylog`.
  LoCapture(const std::string& url, const std::string& output, const std::string& keylog) {
    config_.interface = "lo";
    config_.filter = "tcp port " + url.substr(url.rfind(':') + 1);
    config_.output = output;
    config_.keylog_path = keylog;
  }
  LoCapture(const LoCapture&) = delete;
  LoCapture& operator=(const LoCapture&) = delete;
  ~LoCapture() { join(); }

  // Starts it and waits until it listens; false when it ended first (error() says why).
  bool start() {
    thread_ = std::thread([this] {
      stats_ = run_live_capture(config_, stop_, [this] { ready_ = true; });
      ended_ = true;
    });
    QElapsedTimer waited;
    waited.start();
    while (!ready_ && !ended_ && waited.elapsed() < 5000) QTest::qWait(10);
    if (ready_) return true;
    join();
    return false;
  }

  // Waits for the last packets to reach it, then stops it; its statistics or error.
  const Result<LiveCaptureStats>& stop() {
    QTest::qWait(200);
    join();
    return stats_;
  }

  const LiveCaptureConfig& config() const { return config_; }
  std::string error() const { return stats_.ok() ? std::string() : stats_.error().detail; }

 private:
  void join() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  LiveCaptureConfig config_;
  std::atomic<bool> stop_{false}, ready_{false}, ended_{false};
  Result<LiveCaptureStats> stats_ = make_error("capture", "not run");
  std::thread thread_;
};

}  // namespace anthro::test
