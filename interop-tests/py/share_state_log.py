#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads __share_group_state partition directories straight from a broker's
log files and checks that no share-partition's start offset ever moves back:
each ShareSnapshot / ShareUpdate record carries the whole state its leader
wrote, so a record with a lower start offset than the one before it for the
same key is an older state landing over a newer one (records acknowledged
and answered that the state would hand out again).

Usage: share_state_log.py DIR...   (each a __share_group_state-N directory)
Prints one line per step back; exit 1 if any, 0 otherwise.
"""
import glob
import os
import struct
import sys

BATCH_HEADER = 61  # base offset .. record count, record batch v2
CONTROL = 0x20
COMPRESSION = 0x07
SNAPSHOT, UPDATE = 0, 1


def varint(b, i):
    shift = r = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return (r >> 1) ^ -(r & 1), i


def records(path):
    """(offset, key, value) of each record of an uncompressed, non-control batch."""
    b = open(path, "rb").read()
    i = 0
    while i + BATCH_HEADER <= len(b):
        base, length = struct.unpack(">qi", b[i:i + 12])
        if length <= 0 or i + 12 + length > len(b):
            return
        attrs, = struct.unpack(">h", b[i + 21:i + 23])
        count, = struct.unpack(">i", b[i + 57:i + 61])
        j = i + BATCH_HEADER
        i += 12 + length
        if attrs & (CONTROL | COMPRESSION):
            continue
        for _ in range(count):
            size, j = varint(b, j)
            end = j + size
            j += 1  # attributes
            _, j = varint(b, j)  # timestamp delta
            delta, j = varint(b, j)
            klen, j = varint(b, j)
            key = b[j:j + klen]
            j += klen
            vlen, j = varint(b, j)
            value = b[j:j + vlen] if vlen >= 0 else None
            yield base + delta, key, value
            j = end


def start_offset(key, value):
    """The record's start offset (ShareSnapshotValue / ShareUpdateValue after the version), or None."""
    kind, = struct.unpack(">h", key[:2])
    if value is None:
        return None
    if kind == SNAPSHOT:  # snapshot, state and leader epochs, then the start offset
        return struct.unpack(">q", value[14:22])[0]
    if kind == UPDATE:  # snapshot and leader epochs, then the start offset (-1: unchanged)
        so = struct.unpack(">q", value[10:18])[0]
        return so if so >= 0 else None
    return None


def main(dirs):
    bad = 0
    for d in dirs:
        last = {}
        for path in sorted(glob.glob(os.path.join(d, "*.log"))):
            for offset, key, value in records(path):
                so = start_offset(key, value)
                k = key[2:]
                if so is None:
                    continue
                if k in last and so < last[k]:
                    print("%s offset %d: start offset %d after %d" % (d, offset, so, last[k]))
                    bad = 1
                last[k] = so
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
