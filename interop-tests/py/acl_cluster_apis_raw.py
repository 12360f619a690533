# SPDX-License-Identifier: Apache-2.0
"""The cluster-level admin APIs that take no topic, as a named SASL/PLAIN
principal (sasl_wire.py): Kafka authorizes them on the cluster resource
(ALTER, DESCRIBE, ALTER_CONFIGS, DESCRIBE_CONFIGS) and answers
CLUSTER_AUTHORIZATION_FAILED in their error codes, not by closing.

usage: acl_cluster_apis_raw.py HOST:PORT USER PASSWORD TARGET [BROKER_ID]
On one connection logged in as USER, in this order, each printing one line:
  alter-scram ERROR           AlterUserScramCredentials v0: upsert TARGET's
                              SCRAM-SHA-256 credential (4096 iterations)
  describe-scram ERROR MECHS  DescribeUserScramCredentials v0 for TARGET:
                              the top-level error, then TARGET's result's
                              error and its mechanisms ("-" when none)
  alter-quotas ERROR          AlterClientQuotas v1: producer_byte_rate=1024
                              for user TARGET (the entry's error)
  describe-quotas ERROR N     DescribeClientQuotas v1 for user TARGET: the
                              error and the number of entries
and, when BROKER_ID is given, on broker BROKER_ID's loggers (BROKER_LOGGER):
  describe-loggers ERROR      DescribeConfigs v4 of BROKER_ID's loggers
  alter-loggers ERROR         IncrementalAlterConfigs v1: root=INFO
ERROR is Kafka's error name (or its number). Exit 0; 1 on a wire error; 2
if the login is refused.
"""
import hashlib
import os
import struct
import sys

import kafka_wire as kw
import sasl_wire

API_DESCRIBE_CLIENT_QUOTAS = 48
API_ALTER_CLIENT_QUOTAS = 49
API_DESCRIBE_USER_SCRAM_CREDENTIALS = 50
API_ALTER_USER_SCRAM_CREDENTIALS = 51
API_DESCRIBE_CONFIGS = 32
API_INCREMENTAL_ALTER_CONFIGS = 44
BROKER_LOGGER = 8
SCRAM_SHA_256 = 1
ERRORS = {0: "NONE", 31: "CLUSTER_AUTHORIZATION_FAILED", 91: "RESOURCE_NOT_FOUND"}


def err(code):
    return ERRORS.get(code, str(code))


def compact_bytes(b):
    return kw.uvarint(len(b) + 1) + b


def alter_scram(c, target):
    salt = os.urandom(16)
    salted = hashlib.pbkdf2_hmac("sha256", b"target-secret", salt, 4096)
    w = kw.Writer(flexible=True)
    w.arr([], None)  # deletions
    w.uvar(2).str(target).i8(SCRAM_SHA_256).i32(4096)
    w.data += compact_bytes(salt) + compact_bytes(salted)
    w.tags().tags()
    r = kw.Reader(c.call(API_ALTER_USER_SCRAM_CREDENTIALS, 0, bytes(w.data), True), True)
    r.tags()
    r.i32()
    results = r.arr(lambda r: (r.str(), r.i16(), r.str(), r.tags()))
    if len(results) != 1:
        raise kw.WireError("%d AlterUserScramCredentials results, want 1" % len(results))
    print("alter-scram %s" % err(results[0][1]))


def describe_scram(c, target):
    w = kw.Writer(flexible=True)
    w.arr([target], lambda w, name: w.str(name).tags()).tags()
    r = kw.Reader(c.call(API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, bytes(w.data), True), True)
    r.tags()
    r.i32()
    top, _ = r.i16(), r.str()

    def result(r):
        user, code, _ = r.str(), r.i16(), r.str()
        mechs = r.arr(lambda r: (r.i8(), r.i32(), r.tags())[:2])
        r.tags()
        return user, code, mechs

    results = r.arr(result)
    line = "describe-scram %s" % err(top)
    for _, code, mechs in results:
        names = ",".join("%d:%d" % m for m in mechs) or "-"
        line += " %s %s" % (err(code), names)
    print(line)


def alter_quotas(c, target):
    w = kw.Writer(flexible=True)
    w.uvar(2)  # one entry
    w.arr([("user", target)], lambda w, e: w.str(e[0]).str(e[1]).tags())
    w.uvar(2).str("producer_byte_rate")
    w.data += struct.pack(">d", 1024.0)
    w.i8(0).tags()  # remove=false
    w.tags()
    w.i8(0).tags()  # validate_only=false
    r = kw.Reader(c.call(API_ALTER_CLIENT_QUOTAS, 1, bytes(w.data), True), True)
    r.tags()
    r.i32()

    def entry(r):
        code, _ = r.i16(), r.str()
        r.arr(lambda r: (r.str(), r.str(), r.tags()))
        r.tags()
        return code

    codes = r.arr(entry)
    if len(codes) != 1:
        raise kw.WireError("%d AlterClientQuotas entries, want 1" % len(codes))
    print("alter-quotas %s" % err(codes[0]))


def describe_quotas(c, target):
    w = kw.Writer(flexible=True)
    w.arr([target], lambda w, name: w.str("user").i8(0).str(name).tags())
    w.i8(0).tags()  # strict=false
    r = kw.Reader(c.call(API_DESCRIBE_CLIENT_QUOTAS, 1, bytes(w.data), True), True)
    r.tags()
    r.i32()
    code, _ = r.i16(), r.str()

    def entry(r):
        r.arr(lambda r: (r.str(), r.str(), r.tags()))
        r.arr(lambda r: (r.str(), r.take(8), r.tags()))
        r.tags()

    entries = r.arr(entry)
    print("describe-quotas %s %d" % (err(code), len(entries or [])))


def describe_loggers(c, broker_id):
    w = kw.Writer(flexible=True)
    w.arr([broker_id], lambda w, b: w.i8(BROKER_LOGGER).str(b).arr(None, None).tags())
    w.i8(0).i8(0).tags()  # include_synonyms, include_documentation
    r = kw.Reader(c.call(API_DESCRIBE_CONFIGS, 4, bytes(w.data), True), True)
    r.tags()
    r.i32()

    def result(r):
        code, _, _, _ = r.i16(), r.str(), r.i8(), r.str()
        r.arr(lambda r: (r.str(), r.str(), r.bool(), r.i8(), r.bool(),
                         r.arr(lambda r: (r.str(), r.str(), r.i8(), r.tags())),
                         r.i8(), r.str(), r.tags()))
        r.tags()
        return code

    print("describe-loggers %s" % err(r.arr(result)[0]))


def alter_loggers(c, broker_id):
    w = kw.Writer(flexible=True)
    w.arr([broker_id], lambda w, b: w.i8(BROKER_LOGGER).str(b).arr(
        [("root", "INFO")], lambda w, kv: w.str(kv[0]).i8(0).str(kv[1]).tags()).tags())
    w.i8(0).tags()  # validate_only=false
    r = kw.Reader(c.call(API_INCREMENTAL_ALTER_CONFIGS, 1, bytes(w.data), True), True)
    r.tags()
    r.i32()
    codes = r.arr(lambda r: (r.i16(), r.str(), r.i8(), r.str(), r.tags())[0])
    print("alter-loggers %s" % err(codes[0]))


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    user, password, target = sys.argv[2:5]
    try:
        with sasl_wire.connect(host, int(port), user, password, "acl-cluster-apis", 10) as c:
            alter_scram(c, target)
            describe_scram(c, target)
            alter_quotas(c, target)
            describe_quotas(c, target)
            if len(sys.argv) > 5:
                describe_loggers(c, sys.argv[5])
                alter_loggers(c, sys.argv[5])
    except sasl_wire.LoginRefused as e:
        print("error: login refused: %s" % e, file=sys.stderr)
        return 2
    except (kw.WireError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
