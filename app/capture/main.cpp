// anthro-capture: the one program that opens a live interface; core/capture/capture_helper.h
// is its contract. The .deb gives it cap_net_raw,cap_net_admin, so it is written for a hostile
// caller: it takes no path and writes only to stdout, every argument is checked, and every
// capability is dropped as soon as the interface is open — the filter is compiled and every
// packet read without any.
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "capture/capture_file.h"
#include "capture/capture_helper.h"

namespace {

namespace ch = anthro::capture_helper;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

// One write per line, so a line never interleaves with another.
void say(const std::string& line) {
  std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(2, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void fail(int code, const std::string& message) {
  say(ch::message_line(message));
  std::exit(code);
}

// Where this program is, for the setcap command that grants it what it lacks.
std::string self_path() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("anthro-capture");
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  ::signal(SIGPIPE, SIG_DFL);  // the reader gone: end here
}

// Back to the caller's identity with no capability at all, and none to be gained again.
void drop_privileges() {
  bool ok = true;
  if (::getegid() != ::getgid()) ok = ::setresgid(::getgid(), ::getgid(), ::getgid()) == 0;
  if (ok && ::geteuid() != ::getuid()) ok = ::setresuid(::getuid(), ::getuid(), ::getuid()) == 0;
  cap_t none = cap_init();  // every set empty
  ok = ok && none && cap_set_proc(none) == 0;
  if (none) cap_free(none);
  ok = ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
  if (!ok) fail(ch::kExitCapture, "cannot drop capabilities; refusing to go on with them");
}

[[noreturn]] void open_failed(const std::string& interface, int status, pcap_t* p) {
  std::string why = p ? pcap_geterr(p) : "";
  if (why.empty()) why = pcap_statustostr(status);
  if (status == PCAP_ERROR_PERM_DENIED || status == PCAP_ERROR_PROMISC_PERM_DENIED) {
    const std::string self = self_path();
    fail(ch::kExitPermission, "capture on " + interface + " is not permitted (" + why + "): " + self +
                                  " needs CAP_NET_RAW and CAP_NET_ADMIN; grant them with: sudo setcap "
                                  "cap_net_raw,cap_net_admin+eip " + self);
  }
  if (status == PCAP_ERROR_NO_SUCH_DEVICE) fail(ch::kExitUsage, "no interface named \"" + interface + "\"");
  fail(ch::kExitCapture, interface + ": " + why);
}

constexpr int kLargestPacket = 65535 + 256;  // an IP packet and any link header

pcap_t* open_interface(const ch::Arguments& a) {
  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_create(a.interface.c_str(), err);
  if (!p) fail(ch::kExitCapture, a.interface + ": " + err);
  // Immediate mode gives every packet a ring slot of the snaplen's size: a 256 KiB snaplen
  // leaves a 32 MiB ring 128 slots, which a burst on lo overflows. No packet is larger than
  // 64 KiB (the largest IP packet; GRO and lo's MTU included), so that is what it needs.
  pcap_set_snaplen(p, std::min(a.snaplen, kLargestPacket));
  pcap_set_immediate_mode(p, 1);  // every packet as it comes, so timings are the wire's
  // Bursts of several streams on lo overflowed the 2 MiB default; 32 MiB still lost 70 to 700
  // packets of burst+slow-reader on 2 cores (each ring slot is sized for a 64 KiB packet).
  pcap_set_buffer_size(p, 128 << 20);
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
  if (int status = pcap_activate(p); status < 0) open_failed(a.interface, status, p);
  return p;
}

void set_filter(pcap_t* p, const std::string& filter) {
  if (filter.empty()) return;
  bpf_program program{};
  if (pcap_compile(p, &program, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
    fail(ch::kExitUsage, "capture filter \"" + filter + "\": " + pcap_geterr(p));
  int set = pcap_setfilter(p, &program);
  pcap_freecode(&program);
  if (set != 0) fail(ch::kExitCapture, std::string("capture filter: ") + pcap_geterr(p));
}

std::int64_t wall_clock_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

struct Sink {
  anthro::PcapngWriter* writer;
  std::uint64_t packets = 0, bytes = 0;
};

void on_packet(u_char* user, const pcap_pkthdr* h, const u_char* data) {
  auto* s = reinterpret_cast<Sink*>(user);
  std::int64_t ns = std::int64_t{h->ts.tv_sec} * 1000000000 + h->ts.tv_usec;  // nanosecond precision was set
  s->writer->write_packet_ns(0, ns, anthro::ByteView(data, h->caplen), h->len);
  ++s->packets;
  s->bytes += h->len;
}

// End of file (or an error) on stdin: the program that started this one has closed it or ended.
bool stdin_closed(pollfd& in) {
  if (in.fd < 0 || !in.revents) return false;
  if (in.revents & POLLNVAL) {  // no stdin at all: only signals and the duration stop it
    in.fd = -1;
    return false;
  }
  char buf[256];
  ssize_t n = ::read(in.fd, buf, sizeof buf);
  return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

int capture(const ch::Arguments& a) {
  if (::isatty(1))
    fail(ch::kExitUsage, "stdout is a terminal: anthro-capture writes pcapng to a pipe (anthro-wb capture runs it for you)");
  install_stop_handlers();
  pcap_t* p = open_interface(a);
  drop_privileges();
  set_filter(p, a.filter);
  auto writer = anthro::PcapngWriter::to_descriptor(1, "stdout");
  writer->add_interface(static_cast<std::uint32_t>(pcap_datalink(p)), static_cast<std::uint32_t>(a.snaplen), a.interface);
  writer->flush();
  say(ch::ready_line());

  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_setnonblock(p, 1, err);  // immediate mode ignores the read timeout: poll() below waits instead
  pollfd fds[2] = {{pcap_get_selectable_fd(p), POLLIN, 0}, {0, POLLIN, 0}};
  Sink sink{writer.get()};
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto reported = start;
  std::uint64_t reported_packets = 0;
  while (!g_stop && (a.duration_s <= 0 || elapsed() < a.duration_s)) {
    int got = pcap_dispatch(p, -1, on_packet, reinterpret_cast<u_char*>(&sink));
    if (got < 0) fail(ch::kExitCapture, a.interface + ": " + pcap_geterr(p));
    if (got == 0) writer->flush();  // the wire is quiet: let the reader have everything so far
    // Quiet: wait for packets or stdin; busy: only a look at stdin, so a flood cannot hide its end.
    fds[0].revents = fds[1].revents = 0;
    ::poll(got == 0 ? fds : fds + 1, got == 0 ? 2 : 1, got == 0 ? 100 : 0);
    if (stdin_closed(fds[1])) break;
    if (sink.packets != reported_packets && std::chrono::steady_clock::now() - reported > std::chrono::milliseconds(200)) {
      reported = std::chrono::steady_clock::now();
      reported_packets = sink.packets;
      say(ch::progress_line(sink.packets, sink.bytes));
    }
  }
  anthro::InterfaceStatistics stats;
  if (pcap_stat ps{}; pcap_stats(p, &ps) == 0) stats = {ps.ps_recv, ps.ps_ifdrop, ps.ps_drop};
  writer->add_statistics(0, wall_clock_ns(), stats);
  pcap_close(p);
  if (auto ok = writer->close(); !ok) fail(ch::kExitCapture, ok.error().detail);
  return ch::kExitOk;
}

int list_interfaces() {
  drop_privileges();  // listing needs none
  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_if_t* all = nullptr;
  if (pcap_findalldevs(&all, err) != 0) fail(ch::kExitCapture, std::string("interfaces: ") + err);
  std::vector<anthro::NetworkInterface> found;
  for (pcap_if_t* d = all; d; d = d->next)
    if (ch::check_interface_name(d->name))
      found.push_back({d->name, d->description ? d->description : "", (d->flags & PCAP_IF_LOOPBACK) != 0,
                       (d->flags & PCAP_IF_UP) != 0});
  pcap_freealldevs(all);
  std::stable_partition(found.begin(), found.end(), [](const anthro::NetworkInterface& i) { return i.loopback; });
  std::string text;
  for (const auto& i : found) text += ch::interface_line(i) + "\n";
  if (::write(1, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    fail(ch::kExitCapture, "cannot write the interface list");
  return ch::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  auto parsed = ch::parse_arguments(args);
  if (!parsed) fail(ch::kExitUsage, parsed.error().detail);
  return parsed->list_interfaces ? list_interfaces() : capture(*parsed);
}
