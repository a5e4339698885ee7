// The one way results cross back to the GUI thread: a queued call on the object that receives
// them, so it runs on that object's thread and never after the object is destroyed (Qt drops
// the pending call with it).
#pragma once

#include <QMetaObject>
#include <QObject>
#include <mutex>
#include <utility>

namespace anthro::widgets {

// Runs `f` on `receiver`'s thread, queued. `receiver` must be alive when this is called:
// threads that may outlive it post through an Inbox.
template <class F>
void post_to(QObject* receiver, F&& f) {
  QMetaObject::invokeMethod(receiver, std::forward<F>(f), Qt::QueuedConnection);
}

// A receiver's address for worker threads that may outlive it. The receiver closes it first
// thing in its destructor; posts after that are dropped, posts before it die with the receiver.
class Inbox {
 public:
  explicit Inbox(QObject* receiver) : receiver_(receiver) {}

  template <class F>
  void post(F&& f) {
    std::lock_guard lock(mutex_);
    if (receiver_) post_to(receiver_, std::forward<F>(f));
  }
  void close() {
    std::lock_guard lock(mutex_);
    receiver_ = nullptr;
  }

 private:
  std::mutex mutex_;
  QObject* receiver_;
};

}  // namespace anthro::widgets
