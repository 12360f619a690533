# SPDX-License-Identifier: Apache-2.0
"""Metadata v10 with include_cluster_authorized_operations and
include_topic_authorized_operations, as a raw request (kafka_wire.py).

usage: acl_metadata_raw.py HOST:PORT [TOPIC...]
With no topic, asks for every topic (a null list). Prints one line per topic,
"topic NAME ERROR_CODE OPS", then "cluster OPS", OPS being the names of the
authorized operations (Kafka's AclOperation codes, bit 1 << code), comma
separated, or "-" for none. Exit 0, or 1 on a wire error.
"""
import sys

import kafka_wire as kw

API_METADATA = 3
VERSION = 10
OPS = {3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER", 8: "DESCRIBE",
       9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE"}


def op_names(bits):
    names = [name for code, name in sorted(OPS.items()) if bits & (1 << code)]
    return ",".join(names) if names else "-"


def request(topics):
    w = kw.Writer(flexible=True)
    w.arr(topics, lambda w, t: w.uuid(bytes(16)).str(t).tags())
    w.i8(0)  # allow_auto_topic_creation
    w.i8(1)  # include_cluster_authorized_operations
    w.i8(1)  # include_topic_authorized_operations
    return bytes(w.tags().data)


def partition(r):
    r.i16(), r.i32(), r.i32(), r.i32()
    for _ in range(3):
        r.arr(lambda r: r.i32())
    r.tags()


def topic(r):
    err, name = r.i16(), r.str()
    r.uuid(), r.bool()
    r.arr(partition)
    ops = r.i32()
    r.tags()
    return name, err, ops


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    topics = sys.argv[2:] or None
    try:
        with kw.Connection(host, int(port), "acl-metadata", 10) as c:
            r = kw.Reader(c.call(API_METADATA, VERSION, request(topics), flexible=True), True)
            r.tags()  # response header
            r.i32()
            r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str(), r.tags()))
            r.str(), r.i32()
            for name, err, ops in r.arr(topic):
                print("topic %s %d %s" % (name, err, op_names(ops)))
            print("cluster %s" % op_names(r.i32()))
    except (kw.WireError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
