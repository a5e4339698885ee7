#include "capture/live_capture.h"

#include <algorithm>
#include <pcap/pcap.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "capture/capture_file.h"
#include "util/files.h"

namespace anthro {
namespace {

// The running binary, for the setcap line an error suggests.
std::string this_program() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("PROGRAM");
}

struct PcapClose {
  void operator()(pcap_t* p) const { pcap_close(p); }
};

Error capture_error(const LiveCaptureConfig& c, int status, pcap_t* p) {
  std::string why = p ? pcap_geterr(p) : "";
  if (status == PCAP_ERROR_PERM_DENIED || status == PCAP_ERROR_PROMISC_PERM_DENIED)
    return make_error(ErrorClass::Network, "permission",
                      "capture on " + c.interface + " is not permitted (" + (why.empty() ? pcap_statustostr(status) : why) +
                          "): run as root, or give the program CAP_NET_RAW and CAP_NET_ADMIN (sudo setcap "
                          "cap_net_raw,cap_net_admin+eip " + this_program() + ")");
  if (status == PCAP_ERROR_NO_SUCH_DEVICE) return make_error(ErrorClass::Usage, "no interface named \"" + c.interface + "\"");
  return make_error(ErrorClass::Network, "capture", c.interface + ": " + (why.empty() ? pcap_statustostr(status) : why));
}

constexpr int kLargestPacket = 65535 + 256;  // an IP packet and any link header

Result<std::unique_ptr<pcap_t, PcapClose>> open_interface(const LiveCaptureConfig& c) {
  char err[PCAP_ERRBUF_SIZE] = {0};
  std::unique_ptr<pcap_t, PcapClose> p(pcap_create(c.interface.c_str(), err));
  if (!p) return make_error(ErrorClass::Network, "capture", c.interface + ": " + err);
  // Immediate mode gives every packet a ring slot of the snaplen's size: a 256 KiB snaplen
  // leaves a 32 MiB ring 128 slots, which a burst on lo overflows. No packet is larger than
  // 64 KiB (the largest IP packet; GRO and lo's MTU included), so that is what it needs.
  pcap_set_snaplen(p.get(), std::min(c.snaplen, kLargestPacket));
  pcap_set_immediate_mode(p.get(), 1);  // every packet as it comes, so timings are the wire's
  // Bursts of several streams on lo overflowed the 2 MiB default; 32 MiB still lost 70 to 700
  // packets of burst+slow-reader on 2 cores (each ring slot is sized for a 64 KiB packet).
  pcap_set_buffer_size(p.get(), 128 << 20);
  pcap_set_tstamp_precision(p.get(), PCAP_TSTAMP_PRECISION_NANO);
  if (int status = pcap_activate(p.get()); status < 0) return capture_error(c, status, p.get());
  if (!c.filter.empty()) {
    bpf_program program{};
    if (pcap_compile(p.get(), &program, c.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
      return make_error(ErrorClass::Usage, "capture filter \"" + c.filter + "\": " + pcap_geterr(p.get()));
    int set = pcap_setfilter(p.get(), &program);
    pcap_freecode(&program);
    if (set != 0) return make_error(ErrorClass::Network, "capture", c.interface + ": " + pcap_geterr(p.get()));
  }
  return p;
}

// Copies the packets of `from` into `to` after the key log, so the keys come before the
// packets they open.
Result<bool> write_with_secrets(const std::string& from, const std::string& to, std::uint32_t link_type,
                                int snaplen, const std::string& secrets, const std::string& name) {
  auto reader = CaptureReader::open(from);
  if (!reader) return reader.error();
  auto writer = PcapngWriter::create(to);
  if (!writer) return writer.error();
  std::uint32_t iface = (*writer)->add_interface(link_type, static_cast<std::uint32_t>(snaplen), name);
  if (!secrets.empty()) (*writer)->add_secrets(secrets);
  while (auto p = (*reader)->next()) (*writer)->write_packet_ns(iface, p->ts_ns, p->data, p->original_length);
  return (*writer)->close();
}

}  // namespace

Result<LiveCaptureStats> run_live_capture(const LiveCaptureConfig& c, const std::atomic<bool>& stop,
                                          const std::function<void()>& on_ready,
                                          const std::function<void(const LiveCaptureStats&)>& on_progress) {
  auto pcap = open_interface(c);
  if (!pcap) return pcap.error();
  std::uint32_t link_type = static_cast<std::uint32_t>(pcap_datalink(pcap->get()));
  std::string raw = c.output + ".capturing";
  auto writer = PcapngWriter::create(raw);
  if (!writer) return writer.error();
  std::uint32_t iface = (*writer)->add_interface(link_type, static_cast<std::uint32_t>(c.snaplen), c.interface);
  if (on_ready) on_ready();

  LiveCaptureStats stats;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // Immediate mode ignores the read timeout, so the loop polls the descriptor itself and can
  // notice the clock and `stop` while the wire is quiet.
  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_setnonblock(pcap->get(), 1, err);
  pollfd fd{pcap_get_selectable_fd(pcap->get()), POLLIN, 0};
  struct Sink {
    PcapngWriter* writer;
    std::uint32_t iface;
    LiveCaptureStats* stats;
  } sink{writer->get(), iface, &stats};
  auto on_packet = [](u_char* user, const pcap_pkthdr* h, const u_char* data) {
    auto* s = reinterpret_cast<Sink*>(user);
    std::int64_t ns = std::int64_t{h->ts.tv_sec} * 1000000000 + h->ts.tv_usec;  // nanosecond precision was set
    s->writer->write_packet_ns(s->iface, ns, ByteView(data, h->caplen), h->len);
    ++s->stats->packets;
    s->stats->bytes += h->len;
  };
  auto reported = std::chrono::steady_clock::now();
  std::uint64_t reported_packets = 0;
  while (!stop && (c.duration_s <= 0 || elapsed() < c.duration_s)) {
    int got = pcap_dispatch(pcap->get(), -1, on_packet, reinterpret_cast<u_char*>(&sink));
    if (got < 0) return capture_error(c, got, pcap->get());
    if (got == 0) ::poll(&fd, 1, 100);
    if (on_progress && stats.packets != reported_packets &&
        std::chrono::steady_clock::now() - reported > std::chrono::milliseconds(200)) {
      reported = std::chrono::steady_clock::now();
      reported_packets = stats.packets;
      on_progress(stats);
    }
  }
  pcap_stat ps{};
  if (pcap_stats(pcap->get(), &ps) == 0) {
    stats.kernel_drops = ps.ps_drop;
    stats.interface_drops = ps.ps_ifdrop;
  }
  if (auto ok = (*writer)->close(); !ok) return ok.error();
  std::string secrets;
  if (!c.keylog_path.empty())
    if (auto text = read_file(c.keylog_path)) secrets = *text;
  auto done = write_with_secrets(raw, c.output, link_type, c.snaplen, secrets, c.interface);
  ::unlink(raw.c_str());
  if (!done) return done.error();
  stats.secrets_embedded = !secrets.empty();
  return stats;
}

Result<std::vector<NetworkInterface>> list_capture_interfaces() {
  char err[PCAP_ERRBUF_SIZE] = {0};
  pcap_if_t* all = nullptr;
  if (pcap_findalldevs(&all, err) != 0) return make_error(ErrorClass::Network, "capture", std::string("interfaces: ") + err);
  std::vector<NetworkInterface> out;
  for (pcap_if_t* d = all; d; d = d->next)
    out.push_back({d->name, d->description ? d->description : "", (d->flags & PCAP_IF_LOOPBACK) != 0,
                   (d->flags & PCAP_IF_UP) != 0});
  pcap_freealldevs(all);
  std::stable_partition(out.begin(), out.end(), [](const NetworkInterface& i) { return i.loopback; });
  return out;
}

}  // namespace anthro
