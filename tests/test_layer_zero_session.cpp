// Layer Zero sessions without sockets (core/layerzero/session.h) against the
// profiles' vectors: a fresh session and its resume reproduce the vector conversation byte for
// byte from both sides (token, ACKs, resent frames with their original ids), the clock-skew,
// expired and tampered resumes are refused with their TERMINATE, every negative frame ends the
// connection with its reason, repeats are counted and not delivered, backpressure cuts chunks
// only under 0x10, heartbeats keep their cadence and tool results count only within budget × 0.8;
// the key is checked before any session, a flood cannot push out a valid token, and every
// TERMINATE takes an id of its own.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include <algorithm>
#include <random>

#include "lz_session_rig.h"

using namespace anthro;
using namespace anthro::lz;
using namespace anthro::test;
using nlohmann::json;

class TestLayerZeroSession : public QObject {
  Q_OBJECT

 private slots:
  void server_fresh_session_gives_the_vector_token_and_frames() {
    ServerRig rig;
    auto conn = rig.connect();
    Fed f = feed(*conn, wire("session_init"), 1);
    QCOMPARE(conn->state(), LinkState::Open);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Opened});
    auto ack = decode_frame(f.out, Direction::ServerToClient);
    QVERIFY(ack.ok());
    QCOMPARE(ack->size, f.out.size());
    QCOMPARE(ack->frame.type, PayloadType::SessionAck);
    auto fields = decode_session_ack(ack->frame.payload);
    QVERIFY(fields.ok());
    QCOMPARE(fields->token, token_of(lz_vectors()["session_token"]));
    QCOMPARE(fields->last_client_sequence_id, 0u);
    QCOMPARE(fields->server_time_ns, rig.now);
    QCOMPARE(rig.store.size(), std::size_t{1});

    f = feed(*conn, wire("user_input"));
    QCOMPARE(f.events.size(), std::size_t{1});
    QCOMPARE(f.events[0].kind, EventKind::Input);
    QCOMPARE(f.events[0].sequence_id, 1u);
    QCOMPARE(f.events[0].text, text_of("user_input"));
    Bytes out;
    QVERIFY(conn->send_output(text_of("model_output"), out));
    QCOMPARE(to_hex(out), to_hex(wire("model_output")));

    f = feed(*conn, wire("heartbeat_client_full"));
    QCOMPARE(f.events.size(), std::size_t{1});
    QCOMPARE(f.events[0].kind, EventKind::Usage);
    QCOMPARE(f.events[0].usage, std::uint8_t{0xFF});
    out.clear();
    QVERIFY(conn->send_output(text_of("model_output_small_after_backpressure"), out));
    QCOMPARE(to_hex(out), to_hex(wire("model_output_small_after_backpressure")));
    out.clear();
    auto call_id = conn->send_tool_call(*decode_tool_call(test::hex(frame_vector("tool_call")["payload"])), out);
    QCOMPARE(call_id, std::optional<std::uint32_t>(3));
    QCOMPARE(to_hex(out), to_hex(wire("tool_call")));
  }

  void server_resume_reproduces_the_vector() {
    ServerRig rig;
    auto first = serve_until_cut(rig);
    std::vector<Event> ignored;
    first->end_of_stream(ignored);  // the cut

    rig.now = ack_server_time("resume_ack");
    auto second = rig.connect();
    Fed f = feed(*second, wire("resume_init"), 7);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
    // The ACK with the reissued token and last client id 2, then the tool call resent as 3.
    Bytes expected = wire("resume_ack");
    append(expected, wire("tool_call"));
    QCOMPARE(to_hex(f.out), to_hex(expected));
    const auto init = decode_session_init(test::hex(frame_vector("resume_init")["payload"]));
    const auto ack = decode_session_ack(test::hex(frame_vector("resume_ack")["payload"]));
    const ResumePlan plan = resume_plan(*init->resume, *ack);
    QCOMPARE(plan.server_resends_from, vec_u64(lz_vectors()["resume"]["server_resends_from"]));
    QCOMPARE(plan.client_resends_from, vec_u64(lz_vectors()["resume"]["client_resends_from"]));
    QCOMPARE(frames_in(f.out, Direction::ServerToClient).back().sequence_id, std::uint32_t(plan.server_resends_from));

    // The client's resent TOOL_RESULT (id 3) is taken; ~40 s after the call it is late, so ignored.
    f = feed(*second, wire("tool_result_resent"));
    QVERIFY(f.out.empty());
    QCOMPARE(second->session()->last_client_seq, 3u);
    QCOMPARE(second->session()->late_tool_results, std::uint64_t{1});

    // The server heartbeat one second after the resume: the vector's frame, id 4.
    Bytes out;
    rig.now += kServerHeartbeatNs - 1;
    second->tick(out, ignored);
    QVERIFY(out.empty());
    rig.now += 1;
    second->tick(out, ignored);
    QCOMPARE(to_hex(out), to_hex(wire("heartbeat_server")));

    f = feed(*second, wire("terminate"));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::PeerTerminated});
    QCOMPARE(f.events[0].reason, TerminateReason::Normal);
    QCOMPARE(second->state(), LinkState::Closed);
  }

  void client_fresh_and_resume_reproduce_the_vector() {
    ClientRig rig;
    ClientSession& c = rig.client;
    Bytes out;
    QVERIFY(c.connect(out));
    QCOMPARE(to_hex(out), to_hex(wire("session_init")));
    Fed f = feed(c, wire("session_ack"), 3);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Opened});
    QCOMPARE(c.token(), std::optional<SessionToken>(token_of(lz_vectors()["session_token"])));
    out.clear();
    QCOMPARE(c.send_input(text_of("user_input"), out), 1u);
    QCOMPARE(to_hex(out), to_hex(wire("user_input")));
    f = feed(c, wire("model_output"));
    QCOMPARE(f.events.size(), std::size_t{1});
    QCOMPARE(f.events[0].text, text_of("model_output"));

    out.clear();
    c.set_buffer_usage(0xFF);
    rig.now += kClientHeartbeatNs - 1;
    c.tick(out);
    QVERIFY(out.empty());
    rig.now += 1;
    c.tick(out);
    QCOMPARE(to_hex(out), to_hex(wire("heartbeat_client_full")));
    f = feed(c, wire("model_output_small_after_backpressure"));
    QCOMPARE(c.last_server_seq(), 2u);

    // The TOOL_RESULT goes out, and the connection breaks before the server reads it.
    out.clear();
    const Bytes result = test::hex(frame_vector("tool_result")["payload"]);
    QCOMPARE(c.send_tool_result(*decode_tool_result(result), out), 3u);
    QCOMPARE(to_hex(out), to_hex(wire("tool_result")));
    c.connection_lost();

    const Bytes init_payload = test::hex(frame_vector("resume_init")["payload"]);
    rig.now = decode_session_init(init_payload)->resume->client_time_ns;
    out.clear();
    QVERIFY(c.connect(out));
    QCOMPARE(to_hex(out), to_hex(wire("resume_init")));
    f = feed(c, wire("resume_ack"), 1);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
    QCOMPARE(to_hex(f.out), to_hex(wire("tool_result_resent")));
    QCOMPARE(frames_in(f.out, Direction::ClientToServer).front().sequence_id,
             std::uint32_t(vec_u64(lz_vectors()["resume"]["client_resends_from"])));
    QCOMPARE(c.token(), std::optional<SessionToken>(token_of(lz_vectors()["resume"]["reissued_token"])));

    // The server resends from 3: the call is delivered once; the same frame again is a repeat.
    f = feed(c, wire("tool_call"));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::ToolCall});
    QCOMPARE(f.events[0].sequence_id, 3u);
    QCOMPARE(f.events[0].name, std::string("get_stock_price"));
    const std::uint64_t delivered = c.delivered();
    f = feed(c, wire("tool_call"));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Repeat});
    QCOMPARE(c.repeats(), std::uint64_t{1});
    QCOMPARE(c.delivered(), delivered);
    QVERIFY(f.out.empty());

    f = feed(c, wire("heartbeat_server"));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::ServerTime});
    QCOMPARE(f.events[0].server_time_ns, load_u64(test::hex(frame_vector("heartbeat_server")["payload"]).data()));
    out.clear();
    c.terminate(TerminateReason::Normal, out);
    QCOMPARE(to_hex(out), to_hex(wire("terminate")));
    QCOMPARE(c.state(), LinkState::Closed);
  }

  // Client and server engines wired back to back, cut, resumed: nothing lost or repeated.
  void engines_back_to_back_resume_without_loss() {
    ServerRig srv;
    ClientRig cli;
    cli.now = srv.now;
    auto conn = srv.connect();
    Bytes c2s, s2c;
    std::vector<Event> cev, sev;
    QVERIFY(cli.client.connect(c2s));
    conn->receive(c2s, s2c, sev);
    cli.client.receive(s2c, c2s, cev);
    c2s.clear();
    s2c.clear();
    cli.client.send_input("hello", c2s);
    conn->receive(c2s, s2c, sev);
    QVERIFY(conn->send_output("one ", s2c));
    QVERIFY(conn->send_output("two ", s2c));
    cli.client.receive(ByteView(s2c).first(frames_in(s2c, Direction::ServerToClient).front().payload.size() + kFrameOverhead), c2s, cev);
    // The second output never reaches the client; the client's next input never reaches the server.
    c2s.clear();
    cli.client.send_input("more", c2s);
    cli.client.connection_lost();
    sev.clear();
    conn->end_of_stream(sev);
    QVERIFY(conn->send_output("three", s2c) == false);  // the old connection sends nothing more

    srv.now += 2'000'000'000;
    cli.now = srv.now;
    auto again = srv.connect();
    Bytes c2s2, s2c2;
    QVERIFY(cli.client.connect(c2s2));
    sev.clear();
    again->receive(c2s2, s2c2, sev);
    QCOMPARE(kinds(sev), std::vector<EventKind>{EventKind::Resumed});
    c2s2.clear();
    cli.client.receive(s2c2, c2s2, cev);  // the ACK and "two " resent; the client resends "more"
    Bytes tail;
    QVERIFY(again->send_output("three", tail));
    cli.client.receive(tail, c2s2, cev);
    again->receive(c2s2, s2c2, sev);

    std::string text;
    for (const auto& e : cev)
      if (e.kind == EventKind::Output) text += e.text;
    QCOMPARE(text, std::string("one two three"));
    QCOMPARE(cli.client.repeats(), std::uint64_t{0});
    std::vector<std::string> inputs;
    for (const auto& e : sev)
      if (e.kind == EventKind::Input) inputs.push_back(e.text);
    QCOMPARE(inputs, std::vector<std::string>{"more"});
    QCOMPARE(again->session()->last_client_seq, 2u);
  }

  void clock_skew_example_is_refused() {
    ServerRig rig;
    serve_until_cut(rig);
    const json& ex = lz_vectors()["clock_skew_example"];
    rig.now = vec_u64(ex["server_time_ns"]);
    auto conn = rig.connect();
    Fed f = feed(*conn, resume_init(token_of(lz_vectors()["session_token"]), 2, vec_u64(ex["client_time_ns"])));
    QCOMPARE(to_hex(f.out), to_hex(terminate_frame(0, *parse_terminate_reason(ex["reject"].get<std::string>()))));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Refused});
    QCOMPARE(f.events[0].reason, TerminateReason::ClockSkew);
    QCOMPARE(conn->state(), LinkState::Closed);

    // The same session resumes with an agreeing clock: the refusal left it resumable.
    auto next = rig.connect();
    f = feed(*next, resume_init(token_of(lz_vectors()["session_token"]), 2, rig.now - kMaxClockSkewNs));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
  }

  // A client whose clock runs 1 s ahead: its resume is refused and it learns why.
  void client_clock_one_second_ahead_is_refused() {
    ServerRig srv;
    ClientRig cli;
    cli.now = srv.now;
    auto conn = srv.connect();
    Bytes c2s, s2c;
    std::vector<Event> cev, sev;
    QVERIFY(cli.client.connect(c2s));
    conn->receive(c2s, s2c, sev);
    cli.client.receive(s2c, c2s, cev);
    QCOMPARE(cli.client.state(), LinkState::Open);
    cli.client.connection_lost();

    cli.now = srv.now + 1'000'000'000;
    c2s.clear();
    s2c.clear();
    cev.clear();
    sev.clear();
    auto again = srv.connect();
    QVERIFY(cli.client.connect(c2s));
    again->receive(c2s, s2c, sev);
    QCOMPARE(kinds(sev), std::vector<EventKind>{EventKind::Refused});
    QCOMPARE(sev[0].reason, TerminateReason::ClockSkew);
    cli.client.receive(s2c, c2s, cev);
    QCOMPARE(kinds(cev), std::vector<EventKind>{EventKind::PeerTerminated});
    QCOMPARE(cev[0].reason, TerminateReason::ClockSkew);
    QCOMPARE(cli.client.state(), LinkState::Closed);
  }

  void expired_example_is_refused() {
    ServerRig rig;
    serve_until_cut(rig);
    const json& ex = lz_vectors()["expired_example"];
    rig.now = vec_u64(ex["server_time_ns"]);
    auto conn = rig.connect();
    Fed f = feed(*conn, resume_init(token_of(lz_vectors()["session_token"]), 2, rig.now));
    QCOMPARE(to_hex(f.out), to_hex(terminate_frame(0, *parse_terminate_reason(ex["reject"].get<std::string>()))));
    QCOMPARE(f.events.at(0).reason, TerminateReason::Expired);
    // One ns earlier the token is still valid.
    rig.now -= 1;
    auto before = rig.connect();
    f = feed(*before, resume_init(token_of(lz_vectors()["session_token"]), 2, rig.now));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
  }

  void tampered_token_is_refused() {
    ServerRig rig;
    serve_until_cut(rig);
    rig.now += 1'000'000'000;
    auto conn = rig.connect();
    Fed f = feed(*conn, resume_init(token_of(lz_vectors()["tampered_token"]), 2, rig.now));
    QCOMPARE(to_hex(f.out), to_hex(terminate_frame(0, *parse_terminate_reason(lz_vectors()["tampered_reject"].get<std::string>()))));
    QCOMPARE(f.events.at(0).reason, TerminateReason::StateHash);
  }

  // A resume while the old connection still looks open (a half-dead peer): the old one sends nothing more.
  void resume_takes_the_session_over_from_a_stale_connection() {
    ServerRig rig;
    auto stale = serve_until_cut(rig);
    QVERIFY(stale->current());
    auto conn = rig.connect();
    Fed f = feed(*conn, resume_init(token_of(lz_vectors()["session_token"]), 3, rig.now));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
    QVERIFY(!stale->current());
    Bytes out;
    QVERIFY(!stale->send_output("late", out));
    QVERIFY(out.empty());
    QVERIFY(conn->send_output("on time", out));
    QCOMPARE(frames_in(out, Direction::ServerToClient).at(0).sequence_id, 4u);
  }

  void resume_claiming_unsent_frames_is_refused() {
    ServerRig rig;
    serve_until_cut(rig);  // three server frames sent
    auto conn = rig.connect();
    Fed f = feed(*conn, resume_init(token_of(lz_vectors()["session_token"]), 4, rig.now));
    QCOMPARE(f.events.at(0).reason, TerminateReason::Sequence);
    // Before any SESSION_ACK a refusal carries id 0 (the profile's rule).
    QCOMPARE(to_hex(f.out), to_hex(terminate_frame(0, TerminateReason::Sequence)));
  }

  // A refusal's TERMINATE takes the next id of its direction: after it the session resumes with
  // the TERMINATE reported as received, and the next MODEL_OUTPUT carries the id after it, so no
  // two server frames share an id.
  void a_refusal_terminate_takes_its_own_id() {
    ServerRig rig;
    auto first = serve_until_cut(rig);  // server frames 1 to 3 sent
    Fed f = feed(*first, wire("session_ack"));  // a frame only the server sends: refused as `type`
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Refused});
    QCOMPARE(parse_header(f.out.data()).sequence_id, 4u);
    auto second = rig.connect();
    f = feed(*second, resume_init(token_of(lz_vectors()["session_token"]), 4, rig.now));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
    Bytes out;
    QVERIFY(second->send_output("after the refusal", out));
    QCOMPARE(parse_header(out.data()).sequence_id, 5u);
  }

  // The client's TERMINATE too: the server records its id, and the client's next data frame after
  // a resume follows it.
  void a_client_terminate_takes_its_own_id() {
    ServerRig server_rig;
    ClientRig client_rig;
    Bytes to_server, to_client;
    std::vector<Event> events;
    QVERIFY(client_rig.client.connect(to_server));
    auto conn = server_rig.connect();
    conn->receive(to_server, to_client, events);
    to_server.clear();
    client_rig.client.receive(to_client, to_server, events);
    client_rig.client.send_input("hello", to_server);  // id 1
    client_rig.client.terminate(TerminateReason::Normal, to_server);
    QCOMPARE(frames_in(to_server, Direction::ClientToServer).back().sequence_id, 2u);
    to_client.clear();
    conn->receive(to_server, to_client, events);
    QCOMPARE(conn->session()->last_client_seq, 2u);
    to_server.clear();
    QVERIFY(client_rig.client.connect(to_server));
    QCOMPARE(client_rig.client.send_input("again", to_server), 3u);
  }

  // The profile's authentication: with a key required, an INIT without it or with a wrong one
  // gets TERMINATE unauthorized (id 0) before any ACK and leaves no session behind; a resume must
  // carry the key again.
  void a_required_key_is_checked_before_any_session() {
    ServerRig rig;
    rig.config.required_api_key = "sk-test-key";
    auto init_frame = [](SessionInit init) { return *encode_frame(0, PayloadType::SessionInit, *encode_payload(init)); };
    for (const char* key : {"", "sk-test-kez", "sk-test-key-longer"}) {
      auto conn = rig.connect();
      Fed f = feed(*conn, init_frame({vector_terms(), std::nullopt, *key ? std::optional<std::string>(key) : std::nullopt}));
      QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Refused});
      QCOMPARE(f.events[0].reason, TerminateReason::Unauthorized);
      QCOMPARE(to_hex(f.out), to_hex(terminate_frame(0, TerminateReason::Unauthorized)));
      QCOMPARE(rig.store.size(), std::size_t{0});
    }
    auto conn = rig.connect();
    Fed f = feed(*conn, init_frame({vector_terms(), std::nullopt, "sk-test-key"}));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Opened});
    const SessionToken token = decode_session_ack(frames_in(f.out, Direction::ServerToClient).at(0).payload)->token;
    const ResumeFields resume{token, 0, rig.now};
    f = feed(*rig.connect(), init_frame({vector_terms(), resume, std::nullopt}));
    QCOMPARE(f.events.at(0).reason, TerminateReason::Unauthorized);
    f = feed(*rig.connect(), init_frame({vector_terms(), resume, "sk-test-key"}));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
  }

  // The client sends its key on every INIT, and an engine pair opens and resumes with it.
  void a_client_with_a_key_opens_and_resumes() {
    ServerRig server_rig;
    server_rig.config.required_api_key = "sk-test-key";
    ClientSession client(ClientConfig{vector_terms(), [&] { return server_rig.now; }, kDefaultResendBytes,
                                      kClientHeartbeatNs, "sk-test-key"});
    for (EventKind expected : {EventKind::Opened, EventKind::Resumed}) {
      Bytes to_server, to_client;
      std::vector<Event> server_events, client_events;
      QVERIFY(client.connect(to_server));
      QCOMPARE(decode_session_init(frames_in(to_server, Direction::ClientToServer).at(0).payload)->api_key,
               std::optional<std::string>("sk-test-key"));
      auto conn = server_rig.connect();
      conn->receive(to_server, to_client, server_events);
      client.receive(to_client, to_server, client_events);
      QCOMPARE(kinds(client_events), std::vector<EventKind>{expected});
      client.connection_lost();
    }
  }

  // A flood of fresh sessions (no key required) cannot push out a session whose token is valid:
  // beyond the store's size fresh sessions are refused (closed without a TERMINATE), the honest
  // session still resumes, and once tokens expire their places are given again.
  void a_flood_of_fresh_sessions_evicts_no_valid_token() {
    ServerRig rig;
    rig.store = SessionStore(8);
    rig.config.new_session_id = random_session_id;
    auto honest = rig.connect();
    Fed f = feed(*honest, wire("session_init"));
    const SessionToken token = decode_session_ack(frames_in(f.out, Direction::ServerToClient).at(0).payload)->token;
    std::vector<EventKind> flood;
    for (int i = 0; i < 20; ++i) {
      Fed g = feed(*rig.connect(), wire("session_init"));
      flood.push_back(g.events.at(0).kind);
      if (g.events.at(0).kind == EventKind::Busy) QVERIFY(g.out.empty());
    }
    QCOMPARE(std::count(flood.begin(), flood.end(), EventKind::Opened), 7);
    QCOMPARE(std::count(flood.begin(), flood.end(), EventKind::Busy), 13);
    f = feed(*rig.connect(), resume_init(token, 0, rig.now));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Resumed});
    rig.now += rig.config.session_timeout_ns + 1;
    f = feed(*rig.connect(), wire("session_init"));
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Opened});
  }

  void negatives_end_the_connection_with_their_reason_data() {
    QTest::addColumn<QString>("name");
    for (const auto& n : lz_vectors()["negatives"]) QTest::newRow(n["name"].get<std::string>().c_str()) << QString::fromStdString(n["name"]);
  }
  void negatives_end_the_connection_with_their_reason() {
    QFETCH(QString, name);
    const json* neg = nullptr;
    for (const auto& n : lz_vectors()["negatives"])
      if (n["name"] == name.toStdString()) neg = &n;
    const Bytes frame = test::hex((*neg)["frame"]);
    const TerminateReason reason = *parse_terminate_reason((*neg)["reject"].get<std::string>());
    Fed f;
    LinkState state{};
    if (neg->value("dir", "") == "s2c") {  // the client receives it, after two server frames
      ClientRig rig;
      Bytes out;
      QVERIFY(rig.client.connect(out));
      feed(rig.client, wire("session_ack"));
      feed(rig.client, wire("model_output"));
      feed(rig.client, wire("model_output_small_after_backpressure"));
      f = feed(rig.client, frame);
      if (reason == TerminateReason::Incomplete) rig.client.end_of_stream(f.events);
      state = rig.client.state();
      if (reason != TerminateReason::Incomplete) QCOMPARE(to_hex(f.out), to_hex(terminate_frame(1, reason)));
    } else {  // the server receives it, after client frames 1 and 2
      ServerRig rig;
      auto conn = rig.connect();
      feed(*conn, wire("session_init"));
      feed(*conn, wire("user_input"));
      feed(*conn, wire("heartbeat_client_full"));
      QCOMPARE(conn->session()->last_client_seq, 2u);
      QCOMPARE(neg->value("previous", 2), 2);
      f = feed(*conn, frame);
      if (reason == TerminateReason::Incomplete) {
        QVERIFY(f.out.empty());
        conn->end_of_stream(f.events);
      } else {
        QCOMPARE(to_hex(f.out), to_hex(terminate_frame(1, reason)));
      }
      state = conn->state();
    }
    QCOMPARE(state, LinkState::Closed);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Refused});
    QCOMPARE(f.events[0].reason, reason);
    QVERIFY(!f.events[0].detail.empty());
  }

  // A USER_INPUT announcing more than the server takes is refused once that much has arrived,
  // not buffered to its end.
  void an_oversized_frame_is_refused_before_it_is_whole() {
    ServerRig rig;
    rig.config.max_frame_bytes = 4096;
    auto conn = rig.connect();
    feed(*conn, wire("session_init"));
    Bytes header;
    append_u32(header, 1);
    header.push_back(static_cast<std::uint8_t>(PayloadType::UserInput));
    header.insert(header.end(), {0x20, 0x00, 0x00});  // 2 MiB announced
    Fed f = feed(*conn, header);
    QVERIFY(f.events.empty());
    f = feed(*conn, Bytes(4096, 'a'), 1000);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::Refused});
    // `length`, never `budget-exceeded`: a cap below the table's is the profile's length refusal.
    QCOMPARE(f.events[0].reason, TerminateReason::Length);
    QCOMPARE(to_hex(f.out), to_hex(terminate_frame(1, TerminateReason::Length)));
    QCOMPARE(conn->state(), LinkState::Closed);
  }

  void a_model_id_beyond_255_bytes_is_not_sent() {
    ClientRig rig(SessionTerms{std::string(256, 'm'), 5000, 0});
    Bytes out;
    QVERIFY(!rig.client.connect(out));
    QVERIFY(out.empty());
    QCOMPARE(rig.client.state(), LinkState::Closed);
  }

  void data_before_init_and_wrong_direction_are_refused() {
    ServerRig rig;
    auto conn = rig.connect();
    Fed f = feed(*conn, wire("user_input"));
    QCOMPARE(f.events.at(0).reason, TerminateReason::Sequence);
    auto open = rig.connect();
    feed(*open, wire("session_init"));
    f = feed(*open, wire("model_output"));  // a server's frame sent by the client
    QCOMPARE(f.events.at(0).reason, TerminateReason::Type);
    ClientRig cli;
    Bytes out;
    QVERIFY(cli.client.connect(out));
    feed(cli.client, wire("session_ack"));
    f = feed(cli.client, *encode_frame(5, PayloadType::ModelOutput, as_bytes(std::string_view("x"))));
    QCOMPARE(f.events.at(0).reason, TerminateReason::Sequence);  // 5 after 0
  }

  void backpressure_cuts_chunks_only_under_dynamic_frame_size() {
    std::string text;
    for (int i = 0; i < 700; ++i) text += "é";  // 1400 bytes, 2-byte characters
    struct Case {
      std::uint32_t constraints;
      std::uint8_t usage;
      std::size_t max_chunk;
    };
    for (const Case& k : {Case{0x16, 0xFF, 512}, Case{0x16, 0xB3, 512}, Case{0x16, 0xB2, 4096}, Case{0x06, 0xFF, 4096}}) {
      ServerRig rig;
      auto conn = rig.connect();
      SessionTerms terms = vector_terms();
      terms.constraints = k.constraints;
      feed(*conn, *encode_frame(0, PayloadType::SessionInit, *encode_payload(SessionInit{terms, std::nullopt})));
      Bytes hb{k.usage};
      feed(*conn, *encode_frame(1, PayloadType::Heartbeat, hb));
      Bytes out;
      QVERIFY(conn->send_output(text, out));
      std::string joined;
      std::size_t largest = 0;
      for (const auto& fr : frames_in(out, Direction::ServerToClient)) {
        QCOMPARE(fr.type, PayloadType::ModelOutput);
        QVERIFY(is_valid_utf8(fr.payload));  // cut between characters
        largest = std::max(largest, fr.payload.size());
        joined += as_text(fr.payload);
      }
      QCOMPARE(joined, text);
      QVERIFY(largest <= k.max_chunk);
      QCOMPARE(largest > kBackpressureChunk, k.max_chunk == 4096);
    }
  }

  void tool_results_count_only_within_budget() {
    ServerRig rig;  // budget_ms 5000: a result is due within 4000 ms
    auto conn = rig.connect();
    feed(*conn, wire("session_init"));
    Bytes out;
    std::vector<Event> events;
    const ToolCall call{"lookup", "{}"};
    const std::uint32_t on_time = *conn->send_tool_call(call, out);
    const std::uint32_t late = *conn->send_tool_call(call, out);
    const std::uint32_t silent = *conn->send_tool_call(call, out);
    rig.now += 4'000'000'000;
    Bytes r1 = *encode_frame(1, PayloadType::ToolResult, *encode_payload(ToolResult{on_time, "{\"ok\":1}"}));
    Fed f = feed(*conn, r1);
    QCOMPARE(kinds(f.events), std::vector<EventKind>{EventKind::ToolResult});
    QCOMPARE(f.events[0].call_id, on_time);
    QCOMPARE(f.events[0].text, std::string("{\"ok\":1}"));
    rig.now += 1;
    Bytes r2 = *encode_frame(2, PayloadType::ToolResult, *encode_payload(ToolResult{late, "{}"}));
    f = feed(*conn, r2);
    // Past the deadline: both waiting calls expire, the late result is ignored.
    QCOMPARE(kinds(f.events), (std::vector<EventKind>{EventKind::ToolExpired, EventKind::ToolExpired}));
    QCOMPARE(f.events[0].call_id, late);
    QCOMPARE(f.events[1].call_id, silent);
    QCOMPARE(conn->session()->late_tool_results, std::uint64_t{1});
    conn->tick(out, events);
    for (const auto& e : events) QVERIFY(e.kind != EventKind::ToolExpired);  // reported once
    // The server goes on without the tools and says so in its next MODEL_OUTPUT, once.
    Bytes said;
    QVERIFY(conn->send_output("going on", said));
    const std::string expected = "[tool lookup (call " + std::to_string(late) + ") unavailable: no TOOL_RESULT within 4000 ms] " +
                                 "[tool lookup (call " + std::to_string(silent) + ") unavailable: no TOOL_RESULT within 4000 ms] going on";
    QCOMPARE(std::string(as_text(frames_in(said, Direction::ServerToClient).at(0).payload)), expected);
    said.clear();
    QVERIFY(conn->send_output("more", said));
    QCOMPARE(std::string(as_text(frames_in(said, Direction::ServerToClient).at(0).payload)), std::string("more"));
  }

  void server_heartbeat_every_second_client_every_200ms() {
    ServerRig rig;
    auto conn = rig.connect();
    feed(*conn, wire("session_init"));
    Bytes out;
    std::vector<Event> events;
    std::vector<std::uint32_t> beats;
    for (int ms = 0; ms <= 3000; ms += 50) {
      rig.now = vec_u64(lz_vectors()["issued_ns"]) + std::uint64_t(ms) * 1'000'000;
      Bytes step;
      conn->tick(step, events);
      if (!step.empty()) beats.push_back(static_cast<std::uint32_t>(ms));
    }
    QCOMPARE(beats, (std::vector<std::uint32_t>{1000, 2000, 3000}));

    ClientRig cli;
    QVERIFY(cli.client.connect(out));
    feed(cli.client, wire("session_ack"));
    std::vector<std::uint32_t> client_beats;
    for (int ms = 0; ms <= 1000; ms += 50) {
      cli.now = vec_u64(lz_vectors()["issued_ns"]) + std::uint64_t(ms) * 1'000'000;
      Bytes step;
      cli.client.tick(step);
      if (!step.empty()) client_beats.push_back(static_cast<std::uint32_t>(ms));
    }
    QCOMPARE(client_beats, (std::vector<std::uint32_t>{200, 400, 600, 800, 1000}));
  }

  void hostile_bytes_never_crash_and_always_end_closed_or_open() {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 300; ++round) {
      ServerRig rig;
      auto conn = rig.connect();
      Bytes junk(rng() % 200);
      for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
      Bytes input = round % 2 ? wire("session_init") : Bytes{};
      append(input, junk);
      feed(*conn, input, 1 + rng() % 16);
      std::vector<Event> events;
      conn->end_of_stream(events);
      QCOMPARE(conn->state(), LinkState::Closed);

      ClientRig cli;  // the client side, after its INIT, fed the same kind of bytes
      Bytes out;
      QVERIFY(cli.client.connect(out));
      Bytes reply = round % 2 ? wire("session_ack") : Bytes{};
      append(reply, junk);
      feed(cli.client, reply, 1 + rng() % 16);
      cli.client.end_of_stream(events);
      QCOMPARE(cli.client.state(), LinkState::Closed);
      QVERIFY(cli.client.delivered() <= reply.size() / kFrameOverhead);
    }
  }
};

QTEST_GUILESS_MAIN(TestLayerZeroSession)
#include "test_layer_zero_session.moc"
