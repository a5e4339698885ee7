// What every probe of a checklist uses: the Judge that turns statistics into a verdict, the
// evidence references, and number formatting. Shared by the latency checklist's probes
// (evaluate.cpp) and those the formats register from their folders (register_probe).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "diagnosis/diagnosis.h"

namespace anthro::probe_kit {

inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// "p99 > 800 ms → fail; stddev/median > 0.5 → warn", in any language.
inline MessageText threshold_messages(const ChecklistItem& item) {
  MessageText out;
  for (const auto& t : item.thresholds)
    out.push_back(Message("threshold.line", {{"name", t.name},
                                             {"compare", t.compare == Compare::Above ? ">" : "<"},
                                             {"value", number(t.value) + (t.unit.empty() ? "" : " " + t.unit)}})
                      .with("verdict", {Message(std::string("verdict.") + to_string(t.verdict))}));
  return out;
}

inline std::string count(std::size_t n) { return std::to_string(n); }

// A unit word of a checklist ("requests") in the catalogue's words when it has them.
inline MessageText unit_text(const std::string& word) {
  if (has_message("unit." + word)) return {Message("unit." + word)};
  return {Message("plain", {{"text", word}})};
}

// Collects an item's verdict: enough samples, then each threshold the statistics cross.
class Judge {
 public:
  Judge(const ChecklistItem& item, ItemResult& r) : item_(item), r_(r) {}

  // False (and inconclusive, with the number still needed) when n is below the item's minimum.
  bool enough(std::size_t n) {
    r_.n = n;
    if (n >= item_.min_n && n > 0) return true;
    r_.verdict = Verdict::Inconclusive;
    r_.need_more = std::max<std::size_t>(item_.min_n, 1) - n;
    r_.reason_text = {Message("probe.need_more", {{"need", count(r_.need_more)},
                                                  {"unit", unit_text(item_.n_unit.empty() ? "samples" : item_.n_unit)},
                                                  {"have", count(n)}})};
    return false;
  }

  // The statistic shown for the item; `name` says what it is.
  void show(std::string name, double value, std::string unit) {
    r_.statistic_name = std::move(name);
    r_.statistic = value;
    r_.unit = std::move(unit);
  }

  // `value` against the threshold `name`; `what` describes the value for the reason line.
  void check(std::string_view name, double value, Message what) {
    const Threshold* t = item_.threshold(name);
    if (!t || !t->crossed(value)) return;
    if (severity(t->verdict) > severity(verdict_)) verdict_ = t->verdict;
    crossed_.push_back(Message("probe.crossed", {{"what", {std::move(what)}},
                                                 {"value", number(value)},
                                                 {"unit", t->unit.empty() ? MessageText{} : MessageText{Message("probe.unit", {{"unit", unit_text(t->unit)}})}},
                                                 {"compare", t->compare == Compare::Above ? ">" : "<"},
                                                 {"limit", number(t->value)}}));
  }
  void flag(Verdict v, Message why) {
    if (severity(v) > severity(verdict_)) verdict_ = v;
    crossed_.push_back(std::move(why));
  }

  void finish(MessageText pass_reason) {
    r_.verdict = verdict_;
    r_.reason_text = verdict_ == Verdict::Pass ? std::move(pass_reason) : crossed_;
  }
  void finish(Message pass_reason) { finish(MessageText{std::move(pass_reason)}); }

 private:
  const ChecklistItem& item_;
  ItemResult& r_;
  Verdict verdict_ = Verdict::Pass;
  MessageText crossed_;
};

using Probe = std::function<void(const ChecklistItem&, const Observations&, ItemResult&)>;

inline bool ordinary(const ObservedRequest& q) { return !q.record().probe && q.record().timeline.request_written > 0; }
// Request i got its answer: a RESPONSE, or an error; answered_ok, a RESPONSE and no error.
inline bool answered(const Observations& o, std::size_t i) {
  const RequestResult& r = o.requests[i].record();
  return r.end == RequestEnd::Response || r.error_code;
}
inline bool answered_ok(const Observations& o, std::size_t i) {
  const RequestResult& r = o.requests[i].record();
  return r.end == RequestEnd::Response && !r.error_code;
}

inline EvidenceRef ref_of(const Observations& o, std::size_t index, std::optional<double> value = std::nullopt) {
  const ObservedRequest& q = o.requests[index];
  EvidenceRef ref;
  if (q.connection < o.connections.size()) ref.conn = o.connections[q.connection].name;
  if (q.record().stream_id) ref.stream_id = q.record().stream_id;
  ref.request = index;
  ref.value = value;
  ref.packets = q.record().packets;
  return ref;
}

// Keeps the worst references (largest value first), at most ItemResult::kMaxRefs.
inline void keep_refs(ItemResult& r, std::vector<EvidenceRef> refs) {
  std::stable_sort(refs.begin(), refs.end(),
                   [](const EvidenceRef& a, const EvidenceRef& b) { return a.value.value_or(0) > b.value.value_or(0); });
  if (refs.size() > ItemResult::kMaxRefs) refs.resize(ItemResult::kMaxRefs);
  r.refs = std::move(refs);
}

inline bool overlaps(const std::vector<std::pair<double, double>>& windows, double from, double to) {
  return std::any_of(windows.begin(), windows.end(), [&](const auto& w) { return w.first <= to && w.second >= from; });
}

// A stream during which the client's ring was full: live from the buffer's high-water mark,
// captured from the client's zero windows.
inline bool ring_full(const Observations& o, const ObservedRequest& q) {
  const RequestResult& s = q.record();
  if (s.ring_capacity > 0 && s.ring_high_water * 10 >= s.ring_capacity * 9) return true;
  if (q.connection >= o.connections.size()) return false;
  double end = s.timeline.end.value_or(s.timeline.request_written + (s.figures.e2e_ms.value_or(0) / 1000));
  return overlaps(o.connections[q.connection].client_zero_windows, s.timeline.request_written, end);
}

inline std::string pct(double fraction) { return number(fraction * 100) + " %"; }

// Adds a message to the item's reason ("; " between).
inline void add_reason(ItemResult& r, Message m) { r.reason_text.push_back(std::move(m)); }

// Any checklist's probe (evaluate.cpp holds the latency checklist's), or one a wire format
// registered; null when none has it.
const Probe* find_probe(std::string_view name);
// A wire format's probe, for checklists to name (from its folder, as it registers its profile):
// `owner` is the format whose client measures it, turned on when a checklist names the probe
// (its live workload, register_live_workload, or its live HTTP rider). A name some probe already
// has throws.
void register_probe(const std::string& name, Probe probe, ProfileId owner);
// The format that registered probe `name`; none for a built-in one.
std::optional<ProfileId> probe_owner(std::string_view name);

}  // namespace anthro::probe_kit
