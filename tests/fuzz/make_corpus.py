#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/corpus/<target>/) from the spec test vectors.

Run from anywhere: python3 tests/fuzz/make_corpus.py [path/to/anthro-v1-vectors.json]
The input layouts are described at the top of each fuzz_*.cpp.
"""
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VECTORS = ROOT / "../shared/spec/vectors/anthro-v1-vectors.json"
MAGIC = b"ANTHRO01"


def stream_seed(sel, c2s, s2c):
    # The separator must not occur in c2s, or the target would split there.
    sep = next(b for b in range(256) if b not in c2s)
    return bytes([sel, sep]) + c2s + bytes([sep]) + s2c


def body_seed(frame_type, flags, plaintext):
    return bytes([(frame_type - 1) << 4 | flags]) + plaintext


def main():
    v = json.loads(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else VECTORS).read_text())
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
    sy["keylog"] = (v["keys"]["keylog_line"] + "\n# comment\nCLIENT_RANDOM " +
                    v["keys"]["client_random"] + " " + v["keys"]["hkdf_prk"] + "\n").encode()

    for target, files in seeds.items():
        d = HERE / "corpus" / target
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        for name, data in files.items():
            (d / name).write_bytes(data)
        print(f"{target}: {len(files)} seeds, {sum(map(len, files.values()))} bytes")


if __name__ == "__main__":
    main()
