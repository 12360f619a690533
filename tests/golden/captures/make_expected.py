#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes <capture>.expected for every capture in manifest.txt: the canonical
dump (tests/fixtures/README.md) of the message BODY, as decoded by the
independent oracle, tools/oracle/make_fixtures.py decode. The header is
stripped here from the header version given in the manifest, and its length
is checked against headers.txt. A capture the oracle cannot decode is not
a valid message of its stated version: its line moves from manifest.txt to
undecodable.txt, followed by "# " and the oracle's reason, and it gets no
.expected file.

Usage (from the repository root, with the reference schemas beside it):
    python3 tests/golden/captures/make_expected.py --schemas ../shared/kafka-protocol
"""
import argparse
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "..", "..", "tools", "oracle", "make_fixtures.py")


def uvarint(buf, pos):
    value, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def skip_tags(buf, pos):
    count, pos = uvarint(buf, pos)
    for _ in range(count):
        _, pos = uvarint(buf, pos)
        size, pos = uvarint(buf, pos)
        pos += size
    return pos


def header_size(frame, kind, header_version):
    if kind == "response":
        return skip_tags(frame, 4) if header_version >= 1 else 4
    pos = 8
    if header_version >= 1:
        (length,) = struct.unpack_from(">h", frame, pos)
        pos += 2 + max(length, 0)
    if header_version >= 2:
        pos = skip_tags(frame, pos)
    return pos


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", required=True)
    args = parser.parse_args()
    header_bytes = {}
    with open(os.path.join(HERE, "headers.txt")) as f:
        for line in f:
            fields = line.split()
            header_bytes[fields[0]] = int(fields[-1])
    kept, failed = [], []
    with open(os.path.join(HERE, "manifest.txt")) as f:
        lines = f.readlines()
    for line in lines:
        name, kind, _key, version, message, hv = line.split()
        with open(os.path.join(HERE, name)) as h:
            frame = bytes.fromhex(h.read().strip())
        size = header_size(frame, kind, int(hv))
        if size != header_bytes[name]:
            sys.exit("%s: header is %d bytes, headers.txt says %d" %
                     (name, size, header_bytes[name]))
        result = subprocess.run(
            [sys.executable, ORACLE, "decode", "--schemas", args.schemas,
             "--message", message, "--version", version, "--hex", frame[size:].hex()],
            capture_output=True, text=True)
        expected = os.path.join(HERE, name + ".expected")
        if result.returncode != 0:
            reason = " ".join(result.stderr.split())
            failed.append("%s # %s\n" % (line.strip(), reason))
            print("%s: %s" % (name, reason), file=sys.stderr)
            if os.path.exists(expected):
                os.remove(expected)
            continue
        kept.append(line)
        with open(expected, "w") as out:
            out.write(result.stdout.strip() + "\n")
    with open(os.path.join(HERE, "manifest.txt"), "w") as f:
        f.writelines(kept)
    if failed:
        with open(os.path.join(HERE, "undecodable.txt"), "a") as f:
            f.writelines(failed)
    print("%d decoded, %d undecodable" % (len(kept), len(failed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
