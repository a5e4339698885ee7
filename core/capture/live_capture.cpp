// Live captures through `anthro-capture` (helper_process.h): this process never opens an
// interface itself, so it needs no privilege; the helper has the capabilities.
#include "capture/live_capture.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include "capture/capture_file.h"
#include "capture/capture_helper.h"
#include "capture/helper_process.h"
#include "crypto/keylog.h"
#include "util/files.h"

namespace anthro {
namespace {

namespace ch = capture_helper;

// What the helper said besides its protocol lines: the reason it failed.
struct HelperMessages {
  std::vector<std::string> lines;
  void add(std::string_view line) {
    if (lines.size() < 20) lines.emplace_back(line.substr(0, 1024));
  }
  std::string text() const {
    std::string all;
    for (const auto& l : lines) all += (all.empty() ? "" : "; ") + l;
    return all;
  }
};

Error helper_failed(const std::string& helper, int code, const HelperMessages& said) {
  std::string why = said.text();
  if (why.empty()) why = helper + (code < 0 ? " was ended by signal " + std::to_string(-code)
                                            : " exited with status " + std::to_string(code));
  if (code == ch::kExitUsage) return make_error(ErrorClass::Usage, "capture", why);
  if (code == ch::kExitPermission) return make_error(ErrorClass::Network, "permission", why);
  return make_error(ErrorClass::Network, "capture", why);
}

// The raw stream of the helper, kept until the capture ends and the keys can go ahead of it.
class RawFile {
 public:
  explicit RawFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) error_ = path_ + ": cannot create: " + std::strerror(errno);
  }
  ~RawFile() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  void write(ByteView b) {
    while (!b.empty() && error_.empty()) {
      ssize_t n = ::write(fd_, b.data(), b.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = path_ + ": cannot write: " + std::strerror(errno);
      else b = b.subspan(static_cast<std::size_t>(n));
    }
  }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_, error_;
  int fd_ = -1;
};

// Copies the helper's packets from `raw` into `to`, the key log's DSB first (so the keys come
// before the packets they open) and the interface statistics last. Counts what it copies.
Result<LiveCaptureStats> write_with_secrets(const std::string& raw, const std::string& to, const std::string& secrets) {
  auto reader = CaptureReader::open(raw);
  if (!reader) return reader.error();
  auto writer = PcapngWriter::create(to);
  if (!writer) return writer.error();
  LiveCaptureStats stats;
  std::optional<RawPacket> p = (*reader)->next();
  const auto& interfaces = (*reader)->interfaces();
  if (interfaces.size() != 1)
    return make_error(ErrorClass::Network, "capture", raw + ": the capture helper described " +
                                                          std::to_string(interfaces.size()) + " interfaces, not one");
  (*writer)->add_interface(interfaces[0].link_type, interfaces[0].snaplen, interfaces[0].name);
  if (!secrets.empty()) (*writer)->add_secrets(secrets);
  std::int64_t last_ns = 0;
  for (; p; p = (*reader)->next()) {
    (*writer)->write_packet_ns(0, p->ts_ns, p->data, p->original_length);
    ++stats.packets;
    stats.bytes += p->original_length;
    last_ns = p->ts_ns;
  }
  if (auto e = (*reader)->error())
    return make_error(ErrorClass::Network, "capture", "the capture helper's stream: " + e->detail);
  if (auto s = (*reader)->statistics(0)) {
    stats.kernel_drops = s->os_drops;
    stats.interface_drops = s->interface_drops;
    (*writer)->add_statistics(0, last_ns, *s);
  }
  if (auto ok = (*writer)->close(); !ok) return ok.error();
  stats.secrets_embedded = !secrets.empty();
  return stats;
}

}  // namespace

Result<LiveCaptureStats> run_live_capture(const LiveCaptureConfig& c, const std::atomic<bool>& stop,
                                          const std::function<void()>& on_ready,
                                          const std::function<void(const LiveCaptureStats&)>& on_progress) {
  auto helper_path = find_capture_helper();
  if (!helper_path) return helper_path.error();
  RawFile raw(c.output + ".capturing");
  if (!raw.error().empty()) return make_error(ErrorClass::Input, "io", raw.error());
  std::optional<OwnKeyLog::Watch> own;  // from before the interface opens: no connection it sees is missed
  if (c.own_keys) own.emplace();
  auto helper = HelperProcess::start(*helper_path, ch::capture_arguments(c));
  if (!helper) return helper.error();

  bool ready = false, stopping = false;
  HelperMessages said;
  auto on_line = [&](std::string_view line) {
    auto parsed = ch::parse_line(line);
    if (parsed.kind == ch::Line::Kind::Ready && !ready) {
      ready = true;
      if (on_ready) on_ready();
    } else if (parsed.kind == ch::Line::Kind::Progress && on_progress) {
      LiveCaptureStats progress;
      progress.packets = parsed.packets;
      progress.bytes = parsed.bytes;
      on_progress(progress);
    } else if (parsed.kind == ch::Line::Kind::Message) {
      said.add(parsed.text);
    }
  };
  // Polled every 100 ms, so `stop` is noticed while the wire is quiet.
  while ((*helper)->pump(100, [&](ByteView b) { raw.write(b); }, on_line)) {
    if ((stop || !raw.error().empty()) && !stopping) {
      stopping = true;
      (*helper)->stop(ready);
    }
  }
  const int code = (*helper)->wait();
  if (!raw.error().empty()) return make_error(ErrorClass::Input, "io", raw.error());
  if (code != ch::kExitOk) return helper_failed(*helper_path, code, said);
  if (!ready)
    return make_error(ErrorClass::Network, "capture", *helper_path + " ended without capturing on " + c.interface);
  std::string secrets;
  if (!c.keylog_path.empty())
    if (auto text = read_file(c.keylog_path, file_limit::kKeyLog)) secrets = *text;
  std::vector<std::string> own_lines = own ? own->lines() : std::vector<std::string>{};
  for (const auto& line : own_lines) secrets += (secrets.empty() || secrets.back() == '\n' ? "" : "\n") + line + "\n";
  auto stats = write_with_secrets(raw.path(), c.output, secrets);
  if (stats && own) {
    stats->own_key_lines = own_lines.size();
    stats->own_key_lines_lost = own->lost();
  }
  return stats;
}

Result<std::vector<NetworkInterface>> list_capture_interfaces() {
  auto helper_path = find_capture_helper();
  if (!helper_path) return helper_path.error();
  auto helper = HelperProcess::start(*helper_path, {"--list-interfaces"});
  if (!helper) return helper.error();
  std::string listing;
  HelperMessages said;
  while ((*helper)->pump(1000, [&](ByteView b) {
    if (listing.size() < (1u << 20)) listing.append(as_text(b));
  }, [&](std::string_view line) { said.add(ch::parse_line(line).text); })) {
  }
  const int code = (*helper)->wait();
  if (code != ch::kExitOk) return helper_failed(*helper_path, code, said);
  std::vector<NetworkInterface> out;
  std::size_t start = 0, end;
  while ((end = listing.find('\n', start)) != std::string::npos) {
    std::string_view line(listing.data() + start, end - start);
    start = end + 1;
    auto i = ch::parse_interface_line(line);
    if (!i) return make_error(ErrorClass::Network, "capture", *helper_path + " listed an interface as \"" +
                                                                   std::string(line.substr(0, 80)) + "\"");
    out.push_back(*i);
  }
  return out;
}

}  // namespace anthro
