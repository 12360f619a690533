#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Seed corpora for the libFuzzer targets in tests/fuzz/.

fuzz_request: every oracle fixture (tests/fixtures/oracle/<Message>.fix, one
"v<N> <hex>" line per version) becomes one binary seed laid out as the target
reads it: api key (int16 BE) | version selector (version - API min, uint16 BE)
| header | body. Requests get the request header the broker expects for that
version (v0 for ControlledShutdown v0, v2 when flexible, v1 otherwise);
responses get the response header (v1 when flexible, v0 otherwise and always
for ApiVersions). API keys and version ranges come from proto/*.gp.

fuzz_records: a few valid v2 record batches (uncompressed and gzip, with keys,
null values and headers), one alone per seed and all of them in a row.

When tests/golden/captures/ is present, its client frames (header + body) are
request/response seeds too, and the records fields of their expected dumps
(Produce and Fetch, compressed with every codec) are record seeds.

Usage: make_seeds.py REPO_ROOT OUT_DIR   (writes OUT_DIR/request, OUT_DIR/records)
"""
import glob
import gzip
import os
import re
import struct
import sys

# The encoders the raw-socket interop scripts use, not a second copy.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                                "interop-tests", "py"))
import kafka_wire  # noqa: E402
from kafka_wire import record, record_batch  # noqa: E402

API_CONTROLLED_SHUTDOWN = 7
API_API_VERSIONS = 18
CLIENT_ID = "fuzz"
CORRELATION_ID = 7


def parse_versions(text):
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def load_apis(proto_dir):
    """Returns {message name: (api key, api min version, flexible min or None, kind)}."""
    messages = {}
    for path in sorted(glob.glob(os.path.join(proto_dir, "*.gp"))):
        key = None
        api_min = None
        for line in open(path, encoding="utf-8"):
            words = line.split()
            if len(words) >= 2 and words[0] == "api":
                key = int(words[1])
                api_min = None
            elif len(words) >= 4 and words[0] in ("request", "response") and key is not None:
                lo, _ = parse_versions(words[3])
                flex = None
                if "flexible" in words:
                    value = words[words.index("flexible") + 1]
                    if value != "none":
                        flex = int(value.rstrip("+"))
                if words[0] == "request":
                    api_min = lo
                messages[words[1]] = (key, api_min if api_min is not None else lo, flex, words[0])
    return messages


def request_header(key, version, flex):
    if key == API_CONTROLLED_SHUTDOWN and version == 0:
        return struct.pack(">hhi", key, version, CORRELATION_ID)  # header v0: no client id
    return kafka_wire.request_header(key, version, CORRELATION_ID, CLIENT_ID,
                                     flexible=flex is not None and version >= flex)


def response_header(key, version, flex):
    head = struct.pack(">i", CORRELATION_ID)
    if key != API_API_VERSIONS and flex is not None and version >= flex:
        head += b"\x00"
    return head


def request_seeds(root, out):
    messages = load_apis(os.path.join(root, "proto"))
    count = 0
    for path in sorted(glob.glob(os.path.join(root, "tests", "fixtures", "oracle", "*.fix"))):
        name = os.path.basename(path)[: -len(".fix")]
        if name not in messages:
            continue  # headers and data messages
        key, api_min, flex, kind = messages[name]
        for line in open(path, encoding="utf-8"):
            m = re.match(r"^v(\d+) ([0-9a-fA-F]*)$", line.rstrip("\n"))
            if not m:
                continue
            version = int(m.group(1))
            body = bytes.fromhex(m.group(2))
            if kind == "request":
                head = request_header(key, version, flex)
            else:
                head = response_header(key, version, flex)
            seed = struct.pack(">hH", key, version - api_min) + head + body
            with open(os.path.join(out, "%s-v%d" % (name, version)), "wb") as f:
                f.write(seed)
            count += 1
    return count


def capture_seeds(root, out, messages, records_out):
    """Client captures (tests/golden/captures/, when present): whole frames
    (header + body) as request/response seeds, and the record batches their
    decoded Produce/Fetch bodies hold as record seeds."""
    cap = os.path.join(root, "tests", "golden", "captures")
    manifest = os.path.join(cap, "manifest.txt")
    if not os.path.exists(manifest):
        return 0, 0
    frames = batches = 0
    for line in open(manifest, encoding="utf-8"):
        words = line.split()
        if len(words) < 5 or words[4] not in messages:
            continue
        name, key, version = words[0], int(words[2]), int(words[3])
        api_min = messages[words[4]][1]
        with open(os.path.join(cap, name), encoding="utf-8") as f:
            frame = bytes.fromhex(f.read().strip())
        with open(os.path.join(out, "capture-" + name[: -len(".hex")]), "wb") as f:
            f.write(struct.pack(">hH", key, version - api_min) + frame)
        frames += 1
        expected = os.path.join(cap, name + ".expected")
        if not os.path.exists(expected):
            continue
        text = open(expected, encoding="utf-8").read()
        for i, hexdata in enumerate(re.findall(r'"Records":"([0-9a-f]+)"', text)):
            with open(os.path.join(records_out, "capture-%s-%d" % (name[: -len(".hex")], i)), "wb") as f:
                f.write(bytes.fromhex(hexdata))
            batches += 1
    return frames, batches


def batch(base_offset, records, codec=0):
    """records: (key, value, headers); record i at offset and timestamp delta i."""
    plain = b"".join(record(i, i, k, v, h) for i, (k, v, h) in enumerate(records))
    payload = gzip.compress(plain) if codec == 1 else plain
    return record_batch(payload, len(records), 1700000000000, 1700000000000 + len(records),
                        attributes=codec, base_offset=base_offset, partition_leader_epoch=0)


def record_seeds(out):
    batches = [
        batch(0, [(None, b"v", [])]),
        batch(5, [(b"k1", b"value one", [(b"h", b"x")]), (b"k2", None, [(b"a", None), (b"b", b"")])]),
        batch(9, [(b"key", b"gzip" * 20, [])] * 3, codec=1),
    ]
    for i, b in enumerate(batches):
        with open(os.path.join(out, "batch-%d" % i), "wb") as f:
            f.write(b)
    with open(os.path.join(out, "segment"), "wb") as f:
        f.write(b"".join(batches))
    return len(batches) + 1


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_seeds.py REPO_ROOT OUT_DIR")
    root, out = sys.argv[1], sys.argv[2]
    for sub in ("request", "records"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    n = request_seeds(root, os.path.join(out, "request"))
    m = record_seeds(os.path.join(out, "records"))
    frames, batches = capture_seeds(root, os.path.join(out, "request"),
                                    load_apis(os.path.join(root, "proto")), os.path.join(out, "records"))
    print("seeds: %d request/response fixtures, %d client captures, %d record batch sets"
          % (n, frames, m + batches))


if __name__ == "__main__":
    main()
