#include "crypto/keylog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <sstream>

namespace anthro {
namespace {

bool is_tls_label(std::string_view label) {
  static constexpr std::string_view labels[] = {
      "CLIENT_RANDOM", "CLIENT_EARLY_TRAFFIC_SECRET", "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
      "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0",
      "EXPORTER_SECRET", "EARLY_EXPORTER_SECRET"};
  for (auto l : labels)
    if (l == label) return true;
  return false;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::optional<AnthroKeyLine> parse_anthro(const std::vector<std::string_view>& w) {
  if (w.size() != 4) return std::nullopt;
  auto token = parse_token_hex(w[1]);
  auto c2s = from_hex_array<32>(w[2]);
  auto s2c = from_hex_array<32>(w[3]);
  if (!token || !c2s || !s2c) return std::nullopt;
  return AnthroKeyLine{*token, FrameKeys{*c2s, *s2c}};
}

std::optional<TlsSecretLine> parse_tls(const std::vector<std::string_view>& w) {
  if (w.size() != 3) return std::nullopt;
  auto random = from_hex(w[1]);
  auto secret = from_hex(w[2]);
  if (!random || random->size() != 32 || !secret || secret->empty()) return std::nullopt;
  return TlsSecretLine{std::string(w[0]), *random, *secret};
}

}  // namespace

KeyLog parse_keylog(std::string_view text, const std::string& origin) {
  KeyLog log;
  std::size_t line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto words = split_words(line);
    if (words.empty() || words[0].front() == '#') continue;
    std::string where = origin + ":" + std::to_string(line_no) + ": ";
    if (words[0] == "ANTHRO_V1") {
      if (auto l = parse_anthro(words)) log.anthro.push_back(*l);
      else log.problems.push_back(where + "ANTHRO_V1 needs a 16-hex token and two 64-hex keys");
    } else if (is_tls_label(words[0])) {
      if (auto l = parse_tls(words)) log.tls.push_back(std::move(*l));
      else log.problems.push_back(where + std::string(words[0]) + " needs a 64-hex client random and a hex secret");
    }
  }
  return log;
}

std::string format_anthro_line(std::uint64_t token, const FrameKeys& keys) {
  return "ANTHRO_V1 " + token_hex(token) + " " + to_hex(keys.c2s) + " " + to_hex(keys.s2c);
}

std::string format_tls_line(const TlsSecretLine& line) {
  return line.label + " " + to_hex(line.client_random) + " " + to_hex(line.secret);
}

Result<bool> append_keylog_line(const std::string& path, std::string_view line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return make_error("io", path + ": cannot open key log: " + std::strerror(errno));
  std::string text(line);
  text.push_back('\n');
  // One write() per line keeps lines whole when several processes append to the same file.
  ssize_t n = ::write(fd, text.data(), text.size());
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return make_error("io", path + ": cannot append to key log: " + std::strerror(err));
  return true;
}

void KeyLogSink::append(std::string_view line) {
  std::lock_guard lock(mutex_);
  auto written = append_keylog_line(path_, line);
  if (written) return;
  ++lost_;
  if (!first_error_) first_error_ = written.error();
}

std::optional<std::string> KeyLogSink::error() const {
  std::lock_guard lock(mutex_);
  if (!first_error_) return std::nullopt;
  return first_error_->detail + " (" + std::to_string(lost_) + (lost_ == 1 ? " line" : " lines") +
         " not written)";
}

namespace {

struct OwnLines {
  std::mutex mutex;
  std::deque<std::pair<std::uint64_t, std::string>> lines;  // numbered in the order recorded
  std::uint64_t next = 0;
  int watchers = 0;
};

OwnLines& own_lines() {
  static OwnLines own;
  return own;
}

}  // namespace

OwnKeyLog::Watch::Watch() {
  OwnLines& own = own_lines();
  std::lock_guard lock(own.mutex);
  ++own.watchers;
  from_ = own.next;
}

OwnKeyLog::Watch::~Watch() {
  OwnLines& own = own_lines();
  std::lock_guard lock(own.mutex);
  if (--own.watchers == 0) own.lines.clear();
}

std::vector<std::string> OwnKeyLog::Watch::lines() const {
  OwnLines& own = own_lines();
  std::lock_guard lock(own.mutex);
  std::vector<std::string> out;
  for (const auto& [seq, text] : own.lines)
    if (seq >= from_) out.push_back(text);
  return out;
}

std::uint64_t OwnKeyLog::Watch::lost() const {
  OwnLines& own = own_lines();
  std::lock_guard lock(own.mutex);
  const std::uint64_t oldest = own.lines.empty() ? own.next : own.lines.front().first;
  return oldest > from_ ? oldest - from_ : 0;
}

void OwnKeyLog::record(std::string_view line) {
  OwnLines& own = own_lines();
  std::lock_guard lock(own.mutex);
  if (own.watchers == 0) return;
  own.lines.emplace_back(own.next++, std::string(line));
  if (own.lines.size() > kMaxLines) own.lines.pop_front();
}

}  // namespace anthro
