#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Admin APIs that librdkafka 2.0.2 does not have, over raw sockets, with
requests and response parsers written here by hand from Kafka's message
schemas (standard library only; nothing shared with Gregor's codec):
CreateTopics v5 (configs returned), IncrementalAlterConfigs v0/v1,
DescribeConfigs v1/v4 (broker "" and other ids, documentation, key filter),
DescribeCluster v0/v1, DescribeLogDirs v0/v4, ElectLeaders v0/v2, and
DeleteRecords v0 errors that librdkafka cannot send.

Usage: admin_raw.py HOST PORT TOPIC_WITH_DATA
(TOPIC_WITH_DATA: an existing one-partition topic holding records.)
Exit status 0 when every check passed, 1 otherwise (each failure on stderr).
"""
import sys

import kafka_wire
from kafka_wire import Reader, Writer

NONE, UNKNOWN_TOPIC, INVALID_CONFIG, INVALID_REQUEST = 0, 3, 40, 42
OFFSET_OUT_OF_RANGE, ELECTION_NOT_NEEDED, MISMATCHED_ENDPOINT = 1, 84, 114
TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
SOURCE_TOPIC, SOURCE_DEFAULT = 1, 5

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


class Conn:
    """Requests written with a Writer; a wrong correlation id is one more
    failure, not the end of the run."""

    def __init__(self, host, port):
        self.wire = kafka_wire.Connection(host, port, "admin-raw", 30)

    def call(self, api, version, flexible, body):
        want = self.wire.send(api, version, body.data, flexible)
        got, data = self.wire.receive()
        check(got == want, "correlation id of api %d v%d" % (api, version))
        r = Reader(data, flexible)
        r.tags()
        return r


# ---- APIs -------------------------------------------------------------------


def create_topic_v5(c, name, configs):
    w = Writer(True)

    def cfg(w, kv):
        w.str(kv[0]).str(kv[1]).tags()

    def topic(w, t):
        w.str(t).i32(1).i16(1).arr([], None).arr(configs, cfg).tags()

    w.arr([name], topic).i32(30000).i8(0).tags()
    r = c.call(19, 5, True, w)
    r.i32()

    def result(r):
        name, err, msg = r.str(), r.i16(), r.str()
        parts, rf = r.i32(), r.i16()

        def conf(r):
            e = (r.str(), r.str(), r.bool(), r.i8(), r.bool())
            r.tags()
            return e

        confs = r.arr(conf)
        r.tags()
        return name, err, msg, parts, rf, confs

    return r.arr(result)


def incremental_alter(c, version, resources, validate=False):
    flex = version >= 1
    w = Writer(flex)

    def entry(w, e):
        w.str(e[0]).i8(e[1]).str(e[2]).tags()

    def res(w, rs):
        w.i8(rs[0]).str(rs[1]).arr(rs[2], entry).tags()

    w.arr(resources, res).i8(1 if validate else 0).tags()
    r = c.call(44, version, flex, w)
    r.i32()

    def resp(r):
        e = (r.i16(), r.str(), r.i8(), r.str())
        r.tags()
        return e

    return r.arr(resp)


def describe_configs(c, version, resources, synonyms=True, docs=False):
    flex = version >= 4
    w = Writer(flex)

    def res(w, rs):
        w.i8(rs[0]).str(rs[1])
        w.arr(rs[2], lambda w, k: w.str(k)).tags()

    w.arr(resources, res)
    if version >= 1:
        w.i8(1 if synonyms else 0)
    if version >= 3:
        w.i8(1 if docs else 0)
    w.tags()
    r = c.call(32, version, flex, w)
    r.i32()

    def syn(r):
        e = (r.str(), r.str(), r.i8())
        r.tags()
        return e

    def conf(r):
        e = {"name": r.str(), "value": r.str(), "read_only": r.bool()}
        if version == 0:
            e["is_default"] = r.bool()
        else:
            e["source"] = r.i8()
        e["sensitive"] = r.bool()
        if version >= 1:
            e["synonyms"] = r.arr(syn)
        if version >= 3:
            e["type"], e["doc"] = r.i8(), r.str()
        r.tags()
        return e

    def result(r):
        e = {"error": r.i16(), "message": r.str(), "type": r.i8(), "name": r.str()}
        e["configs"] = {x["name"]: x for x in r.arr(conf)}
        r.tags()
        return e

    return r.arr(result)


def describe_cluster(c, version, endpoint=1):
    w = Writer(True).i8(1)
    if version >= 1:
        w.i8(endpoint)
    w.tags()
    r = c.call(60, version, True, w)
    e = {"throttle": r.i32(), "error": r.i16(), "message": r.str()}
    if version >= 1:
        e["endpoint"] = r.i8()
    e["cluster_id"], e["controller"] = r.str(), r.i32()

    def broker(r):
        b = (r.i32(), r.str(), r.i32(), r.str())
        r.tags()
        return b

    e["brokers"] = r.arr(broker)
    e["ops"] = r.i32()
    return e


def describe_log_dirs(c, version, topics):
    flex = version >= 2
    w = Writer(flex)
    w.arr(topics, lambda w, t: w.str(t[0]).arr(t[1], lambda w, p: w.i32(p)).tags()).tags()
    r = c.call(35, version, flex, w)
    r.i32()
    top_error = r.i16() if version >= 3 else 0

    def part(r):
        e = (r.i32(), r.i64(), r.i64(), r.bool())
        r.tags()
        return e

    def topic(r):
        e = (r.str(), r.arr(part))
        r.tags()
        return e

    def result(r):
        e = {"error": r.i16(), "dir": r.str(), "topics": r.arr(topic)}
        if version >= 4:
            e["total"], e["usable"] = r.i64(), r.i64()
        r.tags()
        return e

    return top_error, r.arr(result)


def elect_leaders(c, version, topics, election=0):
    flex = version >= 2
    w = Writer(flex)
    if version >= 1:
        w.i8(election)
    w.arr(topics, lambda w, t: w.str(t[0]).arr(t[1], lambda w, p: w.i32(p)).tags())
    w.i32(30000).tags()
    r = c.call(43, version, flex, w)
    r.i32()
    top_error = r.i16() if version >= 1 else 0

    def part(r):
        e = (r.i32(), r.i16(), r.str())
        r.tags()
        return e

    def topic(r):
        e = (r.str(), r.arr(part))
        r.tags()
        return e

    return top_error, r.arr(topic)


def delete_records(c, version, topic, partition, offset):
    flex = version >= 2
    w = Writer(flex)
    w.arr([topic], lambda w, t: w.str(t).arr(
        [partition], lambda w, p: w.i32(p).i64(offset).tags()).tags())
    w.i32(30000).tags()
    r = c.call(21, version, flex, w)
    r.i32()

    def part(r):
        e = (r.i32(), r.i64(), r.i16())
        r.tags()
        return e

    def topic_(r):
        e = (r.str(), r.arr(part))
        r.tags()
        return e

    return r.arr(topic_)


def create_partitions(c, version, topic, count, validate=False):
    flex = version >= 2
    w = Writer(flex)
    w.arr([topic], lambda w, t: w.str(t).i32(count).arr(None, None).tags())
    w.i32(30000).i8(1 if validate else 0).tags()
    r = c.call(37, version, flex, w)
    r.i32()

    def res(r):
        e = (r.str(), r.i16(), r.str())
        r.tags()
        return e

    return r.arr(res)


def alter_configs(c, version, topic, pairs, validate=False):
    flex = version >= 2
    w = Writer(flex)
    w.arr([topic], lambda w, t: w.i8(TOPIC).str(t).arr(
        pairs, lambda w, kv: w.str(kv[0]).str(kv[1]).tags()).tags())
    w.i8(1 if validate else 0).tags()
    r = c.call(33, version, flex, w)
    r.i32()

    def res(r):
        e = (r.i16(), r.str(), r.i8(), r.str())
        r.tags()
        return e

    return r.arr(res)


def delete_records_v0(c, topic, partition, offset):
    w = Writer(False)
    w.arr([topic], lambda w, t: w.str(t).arr([partition], lambda w, p: w.i32(p).i64(offset)))
    w.i32(30000)
    r = c.call(21, 0, False, w)
    r.i32()
    return r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i64(), r.i16()))))


# ---- checks -----------------------------------------------------------------


def configs_of(c, version, topic, keys=None):
    res = describe_configs(c, version, [(TOPIC, topic, keys)])
    return res[0]["configs"]


def check_create_and_incremental(c):
    got = create_topic_v5(c, "raw_cfg", [("retention.ms", "7000"), ("cleanup.policy", "delete")])
    name, err, _, parts, rf, confs = got[0]
    check(err == NONE and parts == 1 and rf == 1, "CreateTopics v5: %r" % (got,))
    by_name = {e[0]: e[1:] for e in confs or []}
    check(len(confs or []) == 34, "CreateTopics v5 lists %d configs, want 34" % len(confs or []))
    check(by_name.get("retention.ms") == ("7000", False, SOURCE_TOPIC, False) and
          by_name.get("cleanup.policy") == ("delete", False, SOURCE_TOPIC, False) and
          by_name.get("segment.bytes") == ("1073741824", False, SOURCE_DEFAULT, False),
          "CreateTopics v5 configs: %r" % (confs,))
    for version in (0, 1):
        res = incremental_alter(c, version, [(TOPIC, "raw_cfg", [
            ("retention.ms", SET, "1000"), ("cleanup.policy", APPEND, "compact")])])
        check(res == [(NONE, None, TOPIC, "raw_cfg")], "IAC v%d SET+APPEND: %r" % (version, res))
        cf = configs_of(c, 1, "raw_cfg")
        check(cf["retention.ms"]["value"] == "1000" and cf["retention.ms"]["source"] == SOURCE_TOPIC,
              "IAC v%d retention.ms: %r" % (version, cf["retention.ms"]))
        check(cf["cleanup.policy"]["value"] == "delete,compact",
              "IAC v%d APPEND: %r" % (version, cf["cleanup.policy"]))
        res = incremental_alter(c, version, [(TOPIC, "raw_cfg", [
            ("cleanup.policy", SUBTRACT, "delete"), ("retention.ms", DELETE, None)])])
        check(res[0][0] == NONE, "IAC v%d SUBTRACT+DELETE: %r" % (version, res))
        cf = configs_of(c, 1, "raw_cfg")
        check(cf["cleanup.policy"]["value"] == "compact", "SUBTRACT: %r" % (cf["cleanup.policy"],))
        check(cf["retention.ms"]["source"] == SOURCE_DEFAULT and
              cf["retention.ms"]["value"] == "604800000", "DELETE: %r" % (cf["retention.ms"],))
        # Put the starting state back for the next version's round.
        incremental_alter(c, version, [(TOPIC, "raw_cfg", [("cleanup.policy", SET, "delete")])])

    errors = [
        ([("retention.ms", APPEND, "5")], INVALID_CONFIG, "APPEND on a non-list key"),
        ([("retention.ms", 9, "5")], INVALID_REQUEST, "unknown operation"),
        ([("retention.ms", SET, "5"), ("retention.ms", DELETE, None)], INVALID_REQUEST,
         "the same key twice"),
        ([("retention.ms", SET, None)], INVALID_REQUEST, "SET with a null value"),
        ([("retention.ms", SET, "-7")], INVALID_CONFIG, "a value below the minimum"),
        ([("no.such.config", SET, "1")], INVALID_CONFIG, "an unknown key"),
        ([("k%d" % i, SET, "1") for i in range(100)], INVALID_CONFIG, "100 keys at once"),
    ]
    for entries, code, what in errors:
        res = incremental_alter(c, 1, [(TOPIC, "raw_cfg", entries)])
        check(res[0][0] == code and res[0][1], "IAC %s: %r" % (what, res))
    res = incremental_alter(c, 1, [(TOPIC, "raw_cfg", [("segment.ms", SET, "1000")])], True)
    check(res[0][0] == NONE, "IAC validate-only: %r" % (res,))
    check(configs_of(c, 1, "raw_cfg")["segment.ms"]["source"] == SOURCE_DEFAULT,
          "IAC validate-only changed segment.ms")
    res = incremental_alter(c, 1, [(TOPIC, "nosuch", [("segment.ms", SET, "1")])])
    check(res[0][0] == UNKNOWN_TOPIC, "IAC unknown topic: %r" % (res,))
    res = incremental_alter(c, 1, [(BROKER, "0", [("num.partitions", SET, "3")])])
    check(res[0][0] == INVALID_CONFIG and "Set(num.partitions)" in (res[0][1] or ""),
          "IAC broker key Kafka does not change live: %r" % (res,))
    res = incremental_alter(c, 1, [(TOPIC, "raw_cfg", []), (TOPIC, "raw_cfg", [])])
    check([x[0] for x in res] == [INVALID_REQUEST] * 2, "IAC duplicate resource: %r" % (res,))


def check_describe_configs(c):
    res = describe_configs(c, 4, [(TOPIC, "raw_cfg", ["segment.bytes", "nope"])], docs=True)
    cf = res[0]["configs"]
    check(list(cf) == ["segment.bytes"], "key filter: %r" % (list(cf),))
    e = cf.get("segment.bytes", {})
    check(e.get("type") == 3 and e.get("doc") and e.get("value") == "1073741824",
          "v4 type and documentation: %r" % (e,))
    keys = ["no.such.%d" % i for i in range(5000)] + ["retention.ms", "segment.ms"]
    res = describe_configs(c, 1, [(TOPIC, "raw_cfg", keys)])
    check(sorted(res[0]["configs"]) == ["retention.ms", "segment.ms"],
          "5002 keys asked: %r" % (sorted(res[0]["configs"])[:5],))
    res = describe_configs(c, 0, [(TOPIC, "raw_cfg", None)])
    e = res[0]["configs"]["retention.ms"]
    check(e["is_default"] and len(res[0]["configs"]) == 34, "v0 is_default: %r" % (e,))
    res = describe_configs(c, 1, [(BROKER, "", None), (BROKER, "7", None), (3, "g", None),
                                  (TOPIC, "bad/name", None), (BROKER, "0", ["num.partitions"])])
    codes = [(x["error"], len(x["configs"])) for x in res]
    check(codes == [(NONE, 0), (INVALID_REQUEST, 0), (INVALID_REQUEST, 0), (17, 0), (NONE, 1)],
          "broker '', other id, group type, bad name, broker key: %r" % (codes,))
    e = res[4]["configs"]["num.partitions"]
    check(e["read_only"] and e["source"] == SOURCE_DEFAULT and e["value"] == "1",
          "broker num.partitions: %r" % (e,))


def check_cluster(c, port):
    for version in (0, 1):
        e = describe_cluster(c, version)
        check(e["error"] == NONE and e["controller"] == 0 and e["cluster_id"] and
              e["brokers"] == [(0, "127.0.0.1", port, None)] and e["ops"] == 8096,
              "DescribeCluster v%d: %r" % (version, e))
    e = describe_cluster(c, 1, endpoint=2)
    check(e["error"] == MISMATCHED_ENDPOINT and e["brokers"] == [],
          "DescribeCluster controllers: %r" % (e,))


def check_log_dirs(c, topic):
    for version in (0, 4):
        err, dirs = describe_log_dirs(c, version, None)
        check(err == NONE and len(dirs) == 1 and dirs[0]["error"] == NONE,
              "DescribeLogDirs v%d all: %r" % (version, dirs))
        topics = dict(dirs[0]["topics"])
        parts = topics.get(topic, [])
        check(len(parts) == 1 and parts[0][0] == 0 and parts[0][1] > 0 and parts[0][2] == 0,
              "DescribeLogDirs v%d %s: %r" % (version, topic, parts))
        check("raw_cfg" in topics, "DescribeLogDirs v%d lists raw_cfg" % version)
        if version >= 4:
            check(dirs[0]["total"] > 0 and 0 <= dirs[0]["usable"] <= dirs[0]["total"],
                  "DescribeLogDirs v4 sizes: %r" % (dirs[0],))
        err, dirs = describe_log_dirs(c, version, [(topic, [0, 5]), ("nosuch", [0])])
        check([t[0] for t in dirs[0]["topics"]] == [topic] and
              [p[0] for p in dirs[0]["topics"][0][1]] == [0],
              "DescribeLogDirs v%d asked partitions: %r" % (version, dirs))


def check_elect(c, topic):
    for version in (0, 2):
        err, res = elect_leaders(c, version, [(topic, [0, 3])])
        codes = [(p[0], p[1]) for p in res[0][1]]
        check(err == NONE and res[0][0] == topic and
              codes == [(0, ELECTION_NOT_NEEDED), (3, UNKNOWN_TOPIC)],
              "ElectLeaders v%d: %r" % (version, res))
        err, res = elect_leaders(c, version, None)
        check(err == NONE and res == [], "ElectLeaders v%d all: %r" % (version, res))
    err, res = elect_leaders(c, 2, [(topic, [0])], election=5)
    check(res[0][1][0][1] == INVALID_REQUEST, "ElectLeaders bad type: %r" % (res,))


def check_delete_records(c, topic):
    res = delete_records_v0(c, topic, 7, 0)
    check(res[0][1] == [(7, -1, UNKNOWN_TOPIC)], "DeleteRecords unknown partition: %r" % (res,))
    res = delete_records_v0(c, topic, 0, -5)
    check(res[0][1] == [(0, -1, OFFSET_OUT_OF_RANGE)], "DeleteRecords offset -5: %r" % (res,))
    res = delete_records_v0(c, topic, 0, 1)
    check(res[0][1] == [(0, 1, NONE)], "DeleteRecords to 1: %r" % (res,))


def check_every_version(c, topic):
    """Each API at every version of Kafka 3.8's range, valid and invalid input."""
    for v in range(0, 5):
        res = describe_configs(c, v, [(TOPIC, "raw_cfg", ["retention.ms"]), (TOPIC, "nosuch", None)])
        check(list(res[0]["configs"]) == ["retention.ms"] and res[1]["error"] == UNKNOWN_TOPIC,
              "DescribeConfigs v%d: %r" % (v, res))
    for v in range(0, 3):
        res = alter_configs(c, v, "raw_cfg", [("cleanup.policy", "delete"), ("segment.ms", "%d" % (1000 + v))])
        check(res == [(NONE, None, TOPIC, "raw_cfg")], "AlterConfigs v%d: %r" % (v, res))
        check(configs_of(c, 1, "raw_cfg")["segment.ms"]["value"] == "%d" % (1000 + v),
              "AlterConfigs v%d did not apply" % v)
        res = alter_configs(c, v, "raw_cfg", [("segment.ms", "0")])
        check(res[0][0] == INVALID_CONFIG, "AlterConfigs v%d bad value: %r" % (v, res))
        res = alter_configs(c, v, "raw_cfg", [("segment.ms", None)])
        check(res[0][0] == INVALID_REQUEST, "AlterConfigs v%d null value: %r" % (v, res))
    for v in range(0, 4):
        res = create_partitions(c, v, "raw_cfg", 2 + v)
        check(res == [("raw_cfg", NONE, None)], "CreatePartitions v%d: %r" % (v, res))
        res = create_partitions(c, v, "raw_cfg", 1 + v, validate=True)
        check(res[0][1] == 37, "CreatePartitions v%d same count: %r" % (v, res))
    res = create_partitions(c, 3, "nosuch", 3)
    check(res[0][1] == UNKNOWN_TOPIC, "CreatePartitions unknown topic: %r" % (res,))
    for v in range(0, 3):
        res = delete_records(c, v, topic, 0, 2 + v)
        check(res[0][1] == [(0, 2 + v, NONE)], "DeleteRecords v%d: %r" % (v, res))
        res = delete_records(c, v, topic, 9, 0)
        check(res[0][1] == [(9, -1, UNKNOWN_TOPIC)], "DeleteRecords v%d unknown: %r" % (v, res))
    for v in range(0, 5):
        err, dirs = describe_log_dirs(c, v, [(topic, [0])])
        check(err == NONE and dirs[0]["topics"][0][0] == topic, "DescribeLogDirs v%d: %r" % (v, dirs))
    for v in range(0, 3):
        err, res = elect_leaders(c, v, [(topic, [0])])
        check(res[0][1][0][1] == ELECTION_NOT_NEEDED, "ElectLeaders v%d: %r" % (v, res))
    for v in range(0, 2):
        res = incremental_alter(c, v, [(TOPIC, "raw_cfg", [("segment.ms", DELETE, None)])])
        check(res[0][0] == NONE, "IncrementalAlterConfigs v%d: %r" % (v, res))


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    c = Conn(host, port)
    check_create_and_incremental(c)
    check_describe_configs(c)
    check_cluster(c, port)
    check_log_dirs(c, topic)
    check_elect(c, topic)
    check_delete_records(c, topic)
    check_every_version(c, topic)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
