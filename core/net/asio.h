// Boost.Asio for the few files that run sockets. Include this, not Boost directly.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

namespace anthro::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
template <class T = void>
using awaitable = asio::awaitable<T>;
using asio::use_awaitable;

// A wake-up for one coroutine waiting on a condition it re-checks (single-threaded loop).
class Signal {
 public:
  // The timer never expires: waits end only by notify(), which wakes every waiter, and no
  // waiter re-arms it (that would cancel the others' waits and make them spin).
  explicit Signal(const asio::any_io_executor& ex) : timer_(ex) {
    timer_.expires_at(asio::steady_timer::time_point::max());
  }
  awaitable<void> wait() {
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  void notify() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

// Sleeps for `seconds`; returns false when woken early by `timer.cancel()`.
inline awaitable<bool> sleep_for(asio::steady_timer& timer, double seconds) {
  timer.expires_after(std::chrono::duration_cast<asio::steady_timer::duration>(
      std::chrono::duration<double>(seconds > 0 ? seconds : 0)));
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
  co_return !ec;
}

// Sleeps until `when`; returns false when woken early by `timer.cancel()`.
inline awaitable<bool> sleep_until(asio::steady_timer& timer, asio::steady_timer::time_point when) {
  timer.expires_at(when);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
  co_return !ec;
}

// What an exception says, for one log line.
inline std::string exception_text(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

// The completion handler for co_spawn in place of asio::detached, which swallows exceptions:
// what the coroutine threw goes to `report`.
template <class Report>
auto report_failure(Report report) {
  return [report = std::move(report)](std::exception_ptr e) {
    if (e) report(exception_text(e));
  };
}

// Runs `work` and returns what it threw, if anything, so the caller can still answer its peer
// and close (nothing can be awaited inside a catch handler).
inline awaitable<std::optional<std::string>> failure_of(awaitable<void> work) {
  std::optional<std::string> failure;
  try {
    co_await std::move(work);
  } catch (...) {
    failure = exception_text(std::current_exception());
  }
  co_return failure;
}

}  // namespace anthro::net
