#include "worker.h"

#include <QtGlobal>

#include <sys/resource.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>

namespace anthro::widgets {
namespace {

class Reaper {
 public:
  Reaper() : thread_([this] { run(); }) {}
  ~Reaper() {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void add(std::function<void()> finish) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(finish));
    }
    wake_.notify_one();
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> finish;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return quit_ || !queue_.empty(); });
        if (queue_.empty()) return;
        finish = std::move(queue_.front());
        queue_.pop_front();
      }
      finish();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace

void reap(std::function<void()> finish) {
  static Reaper reaper;
  reaper.add(std::move(finish));
}

Worker::Worker(Job job) : stop_(std::make_shared<std::atomic<bool>>(false)) {
  std::promise<void> done;
  finished_ = done.get_future().share();
  thread_ = std::thread([stop = stop_, job = std::move(job), done = std::move(done)]() mutable {
    // A job that throws must not take the process with it (std::terminate), nor leave a later
    // run waiting on finished() forever.
    try {
      job(*stop);
    } catch (const std::exception& e) {
      qWarning("anthro-workbench: a worker thread failed: %s", e.what());
    } catch (...) {
      qWarning("anthro-workbench: a worker thread failed");
    }
    done.set_value();
  });
}

Worker::~Worker() {
  stop();
  reap([thread = std::make_shared<std::thread>(std::move(thread_))] { thread->join(); });
}

void Worker::stop() { *stop_ = true; }

void yield_to_gui_thread() {
#ifdef Q_OS_LINUX
  // PRIO_PROCESS with 0 is the calling thread alone on Linux. Ten steps of nice: the GUI
  // thread's weight is then about ten times a worker's. Failure only leaves it as it was.
  setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 10);
#endif
}

}  // namespace anthro::widgets
