#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/corpus/<target>/) from the spec test vectors.

Run from anywhere: python3 tests/fuzz/make_corpus.py [path/to/anthro-v1-vectors.json]
The input layouts are described at the top of each fuzz_*.cpp.

Seeds named regress-* are inputs that once crashed a target (each has a test in tests/):
they are kept when the rest is rewritten. tests/fuzz/captured/ holds real TLS captures,
copied into fuzz_capture's seeds: `openssl s_server -WWW` answered `curl --tlsv1.2/1.3
--http1.1` on lo under tcpdump, and `editcap --inject-secrets tls,KEYLOG` embedded the keys.
"""
import json
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VECTORS = ROOT / "../shared/spec/vectors/anthro-v1-vectors.json"
MAGIC = b"ANTHRO01"
FUZZ_API_KEY = "sk-ant-fuzz-0123456789abcdef"  # fuzz_request.cpp kApiKey


def stream_seed(sel, c2s, s2c):
    # The separator must not occur in c2s, or the target would split there.
    sep = next(b for b in range(256) if b not in c2s)
    return bytes([sel, sep]) + c2s + bytes([sep]) + s2c


def body_seed(frame_type, flags, plaintext):
    return bytes([(frame_type - 1) << 4 | flags]) + plaintext


def pcap_packets(pcap):
    """(seconds, microseconds, bytes) of each record of a little-endian microsecond pcap."""
    assert pcap[:4] == b"\xd4\xc3\xb2\xa1"
    link = struct.unpack_from("<I", pcap, 20)[0]
    out, pos = [], 24
    while pos + 16 <= len(pcap):
        sec, usec, incl, _ = struct.unpack_from("<IIII", pcap, pos)
        out.append((sec, usec, pcap[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return link, out


def pcap(link, packets, big_endian=False, nanoseconds=False):
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanoseconds else 0xA1B2C3D4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 262144, link)
    for sec, usec, data in packets:
        frac = usec * 1000 if nanoseconds else usec
        out += struct.pack(e + "IIII", sec, frac, len(data), len(data)) + data
    return out


def pcapng_block(kind, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def pcapng(link, packets, secrets=None):
    """One section, one interface (if_tsresol 6), optionally a TLS key log DSB first."""
    out = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += pcapng_block(1, struct.pack("<HHI", link, 0, 262144))
    if secrets:
        out += pcapng_block(10, struct.pack("<II", 0x544C534B, len(secrets)) + secrets)
    for sec, usec, data in packets:
        ts = sec * 1000000 + usec
        out += pcapng_block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data)) + data)
    return out


def request_seed(sel, body):
    return bytes([sel]) + b"\0\0\0\1" + json.dumps(body, ensure_ascii=False).encode()


def fuzz_request_seeds(request):
    """Selector (fuzz_request.cpp) and REQUEST plaintexts: the key where it counts and where it must not."""
    seeds = {"vector-request": bytes([0x01]) + request}
    body = json.loads(request[4:])
    key = FUZZ_API_KEY
    with_key = dict(body, api_key=key)
    seeds["api-key"] = request_seed(0x03, with_key)
    seeds["api-key-wrong"] = request_seed(0x03, dict(body, api_key="sk-ant-other"))
    seeds["api-key-in-metadata"] = request_seed(0x03, dict(body, api_key="x", metadata={"k": key}))
    seeds["api-key-in-content"] = request_seed(0x03, dict(body, api_key="x", messages=[{"role": "user", "content": key}]))
    seeds["api-key-missing"] = request_seed(0x03, dict(body, metadata={"api_key": key}))
    escaped = json.dumps(with_key).replace("sk-ant", "sk\\u002dant").encode()
    seeds["api-key-escaped"] = bytes([0x03]) + b"\0\0\0\1" + escaped
    twice = json.dumps(with_key)[:-1] + ', "api_key": "x"}'
    seeds["api-key-twice"] = bytes([0x03]) + b"\0\0\0\1" + twice.encode()
    seeds["non-streaming"] = request_seed(0x00, dict(body, stream=False))
    seeds["u16-max-tokens"] = request_seed(0x05, dict(body, max_tokens=65536))
    seeds["overload"] = request_seed(0x09, body)
    seeds["prompt-too-large"] = request_seed(0x11, dict(body, system="s" * 80))
    seeds["empty-model"] = request_seed(0x01, dict(body, model=""))
    seeds["no-max-tokens"] = request_seed(0x01, {k: x for k, x in body.items() if k != "max_tokens"})
    return seeds


def messages_api_seeds():
    """Selector (fuzz_messages_api.cpp) 0..3: Messages request, chat request, Messages reply, chat reply."""
    def seed(sel, doc):
        return bytes([sel]) + json.dumps(doc, ensure_ascii=False).encode()
    msgs = [{"role": "user", "content": "hi 👋"}, {"role": "assistant", "content": "hello"},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    return {
        "messages-request": seed(0, {"model": "claude", "max_tokens": 64, "stream": True, "temperature": 0.5,
                                     "system": [{"type": "text", "text": "be brief"}], "messages": msgs,
                                     "metadata": {"user_id": "u1", "nested": {"a": [1, 2]}}}),
        "messages-request-bad-block": seed(0, {"model": "m", "max_tokens": 1,
                                               "messages": [{"role": "user", "content": [{"type": "image"}]}]}),
        "chat-request": seed(1, {"model": "gpt", "messages": [{"role": "system", "content": "s"},
                                                              {"role": "developer", "content": "d"}] + msgs[:2],
                                 "max_completion_tokens": 10, "stream": True,
                                 "stream_options": {"include_usage": True}}),
        "chat-request-max-tokens": seed(1, {"model": "gpt", "messages": msgs[:1], "max_tokens": 4294967295,
                                            "stream": None, "temperature": None}),
        "messages-response": seed(2, {"id": "msg_1", "type": "message", "role": "assistant",
                                      "content": [{"type": "text", "text": "Hi"}, {"type": "thinking", "thinking": "t"}],
                                      "model": "claude", "stop_reason": "max_tokens",
                                      "usage": {"input_tokens": 3, "output_tokens": 1}}),
        "messages-error": seed(2, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
        "chat-response": seed(3, {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt",
                                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"},
                                               "finish_reason": "length"}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
        "chat-response-parts": seed(3, {"id": "c2", "model": "gpt", "choices": [{"message": {
            "content": [{"type": "text", "text": "a"}]}}], "usage": {"prompt_tokens": 0, "completion_tokens": 0}}),
        "chat-error": seed(3, {"error": {"message": "bad", "type": "invalid_request_error"}}),
    }


def sse_seeds():
    """Selector (fuzz_sse.cpp): bits 0-1 chunking, bit 2 the 64-byte line limit, bit 3 OpenAI."""
    def event(name, doc):
        return (f"event: {name}\n" if name else "") + "data: " + json.dumps(doc, ensure_ascii=False) + "\n\n"
    anthropic = "".join([
        event("message_start", {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}}),
        event("content_block_start", {"type": "content_block_start", "index": 0}),
        event("ping", {"type": "ping"}),
        event("content_block_delta", {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hi 👋"}}),
        event("content_block_delta", {"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": "t"}}),
        event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        event("message_stop", {"type": "message_stop"}),
    ]).encode()
    openai = "".join([
        event("", {"id": "c", "choices": [{"delta": {"role": "assistant"}}]}),
        event("", {"id": "c", "choices": [{"delta": {"content": "Hi", "reasoning_content": "r"}}]}),
        event("", {"id": "c", "choices": [{"delta": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]}),
        event("", {"id": "c", "choices": [{"delta": {}, "finish_reason": "stop"}]}),
        event("", {"id": "c", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}),
        "data: [DONE]\n\n",
    ]).encode()
    fields = b"\xef\xbb\xbf: comment\r\nid: 7\r\nretry: 1500\r\nevent: error\rdata: {\"type\":\"error\",\"error\":{\"type\":\"x\",\"message\":\"m\"}}\r\n\r\ndata\ndata:two\n\n"
    return {"anthropic-whole": bytes([0x00]) + anthropic, "anthropic-bytes": bytes([0x01]) + anthropic,
            "openai-random": bytes([0x0B]) + openai, "openai-3": bytes([0x0A]) + openai,
            "fields-crlf-bom": bytes([0x03]) + fields, "line-limit": bytes([0x07]) + b"data: " + b"x" * 100 + b"\n\n"}


def capture_seeds(vectors_dir):
    """The lab pcap of the vectors in the other formats the reader takes, keys in a DSB or not."""
    raw = (vectors_dir / "lab-conversation.pcap").read_bytes()
    keylog = (vectors_dir / "lab-conversation.keylog").read_bytes()
    link, packets = pcap_packets(raw)
    seeds = {"lab-conversation.pcap": raw,
             "lab-ns-big-endian.pcap": pcap(link, packets, big_endian=True, nanoseconds=True),
             "lab.pcapng": pcapng(link, packets),
             "lab-dsb.pcapng": pcapng(link, packets, secrets=keylog),
             # Ethernet stripped: raw IPv4 (LINKTYPE_RAW).
             "lab-raw-ip.pcap": pcap(101, [(s, u, d[14:]) for s, u, d in packets]),
             "lab-cut.pcap": raw[:len(raw) * 2 // 3]}
    for f in sorted((HERE / "captured").iterdir()):
        seeds[f.name] = f.read_bytes()
    return seeds


def keylog_seeds(v):
    seeds = {"vector": (v["keys"]["keylog_line"] + "\n# comment\nCLIENT_RANDOM " + v["keys"]["client_random"] +
                        " " + v["keys"]["hkdf_prk"] + "\n").encode(),
             "bad-lines": b"ANTHRO_V1 12 34\r\nCLIENT_RANDOM zz 00\n\tSERVER_TRAFFIC_SECRET_0  " +
                          b"ab" * 32 + b"\t" + b"cd" * 48 + b"\nUNKNOWN x y\n"}
    for f in sorted((HERE / "captured").iterdir()):
        seeds[f.stem] = dsb_secrets(f.read_bytes())
    return seeds


def dsb_secrets(pcapng_bytes):
    """The key log text of the first Decryption Secrets Block of a little-endian pcapng."""
    pos = 0
    while pos + 12 <= len(pcapng_bytes):
        kind, size = struct.unpack_from("<II", pcapng_bytes, pos)
        if kind == 10:
            length = struct.unpack_from("<I", pcapng_bytes, pos + 12)[0]
            return pcapng_bytes[pos + 16:pos + 16 + length]
        pos += size
    raise ValueError("no DSB")


def pem_seeds(v):
    pem = v["keys"]["server_static_private_pem"].encode()
    body = b"".join(pem.splitlines()[1:-1])
    return {"server-static.pem": pem,
            "crlf.pem": pem.replace(b"\n", b"\r\n"),
            "two-keys.pem": b"junk before\n" + pem + pem,
            "cut.pem": pem[:len(pem) // 2],
            "ec-public.pem": b"-----BEGIN PUBLIC KEY-----\n" + body + b"\n-----END PUBLIC KEY-----\n"}


def main():
    vectors_file = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else VECTORS)
    v = json.loads(vectors_file.read_text())
    h = bytes.fromhex
    offer, answer = h(v["blobs"]["offer"]), h(v["blobs"]["answer"])
    seeds = {"fuzz_stream_decoder": {}, "fuzz_blob": {}, "fuzz_body": {}}

    sd = seeds["fuzz_stream_decoder"]
    conv = v["conversation"]
    c2s, s2c = h(conv["client_to_server"]), h(conv["server_to_client"])
    # Selector: whole; single bytes; 8-byte chunks interleaved; random sizes with the server key.
    for sel in (0x00, 0x01, 0x46, 0x83):
        sd[f"conversation-{sel:02x}"] = stream_seed(sel, c2s, s2c)
    sd["conversation-extension-mode"] = stream_seed(0x21, c2s[len(MAGIC) + 128:],
                                                    s2c[len(MAGIC) + 128:])
    for f in v["frames"]:
        frame = h(f["frame"])
        name = f"frame-{f['name']}-{f['suite']}"
        sd[name] = stream_seed(0x00, frame, b"") if f["direction"] == "c2s" \
            else stream_seed(0x00, b"", frame)
    # Negatives and body cases assume the vectors' negotiation, so send the prefaces first.
    pre_c2s, pre_s2c = MAGIC + offer, MAGIC + answer
    for f in v["negatives"]:
        sd[f"negative-{f['name']}"] = stream_seed(0x00, pre_c2s, pre_s2c + h(f["frame"]))
    for f in v["body_cases"]:
        frame = h(f["frame"])
        sd[f"body-{f['name']}"] = stream_seed(0x00, pre_c2s + frame, pre_s2c) \
            if f["direction"] == "c2s" else stream_seed(0x00, pre_c2s, pre_s2c + frame)

    sb = seeds["fuzz_blob"]
    sb["offer"] = offer
    sb["offer-answer"] = offer + answer
    for f in v["blob_negatives"]:
        sb[f"negative-{f['name']}"] = h(f["offer"]) + (h(f["answer"]) if f["answer"] else b"")

    sy = seeds["fuzz_body"]
    for f in v["frames"]:
        if f["suite"] == "aes-256-gcm":  # the plaintexts are the same in both suites
            sy[f"{f['name']}"] = body_seed(f["type"], f["flags"], h(f["plaintext"]))
    request = next(f for f in v["frames"] if f["name"] == "request")
    body = json.loads(h(request["plaintext"])[4:])
    body["api_key"] = "sk-ant-test-0123456789abcdef"
    sy["request-api-key"] = body_seed(1, 1, b"\0\0\0\1" + json.dumps(body).encode())

    seeds["fuzz_keylog"] = keylog_seeds(v)
    seeds["fuzz_pem"] = pem_seeds(v)
    seeds["fuzz_capture"] = capture_seeds(vectors_file.parent)
    seeds["fuzz_sse"] = sse_seeds()
    seeds["fuzz_messages_api"] = messages_api_seeds()
    seeds["fuzz_request"] = fuzz_request_seeds(h(request["plaintext"]))

    for target, files in seeds.items():
        d = HERE / "corpus" / target
        d.mkdir(parents=True, exist_ok=True)
        for old in d.iterdir():
            if not old.name.startswith("regress-"):
                old.unlink()
        for name, data in files.items():
            (d / name).write_bytes(data)
        print(f"{target}: {len(files)} seeds, {sum(map(len, files.values()))} bytes")


if __name__ == "__main__":
    main()
