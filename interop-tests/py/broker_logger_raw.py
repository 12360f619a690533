#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kafka's BROKER_LOGGER config resource (type 8) over raw sockets
(kafka-python 2.0.2 has neither the resource type nor
IncrementalAlterConfigs): DescribeConfigs v1/v4 lists root and the
loggers, IncrementalAlterConfigs v0/v1 SET, DELETE and validate_only, and
Kafka's errors: another broker's id, an unknown logger, a level outside
Kafka's list (OFF and lower case included), deleting root, APPEND, a null
value, and legacy AlterConfigs on the resource type. After net=DEBUG a new
connection must bring a DEBUG [net] line into the broker's log.

Usage: broker_logger_raw.py HOST PORT BROKER_ID BROKER_LOG
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import sys
import time

import admin_raw
from admin_raw import check, describe_configs, incremental_alter
from kafka_wire import Writer

NONE, INVALID_CONFIG, INVALID_REQUEST = 0, 40, 42
BROKER_LOGGER = 8
SET, DELETE, APPEND = 0, 1, 2
SOURCE_LOGGER = 6
DEADLINE_S = 30


def loggers(c, broker, keys=None, version=4):
    res = describe_configs(c, version, [(BROKER_LOGGER, broker, keys)])[0]
    return res


def levels(c, broker):
    res = loggers(c, broker)
    check(res["error"] == NONE, "describe %s: error %d %s" % (broker, res["error"], res["message"]))
    return {k: v["value"] for k, v in res["configs"].items()}


def alter(c, broker, ops, version=1, validate=False):
    res = incremental_alter(c, version, [(BROKER_LOGGER, broker, ops)], validate)
    return res[0][0], res[0][1]


def legacy_alter(c, broker):
    w = Writer(False)
    w.arr([broker], lambda w, b: w.i8(BROKER_LOGGER).str(b).arr(
        [("net", "DEBUG")], lambda w, kv: w.str(kv[0]).str(kv[1])))
    w.i8(0)
    r = c.call(33, 0, False, w)
    r.i32()
    return r.arr(lambda r: (r.i16(), r.str(), r.i8(), r.str()))[0]


def net_debug_lines(path):
    with open(path, errors="replace") as f:
        return [l for l in f if ("DEBUG [net] accepted connection" in l or
                                 ('"level":"DEBUG","logger":"net"' in l and "accepted" in l))]


def probe(host, port, me):
    """A new connection that gets an answer: by then the broker logged its accept (or not)."""
    c = admin_raw.Conn(host, port)
    levels(c, me)
    c.wire.close()


def check_describe(c, me):
    res = loggers(c, me)
    check(res["error"] == NONE, "describe: error %d" % res["error"])
    names = res["configs"]
    check("root" in names and "net" in names and "replica" in names,
          "describe lists root, net, replica: %s" % sorted(names))
    check(all(v["source"] == SOURCE_LOGGER and not v["read_only"] for v in names.values()),
          "every logger DYNAMIC_BROKER_LOGGER_CONFIG, not read-only")
    check(names["root"]["value"] == "INFO", "root at INFO: %s" % names["root"]["value"])
    only = loggers(c, me, ["net"])["configs"]
    check(list(only) == ["net"], "a key filter keeps net only: %s" % list(only))
    v1 = loggers(c, me, None, 1)
    check(v1["error"] == NONE and "net" in v1["configs"], "describe v1")
    for bad in ("", "x1", str(int(me) + 1)):
        res = loggers(c, bad)
        check(res["error"] == INVALID_REQUEST,
              "describe broker logger %r: error %d, want INVALID_REQUEST" % (bad, res["error"]))


def check_errors(c, me):
    cases = [
        ([("nope", SET, "DEBUG")], INVALID_CONFIG, "does not exist"),
        ([("net", SET, "debug")], INVALID_CONFIG, "not a supported log level"),
        ([("net", SET, "OFF")], INVALID_CONFIG, "Valid log levels are"),
        ([("net", SET, None)], INVALID_REQUEST, "Null value"),
        ([("root", DELETE, None)], INVALID_REQUEST, "root logger is not allowed"),
        ([("net", APPEND, "DEBUG")], INVALID_REQUEST, "APPEND operation"),
        ([("net", SET, "DEBUG"), ("net", DELETE, None)], INVALID_REQUEST, "duplicate"),
        ([("net", SET, "DEBUG"), ("bogus", DELETE, None)], INVALID_CONFIG, "bogus"),
        # a NUL inside the name or the level is no logger and no level
        ([("net\0x", SET, "DEBUG")], INVALID_CONFIG, "does not exist"),
        ([("net", SET, "INFO\0x")], INVALID_CONFIG, ""),
    ]
    for ops, want, text in cases:
        err, msg = alter(c, me, ops)
        check(err == want and text in (msg or ""),
              "alter %s: %d %r, want %d with %r" % (ops, err, msg, want, text))
    check(levels(c, me)["net"] == "INFO", "no failed alter changed net")
    err, msg = alter(c, str(int(me) + 1), [("net", SET, "DEBUG")])
    check(err == INVALID_REQUEST, "alter another broker's loggers: %d %r" % (err, msg))
    err, msg = legacy_alter(c, me)[:2]
    check(err == INVALID_REQUEST, "legacy AlterConfigs on BROKER_LOGGER: %d %r" % (err, msg))


def check_set_and_delete(c, me, host, port, log_path):
    err, msg = alter(c, me, [("net", SET, "DEBUG")], validate=True)
    check(err == NONE, "validate_only net=DEBUG: %d %r" % (err, msg))
    check(levels(c, me)["net"] == "INFO", "validate_only changed nothing")
    before = len(net_debug_lines(log_path))
    err, msg = alter(c, me, [("net", SET, "DEBUG")], version=0)
    check(err == NONE, "net=DEBUG (v0): %d %r" % (err, msg))
    now = levels(c, me)
    check(now["net"] == "DEBUG" and now["root"] == "INFO" and now["log"] == "INFO",
          "after net=DEBUG: net %s root %s log %s" % (now["net"], now["root"], now["log"]))
    probe(host, port, me)
    deadline = time.monotonic() + DEADLINE_S
    while len(net_debug_lines(log_path)) <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    check(len(net_debug_lines(log_path)) > before, "a DEBUG [net] line after a new connection")
    # Root moves the loggers that follow it; FATAL is kept as ERROR.
    err, _ = alter(c, me, [("root", SET, "FATAL")])
    now = levels(c, me)
    check(err == NONE and now["root"] == "ERROR" and now["log"] == "ERROR" and
          now["net"] == "DEBUG", "root=FATAL: %s" % now)
    err, _ = alter(c, me, [("root", SET, "INFO"), ("net", DELETE, "")])
    now = levels(c, me)
    check(err == NONE and now["net"] == "INFO" and now["root"] == "INFO",
          "net deleted, back to root's INFO: %s" % now)
    after = len(net_debug_lines(log_path))
    probe(host, port, me)
    check(len(net_debug_lines(log_path)) == after, "no DEBUG [net] line once net was deleted")


def main():
    host, port, me, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    c = admin_raw.Conn(host, port)
    check_describe(c, me)
    check_errors(c, me)
    check_set_and_delete(c, me, host, port, log_path)
    print("%d failure(s)" % len(admin_raw.failures))
    return 1 if admin_raw.failures else 0


if __name__ == "__main__":
    sys.exit(main())
