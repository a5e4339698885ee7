// TCP reassembly per connection and direction; see tcp_reassembly.h for the conventions.
#include "capture/tcp_reassembly.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace anthro {

std::string IpEndpoint::text() const {
  char host[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(v6 ? AF_INET6 : AF_INET, address.data(), host, sizeof host)) host[0] = '\0';
  if (v6) return "[" + std::string(host) + "]:" + std::to_string(port);
  return std::string(host) + ":" + std::to_string(port);
}

namespace {

constexpr std::uint8_t kMaxWindowShift = 14;  // RFC 7323 §2.3

Direction other(Direction dir) {
  return dir == Direction::ClientToServer ? Direction::ServerToClient : Direction::ClientToServer;
}

}  // namespace

// Wrap-aware: the sequence number nearest (within ±2^31) to the sender's next one.
std::int64_t TcpConnection::Stream::offset_of(std::uint32_t seq) const {
  auto reference = static_cast<std::uint32_t>(base + static_cast<std::uint32_t>(snd_nxt));
  auto delta = static_cast<std::int32_t>(seq - reference);
  return static_cast<std::int64_t>(snd_nxt) + delta;
}

TcpConnection::TcpConnection(const TcpSegment& first, TcpEvents events,
                             std::size_t max_buffered_per_direction)
    : events_(std::move(events)),
      max_buffered_(max_buffered_per_direction),
      first_ts_(first.ts),
      last_ts_(first.ts) {
  bool synack = (first.flags & kSyn) && (first.flags & kAck);
  client_ = synack ? first.dst : first.src;
  server_ = synack ? first.src : first.dst;
}

std::string TcpConnection::name() const { return client_.text() + "-" + server_.text(); }

// The window shift a sender applies to the windows it advertises: known once both SYNs were
// seen, and 0 unless both carried the option.
std::optional<std::uint8_t> TcpConnection::shift(Direction sender) const {
  if (!c2s_.syn_seen || !s2c_.syn_seen) return std::nullopt;
  if (!c2s_.wscale || !s2c_.wscale) return std::uint8_t{0};
  return std::min(*stream(sender).wscale, kMaxWindowShift);
}

bool TcpConnection::starts_new_connection(const TcpSegment& segment) const {
  if (!(segment.flags & kSyn) || (segment.flags & kAck)) return false;
  if (health_.rst || health_.fin_client || health_.fin_server) return true;
  const Stream& sender = segment.src == client_ ? c2s_ : s2c_;
  return sender.isn && *sender.isn != segment.seq;
}

void TcpConnection::feed(const TcpSegment& segment) {
  if (finished_) return;
  Direction dir;
  if (segment.src == client_ && segment.dst == server_)
    dir = Direction::ClientToServer;
  else if (segment.src == server_ && segment.dst == client_)
    dir = Direction::ServerToClient;
  else
    return;
  first_ts_ = std::min(first_ts_, segment.ts);
  last_ts_ = std::max(last_ts_, segment.ts);
  if (segment.checksum_checked && !segment.checksum_ok) {
    ++health_.bad_checksums;
    if (dir == Direction::ClientToServer) ++health_.client_bad_checksums;
  }

  Stream& me = stream(dir);
  const bool syn = segment.flags & kSyn;
  const bool fin = segment.flags & kFin;
  bool retransmission = false;
  if (syn) {
    if (segment.flags & kAck) {
      if (!synack_ts) synack_ts = segment.ts;
    } else if (!syn_ts) {
      syn_ts = segment.ts;
    }
    if (!me.syn_seen) {
      me.syn_seen = true;
      me.isn = segment.seq;
      me.wscale = segment.window_scale;
      if (!me.have_base) {
        me.have_base = true;
        me.base = segment.seq + 1;  // the SYN takes one sequence number
      }
    } else if (me.isn == segment.seq) {
      retransmission = true;
    }
  }
  if (!me.have_base) {  // mid-stream: the first sequence number seen is offset 0
    me.have_base = true;
    me.base = segment.seq;
  }

  if (segment.flags & kRst) {
    health_.rst = true;
    if (!me.rst_reported) {
      me.rst_reported = true;
      if (events_.on_close) events_.on_close(dir, segment.ts, true);
    }
    return;
  }
  if (syn || (segment.flags & kAck)) on_ack(dir, segment);

  const std::int64_t start = me.offset_of(segment.seq) + (syn ? 1 : 0);
  const bool keepalive = !syn && !fin && segment.payload_length <= 1 && me.snd_nxt >= 1 &&
                         start == static_cast<std::int64_t>(me.snd_nxt) - 1;
  if (keepalive) {
    ++health_.keepalives;
    return;
  }
  if (segment.payload_length > 0) on_payload(dir, segment, start, retransmission);
  if (fin) {
    const std::int64_t at = start + segment.payload_length;
    if (at >= 0 && !me.fin_seen) {
      me.fin_seen = true;
      me.fin_off = static_cast<std::uint64_t>(at);
      me.fin_ts = segment.ts;
      (dir == Direction::ClientToServer ? health_.fin_client : health_.fin_server) = true;
      me.snd_nxt = std::max(me.snd_nxt, me.fin_off + 1);  // the FIN takes one sequence number
      maybe_close(dir);
    } else if (at >= 0 && static_cast<std::uint64_t>(at) == me.fin_off) {
      retransmission = true;
    }
  }
  if (retransmission) ++health_.retransmissions;
}

// Windows and acknowledgements that `dir`'s sender advertises about the bytes it receives.
void TcpConnection::on_ack(Direction dir, const TcpSegment& segment) {
  const Direction data_dir = other(dir);
  Stream& data = stream(data_dir);
  Stream& me = stream(dir);
  const bool syn = segment.flags & kSyn;
  // Windows in SYNs are never scaled; later ones by the sender's shift, raw when unknown.
  data.rwnd = syn ? std::uint64_t{segment.window}
                  : std::uint64_t{segment.window} << shift(dir).value_or(0);
  data.rwnd_known = true;
  if (!(segment.flags & kAck)) return;
  if (!syn) {
    if (segment.window == 0) {
      if (!data.zw_open) {
        data.zw_open = true;
        data.zw_start = segment.ts;
        ++health_.zero_window_events;
      }
    } else {
      end_zero_window(data_dir, segment.ts);
    }
  }

  std::optional<std::uint64_t> acked;
  if (data.have_base) {
    const std::int64_t at = data.offset_of(segment.ack);
    if (at >= 0) {
      acked = static_cast<std::uint64_t>(at);
      if (!data.acked_known || *acked > data.acked) data.acked = *acked;
      data.acked_known = true;
    }
  }
  const bool pure = segment.payload_length == 0 && !(segment.flags & (kSyn | kFin | kRst));
  if (pure && me.sent_ack_known && segment.window != 0 && segment.window == me.sent_window &&
      segment.ack == me.sent_ack && me.offset_of(segment.seq) == static_cast<std::int64_t>(me.snd_nxt) &&
      acked && *acked < data.snd_nxt)
    ++health_.duplicate_acks;
  me.sent_ack_known = true;
  me.sent_ack = segment.ack;
  me.sent_window = segment.window;
}

void TcpConnection::on_payload(Direction dir, const TcpSegment& segment, std::int64_t start,
                               bool& retransmission) {
  Stream& me = stream(dir);
  const std::int64_t end = start + segment.payload_length;
  if (end <= 0) {  // entirely before this stream's offset 0
    retransmission = true;
    return;
  }
  if (start < 0) retransmission = true;
  std::uint64_t from = static_cast<std::uint64_t>(std::max<std::int64_t>(start, 0));
  const auto to = static_cast<std::uint64_t>(end);
  if (from < me.next) {
    retransmission = true;
    from = std::min(me.next, to);
  }

  // The ranges of [from, to) not yet received.
  auto& pieces = pieces_;
  pieces.clear();
  if (from < to) {
    auto it = me.held.upper_bound(from);
    if (it != me.held.begin() && std::prev(it)->second.end > from) --it;
    std::uint64_t cursor = from;
    for (; it != me.held.end() && it->first < to; ++it) {
      if (it->first > cursor) pieces.emplace_back(cursor, it->first);
      retransmission = true;
      cursor = std::max(cursor, it->second.end);
    }
    if (cursor < to) pieces.emplace_back(cursor, to);
  }
  if (!pieces.empty()) {
    if (pieces.front().first < me.data_end) ++health_.out_of_order;
    if (to > me.data_end && shift(dir) && me.rwnd_known && me.acked_known && me.rwnd > 0 &&
        to > me.acked && to - me.acked >= me.rwnd) {
      ++health_.window_full_events;
      if (events_.on_window_full) events_.on_window_full(dir, segment.ts);
    }
  }
  me.data_end = std::max(me.data_end, to);
  me.snd_nxt = std::max(me.snd_nxt, to);

  const std::size_t captured = std::min<std::size_t>(segment.payload.size(), segment.payload_length);
  const auto captured_end = static_cast<std::uint64_t>(std::max<std::int64_t>(
      start + static_cast<std::int64_t>(captured), 0));
  for (auto [p, q] : pieces) {
    if (p < captured_end) {
      const std::uint64_t data_end = std::min(q, captured_end);
      const auto index = static_cast<std::size_t>(static_cast<std::int64_t>(p) - start);
      place(dir, p, data_end, segment.payload.data() + index, segment.ts);
    }
    if (std::max(p, captured_end) < q) place(dir, std::max(p, captured_end), q, nullptr, segment.ts);
  }
}

// New bytes [from, to) (data == nullptr: cut by the snaplen): delivered when in order, else
// held, making room first by giving up the oldest holes.
void TcpConnection::place(Direction dir, std::uint64_t from, std::uint64_t to, const std::uint8_t* data,
                          double ts) {
  Stream& me = stream(dir);
  const std::size_t cost = kTcpChunkOverhead + (data ? static_cast<std::size_t>(to - from) : 0);
  while (from > me.next && me.buffered + cost > max_buffered_) {
    auto first = me.held.begin();
    if (first != me.held.end() && first->first < from)
      skip_hole(dir, first->first, first->second.ts);
    else
      skip_hole(dir, from, ts);
  }
  if (from <= me.next) {
    const std::uint64_t skip = me.next - from;
    if (skip < to - from) {
      if (data)
        deliver(dir, me.next, ByteView(data + skip, static_cast<std::size_t>(to - me.next)), ts);
      else
        gap(dir, me.next, to - me.next, ts);
      me.next = to;
    }
    flush(dir);
    return;
  }
  Chunk chunk;
  chunk.end = to;
  if (data) chunk.data.assign(data, data + (to - from));
  chunk.ts = ts;
  chunk.lost = !data;
  me.held.emplace(from, std::move(chunk));
  me.buffered += cost;
  me.peak_buffered = std::max(me.peak_buffered, me.buffered);
}

// Gives up the bytes up to `to` as never captured, then delivers what follows in order.
void TcpConnection::skip_hole(Direction dir, std::uint64_t to, double ts) {
  Stream& me = stream(dir);
  if (to > me.next) {
    gap(dir, me.next, to - me.next, ts);
    me.next = to;
  }
  flush(dir);
}

void TcpConnection::flush(Direction dir) {
  Stream& me = stream(dir);
  while (!me.held.empty() && me.held.begin()->first <= me.next) {
    auto node = me.held.extract(me.held.begin());
    const std::uint64_t from = node.key();
    Chunk& chunk = node.mapped();
    me.buffered -= kTcpChunkOverhead + chunk.data.size();
    if (chunk.end <= me.next) continue;
    const std::uint64_t skip = me.next - from;
    if (chunk.lost)
      gap(dir, me.next, chunk.end - me.next, chunk.ts);
    else
      deliver(dir, me.next, ByteView(chunk.data).subspan(static_cast<std::size_t>(skip)), chunk.ts);
    me.next = chunk.end;
  }
  maybe_close(dir);
}

void TcpConnection::deliver(Direction dir, std::uint64_t offset, ByteView data, double ts) {
  if (events_.on_data && !data.empty()) events_.on_data(dir, offset, data, ts);
}

void TcpConnection::gap(Direction dir, std::uint64_t offset, std::uint64_t bytes, double ts) {
  ++health_.gaps;
  health_.gap_bytes += bytes;
  if (events_.on_gap) events_.on_gap(dir, offset, bytes, ts);
}

void TcpConnection::maybe_close(Direction dir) {
  Stream& me = stream(dir);
  if (!me.fin_seen || me.fin_reported || me.next < me.fin_off) return;
  me.fin_reported = true;
  if (events_.on_close) events_.on_close(dir, me.fin_ts, false);
}

void TcpConnection::end_zero_window(Direction dir, double ts) {
  Stream& data = stream(dir);
  if (!data.zw_open) return;
  data.zw_open = false;
  const double end = std::max(ts, data.zw_start);
  health_.zero_window_ms += (end - data.zw_start) * 1000.0;
  if (events_.on_zero_window) events_.on_zero_window(dir, data.zw_start, end);
}

void TcpConnection::finish() {
  if (finished_) return;
  for (Direction dir : {Direction::ClientToServer, Direction::ServerToClient}) {
    Stream& me = stream(dir);
    while (!me.held.empty()) skip_hole(dir, me.held.begin()->first, me.held.begin()->second.ts);
    if (me.fin_seen && me.fin_off > me.next) skip_hole(dir, me.fin_off, me.fin_ts);
    maybe_close(dir);
    end_zero_window(dir, last_ts_);
  }
  finished_ = true;
}

TcpTracker::TcpTracker(std::function<TcpEvents(TcpConnection&)> on_new_connection,
                       std::size_t max_buffered_per_direction)
    : on_new_connection_(std::move(on_new_connection)), max_buffered_(max_buffered_per_direction) {}

std::size_t TcpTracker::TupleHash::operator()(const std::pair<IpEndpoint, IpEndpoint>& tuple) const {
  std::uint64_t h = 0;
  for (const IpEndpoint* e : {&tuple.first, &tuple.second}) {
    std::uint64_t half[2];
    std::memcpy(half, e->address.data(), sizeof half);
    for (std::uint64_t word : {half[0], half[1], std::uint64_t{e->port} << 1 | e->v6})
      h = (h ^ word) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing's multiplier: every bit reaches the top
  }
  return static_cast<std::size_t>(h ^ h >> 32);
}

void TcpTracker::feed(const TcpSegment& segment) {
  auto key = segment.src < segment.dst ? std::make_pair(segment.src, segment.dst)
                                       : std::make_pair(segment.dst, segment.src);
  if (auto it = current_.find(key); it != current_.end()) {
    TcpConnection& existing = *all_[it->second];
    if (!existing.starts_new_connection(segment)) {
      existing.feed(segment);
      return;
    }
    existing.finish();
  }
  all_.push_back(std::make_unique<TcpConnection>(segment, TcpEvents{}, max_buffered_));
  current_[key] = all_.size() - 1;
  TcpConnection& connection = *all_.back();
  if (on_new_connection_) connection.events_ = on_new_connection_(connection);
  connection.feed(segment);
}

void TcpTracker::finish() {
  for (auto& connection : all_) connection->finish();
}

}  // namespace anthro
