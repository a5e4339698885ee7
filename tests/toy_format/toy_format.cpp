#include "toy_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <optional>
#include <string>

#include "diagnosis/probe_kit.h"
#include "profile/profile.h"

namespace anthro::toy {
namespace {

constexpr std::string_view kTypes[] = {"TOY_HELLO", "TOY_AUTH", "TOY_SAY", "TOY_BYE", "TOY_UNREADABLE"};
constexpr std::string_view kVerbs[] = {"HELLO", "AUTH", "SAY", "BYE"};
constexpr std::string_view kColumns[] = {"Toy text"};

// "VERB STREAM TEXT" without its newline, cut at its spaces; nullopt for anything else.
struct Line {
  std::uint8_t type;
  std::uint32_t stream;
  std::size_t text_at;  // where TEXT starts
};

std::optional<Line> parse_line(std::string_view line) {
  const std::size_t a = line.find(' '), b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  auto verb = std::ranges::find(kVerbs, line.substr(0, a));
  std::uint32_t stream = 0;
  auto [end, ec] = std::from_chars(line.data() + a + 1, line.data() + b, stream);
  if (verb == std::end(kVerbs) || ec != std::errc() || end != line.data() + b) return std::nullopt;
  return Line{static_cast<std::uint8_t>(verb - std::begin(kVerbs)), stream, b + 1};
}

class Dissector : public ConnectionDissector {
 public:
  void feed(Direction dir, ByteView data, double ts, const DissectedSink& emit) override {
    Side& s = sides_[dir == Direction::ClientToServer ? 0 : 1];
    for (std::uint8_t byte : data) {
      if (s.stopped) return;
      s.line.push_back(byte);
      if (byte != '\n' && s.line.size() <= kMaxLine) continue;
      cut(s, dir, ts, emit);
    }
  }
  // A line cut off by the connection's end is left unreported: nothing of it was complete.
  void finish(std::optional<double>, const DissectedSink&) override {}

 private:
  struct Side {
    Bytes line;  // at most kMaxLine + 1 bytes
    std::uint64_t offset = 0;
    bool stopped = false;
  };

  void cut(Side& s, Direction dir, double ts, const DissectedSink& emit) {
    DissectedFrame f;
    f.dir = dir, f.ts = ts, f.offset = s.offset, f.bytes = s.line;
    const std::string_view text(reinterpret_cast<const char*>(s.line.data()), s.line.size() - 1);
    auto line = s.line.back() == '\n' ? parse_line(text) : std::nullopt;
    if (!line) {
      f.refusal = s.line.back() == '\n' ? "not VERB STREAM TEXT" : "a line longer than " + std::to_string(kMaxLine) + " bytes";
      f.type = 4;
      s.stopped = true;
    } else {
      f.type = line->type;
      f.stream = line->stream;
      if (kVerbs[line->type] == "AUTH") f.secrets.emplace_back(line->text_at, text.size());
    }
    emit(f);
    s.offset += s.line.size();
    s.line.clear();
  }

  std::array<Side, 2> sides_;
};

KeptFrameView describe(const KeptFrame& kept) {
  // The kept bytes are read again, as hostile as on the wire: a refused line shows nothing, and
  // the verb is the one the bytes spell, whatever type the row holds.
  KeptFrameView v;
  const std::string_view text(reinterpret_cast<const char*>(kept.bytes.data()), kept.bytes.empty() ? 0 : kept.bytes.size() - 1);
  auto line = kept.refused ? std::nullopt : parse_line(text);
  if (!line) return v;
  const std::uint8_t type = line->type;
  const std::string said(text.substr(line->text_at));
  v.fields = {{"verb", std::string(kVerbs[type]), 0, text.find(' ')},
              {"stream", std::to_string(line->stream), text.find(' ') + 1, line->text_at - 1},
              {"text", said, line->text_at, text.size()}};
  v.summary = std::string(kVerbs[type]) + " #" + std::to_string(line->stream) + " " + said;
  v.columns = {said};
  return v;
}

bool recognise(ByteView first) {
  constexpr std::string_view kHello = "HELLO 0 toy/1";
  return as_text(first).substr(0, kHello.size()) == kHello;
}

// Its probe's texts, registered with it (util/message.h).
const MessageTemplate kMessages[] = {
    {"toy.crossed", "toy connections", "toy 连接"},
    {"toy.pass", "{n} toy connections", "{n} 个 toy 连接"},
};

// How many connections spoke the toy format; the threshold warns above its value.
void count_connections(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  const Profile* toy = find_profile(kName);
  const auto n = static_cast<std::size_t>(std::ranges::count_if(
      o.connections, [toy](const ObservedConnection& c) { return toy && c.profile == toy->id; }));
  probe_kit::Judge judge(item, r);
  if (!judge.enough(n)) return;
  judge.show("connections", static_cast<double>(n), "");
  judge.check("max", static_cast<double>(n), Message("toy.crossed"));
  judge.finish(Message("toy.pass", {{"n", std::to_string(n)}}));
}

[[maybe_unused]] const bool registered = [] {
  const Profile& toy = register_profile(Profile{.id = {}, .name = kName, .display_name = "Toy", .alpn = {}, .recognise = recognise,
                           .schemes = {}, .checklist_id = {}, .rollout_plan_id = {}, .rides_on = {},
                           .dissect = [] { return std::unique_ptr<ConnectionDissector>(new Dissector); },
                           .describe = describe, .frame_types = kTypes, .columns = kColumns});
  probe_kit::register_probe(std::string(kProbe), count_connections, toy.id);
  register_messages(kMessages);
  return true;
}();

}  // namespace
}  // namespace anthro::toy
