// Passive TCP reassembly of a capture, per connection and direction: in-order delivery of new
// bytes with their first-arrival times, out-of-order buffering with a memory bound, gaps for bytes
// that were never captured, and the TCP health figures the analyzer reports.
//
// Conventions:
// - Client = the sender of the SYN (the receiver of a SYN/ACK seen first). Without a handshake the
//   sender of the first segment seen is the client, even when its source port is the well-known
//   one and the destination port is ephemeral: no port heuristics are applied.
// - Offsets are 64-bit stream offsets per direction: 0 is the first byte after the SYN, or the
//   first sequence number seen when the capture starts mid-stream. Bytes before offset 0 are
//   ignored (counted as retransmissions). Sequence numbers are compared wrap-aware (a stream may
//   cross 2^32 any number of times).
// - Retransmission: a segment of which any byte (or its SYN/FIN) had already been received or
//   delivered; only its new bytes are delivered. Out of order: a segment with new bytes starting
//   before the highest sequence number already seen in its direction (it fills a hole).
// - Keep-alive: no SYN/FIN/RST, 0 or 1 byte, at the sender's next sequence number − 1; counted,
//   never delivered. Zero-window probes of the same shape are counted the same way.
// - Zero window: a non-SYN, non-RST ACK from a receiver advertising window 0; one event per
//   period, which ends at the next non-zero window from it (or the last packet at finish).
// - Window full: a data segment bringing the sender's bytes in flight (end − highest ACK) to at
//   least the receiver's window × 2^scale. Only counted when the handshake (and so the window
//   scale) was seen.
// - Duplicate ACK: a pure ACK (no data, no SYN/FIN/RST, window ≠ 0) repeating the sender's
//   previous ACK number and window, while the peer has unacknowledged bytes.
// - Bad checksums are counted and the data is used anyway (offload makes them common).
// - Snaplen: when payload.size() < payload_length the captured part is delivered and the missing
//   tail is a gap (held in order like data when it arrives out of order; a later copy of those
//   bytes counts as a retransmission). payload_length is authoritative; payload bytes beyond it
//   are ignored.
// - Memory: each direction holds at most max_buffered_per_direction bytes out of order, counting
//   each held segment piece as its bytes + kTcpChunkOverhead. When a segment would exceed it, the
//   oldest hole is reported as a gap and the buffered data after it delivered.
// - on_close for a FIN comes once, after the direction's data up to the FIN has been delivered or
//   reported as a gap (so an out-of-order FIN waits); an RST is reported once, when seen.
// Callbacks must not feed the same connection or tracker again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/tcp_segment.h"
#include "util/bytes.h"
#include "util/vocabulary.h"

namespace anthro {

inline constexpr std::size_t kTcpChunkOverhead = 128;  // a map node, a vector and bookkeeping

struct TcpHealth {
  std::uint64_t retransmissions = 0, out_of_order = 0, zero_window_events = 0, window_full_events = 0,
                gaps = 0, gap_bytes = 0, bad_checksums = 0, duplicate_acks = 0, keepalives = 0;
  std::uint64_t client_bad_checksums = 0;  // of bad_checksums, those of the client's segments
  double zero_window_ms = 0;
  bool fin_client = false, fin_server = false, rst = false;
};

struct TcpEvents {
  // In-order NEW bytes, each delivered exactly once; `ts` is when those bytes first arrived (a
  // retransmission never moves it later; bytes buffered out of order keep their own first-arrival
  // time). `offset` is the stream offset of data[0]. `data` is valid only during the call.
  std::function<void(Direction, std::uint64_t offset, ByteView data, double ts)> on_data;
  // Bytes never captured, reported once when the stream moves past them (at finish, when a
  // snaplen cut them, or when buffered data beyond the hole exceeds the per-direction limit).
  // `ts` is the arrival of the segment that showed them missing (the snaplen-cut segment, the
  // data after the hole, or the FIN).
  std::function<void(Direction, std::uint64_t offset, std::uint64_t bytes, double ts)> on_gap;
  // FIN (rst=false) or RST, of the direction's sender.
  std::function<void(Direction, double ts, bool rst)> on_close;
  // The receiver of the direction's bytes advertised window 0 from start to end (ServerToClient: the
  // client's receive buffer was full).
  std::function<void(Direction, double start, double end)> on_zero_window;
  // Direction's sender filled the receiver's whole advertised window (a full receive ring,
  // though the window never reached 0).
  std::function<void(Direction, double ts)> on_window_full;
};

class TcpConnection {
 public:
  // `first` only decides who is the client; it is not processed: feed it too.
  TcpConnection(const TcpSegment& first, TcpEvents events,
                std::size_t max_buffered_per_direction = std::size_t{8} << 20);
  void feed(const TcpSegment& segment);  // either direction; other 4-tuples are ignored
  void finish();  // end of capture: flush what can be delivered, report remaining holes as gaps

  const TcpHealth& health() const { return health_; }
  const IpEndpoint& client() const { return client_; }
  const IpEndpoint& server() const { return server_; }
  std::string name() const;  // "client_ip:port-server_ip:port", IPv6 in brackets
  double first_ts() const { return first_ts_; }
  double last_ts() const { return last_ts_; }
  std::optional<double> syn_ts, synack_ts;  // first SYN and first SYN/ACK, for connect time

  bool finished() const { return finished_; }
  bool closed() const { return health_.rst || (health_.fin_client && health_.fin_server); }
  // Out-of-order bytes held now / at most so far (with kTcpChunkOverhead per piece).
  std::size_t buffered_bytes(Direction dir) const { return stream(dir).buffered; }
  std::size_t peak_buffered_bytes(Direction dir) const { return stream(dir).peak_buffered; }
  std::uint64_t delivered_offset(Direction dir) const { return stream(dir).next; }  // next offset to deliver

 private:
  friend class TcpTracker;

  struct Chunk {
    std::uint64_t end = 0;
    Bytes data;  // empty for a lost (snaplen-cut) piece
    double ts = 0;
    bool lost = false;
  };
  struct Stream {
    bool have_base = false;
    std::uint32_t base = 0;      // sequence number of offset 0
    std::uint64_t next = 0;      // next offset to deliver
    std::uint64_t data_end = 0;  // highest data offset + 1 seen
    std::uint64_t snd_nxt = 0;   // highest sequence offset + 1 seen, counting a FIN
    std::map<std::uint64_t, Chunk> held;  // out-of-order pieces by start offset, disjoint
    std::size_t buffered = 0, peak_buffered = 0;
    bool syn_seen = false;
    std::optional<std::uint32_t> isn;
    std::optional<std::uint8_t> wscale;
    bool fin_seen = false, fin_reported = false, rst_reported = false;
    std::uint64_t fin_off = 0;
    double fin_ts = 0;
    // Acknowledgements and windows sent by the receiver of this stream's bytes.
    bool acked_known = false, rwnd_known = false;
    std::uint64_t acked = 0, rwnd = 0;
    bool zw_open = false;
    double zw_start = 0;
    // The ACKs this stream's sender sends (for duplicate-ACK detection).
    bool sent_ack_known = false;
    std::uint32_t sent_ack = 0;
    std::uint16_t sent_window = 0;

    std::int64_t offset_of(std::uint32_t seq) const;
  };

  const Stream& stream(Direction dir) const { return dir == Direction::ClientToServer ? c2s_ : s2c_; }
  Stream& stream(Direction dir) { return dir == Direction::ClientToServer ? c2s_ : s2c_; }
  bool starts_new_connection(const TcpSegment& segment) const;
  std::optional<std::uint8_t> shift(Direction sender) const;
  void on_ack(Direction dir, const TcpSegment& segment);
  void on_payload(Direction dir, const TcpSegment& segment, std::int64_t start, bool& retransmission);
  void place(Direction dir, std::uint64_t from, std::uint64_t to, const std::uint8_t* data, double ts);
  void skip_hole(Direction dir, std::uint64_t to, double ts);
  void flush(Direction dir);
  void deliver(Direction dir, std::uint64_t offset, ByteView data, double ts);
  void gap(Direction dir, std::uint64_t offset, std::uint64_t bytes, double ts);
  void maybe_close(Direction dir);
  void end_zero_window(Direction dir, double ts);

  TcpEvents events_;
  std::size_t max_buffered_;
  IpEndpoint client_, server_;
  TcpHealth health_;
  double first_ts_ = 0, last_ts_ = 0;
  bool finished_ = false;
  Stream c2s_, s2c_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pieces_;  // on_payload's, kept: no allocation a segment
};

// Many connections: finds or creates a TcpConnection per 4-tuple. A SYN (without ACK) after a
// FIN/RST on the same 4-tuple, or with a different initial sequence number than the
// connection's SYN, finishes the old connection and starts a new one.
class TcpTracker {
 public:
  explicit TcpTracker(std::function<TcpEvents(TcpConnection&)> on_new_connection,
                      std::size_t max_buffered_per_direction = std::size_t{8} << 20);
  void feed(const TcpSegment& segment);
  void finish();
  std::size_t connections() const { return all_.size(); }
  // In order of first appearance, finished ones included.
  const TcpConnection& connection(std::size_t i) const { return *all_.at(i); }
  TcpConnection& connection(std::size_t i) { return *all_.at(i); }

 private:
  std::function<TcpEvents(TcpConnection&)> on_new_connection_;
  std::size_t max_buffered_;
  std::vector<std::unique_ptr<TcpConnection>> all_;
  // Hashed, not ordered: every segment looks its connection up.
  struct TupleHash {
    std::size_t operator()(const std::pair<IpEndpoint, IpEndpoint>& tuple) const;
  };
  std::unordered_map<std::pair<IpEndpoint, IpEndpoint>, std::size_t, TupleHash> current_;  // 4-tuple -> index in all_
};

}  // namespace anthro
