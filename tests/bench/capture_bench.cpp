// capture_bench: `anthro-wb analyze` on a large TLS 1.3 capture of anthro-v1 token streams,
// against tshark decrypting the same file with the same key log, and against the floor — the
// same AEAD opens of every TLS record and frame and nothing else (capture_floor.h) — in the same run.
// The capture is generated first (not timed; bench_capture.h). Each tool runs as a child
// process; wall time gives MB/s over the file size and wait4() its peak RSS. The floor runs in
// this process on every core, best of three.
// Ratios: throughput ours ÷ tshark, ours ÷ the floor (analyze and the GUI's index pass), the
// index pass ÷ analyze, peak RSS ÷ file size (ours and tshark's). How analyze scales: it runs
// again with --threads 1 and --threads 2; throughput at 2 threads and at every core (the
// default run) ÷ at 1, and the three documents must be the same bytes (else the bench fails). Then the capture reader alone
// on the same file (from the disk, from the page cache, with parse_tcp) against plain read() of
// it: reader ÷ read().
// With ANTHRO_BENCH_KEEP set in the environment the capture and key log are kept (for profiling).
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "bench_capture.h"
#include "capture/capture_file.h"
#include "capture/capture_index.h"
#include "capture/packet.h"
#include "capture_floor.h"
#include "test_paths.h"

#ifndef ANTHRO_WB
#error "ANTHRO_WB (the path of the anthro-wb binary) must be defined"
#endif

extern char** environ;

using namespace anthro;

namespace {

constexpr unsigned kConnections = bench::kCaptureConnections;

[[noreturn]] void die(const std::string& what) {
  std::cerr << "capture_bench: " << what << "\n";
  std::exit(1);
}

// ---- measuring a child process -------------------------------------------------------------

struct Run {
  int status = -1;
  double wall_s = 0;
  double peak_rss_mb = 0;
};

Run run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Run r;
  pid_t pid = 0;
  auto start = std::chrono::steady_clock::now();
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return r;
  rusage ru{};
  if (wait4(pid, &r.status, 0, &ru) != pid) return r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.peak_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exited_ok(const Run& r) { return WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0; }

// Whether two files hold the same bytes, read a MiB at a time.
bool same_bytes(const std::string& a, const std::string& b) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  std::vector<char> p(1 << 20), q(1 << 20);
  while (x && y) {
    x.read(p.data(), static_cast<std::streamsize>(p.size()));
    y.read(q.data(), static_cast<std::streamsize>(q.size()));
    if (x.gcount() != y.gcount() || !std::equal(p.begin(), p.begin() + x.gcount(), q.begin())) return false;
  }
  return x.eof() && y.eof();
}

// `analyze` must have decoded everything: a comparison is only fair between working decoders.
void check_ours(const std::string& json_text, const bench::GeneratedCapture& g) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.contains("connections")) die("anthro-wb analyze printed no JSON");
  const auto& conns = j["connections"];
  if (conns.size() != kConnections)
    die("anthro-wb analyze found " + std::to_string(conns.size()) + " connections, expected " +
        std::to_string(kConnections));
  std::uint64_t streams = 0, tokens = 0;
  for (const auto& c : conns) {
    if (c.value("decryption", "") != "ok")
      die("connection " + c.value("conn", "?") + ": decryption \"" + c.value("decryption", "") + "\"");
    for (const auto& s : c["streams"]) {
      ++streams;
      tokens += s.value("tokens", std::uint64_t{0});
    }
  }
  if (streams != g.streams || tokens != g.tokens)
    die("anthro-wb analyze found " + std::to_string(streams) + " streams / " + std::to_string(tokens) +
        " tokens, expected " + std::to_string(g.streams) + " / " + std::to_string(g.tokens));
}

// The SUM column of the io,stat table's one interval row; -1 when absent.
double tshark_data_bytes(const std::string& out) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("<>") == std::string::npos) continue;
    auto bar = line.find('|', 1);
    if (bar == std::string::npos) continue;
    return std::strtod(line.c_str() + bar + 1, nullptr);
  }
  return -1;
}

// MB/s of each way through the capture: plain read() (the reference), the reader from the disk
// (the file's pages dropped from the cache first), from the cache, and with parse_tcp and
// checksums. Each pass must see every packet; a reader warning is a failure.
struct ReadSpeed {
  double raw = 0, cold = 0, warm = 0, parsed = 0;
};

double mb_per_s(double mb, std::chrono::steady_clock::time_point start) {
  return mb / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ReadSpeed read_speed(const std::string& pcap, std::uint64_t packets, double file_mb) {
  auto pass = [&](bool parse) {
    auto reader = CaptureReader::open(pcap);
    if (!reader) die(reader.error().detail);
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t n = 0;
    while (auto p = (*reader)->next()) {
      ++n;
      if (!parse) continue;
      auto seg = parse_tcp(*p);
      if (!seg || !*seg || !(*seg)->checksum_ok) die("packet " + std::to_string(n) + " does not parse");
    }
    if (n != packets || !(*reader)->warnings().empty()) die("the reader saw " + std::to_string(n) + " packets");
    return mb_per_s(file_mb, t0);
  };
  ReadSpeed speed;
  int fd = ::open(pcap.c_str(), O_RDONLY);
  if (fd < 0) die("cannot open " + pcap);
  ::fdatasync(fd);  // clean pages can be dropped: the first pass reads from the disk
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  speed.cold = pass(false);
  std::vector<char> chunk(1 << 20);
  auto start = std::chrono::steady_clock::now();
  while (::read(fd, chunk.data(), chunk.size()) > 0) {
  }
  speed.raw = mb_per_s(file_mb, start);  // from the page cache, as the next two
  ::close(fd);
  speed.warm = pass(false);
  speed.parsed = pass(true);
  return speed;
}

bool have_tshark() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((d + "/tshark").c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace

// `capture_bench --index-child FILE KEYLOG`: the GUI's indexing pass (CaptureIndex::load), run
// as a child so its own peak RSS can be measured. Prints the frame count.
int index_child(const std::string& pcap, const std::string& keylog) {
  auto index = CaptureIndex::create();
  if (!index) die(index.error().detail);
  auto ok = (*index)->load(pcap, {{keylog}, {}});
  if (!ok) die(ok.error().detail);
  std::printf("%zu\n", (*index)->frame_count());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == "--index-child") return index_child(argv[2], argv[3]);
  auto [json_out, quick] = bench::parse_bench_args(argc, argv, "capture_bench");
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/anthro-capture-bench-XXXXXX";
  if (!mkdtemp(dir_template.data())) die("cannot create a temporary directory");
  const std::filesystem::path dir = dir_template;
  const std::string pcap = dir / "tls.pcapng", keylog = dir / "keylog.txt";
  const std::string out = dir / "out.txt", err = dir / "err.txt";

  std::uint64_t target = quick ? std::uint64_t{5} << 20 : std::uint64_t{250} << 20;
  auto gen_start = std::chrono::steady_clock::now();
  bench::GeneratedCapture g = bench::generate_capture(pcap, keylog, target);
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
  double file_mb = static_cast<double>(g.file_bytes) / (1 << 20);
  if (!json_out)
    std::printf("generated %.1f MB, %llu packets, %u connections, %llu streams, %llu tokens in %.1f s\n", file_mb,
                static_cast<unsigned long long>(g.packets), kConnections,
                static_cast<unsigned long long>(g.streams), static_cast<unsigned long long>(g.tokens),
                gen_s);

  {  // Written back before any run is timed: else the first one shares the disk with it.
    int fd = ::open(pcap.c_str(), O_RDONLY);
    if (fd >= 0) ::fdatasync(fd);
    if (fd >= 0) ::close(fd);
  }

  // Ours.
  // Each child is measured before this process reads any big output: a child's peak RSS
  // (wait4) includes this process's own peak up to its exec (posix_spawn shares the memory).
  // Every core (the default), then one thread and two.
  auto analyze = [&](const std::vector<std::string>& threads, const std::string& json_path) {
    std::vector<std::string> argv = {ANTHRO_WB, "analyze", pcap, "--keylog", keylog, "--format", "json"};
    argv.insert(argv.end(), threads.begin(), threads.end());
    Run r = run_child(argv, json_path, err);
    if (!exited_ok(r)) {
      std::filesystem::remove_all(dir);
      die("anthro-wb analyze failed (status " + std::to_string(r.status) + "): " + slurp(err));
    }
    return r;
  };
  const std::string ours_out = dir / "ours.json", one_out = dir / "one.json", two_out = dir / "two.json";
  Run ours = analyze({}, ours_out);
  Run one_thread = analyze({"--threads", "1"}, one_out);
  Run two_threads = analyze({"--threads", "2"}, two_out);

  // The GUI's index of the same file.
  Run index = run_child({"/proc/self/exe", "--index-child", pcap, keylog}, out, err);
  if (!exited_ok(index)) {
    std::filesystem::remove_all(dir);
    die("the index pass failed (status " + std::to_string(index.status) + "): " + slurp(err));
  }
  std::uint64_t indexed_frames = std::strtoull(slurp(out).c_str(), nullptr, 10);
  if (indexed_frames != g.frames)  // a comparison is only fair between passes that did all the work
    die("the index pass found " + std::to_string(indexed_frames) + " frames, the generator sealed " +
        std::to_string(g.frames));

  // The floor: best of three, so that noise cannot make the ratios look better.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  bench::FloorRun floor = bench::measure_floor(pcap, g, cores);
  for (int i = 0; i < 2; ++i) {
    bench::FloorRun again = bench::measure_floor(pcap, g, cores);
    if (again.seconds < floor.seconds) floor = again;
  }

  // tshark, same file, same keys.
  Run ts;
  double ts_data = -1;
  bool ts_ok = have_tshark();
  if (!ts_ok) {
    std::cerr << "capture_bench: note: tshark not found on PATH; its figures are null and ratios 0\n";
  } else {
    ts = run_child({"tshark", "-r", pcap, "-o", "tls.keylog_file:" + keylog, "-o",
                    "tcp.reassemble_out_of_order:TRUE", "-q", "-z", "io,stat,0,SUM(data.len)data.len"},
                   out, err);
    ts_ok = exited_ok(ts);
    if (!ts_ok) std::cerr << "capture_bench: note: tshark failed (status " << ts.status << "): " << slurp(err) << "\n";
    else ts_data = tshark_data_bytes(slurp(out));
    if (ts_ok && ts_data <= 0)
      std::cerr << "capture_bench: note: tshark reported no decrypted data (SUM(data.len) " << ts_data
                << "); it may not have decrypted the TLS\n";
  }
  const ReadSpeed reads = read_speed(pcap, g.packets, file_mb);
  if (!same_bytes(one_out, two_out) || !same_bytes(one_out, ours_out)) {
    std::filesystem::remove_all(dir);
    die("analyze at --threads 1, --threads 2 and every core (" + std::to_string(cores) +
        ") printed different documents");
  }
  std::filesystem::remove(one_out);
  std::filesystem::remove(two_out);
  {
    std::string text = slurp(ours_out);
    std::filesystem::remove(ours_out);
    check_ours(text, g);
  }
  if (std::getenv("ANTHRO_BENCH_KEEP")) std::cerr << "capture_bench: kept " << pcap << " and " << keylog << "\n";
  else std::filesystem::remove_all(dir);

  double ours_mbps = file_mb / ours.wall_s;
  double one_mbps = file_mb / one_thread.wall_s, two_mbps = file_mb / two_threads.wall_s;
  double ts_mbps = ts_ok ? file_mb / ts.wall_s : 0;
  double index_mbps = file_mb / index.wall_s, floor_mbps = file_mb / floor.seconds;
  nlohmann::json null;
  nlohmann::json figures = {
      {"file_mb", file_mb},
      {"packets", g.packets},
      {"connections", kConnections},
      {"streams", g.streams},
      {"tokens", g.tokens},
      {"ours_s", ours.wall_s},
      {"ours_mb_per_s", ours_mbps},
      {"ours_peak_rss_mb", ours.peak_rss_mb},
      {"ours_threads", cores},
      {"analyze_1_thread_s", one_thread.wall_s},
      {"analyze_1_thread_mb_per_s", one_mbps},
      {"analyze_2_threads_s", two_threads.wall_s},
      {"analyze_2_threads_mb_per_s", two_mbps},
      {"index_s", index.wall_s},
      {"index_mb_per_s", index_mbps},
      {"index_peak_rss_mb", index.peak_rss_mb},
      {"index_frames", indexed_frames},
      {"tshark_s", ts_ok ? nlohmann::json(ts.wall_s) : null},
      {"tshark_mb_per_s", ts_ok ? nlohmann::json(ts_mbps) : null},
      {"tshark_peak_rss_mb", ts_ok ? nlohmann::json(ts.peak_rss_mb) : null},
      {"tshark_data_mb", ts_ok && ts_data >= 0 ? nlohmann::json(ts_data / (1 << 20)) : null},
      {"floor_s", floor.seconds},
      {"floor_mb_per_s", floor_mbps},
      {"floor_threads", cores},
      {"floor_records", floor.records},
      {"floor_frames", floor.frames},
      {"raw_read_mb_per_s", reads.raw},
      {"reader_cold_mb_per_s", reads.cold},
      {"reader_mb_per_s", reads.warm},
      {"reader_parse_mb_per_s", reads.parsed},
  };
  nlohmann::json ratios = {
      {"throughput_vs_tshark", ts_ok ? ours_mbps / ts_mbps : 0.0},
      {"rss_vs_file", ours.peak_rss_mb / file_mb},
      {"index_throughput_vs_tshark", ts_ok ? index_mbps / ts_mbps : 0.0},
      {"analyze_vs_floor", ours_mbps / floor_mbps},
      {"index_vs_floor", index_mbps / floor_mbps},
      {"index_vs_analyze", index_mbps / ours_mbps},
      {"analyze_2_vs_1_threads", two_mbps / one_mbps},
      {"analyze_all_vs_1_threads", ours_mbps / one_mbps},
      {"index_rss_vs_file", index.peak_rss_mb / file_mb},
      {"tshark_rss_vs_file", ts_ok ? ts.peak_rss_mb / file_mb : 0.0},
      {"reader_vs_raw_read", reads.warm / reads.raw},
      {"reader_parse_vs_raw_read", reads.parsed / reads.raw},
  };
  if (json_out) {
    std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
    return 0;
  }
  std::printf("%-22s %12s %12s\n", "", "anthro-wb", "tshark");
  std::printf("%-22s %12.2f %12.2f\n", "wall time (s)", ours.wall_s, ts.wall_s);
  std::printf("%-22s %12.1f %12.1f\n", "throughput (MB/s)", ours_mbps, ts_mbps);
  std::printf("%-22s %12.1f %12.1f\n", "peak RSS (MB)", ours.peak_rss_mb, ts.peak_rss_mb);
  std::printf("%-22s %12.2f %12.2f\n", "peak RSS / file", ours.peak_rss_mb / file_mb,
              ts_ok ? ts.peak_rss_mb / file_mb : 0.0);
  std::printf("throughput anthro-wb / tshark: %.2f\n", ts_ok ? ours_mbps / ts_mbps : 0.0);
  std::printf("analyze by threads: 1: %.2f s, %.1f MB/s   2: %.2f s, %.1f MB/s (%.2fx)   all %u: %.2f s, %.1f MB/s "
              "(%.2fx); the same document at each\n",
              one_thread.wall_s, one_mbps, two_threads.wall_s, two_mbps, two_mbps / one_mbps, cores, ours.wall_s,
              ours_mbps, ours_mbps / one_mbps);
  std::printf("index pass (GUI): %.2f s, %.1f MB/s, peak RSS %.1f MB (%.2f of the file), %llu frames\n", index.wall_s,
              index_mbps, index.peak_rss_mb, index.peak_rss_mb / file_mb,
              static_cast<unsigned long long>(indexed_frames));
  std::printf("floor (every TLS record and frame opened, nothing else, %u threads, best of 3): %.2f s, %.1f MB/s, "
              "%llu records, %llu frames\n",
              cores, floor.seconds, floor_mbps, static_cast<unsigned long long>(floor.records),
              static_cast<unsigned long long>(floor.frames));
  std::printf("analyze / floor: %.2f   index / floor: %.2f   index / analyze: %.2f\n", ours_mbps / floor_mbps,
              index_mbps / floor_mbps, index_mbps / ours_mbps);
  std::printf("reader alone: %.0f MB/s from the disk (cache dropped), %.0f MB/s from the page cache, %.0f MB/s "
              "with parse_tcp and checksums; plain read() %.0f MB/s\n",
              reads.cold, reads.warm, reads.parsed, reads.raw);
  return 0;
}
