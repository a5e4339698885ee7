#include "job_service.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>

#include "worker.h"

namespace anthro::widgets {

JobService::JobService(QObject* parent) : QObject(parent), inbox_(std::make_shared<Inbox>(this)) {}

JobService::~JobService() {
  inbox_->close();
  dropAll();  // each Worker asks its job to stop; the reaper joins them
}

JobId JobService::start(Job job) {
  const JobId id = ++next_;
  jobs_[id] = std::make_unique<Worker>([this, id, inbox = inbox_, job = std::move(job)](const std::atomic<bool>& stop) {
    // Posted last, whether the job returns or throws: its reports all come before it.
    struct Returned {
      JobService* service;
      JobId id;
      std::shared_ptr<Inbox> inbox;
      ~Returned() {
        inbox->post([service = service, id = id] { service->onReturned(id); });
      }
    } returned{this, id, inbox};
    JobContext context(stop, id, inbox, this);
    job(context);
  });
  return id;
}

void JobService::stop(JobId id) {
  if (auto it = jobs_.find(id); it != jobs_.end()) it->second->stop();
}

void JobService::drop(JobId id) { jobs_.erase(id); }

void JobService::dropAll() { jobs_.clear(); }

std::shared_future<void> JobService::finished(JobId id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? std::shared_future<void>() : it->second->finished();
}

bool JobService::waitAll(int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  while (busy() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (busy()) QThread::msleep(5);
  }
  return !busy();
}

void JobService::onReturned(JobId id) {
  if (jobs_.erase(id) == 0) return;  // dropped meanwhile
  emit ended(id);
}

}  // namespace anthro::widgets
