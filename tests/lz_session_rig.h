// The rigs of tests/test_layer_zero_session.cpp: a server and a client engine on clocks the test
// moves, the vectors' frames and token, and readers of what the engines wrote.
#pragma once

#include <QFloat16>
#include <QTest>

#include <memory>
#include <string>
#include <vector>

#include "layerzero/session.h"
#include "profiles_vectors.h"

namespace anthro::test {

using namespace anthro::lz;
using nlohmann::json;

inline const json& lz_vectors() { return test::profiles_vectors("layer_zero"); }
inline const json& frame_vector(const std::string& name) { return test::lz_frame_vector(name); }

inline Bytes wire(const std::string& name) { return test::hex(frame_vector(name)["frame"]); }
inline std::string text_of(const std::string& name) { return std::string(as_text(test::hex(frame_vector(name)["payload"]))); }

inline std::uint64_t vec_u64(const json& v) { return v.get<std::uint64_t>(); }

inline SessionToken token_of(const json& hex) { return test::lz_token_of(hex); }
inline SessionTerms vector_terms() { return test::lz_vector_terms(); }

inline SessionId vector_session_id() { return *from_hex_array<kSessionIdSize>(lz_vectors()["session_id"].get<std::string>()); }

// A payload field of a vector frame, read at a fixed offset (the ACK's server time).
inline std::uint64_t ack_server_time(const std::string& name) {
  const Bytes p = test::hex(frame_vector(name)["payload"]);
  return load_u64(p.data() + kTokenSize + 4);
}

inline Bytes terminate_frame(std::uint32_t seq, TerminateReason reason) {
  Bytes payload;
  append_u16(payload, static_cast<std::uint16_t>(reason));
  return *encode_frame(seq, PayloadType::Terminate, payload);
}

// A server with the vectors' token key and session id, on a clock the test moves.
struct ServerRig {
  std::uint64_t now = vec_u64(lz_vectors()["issued_ns"]);
  ServerConfig config;
  SessionStore store;
  ServerRig() {
    config.token_keys = {test::key32(lz_vectors()["token_key"])};
    config.clock = [this] { return now; };
    config.new_session_id = [] { return vector_session_id(); };
  }
  std::unique_ptr<ServerConnection> connect() { return std::make_unique<ServerConnection>(config, store); }
};

struct ClientRig {
  std::uint64_t now = vec_u64(lz_vectors()["issued_ns"]);
  ClientSession client;
  ClientRig(SessionTerms terms = vector_terms()) : client(ClientConfig{std::move(terms), [this] { return now; }}) {}
};

struct Fed {
  Bytes out;
  std::vector<Event> events;
};

// Feeds `bytes` a piece at a time (byte by byte with piece 1): the engines see TCP's cuts.
template <class Side>
inline Fed feed(Side& side, ByteView bytes, std::size_t piece = 4096) {
  Fed f;
  for (std::size_t at = 0; at < bytes.size(); at += piece) side.receive(bytes.subspan(at, std::min(piece, bytes.size() - at)), f.out, f.events);
  return f;
}

inline std::vector<EventKind> kinds(const std::vector<Event>& events) {
  std::vector<EventKind> k;
  for (const auto& e : events) k.push_back(e.kind);
  return k;
}

// The frames in server or client output, checked by the codec.
inline std::vector<DataFrame> frames_in(ByteView bytes, Direction dir) {
  std::vector<DataFrame> frames;
  FrameSplitter s(dir);
  auto refusal = s.feed(bytes, [&](const FrameView& f) { frames.push_back(f.to_frame()); });
  if (refusal || s.finish()) qFatal("engine output does not split into frames");
  return frames;
}

inline Bytes resume_init(const SessionToken& token, std::uint32_t last_server, std::uint64_t client_time) {
  SessionInit init{vector_terms(), ResumeFields{token, last_server, client_time}};
  return *encode_frame(0, PayloadType::SessionInit, *encode_payload(init));
}

// A server that served the vector conversation up to the cut: INIT, input 1, heartbeat 2 in;
// outputs 1 and 2 and the tool call 3 out.
inline std::unique_ptr<ServerConnection> serve_until_cut(ServerRig& rig) {
  auto conn = rig.connect();
  Bytes out;
  std::vector<Event> events;
  conn->receive(wire("session_init"), out, events);
  conn->receive(wire("user_input"), out, events);
  conn->send_output(text_of("model_output"), out);
  conn->receive(wire("heartbeat_client_full"), out, events);
  conn->send_output(text_of("model_output_small_after_backpressure"), out);
  const Bytes call = test::hex(frame_vector("tool_call")["payload"]);
  conn->send_tool_call(*decode_tool_call(call), out);
  return conn;
}

}  // namespace anthro::test
