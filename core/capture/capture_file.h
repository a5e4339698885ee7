// Capture files: reading classic pcap and pcapng as a stream of packets, writing both.
//
// The reader streams through a fixed buffer with pread(), so files far larger than memory
// are fine; it never loads a file whole (a consumer holding packets' bytes, hold(), bounds
// what more it keeps). Structure problems stop reading with error() set
// and the byte offset named; a file cut short ends early with a warning, never a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/bytes.h"
#include "util/result.h"

namespace anthro {

// LINKTYPE_* values (tcpdump.org) that parse_tcp() understands.
inline constexpr std::uint32_t kLinkNull = 0;        // BSD loopback, AF in the capturing host's byte order
inline constexpr std::uint32_t kLinkEthernet = 1;
inline constexpr std::uint32_t kLinkRaw = 101;       // raw IPv4/IPv6 (also 12 and 14 on some systems)
inline constexpr std::uint32_t kLinkLoop = 108;      // OpenBSD loopback, AF in network byte order
inline constexpr std::uint32_t kLinkSll = 113;       // Linux cooked capture v1
inline constexpr std::uint32_t kLinkIpv4 = 228;
inline constexpr std::uint32_t kLinkIpv6 = 229;
inline constexpr std::uint32_t kLinkSll2 = 276;      // Linux cooked capture v2 (`tcpdump -i any`)

inline constexpr std::uint32_t kSecretsTlsKeyLog = 0x544c534b;  // pcapng DSB secrets type "TLSK"

struct RawPacket {
  double ts = 0;                  // seconds since the epoch (a double resolves ~0.2 µs at today's dates)
  std::int64_t ts_ns = 0;         // the same instant, exact to the nanosecond
  std::uint32_t interface = 0;    // file-wide interface number (pcapng ids restart per section; these do not)
  std::uint32_t link_type = 0;
  ByteView data;                  // captured bytes; valid until the reader's next next()/seek()
  std::uint32_t original_length = 0;
  std::uint64_t file_offset = 0;  // of the packet's record or block: give it to seek()
  std::uint64_t index = 0;        // 0-based packet number in the file ("packet N" in messages is index + 1)
};

struct CaptureInterface {
  std::uint32_t link_type = 0;
  std::uint32_t snaplen = 0;
  std::string name;               // pcapng if_name, empty when absent
  std::uint32_t section = 0;      // 0-based pcapng section; 0 for classic pcap
};

// Where a file that ends inside a record was cut, for a banner as well as the warning.
struct CaptureTruncation {
  std::uint64_t file_size = 0;     // the byte the file ends at
  std::uint64_t packets_read = 0;  // the whole packets before the cut
  std::string record;              // the record cut: "packet 7 record header (at byte 1234)"
};

// A pcapng Interface Statistics Block's counters, as libpcap's pcap_stats gives them.
struct InterfaceStatistics {
  std::uint64_t received = 0;         // isb_ifrecv (ps_recv)
  std::uint64_t interface_drops = 0;  // isb_ifdrop (ps_ifdrop): dropped by the interface or its driver
  std::uint64_t os_drops = 0;         // isb_osdrop (ps_drop): dropped by the kernel, its buffer full
};

class CaptureReader {
 public:
  enum class Format { pcap, pcapng };

  // Errors (reason "io" or "capture") name the path and what is wrong.
  static Result<std::unique_ptr<CaptureReader>> open(const std::string& path);
  ~CaptureReader();
  CaptureReader(const CaptureReader&) = delete;
  CaptureReader& operator=(const CaptureReader&) = delete;

  // The next packet, nullopt at the end of the file, after a truncation (warnings() says where)
  // or after a structure error (error() says what and at which byte).
  std::optional<RawPacket> next();

  const std::vector<std::string>& secrets() const;   // DSB TLS key log texts seen so far (pcapng)
  const std::vector<std::string>& warnings() const;  // truncation and structure problems, for people
  const std::optional<CaptureTruncation>& truncation() const;  // set when the file ended inside a record
  // The problem that stopped reading early (reason "capture" or "io"), also the last warning.
  const std::optional<Error>& error() const;
  const std::vector<CaptureInterface>& interfaces() const;  // seen so far, indexed by RawPacket::interface
  // The last Interface Statistics Block seen for a file-wide interface number, if any (pcapng).
  std::optional<InterfaceStatistics> statistics(std::uint32_t interface) const;
  Format format() const;

  // Keeps the data of the packet next() returned last valid for as long as the handle lives,
  // past later next() calls: the reader reads on into other buffers, never into held bytes.
  // So a packet's bytes can go to another thread without a copy. Memory grows by what is held:
  // the holder bounds how much. One handle covers every packet of the same buffer; holds()
  // says whether `handle` already covers the last packet.
  std::shared_ptr<const void> hold() const;
  bool holds(const std::shared_ptr<const void>& handle) const;

  std::uint64_t file_size() const;
  std::uint64_t position() const;  // file offset of the next record; file_size() at the end
  // Re-read from a packet's file_offset; `index` is what that packet's index was. Only offsets
  // already reached are accepted (false otherwise). Secrets and interfaces are not duplicated.
  bool seek(std::uint64_t file_offset, std::uint64_t index);

 private:
  CaptureReader();
  struct State;
  std::unique_ptr<State> s_;
};

struct CaptureSink;  // buffered output to PATH.tmp, renamed over PATH on commit

// pcapng writer: one little-endian section, nanosecond timestamps (if_tsresol 9), EPBs.
// Writes PATH.tmp and renames it over PATH on close(): a reader never sees a half-written
// file. Destroying it without close() removes the temporary and leaves PATH alone.
class PcapngWriter {
 public:
  static Result<std::unique_ptr<PcapngWriter>> create(const std::string& path);
  // Writes to an open descriptor (a pipe) instead; `name` (e.g. "stdout") is for messages.
  // close() flushes it and leaves the descriptor open.
  static std::unique_ptr<PcapngWriter> to_descriptor(int fd, const std::string& name);
  ~PcapngWriter();
  PcapngWriter(const PcapngWriter&) = delete;
  PcapngWriter& operator=(const PcapngWriter&) = delete;

  std::uint32_t add_interface(std::uint32_t link_type, std::uint32_t snaplen, const std::string& name = "");
  void add_secrets(std::string_view keylog_text);  // a DSB of type 0x544c534b
  void add_statistics(std::uint32_t interface, std::int64_t ts_ns, const InterfaceStatistics& stats);  // an ISB
  // original_length below data.size() is raised to it. Write errors (and an unknown interface)
  // are kept and reported by close().
  void write_packet(std::uint32_t interface, double ts, ByteView data, std::uint32_t original_length);
  void write_packet_ns(std::uint32_t interface, std::int64_t ts_ns, ByteView data, std::uint32_t original_length);
  std::uint64_t bytes_written() const;
  // Writes what is buffered now (a reader on a pipe sees every packet so far); errors as close().
  void flush();
  Result<bool> close();

 private:
  PcapngWriter() = default;
  static std::unique_ptr<PcapngWriter> start(std::unique_ptr<CaptureSink> sink);
  std::unique_ptr<CaptureSink> out_;
  std::uint32_t interfaces_ = 0;
};

// Classic pcap writer (magic 0xa1b2c3d4 for µs, 0xa1b23c4d for ns), in either byte order.
class PcapWriter {
 public:
  static Result<std::unique_ptr<PcapWriter>> create(const std::string& path, std::uint32_t link_type,
                                                    bool nanoseconds = false, bool big_endian = false,
                                                    std::uint32_t snaplen = 262144);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  void write_packet(double ts, ByteView data, std::uint32_t original_length);
  void write_packet_ns(std::int64_t ts_ns, ByteView data, std::uint32_t original_length);
  std::uint64_t bytes_written() const;
  Result<bool> close();

 private:
  PcapWriter() = default;
  std::unique_ptr<CaptureSink> out_;
  bool nanoseconds_ = false;
};

// Seconds as a double to whole nanoseconds, rounding the fraction (not the whole value).
std::int64_t seconds_to_ns(double ts);

}  // namespace anthro
