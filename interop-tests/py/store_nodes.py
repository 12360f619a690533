#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the nodes of a single-node metadata store as the broker holds them
now: the snapshot (<dir>/metadata) with the journal's groups
(<dir>/metadata.journal) replayed over it, one "<path> <data>" line per node
(data as latin-1). Tests grep this instead of the files, which keep a node's
old versions and deletions until the next snapshot. Formats: the comments of
src/metadata/store_local.c and store_local_journal.c."""
import os
import sys


def record(buf, pos):
    """(path, data, next pos) of the node record at pos."""
    nl = buf.index(b"\n", pos)
    fields = buf[pos:nl].split()
    plen, dlen = int(fields[0]), int(fields[1])
    start = nl + 1
    path = buf[start:start + plen].decode()
    data = buf[start + plen:start + plen + dlen]
    return path, data, start + plen + dlen + 1


def snapshot(buf):
    nodes = {}
    pos = 0
    for _ in range(3):  # magic, zxid, nodes
        header = buf[pos:buf.index(b"\n", pos)]
        pos = buf.index(b"\n", pos) + 1
    zxid = int(buf.split(b"\n")[1].split()[1])
    for _ in range(int(header.split()[1])):
        path, data, pos = record(buf, pos)
        nodes[path] = data
    return nodes, zxid


def replay(buf, nodes, zxid):
    pos = 0
    while pos < len(buf):
        nl = buf.find(b"\n", pos)
        if nl < 0:
            return
        _, gz, plen, _ = buf[pos:nl].split()
        body, end = nl + 1, nl + 1 + int(plen)
        if end > len(buf):
            return  # a torn last group: never acknowledged
        if int(gz) > zxid:
            p = body
            while p < end:
                kind = buf[p:p + 1]
                p += 2
                if kind == b"P":
                    path, data, p = record(buf, p)
                    nodes[path] = data
                else:
                    nl2 = buf.index(b"\n", p)
                    n = int(buf[p:nl2])
                    path = buf[nl2 + 1:nl2 + 1 + n].decode()
                    p = nl2 + 1 + n + 1
                    for k in [k for k in nodes if k == path or k.startswith(path + "/")]:
                        del nodes[k]
        pos = end


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "metadata"), "rb") as f:
        nodes, zxid = snapshot(f.read())
    journal = os.path.join(d, "metadata.journal")
    if os.path.exists(journal):
        with open(journal, "rb") as f:
            replay(f.read(), nodes, zxid)
    for path in sorted(nodes):
        print(path, nodes[path].decode("latin-1"))


if __name__ == "__main__":
    main()
