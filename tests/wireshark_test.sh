#!/usr/bin/env bash
# The Wireshark plugin (app/wireshark) inside Debian's tshark against `anthro-wb decode`: the same
# negotiation blobs, frames (type, stream, direction), texts and JSON bodies on the lab vector, on
# the vector cut into small TCP segments (reassembly), and on a live TLS capture (ALPN dispatch,
# blobs in TLS extension 0xFFA1, tls.keylog_file fallback); hostile copies of the captures must not
# crash tshark and must carry the spec's reasons.
# usage: wireshark_test.sh TSHARK ANTHRO_WB PLUGIN_DIR VECTORS_DIR [ANTHRO_CAPTURE]
set -euo pipefail
tshark=$1 wb=$(realpath "$2") plugin_dir=$(realpath "$3") vectors=$(realpath "$4") capture_helper=${5:+$(realpath "$5")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Debian's interpreter, with the python3-* modules installer/deps.sh installs (cryptography); a
# `python3` earlier on PATH (pyenv) may lack them.
python3() { /usr/bin/python3 "$@"; }

# Wireshark ignores WIRESHARK_PLUGIN_DIR and the personal plugin folder when it runs with
# privileges, and root counts (wsutil's started_with_special_privs), so under root tshark runs as
# nobody. Its own HOME keeps the tester's Wireshark profile out of the comparison.
mkdir -p "$work/home"
chmod 777 "$work/home"
run_tshark() {
  local as=()
  [ "$(id -u)" -eq 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  "${as[@]}" env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$plugin_dir" \
    "$tshark" "$@"
}

run_tshark -G protocols | grep -q "	anthro$" || fail "tshark did not load the plugin from $plugin_dir"

# PDML of every anthro-v1 PDU against decode's JSON lines; decode's offsets and ours differ in
# what they count, so the frames are compared in capture order per direction.
compare() {  # compare NAME CAPTURE DECODE_ARGS... -- TSHARK_ARGS...
  local name=$1 cap=$2
  shift 2
  local dargs=()
  while [ "$1" != "--" ]; do dargs+=("$1"); shift; done
  shift
  "$wb" decode "$cap" --format jsonl "${dargs[@]}" > "$work/$name.decode.jsonl"
  run_tshark -r "$cap" -T pdml "$@" > "$work/$name.pdml" 2> "$work/$name.tshark.err" ||
    { cat "$work/$name.tshark.err" >&2; fail "$name: tshark failed"; }
  python3 - "$work/$name.decode.jsonl" "$work/$name.pdml" "$name" <<'EOF' || fail "$name: tshark and decode differ"
import json, sys, xml.etree.ElementTree as ET
decode_path, pdml_path, name = sys.argv[1:4]
TYPES = {"REQUEST": 1, "RESPONSE": 2, "STREAM_TOKEN": 3, "CANCEL": 4, "ERROR": 5}
BLOB = ("role", "max_streams", "default_max_tokens", "flags", "aead", "ring_buffer_kib", "connection_token")
want, want_blobs = {}, []
for line in open(decode_path, encoding="utf-8"):
    e = json.loads(line)
    if e.get("kind") == "negotiation":
        blob = e.get("offer") or e.get("answer")
        want_blobs.append(tuple(int(blob[k], 16) if k == "connection_token" else blob[k] for k in BLOB))
    if e.get("kind") != "frame":
        continue
    assert e.get("decrypted"), f"decode did not decrypt {e}"
    body = e.get("json")
    want.setdefault(e["dir"], []).append((TYPES[e["type"]], e["stream_id"], e.get("text"), body))
got, got_blobs = {}, []
# The client is the side that opened the TCP connection (its SYN without ACK): over TLS the offer
# may travel in the handshake, so there is no preface to tell.
clients = set()
for packet in ET.parse(pdml_path).getroot().iter("packet"):
    first = {}
    for f in packet.iter("field"):
        first.setdefault(f.get("name"), f.get("show"))
    src = first.get("tcp.srcport")
    if first.get("tcp.flags.syn") in ("1", "True") and first.get("tcp.flags.ack") in ("0", "False"):
        clients.add(src)
    for proto in packet.findall("proto"):
        if proto.get("name") != "anthro":
            continue
        pf = {}
        for f in proto.iter("field"):
            pf.setdefault(f.get("name"), f)
        if "anthro.role" in pf:  # a negotiation blob, from a preface or the TLS extension
            got_blobs.append(tuple(int(pf["anthro." + k].get("show"), 0) for k in BLOB))
        if "anthro.type" not in pf:
            continue
        assert "anthro.stream_id" in pf, f"{name}: frame not decrypted in packet {packet}"
        def raw_text(field):
            # PDML's "value" is the field's bytes in hex: the exact text, free of display escaping.
            return bytes.fromhex(pf[field].get("value")).decode("utf-8") if field in pf else None
        text = raw_text("anthro.text")
        body = json.loads(raw_text("anthro.json")) if "anthro.json" in pf else None
        d = "c2s" if src in clients else "s2c"
        got.setdefault(d, []).append((int(pf["anthro.type"].get("show")), int(pf["anthro.stream_id"].get("show")), text, body))
if not want.get("s2c"):
    sys.exit(f"{name}: decode found no frames")
ok = True
for d in ("c2s", "s2c"):
    w, g = want.get(d, []), got.get(d, [])
    if w != g:
        ok = False
        print(f"{name} {d}: decode {len(w)} frames, tshark {len(g)}", file=sys.stderr)
        for a, b in zip(w, g):
            if a != b:
                print(f"  decode {a}\n  tshark {b}", file=sys.stderr)
                break
if not want_blobs or want_blobs != got_blobs:
    ok = False
    print(f"{name}: negotiation blobs differ:\n  decode {want_blobs}\n  tshark {got_blobs}", file=sys.stderr)
texts = lambda frames: "".join(t for _, _, t, _ in frames if t)
if texts(want.get("s2c", [])) != texts(got.get("s2c", [])):
    ok = False
print(f"{name}: {len(got_blobs)} blobs and {sum(map(len, want.values()))} frames agree; text {texts(got.get('s2c', []))!r}")
sys.exit(0 if ok else 1)
EOF
}

lab=$vectors/lab-conversation.pcap
cp "$vectors/lab-conversation.keylog" "$work/lab.keylog"
chmod 644 "$work/lab.keylog"
compare lab "$lab" --keylog "$work/lab.keylog" -- -o "anthro.keylog_file:$work/lab.keylog"
# With its own preference empty, the plugin reads the TLS key log preference.
compare lab-tls-pref "$lab" --keylog "$work/lab.keylog" -- -o "tls.keylog_file:$work/lab.keylog"

# The same conversation with every TCP payload cut into 7-byte segments: frames and prefaces now
# span packets, so only reassembly can find them.
python3 - "$lab" "$work/segmented.pcap" <<'EOF'
import struct, sys
src, dst = sys.argv[1:3]
data = open(src, "rb").read()
magic = data[:4]
endian = "<" if magic == b"\xd4\xc3\xb2\xa1" else ">"
assert magic in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"), "classic pcap expected"
linktype = struct.unpack(endian + "I", data[20:24])[0]
assert linktype == 1, "Ethernet expected"
out = bytearray(data[:24])
at = 24
while at + 16 <= len(data):
    sec, usec, incl, orig = struct.unpack(endian + "IIII", data[at:at + 16])
    pkt = data[at + 16:at + 16 + incl]
    at += 16 + incl
    eth, ip = pkt[:14], pkt[14:]
    ihl = (ip[0] & 15) * 4
    tcp_off = (ip[ihl + 12] >> 4) * 4
    payload = ip[ihl + tcp_off:]
    if not payload:
        out += struct.pack(endian + "IIII", sec, usec, incl, orig) + pkt
        continue
    seq = struct.unpack(">I", ip[ihl + 4:ihl + 8])[0]
    for i in range(0, len(payload), 7):
        chunk = payload[i:i + 7]
        iph = bytearray(ip[:ihl])
        iph[2:4] = struct.pack(">H", ihl + tcp_off + len(chunk))
        tcph = bytearray(ip[ihl:ihl + tcp_off])
        tcph[4:8] = struct.pack(">I", (seq + i) & 0xffffffff)
        new = eth + bytes(iph) + bytes(tcph) + chunk
        out += struct.pack(endian + "IIII", sec, usec + i // 7, len(new), len(new)) + new
open(dst, "wb").write(out)
EOF
compare segmented "$work/segmented.pcap" --keylog "$work/lab.keylog" -- -o "anthro.keylog_file:$work/lab.keylog"

# A display filter on a field: the STREAM_TOKEN frames decode counts.
tokens=$(grep -c '"type":"STREAM_TOKEN"' "$work/lab.decode.jsonl")
filtered=$(run_tshark -r "$lab" -o "anthro.keylog_file:$work/lab.keylog" -Y "anthro.type == 3" -T fields -e anthro.type | wc -l)
[ "$filtered" -eq "$tokens" ] || fail "anthro.type == 3 shows $filtered packets, decode has $tokens STREAM_TOKEN frames"

# Without a key: frames are parsed, not decrypted, and say why.
nokey=$(run_tshark -r "$lab" -Y "anthro.no_key" -T fields -e frame.number | wc -l)
frames=$(grep -c '"kind":"frame"' "$work/lab.decode.jsonl")
[ "$nokey" -eq "$frames" ] || fail "without a key $nokey packets say no_key, $frames frames"
# A key log with the right token and wrong keys: every frame fails authentication. Malformed
# lines around it (short hex, extra word, bad digit) must be ignored, not half-read.
token=$(awk '$1 == "ANTHRO_V1" {print $2}' "$work/lab.keylog")
{
  echo "# comment"
  echo "ANTHRO_V1 $token $(printf '11%.0s' {1..32})"
  echo "ANTHRO_V1 $token $(printf '22%.0s' {1..32}) $(printf '33%.0s' {1..31})"
  echo "ANTHRO_V1 $token $(printf '44%.0s' {1..32}) $(printf '55%.0s' {1..32}) extra"
  echo "ANTHRO_V1 $token $(printf 'zz%.0s' {1..32}) $(printf '66%.0s' {1..32})"
  echo "ANTHRO_V1 $token $(printf '77%.0s' {1..32}) $(printf '88%.0s' {1..32})"
} > "$work/wrong.keylog"
chmod 644 "$work/wrong.keylog"
badtag=$(run_tshark -r "$lab" -o "anthro.keylog_file:$work/wrong.keylog" -Y "anthro.refused.authentication" -T fields -e frame.number | wc -l)
[ "$badtag" -eq "$frames" ] || fail "with wrong keys $badtag packets refused for authentication, $frames frames"
decrypted=$(run_tshark -r "$lab" -o "anthro.keylog_file:$work/wrong.keylog" -Y "anthro.decrypted" -T fields -e frame.number | wc -l)
[ "$decrypted" -eq 0 ] || fail "a malformed key line decrypted $decrypted packets"

# Hostile input: every prefix of the capture and copies with bytes flipped. tshark may complain,
# never die of a signal.
size=$(stat -c %s "$lab")
survive() {
  local rc=0
  run_tshark -r "$1" -o "anthro.keylog_file:$work/lab.keylog" -V > /dev/null 2>&1 || rc=$?
  [ "$rc" -lt 128 ] || fail "tshark died (status $rc) on $2"
}
for cut in $(seq 100 37 "$size"); do
  head -c "$cut" "$lab" > "$work/cut.pcap"
  survive "$work/cut.pcap" "the first $cut bytes"
done
python3 - "$lab" "$work" <<'EOF'
import random, sys
src, work = sys.argv[1:3]
data = bytearray(open(src, "rb").read())
rng = random.Random(18)
for n in range(40):
    copy = bytearray(data)
    # Flip bytes only past the pcap and packet headers' first stretch so the file stays readable.
    for _ in range(1 + n % 8):
        at = rng.randrange(100, len(copy))
        copy[at] = rng.randrange(256)
    open(f"{work}/flip{n}.pcap", "wb").write(copy)
EOF
for f in "$work"/flip*.pcap; do survive "$f" "$(basename "$f")"; done
# A flipped ciphertext byte in a frame of the vector is refused for authentication.
python3 - "$lab" "$work/tampered.pcap" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"\x01\x03\x01\x00")  # the first STREAM_TOKEN header
assert at > 0
data[at + 16 + 12] ^= 1
open(sys.argv[2], "wb").write(data)
EOF
tampered=$(run_tshark -r "$work/tampered.pcap" -o "anthro.keylog_file:$work/lab.keylog" -Y "anthro.refused.authentication" -T fields -e frame.number | wc -l)
[ "$tampered" -eq 1 ] || fail "a flipped ciphertext byte gave $tampered authentication refusals, not 1"

# The spec's frame vectors (anthro-v1-vectors.json), both suites, each on a lab connection of its
# own behind the lab capture's offer and an answer naming the suite: every decoded body field
# must equal the vector's. Then each negative vector on a connection of its own must carry the
# Expert Info of exactly its reason.
python3 - "$lab" "$vectors/anthro-v1-vectors.json" "$work/vectors.pcap" "$work/vectors.expect" "$work/lab.keylog" <<'EOF'
import json, struct, sys
lab, vec_path, out_path, expect_path = sys.argv[1:5]
v = json.load(open(vec_path))
data = open(lab, "rb").read()
assert data[:4] == b"\xd4\xc3\xb2\xa1"
payloads, at = [], 24
while at + 16 <= len(data):
    incl = struct.unpack("<I", data[at + 8:at + 12])[0]
    pkt = data[at + 16:at + 16 + incl]
    at += 16 + incl
    ip = pkt[14:]
    ihl = (ip[0] & 15) * 4
    payload = ip[ihl + (ip[ihl + 12] >> 4) * 4:]
    if payload[:8] == b"ANTHRO01":
        payloads.append(payload)
# The spec's own blobs; the lab capture's prefaces are the same bytes.
offer = b"ANTHRO01" + bytes.fromhex(v["blobs"]["offer"])
answer = bytearray(b"ANTHRO01" + bytes.fromhex(v["blobs"]["answer"]))
assert payloads[0] == offer and payloads[1] == answer
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
t = [0]
def packet(port, c2s, seqs, payload):
    src, dst, sport, dport = (1, 2, port, 7080) if c2s else (2, 1, 7080, port)
    key = (port, c2s)
    seq = seqs.get(key, 1000)
    seqs[key] = seq + len(payload)
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x18, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0, 64, 6, 0,
                     bytes([10, 0, 0, src]), bytes([10, 0, 0, dst]))
    frame = b"\x00" * 12 + b"\x08\x00" + ip + tcp + payload
    t[0] += 1
    out.extend(struct.pack("<IIII", 1700000000, t[0], len(frame), len(frame)) + frame)
expect = {"frames": [], "negatives": [], "blob_negatives": [], "blobs": v["blobs"]}
port = 40000
for suite, bit in (("aes-256-gcm", 1), ("chacha20-poly1305", 2)):
    port += 1
    seqs = {}
    ans = bytearray(answer)
    ans[8 + 9] = bit
    packet(port, True, seqs, offer)
    packet(port, False, seqs, bytes(ans))
    for f in v["frames"]:
        if f["suite"] == suite:
            packet(port, f["direction"] == "c2s", seqs, bytes.fromhex(f["frame"]))
            expect["frames"].append({"port": port, "type": f["type"], "decoded": f["decoded"]})
for n in v["negatives"]:
    port += 1
    seqs = {}
    packet(port, True, seqs, offer)
    packet(port, False, seqs, bytes(answer))
    packet(port, False, seqs, bytes.fromhex(n["frame"]))
    expect["negatives"].append({"port": port, "reject": n["reject"], "name": n["name"]})
# A 127-byte blob cannot be told from a cut-off one inside a TCP stream, and `zero-shared` needs
# a private key the plugin does not take: those two are the workbench's to report.
for n in v["blob_negatives"]:
    if n["reject"] in ("size", "zero-shared"):
        continue
    port += 1
    seqs = {}
    packet(port, True, seqs, b"ANTHRO01" + bytes.fromhex(n["offer"]))
    if n["answer"]:
        packet(port, False, seqs, b"ANTHRO01" + bytes.fromhex(n["answer"]))
    expect["blob_negatives"].append({"port": port, "reject": n["reject"], "name": n["name"],
                                     "on": "answer" if n["answer"] else "offer"})
# A REQUEST whose api_key must not show, spelled plainly and through an escape.
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
import os
c2s = bytes.fromhex(open(sys.argv[5]).read().split()[2])
port += 1
seqs = {}
packet(port, True, seqs, offer)
packet(port, False, seqs, bytes(answer))
for i, name in enumerate(("api_key", "api_\\u006bey")):
    body = ('{"model":"m","messages":[{"role":"user","content":"hi"}],"%s":"sk-SECRET%d-xyz"}' % (name, i)).encode()
    plain = struct.pack(">I", 1 + 2 * i) + body
    payload_length = 12 + len(plain) + 16
    header = struct.pack(">BBBBI", 1, 1, 1, 0, payload_length) + bytes.fromhex("1234567890abcdef")
    nonce = bytes(11) + bytes([i + 1])
    packet(port, True, seqs, header + nonce + AESGCM(c2s).encrypt(nonce, plain, header))
expect["redaction_port"] = port
open(out_path, "wb").write(out)
json.dump(expect, open(expect_path, "w"))
EOF
run_tshark -r "$work/vectors.pcap" -T pdml -o "anthro.keylog_file:$work/lab.keylog" > "$work/vectors.pdml"
# Without TCP reassembly tshark hands the plugin the cut-off frame, which is then `incomplete`.
run_tshark -r "$work/vectors.pcap" -T pdml -o "anthro.keylog_file:$work/lab.keylog" \
  -o tcp.desegment_tcp_streams:FALSE > "$work/vectors-nodesegment.pdml"
# The secret's bytes appear nowhere: not in the tree, not in the decrypted data source's hex.
run_tshark -r "$work/vectors.pcap" -o "anthro.keylog_file:$work/lab.keylog" -V -x > "$work/vectors.txt"
grep -q "Decrypted anthro-v1" "$work/vectors.txt" || fail "no decrypted data source in the hex view"
! grep -q "SECRET" "$work/vectors.txt" || fail "an api_key shows in tshark's output"
! grep -q "53 45 43 52 45 54\|53 45 43 52" "$work/vectors.txt" || fail "an api_key shows in the hex view"
python3 - "$work/vectors.expect" "$work/vectors.pdml" "$work/vectors-nodesegment.pdml" <<'EOF' || fail "frame vectors"
import json, sys, xml.etree.ElementTree as ET
expect = json.load(open(sys.argv[1]))
def pdus(path):
    out = []  # (tcp.srcport, tcp.dstport, {field: [elements]}, [expert names])
    for packet in ET.parse(path).getroot().iter("packet"):
        ports = {}
        for f in packet.iter("field"):
            if f.get("name") in ("tcp.srcport", "tcp.dstport"):
                ports.setdefault(f.get("name"), int(f.get("show")))
        for proto in packet.findall("proto"):
            if proto.get("name") != "anthro":
                continue
            fields, experts = {}, []
            for f in proto.iter("field"):
                name = f.get("name")
                fields.setdefault(name, []).append(f)
                if name.startswith("anthro.refused.") or name in ("anthro.no_key",):
                    experts.append(name)
            out.append((ports["tcp.srcport"], ports["tcp.dstport"], fields, experts))
    return out
all_pdus = pdus(sys.argv[2])
ok = True
frames = [p for p in all_pdus if "anthro.type" in p[2] and 7080 in (p[0], p[1]) and p[0] <= 40002 and p[1] <= 40002]
if len(frames) != len(expect["frames"]):
    sys.exit(f"{len(frames)} vector frames dissected, {len(expect['frames'])} expected")
for (sp, dp, fields, experts), e in zip(frames, expect["frames"]):
    def val(name):
        f = fields[f"anthro.{name}"][0]
        if name in ("json", "text", "message"):
            text = bytes.fromhex(f.get("value")).decode("utf-8")
            return json.loads(text) if name == "json" else text
        return int(f.get("show"))
    got = {k: val(k) for k in e["decoded"] if f"anthro.{k}" in fields}
    if int(fields["anthro.type"][0].get("show")) != e["type"] or got != e["decoded"] or experts:
        ok = False
        print(f"vector frame on port {e['port']}: want type {e['type']} {e['decoded']}, got {got} {experts}", file=sys.stderr)
reason_field = {"authentication": "anthro.refused.authentication", "flags": "anthro.refused.flags",
                "version": "anthro.refused.version", "type": "anthro.refused.type",
                "reserved": "anthro.refused.reserved", "length": "anthro.refused.length",
                "token": "anthro.refused.token", "incomplete": "anthro.refused.incomplete"}
nodesegment = pdus(sys.argv[3])
for n in expect["negatives"]:
    source = nodesegment if n["reject"] == "incomplete" else all_pdus
    experts = [x for sp, dp, f, ex in source if n["port"] in (sp, dp) for x in ex]
    if experts != [reason_field[n["reject"]]]:
        ok = False
        print(f"negative {n['name']}: want {reason_field[n['reject']]}, got {experts}", file=sys.stderr)
blob_field = {"version": "anthro.refused.blob_version", "role": "anthro.refused.role",
              "reserved": "anthro.refused.blob_reserved", "token": "anthro.refused.blob_token",
              "max-streams": "anthro.refused.max_streams", "default-max-tokens": "anthro.refused.default_max_tokens",
              "flags": "anthro.refused.blob_flags", "aead": "anthro.refused.aead", "ring": "anthro.refused.ring",
              "token-echo": "anthro.refused.token_echo"}
for n in expect["blob_negatives"]:
    # The offer travels client to server (source port = the connection's port), the answer back.
    experts = [(("offer" if sp == n["port"] else "answer"), x) for sp, dp, f, ex in all_pdus if n["port"] in (sp, dp) for x in ex]
    if experts != [(n["on"], blob_field[n["reject"]])]:
        ok = False
        print(f"blob negative {n['name']}: want {n['on']} {blob_field[n['reject']]}, got {experts}", file=sys.stderr)
# Every blob field of the first vector connection against the spec's field values.
for sp, dp, fields, ex in all_pdus:
    if 40001 not in (sp, dp) or "anthro.role" not in fields:
        continue
    want = expect["blobs"]["offer_fields" if sp == 40001 else "answer_fields"]
    for name, value in want.items():
        f = fields[f"anthro.{name}"][0]
        got = f.get("value") if isinstance(value, str) else int(f.get("show"), 0)
        if got != value:
            ok = False
            print(f"blob field {name}: want {value}, got {got}", file=sys.stderr)
requests = [f for sp, dp, f, ex in all_pdus if sp == expect["redaction_port"] and "anthro.json" in f]
for f in requests:
    body = json.loads(bytes.fromhex(f["anthro.json"][0].get("value")).decode())
    if "SECRET" in json.dumps(body) or "messages" not in body:
        ok = False
        print(f"api_key not redacted: {body}", file=sys.stderr)
if len(requests) != 2:
    ok = False
    print(f"{len(requests)} redaction REQUESTs dissected, not 2", file=sys.stderr)
print(f"frame vectors: {len(expect['frames'])} frames, {len(expect['negatives'])} negatives, "
      f"{len(expect['blob_negatives'])} blob negatives, blob fields and api_key redaction checked")
sys.exit(0 if ok else 1)
EOF

# ClientHellos with extension 0xFFA1 of 128 bytes (the spec's offer), 64, 200 and 0 bytes, each
# on a connection of its own to port 443: the offer is dissected, the others refused for size.
python3 - "$vectors/anthro-v1-vectors.json" "$work/hellos.pcap" <<'EOF'
import json, struct, sys
offer = bytes.fromhex(json.load(open(sys.argv[1]))["blobs"]["offer"])
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
def extension(kind, data):
    return struct.pack(">HH", kind, len(data)) + data
for n, blob in enumerate((offer, offer[:64], offer + bytes(72), b"")):
    alpn = b"\x09anthro-v1"
    extensions = extension(0x0010, struct.pack(">H", len(alpn)) + alpn) + extension(0xFFA1, blob)
    body = (b"\x03\x03" + bytes(range(32)) + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00" +
            struct.pack(">H", len(extensions)) + extensions)
    handshake = b"\x01" + struct.pack(">I", len(body))[1:] + body
    payload = b"\x16\x03\x01" + struct.pack(">H", len(handshake)) + handshake
    tcp = struct.pack(">HHIIBBHHH", 50000 + n, 443, 1, 0, 5 << 4, 0x18, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    frame = b"\x00" * 12 + b"\x08\x00" + ip + tcp + payload
    out += struct.pack("<IIII", 1700000000, n, len(frame), len(frame)) + frame
open(sys.argv[2], "wb").write(out)
EOF
run_tshark -r "$work/hellos.pcap" -Y anthro -T fields -e tcp.srcport -e anthro.role -e anthro.connection_token \
  -e _ws.expert.message > "$work/hellos.txt"
token=0x$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["blobs"]["offer"][32:48])' \
  "$vectors/anthro-v1-vectors.json")
want=$(printf '%s\t1\t%s\t\n' 50000 "$token"
  for n in 1:64 2:200 3:0; do printf '%s\t\t\tblob refused: size (%s bytes, not 128)\n' "5000${n%%:*}" "${n#*:}"; done)
[ "$(cat "$work/hellos.txt")" = "$want" ] || fail "0xFFA1 in crafted ClientHellos: got
$(cat "$work/hellos.txt")
want
$want"

# A live TLS capture made by the workbench: tshark decrypts TLS from the TLS key log preference
# and hands the ALPN anthro-v1 data to the plugin, which reads ANTHRO_V1 lines from the same file.
if [ -n "$capture_helper" ]; then
  mkdir -p "$work/demo"
  (cd "$work/demo" && XDG_DATA_HOME="$work/demo" ANTHRO_CAPTURE_HELPER="$capture_helper" "$wb" demo > "$work/demo.log" 2>&1) ||
    { cat "$work/demo.log" >&2; fail "anthro-wb demo failed"; }
  demo_dir=$work/demo/anthro-workbench
  chmod -R a+rX "$work/demo"
  chmod 644 "$demo_dir/demo-session.keylog"
  compare tls "$demo_dir/demo-session.pcapng" --keylog "$demo_dir/demo-session.keylog" -- \
    -o "tls.keylog_file:$demo_dir/demo-session.keylog"

  # The same capture with the ClientHello's 0xFFA1 offer made version 2: the plugin must refuse
  # the blob it found in the TLS extension for that reason, on the offer, and nothing else.
  run_tshark -r "$demo_dir/demo-session.pcapng" -T pdml -o "tls.keylog_file:$demo_dir/demo-session.keylog" \
    -Y anthro.role > "$work/blobs.pdml"
  python3 - "$demo_dir/demo-session.pcapng" "$work/blobs.pdml" "$work/bad-offer.pcapng" <<'EOF2' || fail "patching the offer"
import struct, sys, xml.etree.ElementTree as ET
src, pdml, dst = sys.argv[1:4]
where = None
for packet in ET.parse(pdml).getroot().iter("packet"):
    fields = {f.get("name"): f for f in packet.iter("field")}
    if fields["anthro.role"].get("show") == "1":
        where = (int(fields["num"].get("show")), int(fields["anthro.blob_version"].get("pos")))
        break
assert where, "no offer in the TLS extension"
data = bytearray(open(src, "rb").read())
at, n = 0, 0
while at < len(data):
    block_type, length = struct.unpack_from("<II", data, at)
    if block_type == 6:
        n += 1
        if n == where[0]:
            assert data[at + 28 + where[1]] == 1
            data[at + 28 + where[1]] = 2
            break
    at += length
open(dst, "wb").write(data)
EOF2
  run_tshark -r "$work/bad-offer.pcapng" -T fields -o "tls.keylog_file:$demo_dir/demo-session.keylog" \
    -Y anthro.role -e anthro.role -e _ws.expert.message > "$work/bad-offer.txt"
  [ "$(cat "$work/bad-offer.txt")" = "$(printf '1\tblob refused: version (2, not 1)\n2\t')" ] ||
    fail "a version-2 offer in the TLS extension: $(cat "$work/bad-offer.txt")"
fi
echo "wireshark plugin: all checks passed"
