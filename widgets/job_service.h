// The one place work runs off the UI thread: each job on a Worker of its own, numbered by the
// service. A job reports through its JobContext, whose posts reach the GUI thread through the
// service's Inbox (gui_thread.h) and run only while the job is still the service's: a job that
// was dropped (cancelled, or superseded by a newer run) has its later reports discarded by its
// id, so no owner keeps run counters of its own. `stop` asks a job to end early and still
// delivers what it reports (a load stopped halfway keeps its requests).
#pragma once

#include <QObject>
#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>

#include "gui_thread.h"

namespace anthro::widgets {

class JobService;
class Worker;
using JobId = std::uint64_t;

// What a job holds on its thread: its stop flag and the way back to the GUI thread.
class JobContext {
 public:
  JobContext(const std::atomic<bool>& stop, JobId id, std::shared_ptr<Inbox> inbox, JobService* service)
      : stop(stop), id(id), inbox_(std::move(inbox)), service_(service) {}
  const std::atomic<bool>& stop;
  const JobId id;

  // Runs `f` on the GUI thread, unless the job was dropped (or the service destroyed) by then.
  template <class F>
  void post(F&& f);

 private:
  std::shared_ptr<Inbox> inbox_;
  JobService* service_;
};

class JobService : public QObject {
  Q_OBJECT
 public:
  using Job = std::function<void(JobContext&)>;

  explicit JobService(QObject* parent = nullptr);
  ~JobService() override;  // drops every job; none is joined on this thread

  JobId start(Job job);  // at once, on a thread of its own
  void stop(JobId id);  // asks it to end; what it reports still arrives, then ended(id)
  void drop(JobId id);  // stops it and discards whatever it reports from now on
  void dropAll();
  // A job is live from start until it returned and its reports were delivered, or it was dropped.
  bool live(JobId id) const { return jobs_.count(id) > 0; }
  bool busy() const { return !jobs_.empty(); }
  std::size_t count() const { return jobs_.size(); }
  // Ready when a live job's function has returned (a later job that must come after it waits
  // on it, even once it was dropped); invalid for an id no longer live.
  std::shared_future<void> finished(JobId id) const;
  // Waits (processing events) until no job is live or `timeout_ms` passed; true when none is.
  bool waitAll(int timeout_ms);

 signals:
  void ended(JobId id);  // a job that was not dropped returned; its reports came before this

 private:
  void onReturned(JobId id);

  std::shared_ptr<Inbox> inbox_;
  std::map<JobId, std::unique_ptr<Worker>> jobs_;
  JobId next_ = 0;
};

template <class F>
void JobContext::post(F&& f) {
  inbox_->post([service = service_, id = id, f = std::forward<F>(f)]() mutable {
    if (service->live(id)) f();
  });
}

}  // namespace anthro::widgets
