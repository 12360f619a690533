#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Dynamic broker configs (KIP-226) over raw sockets, as kafka-configs.sh
--entity-type brokers sends them: IncrementalAlterConfigs v1 and legacy
AlterConfigs v0 on resource type BROKER, name "" (the cluster default) or
this broker's id, and DescribeConfigs v4 of the broker and of a topic
without overrides (value, source and synonyms as Kafka reports them).

Usage: broker_dynamic_raw.py HOST PORT BROKER_ID TOPIC STEP
STEP: "alter" (checks, leaving log.retention.ms=1000 and
log.segment.bytes=4096 at the default level and message.max.bytes=2000 on
this broker) or "kept" (after a restart: those values are still there).
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import sys

import admin_raw
from admin_raw import check, describe_configs, incremental_alter
from kafka_wire import Writer

NONE, INVALID_CONFIG, INVALID_REQUEST = 0, 40, 42
TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
DYNAMIC_BROKER, DYNAMIC_DEFAULT, STATIC, DEFAULT = 2, 3, 4, 5


def alter(c, name, ops, validate=False):
    res = incremental_alter(c, 1, [(BROKER, name, ops)], validate)
    return res[0][0], res[0][1]


def legacy_alter(c, name, pairs):
    w = Writer(False)
    w.arr([name], lambda w, n: w.i8(BROKER).str(n).arr(
        pairs, lambda w, kv: w.str(kv[0]).str(kv[1])))
    w.i8(0)
    r = c.call(33, 0, False, w)
    r.i32()
    return r.arr(lambda r: (r.i16(), r.str(), r.i8(), r.str()))[0][:2]


def entry(c, rtype, name, key):
    res = describe_configs(c, 4, [(rtype, name, [key])])[0]
    check(res["error"] == NONE, "describe %s: %d %s" % (name, res["error"], res["message"]))
    return res["configs"][key]


def expect(c, rtype, name, key, value, source, synonyms=None):
    e = entry(c, rtype, name, key)
    check(e["value"] == value and e["source"] == source,
          "%s %s: %r source %d, want %r source %d" % (name, key, e["value"], e["source"], value,
                                                      source))
    got = [(s[1], s[2]) for s in e["synonyms"]]
    if synonyms is not None:
        check(got[:len(synonyms)] == synonyms, "%s %s synonyms %r, want %r first" %
              (name, key, got, synonyms))


def ok(res, what):
    check(res[0] == NONE, "%s: %d %s" % (what, res[0], res[1]))


def refused(res, code, text, what):
    check(res[0] == code and res[1] is not None and text in res[1],
          "%s: %d %r, want %d with %r" % (what, res[0], res[1], code, text))


def step_alter(c, me, topic):
    base = entry(c, TOPIC, topic, "retention.ms")["value"]
    ok(alter(c, "", [("log.retention.ms", SET, "1000"), ("log.segment.bytes", SET, "4096")]),
       "default log.retention.ms")
    expect(c, TOPIC, topic, "retention.ms", "1000", DYNAMIC_DEFAULT, [("1000", DYNAMIC_DEFAULT)])
    expect(c, BROKER, me, "log.retention.ms", "1000", DYNAMIC_DEFAULT, [("1000", DYNAMIC_DEFAULT)])
    expect(c, TOPIC, topic, "segment.bytes", "4096", DYNAMIC_DEFAULT)

    # This broker's own value wins over the default; deleting it gives the default back.
    ok(alter(c, me, [("log.retention.ms", SET, "7200000")]), "broker log.retention.ms")
    expect(c, TOPIC, topic, "retention.ms", "7200000", DYNAMIC_BROKER,
           [("7200000", DYNAMIC_BROKER), ("1000", DYNAMIC_DEFAULT)])
    expect(c, BROKER, me, "log.retention.ms", "7200000", DYNAMIC_BROKER,
           [("7200000", DYNAMIC_BROKER), ("1000", DYNAMIC_DEFAULT)])
    ok(alter(c, me, [("log.retention.ms", DELETE, None)]), "delete broker log.retention.ms")
    expect(c, TOPIC, topic, "retention.ms", "1000", DYNAMIC_DEFAULT)

    # validate_only changes nothing; bad values, Kafka's static keys and keys
    # Gregor cannot apply live are refused, and change nothing either.
    ok(alter(c, me, [("message.max.bytes", SET, "2000")], validate=True), "validate_only")
    check(entry(c, BROKER, me, "message.max.bytes")["value"] != "2000", "validate_only applied")
    refused(alter(c, me, [("log.segment.bytes", SET, "abc")]), INVALID_CONFIG, "log.segment.bytes",
            "a bad value")
    refused(alter(c, me, [("message.max.bytes", SET, "3000"), ("broker.id", SET, "9")]),
            INVALID_CONFIG, "Cannot update these configs dynamically: Set(broker.id)", "broker.id")
    refused(alter(c, "", [("log.dirs", SET, "/tmp/x")]), INVALID_CONFIG,
            "Cannot update these configs dynamically: Set(log.dirs)", "log.dirs")
    refused(alter(c, me, [("num.io.threads", SET, "4")]), INVALID_CONFIG,
            "Gregor runs one event loop: num.io.threads has no effect: Set(num.io.threads)",
            "num.io.threads")
    refused(alter(c, me, [("leader.replication.throttled.rate", SET, "1000")]), INVALID_CONFIG,
            "Gregor does not throttle replication", "leader.replication.throttled.rate")
    refused(alter(c, "", [("log.preallocate", SET, "true")]), INVALID_CONFIG,
            "Gregor does not preallocate segment files: Set(log.preallocate)", "log.preallocate")
    refused(alter(c, "", [("log.retention.hours", SET, "1")]), INVALID_CONFIG,
            "Cannot update these configs dynamically: Set(log.retention.hours)",
            "log.retention.hours (Kafka changes only log.retention.ms live)")
    refused(alter(c, "", [("max.connections.per.ip.overrides", SET, "127.0.0.9:abc")]),
            INVALID_CONFIG, "not host:count", "an override that is not host:count")
    refused(alter(c, "", [("log.cleaner.io.buffer.load.factor", SET, "1.5")]), INVALID_CONFIG,
            "the load factor must be in (0, 1)", "a load factor the cleaner cannot use")
    refused(alter(c, me, [("log.cleaner.threads", SET, "0")]), INVALID_CONFIG,
            "Log cleaner threads should be at least 1", "no cleaner thread (Kafka's check)")
    refused(alter(c, me, [("num.replica.fetchers", SET, "3")]), INVALID_CONFIG,
            "Dynamic thread count update validation failed for num.replica.fetchers=3, "
            "value should not be greater than double the current value 1",
            "3 replica fetchers from 1 (Kafka's check)")
    refused(alter(c, me, [("listener.name.plaintext.max.connections", SET, "2")]), INVALID_CONFIG,
            "Gregor cannot yet apply these configs live: "
            "Set(listener.name.plaintext.max.connections)", "a per-listener connection limit")
    refused(alter(c, me, [("log.retention.ms\0x", SET, "5")]), INVALID_CONFIG,
            "Cannot update these configs dynamically", "a key with a NUL inside")
    # APPEND and SUBTRACT edit the level's list (else the key's default, "delete").
    ok(alter(c, me, [("log.cleanup.policy", APPEND, "compact")]), "APPEND")
    expect(c, TOPIC, topic, "cleanup.policy", "delete,compact", DYNAMIC_BROKER)
    ok(alter(c, me, [("log.cleanup.policy", SUBTRACT, "delete")]), "SUBTRACT")
    ok(alter(c, me, [("log.cleanup.policy", APPEND, "delete")]), "APPEND again")
    expect(c, BROKER, me, "log.cleanup.policy", "compact,delete", DYNAMIC_BROKER)
    ok(alter(c, me, [("log.cleanup.policy", SUBTRACT, "compact,delete")]), "SUBTRACT all")
    expect(c, BROKER, me, "log.cleanup.policy", "", DYNAMIC_BROKER)
    ok(alter(c, me, [("log.cleanup.policy", DELETE, None)]), "delete log.cleanup.policy")
    expect(c, TOPIC, topic, "cleanup.policy", "delete", DEFAULT)
    refused(alter(c, me, [("message.max.bytes", APPEND, "5")]), INVALID_CONFIG,
            "Config value append is not allowed for config key: message.max.bytes",
            "APPEND on a number")
    refused(alter(c, "99", [("log.retention.ms", SET, "5")]), INVALID_REQUEST,
            "Unexpected broker id", "another broker")
    check(entry(c, BROKER, me, "message.max.bytes")["value"] != "3000", "a refused set applied")

    # Legacy AlterConfigs replaces the level's whole set.
    ok(legacy_alter(c, me, [("log.retention.ms", "5000")]), "legacy alter")
    expect(c, TOPIC, topic, "retention.ms", "5000", DYNAMIC_BROKER)
    ok(legacy_alter(c, me, [("message.max.bytes", "2000")]), "legacy alter replacing")
    expect(c, TOPIC, topic, "retention.ms", "1000", DYNAMIC_DEFAULT)
    expect(c, TOPIC, topic, "max.message.bytes", "2000", DYNAMIC_BROKER)
    refused(legacy_alter(c, me, [("listeners", "PLAINTEXT://:1")]), INVALID_CONFIG,
            "Gregor opens its listeners at start", "legacy listeners")
    check(base != "1000", "the topic had the static retention before (%r)" % base)


def step_kept(c, me, topic):
    expect(c, TOPIC, topic, "retention.ms", "1000", DYNAMIC_DEFAULT)
    expect(c, TOPIC, topic, "segment.bytes", "4096", DYNAMIC_DEFAULT)
    expect(c, BROKER, me, "message.max.bytes", "2000", DYNAMIC_BROKER)


def main():
    host, port, me, topic, step = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    c = admin_raw.Conn(host, port)
    {"alter": step_alter, "kept": step_kept}[step](c, me, topic)
    return 1 if admin_raw.failures else 0


if __name__ == "__main__":
    sys.exit(main())
