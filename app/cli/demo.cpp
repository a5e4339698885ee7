// `anthro-wb demo`: both peers of a lab-mode conversation in one process, then a passive
// decoder that holds only the server's static key reads the bytes back one at a time.
#include <iostream>

#include "cli/commands.h"
#include "crypto/keylog.h"
#include "protocol/describe.h"
#include "protocol/stream_decoder.h"

namespace anthro::cli {
namespace {

Blob make_offer(const X25519KeyPair& client) {
  Blob offer;
  offer.max_streams = 4;
  offer.flags = kFlagStreaming;
  random_bytes(reinterpret_cast<std::uint8_t*>(&offer.connection_token), 8);
  offer.connection_token |= 1;  // never zero
  offer.x25519_public = client.public_key;
  random_bytes(offer.random.data(), offer.random.size());
  return offer;
}

Blob make_answer(const Blob& offer, const X25519KeyPair& server) {
  Blob answer = offer;
  answer.role = kRoleAnswer;
  answer.max_streams = std::min<std::uint16_t>(offer.max_streams, 2);
  answer.aead = kSuiteAes256Gcm;
  answer.x25519_public = server.public_key;
  random_bytes(answer.random.data(), answer.random.size());
  return answer;
}

void append_preface(Bytes& stream, const Blob& blob) {
  append(stream, as_bytes(kPrefaceMagic));
  append(stream, encode_blob(blob));
}

void print_frame(const FrameEvent& e) {
  std::cout << "  " << to_string(e.dir) << " @" << e.offset << " " << to_string(e.header.frame_type());
  if (e.body) std::cout << " stream " << body_stream_id(*e.body) << " " << describe_body(*e.body);
  std::cout << " [" << describe_status(e) << "]\n";
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cerr << "anthro-wb demo: takes no arguments (got '" << args[0] << "')\n";
    return 2;
  }
  X25519KeyPair server = generate_x25519(), client = generate_x25519();
  Blob offer = make_offer(client);
  if (auto r = check_offer(encode_blob(offer))) return std::cerr << r->detail << "\n", 1;
  Blob answer = make_answer(offer, server);
  if (auto r = check_answer(offer, encode_blob(answer))) return std::cerr << r->detail << "\n", 1;
  FrameKeys client_keys = *client_frame_keys(client.private_key, offer, answer);
  FrameKeys server_keys = *server_frame_keys(server.private_key, offer);
  std::cout << "negotiated token " << token_hex(offer.connection_token) << ", suite aes-256-gcm, keys "
            << (client_keys == server_keys ? "agree" : "DISAGREE") << "\n"
            << format_anthro_line(offer.connection_token, client_keys) << "\n";

  Bytes c2s, s2c;
  append_preface(c2s, offer);
  append_preface(s2c, answer);
  Aead client_aead(Suite::Aes256Gcm, client_keys.c2s), server_aead(Suite::Aes256Gcm, server_keys.s2c);
  NonceSequence client_nonces, server_nonces;
  RequestSpec request;
  request.model = "claude-3-haiku-20240307";
  request.messages = {{"user", "Say hello 👋"}};
  request.api_key = "sk-demo-secret";
  seal_frame(client_aead, FrameType::Request, kFlagStreaming, offer.connection_token, client_nonces.next(),
             encode_request(1, request), c2s);
  const char* tokens[] = {"Hello", ",", " world", "!"};
  for (std::uint32_t i = 0; i < 4; ++i)
    seal_frame(server_aead, FrameType::StreamToken, kFlagStreaming, offer.connection_token,
               server_nonces.next(), encode_token(1, i, 1, as_bytes(tokens[i])), s2c);
  ResponseSpec response{"msg_demo", request.model, StopReason::EndTurn, std::nullopt, 4, 4, Timing{}};
  seal_frame(server_aead, FrameType::Response, kFlagStreaming, offer.connection_token, server_nonces.next(),
             encode_response(1, response), s2c);

  std::cout << "decoding " << c2s.size() << " + " << s2c.size()
            << " bytes one byte at a time, holding only the server's static key:\n";
  KeyRing ring;
  ring.add_server_key(server.private_key);
  int refused = 0;
  ConnectionDecoder decoder(ring, {[](Direction d, const Blob& b, std::optional<BlobRefusal> r) {
                                     std::cout << "  " << to_string(d) << " blob role " << int(b.role)
                                               << (r ? " refused: " + r->detail : " valid") << "\n";
                                   },
                                   [&](const FrameEvent& e) { refused += e.refusal.has_value(); print_frame(e); },
                                   nullptr});
  for (auto [dir, bytes] : {std::pair{Direction::ClientToServer, &c2s}, std::pair{Direction::ServerToClient, &s2c}})
    for (std::uint8_t b : *bytes) decoder.feed(dir, ByteView(&b, 1));
  decoder.finish();
  return refused == 0 ? 0 : 1;
}

}  // namespace anthro::cli
