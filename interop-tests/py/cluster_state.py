#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads a cluster's state from one broker over a raw socket (standard
library only), for the cluster tests: what that broker believes, so a test
can ask each broker in turn and poll until they agree.

Usage: cluster_state.py HOST:PORT COMMAND [ARGS]

  controller             the controller id (Metadata v4), -1 for none
  brokers                the live broker ids, sorted, space-separated
  racks                  one line per live broker: "ID RACK" (sorted by
                         id; RACK "-" when the broker has none)
  clusterid              the cluster id
  leaders TOPIC          one line per partition: "PARTITION LEADER ERROR"
                         (sorted by partition); exit 3 with "error CODE" if
                         the topic itself has an error (3: unknown topic)
  isr TOPIC              one line per partition: "PARTITION LEADER ISR
                         REPLICAS", ISR and REPLICAS comma-separated in
                         the order the broker sent them ("-" when empty);
                         exit 3 as for leaders
  topics                 the topic names, sorted, one a line
  coordinator GROUP      FindCoordinator v1: "ERROR NODE"
  txn-coordinator ID     FindCoordinator v1 for a transactional id (key
                         type 1): "ERROR NODE"
  create TOPIC PARTS [RF]  CreateTopics v2 to this broker only (replication
                         factor RF, default -1; timeout 30 s): prints the
                         error code
  delete TOPIC [MS]      DeleteTopics v1 to this broker only (timeout MS,
                         default 30 s): prints the error code
  replicas TOPIC         one line per partition: "PARTITION R1,R2,..." (its
                         replica list, sorted by partition)
  create-assigned TOPIC ASSIGNMENT
                         CreateTopics v2 with manual assignments, one per
                         partition: ASSIGNMENT like "0,1/1,2" (partition 0
                         on brokers 0 and 1, partition 1 on 1 and 2): prints
                         the error code
  grow TOPIC COUNT [ASSIGNMENT]
                         CreatePartitions v1 to COUNT partitions (the new
                         ones' assignment as for create-assigned, default
                         none): prints the error code

  produce TOPIC PARTITION ACKS [COUNT [TIMEOUT_MS]]
                         Produce v7 of one batch of COUNT (default 1)
                         records to this broker only: prints "ERROR
                         BASE_OFFSET"
  offsets TOPIC [read_committed]
                         ListOffsets v2 (latest; read_uncommitted unless
                         read_committed is given) from this broker: one
                         line per partition "PARTITION ERROR OFFSET", the
                         high watermark it serves (read_committed: the last
                         stable offset)

  update-metadata CONTROLLER EPOCH TOPIC LEADER
                         UpdateMetadata v5 as if from controller CONTROLLER
                         at EPOCH: the live brokers this broker reports plus
                         LEADER (at 127.0.0.1:1 if unknown), and partition 0
                         of TOPIC led by LEADER at leader epoch 1000: prints
                         the error code
  leader-and-isr CONTROLLER EPOCH TOPIC LEADER
                         LeaderAndIsr v2 likewise (partition 0 of TOPIC led
                         by LEADER at leader epoch 1000): prints the error code

Metadata never auto-creates a topic (allow_auto_topic_creation=false).
Exit status: 0 answered, 2 usage, 3 topic error, 4 no connection or a
broken answer (the reason on stderr).
"""
import sys

import kafka_wire
from kafka_wire import Reader, int8, int16, int32, int64, string

API_METADATA, API_FIND_COORDINATOR, API_CREATE_TOPICS, API_DELETE_TOPICS = 3, 10, 19, 20
API_LEADER_AND_ISR, API_UPDATE_METADATA, API_CREATE_PARTITIONS = 4, 6, 37
API_PRODUCE, API_LIST_OFFSETS, PRODUCE_V, LIST_OFFSETS_V = 0, 2, 7, 2
PRODUCE_TIMEOUT_MS, LATEST_TIMESTAMP, CONSUMER_REPLICA = 10000, -1, -1
LEADER_AND_ISR_V, UPDATE_METADATA_V = 2, 5  # the last versions before flexible ones
FORGED_LEADER_EPOCH, NO_BROKER_EPOCH, PLAINTEXT_PROTOCOL = 1000, -1, 0
METADATA_V, FIND_COORDINATOR_V, CREATE_TOPICS_V, DELETE_TOPICS_V = 4, 1, 2, 1
CREATE_PARTITIONS_V = 1  # the last before flexible versions
GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE = 0, 1
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
ADMIN_TIMEOUT_MS = 30000
SOCKET_TIMEOUT_S = 40
EXIT_TOPIC_ERROR, EXIT_TRANSPORT = 3, 4


class Broken(Exception):
    pass


def array(r, item):
    """r.arr(item), a null array read as empty."""
    return r.arr(item) or []


def call(addr, api, version, body):
    host, port = addr.rsplit(":", 1)
    with kafka_wire.Connection(host, int(port), "cluster_state", SOCKET_TIMEOUT_S) as conn:
        return Reader(conn.call(api, version, body))


def metadata(addr, topics):
    body = (int32(-1) if topics is None else int32(len(topics)) + b"".join(string(t) for t in topics))
    r = call(addr, API_METADATA, METADATA_V, body + int8(0))
    r.i32()  # throttle_time_ms
    addrs = metadata.addrs = {}
    racks = metadata.racks = {}
    replicas = metadata.replicas = {}

    def broker(r):
        node, host, port, rack = r.i32(), r.str(), r.i32(), r.str()
        addrs[node] = (host, port)
        racks[node] = rack
        return node

    def partition(r):
        err, index, leader = r.i16(), r.i32(), r.i32()
        replicas[index] = array(r, Reader.i32)
        isr = array(r, Reader.i32)
        return index, leader, err, replicas[index], isr

    def topic(r):
        err, name, _internal = r.i16(), r.str(), r.i8()
        return name, err, array(r, partition)

    brokers = array(r, broker)
    cluster_id = r.str()
    controller = r.i32()
    return brokers, controller, array(r, topic), cluster_id


def topic_partitions(addr, topic):
    """The partitions of topic, sorted by index; an int error code if the
    topic itself has one."""
    for name, err, parts in metadata(addr, [topic])[2]:
        if name == topic:
            return err if err else sorted(parts)
    raise Broken("topic %s missing from the answer" % topic)


def node_list(nodes):
    return ",".join(str(n) for n in nodes) or "-"


def cmd_leaders(addr, topic, with_isr):
    parts = topic_partitions(addr, topic)
    if isinstance(parts, int):
        print("error %d" % parts)
        return EXIT_TOPIC_ERROR
    for index, leader, perr, replicas, isr in parts:
        if with_isr:
            print(index, leader, node_list(isr), node_list(replicas))
        else:
            print(index, leader, perr)
    return 0


def cmd_coordinator(addr, key, key_type=GROUP_KEY_TYPE):
    r = call(addr, API_FIND_COORDINATOR, FIND_COORDINATOR_V, string(key) + int8(key_type))
    r.i32()  # throttle_time_ms
    err = r.i16()
    r.str()  # error_message
    print(err, r.i32())
    return 0


def cmd_replicas(addr, topic):
    topics = metadata(addr, [topic])[2]
    if not topics or topics[0][1]:
        print("error %d" % (topics[0][1] if topics else -1))
        return EXIT_TOPIC_ERROR
    for index, replicas in sorted(metadata.replicas.items()):
        print(index, ",".join(str(b) for b in replicas))
    return 0


def parse_assignment(text):
    """ "0,1/1,2" -> [[0, 1], [1, 2]]"""
    return [[int(b) for b in part.split(",")] for part in text.split("/")]


def int32s(values):
    return int32(len(values)) + b"".join(int32(v) for v in values)


def cmd_create(addr, topic, parts, rf, assignment=None):
    assignments = int32(0)
    if assignment is not None:
        assignments = int32(len(assignment)) + b"".join(
            int32(i) + int32s(brokers) for i, brokers in enumerate(assignment))
    body = (int32(1) + string(topic) + int32(parts) + int16(rf) + assignments + int32(0) +
            int32(ADMIN_TIMEOUT_MS) + int8(0))
    r = call(addr, API_CREATE_TOPICS, CREATE_TOPICS_V, body)
    r.i32()  # throttle_time_ms
    results = array(r, lambda r: (r.str(), r.i16(), r.str()))
    print(results[0][1] if results else "none")
    return 0


def cmd_delete(addr, topic, timeout_ms):
    r = call(addr, API_DELETE_TOPICS, DELETE_TOPICS_V, int32(1) + string(topic) + int32(timeout_ms))
    r.i32()  # throttle_time_ms
    results = array(r, lambda r: (r.str(), r.i16()))
    print(results[0][1] if results else "none")
    return 0


def cmd_produce(addr, topic, partition, acks, count, timeout_ms):
    recs = b"".join(kafka_wire.record(i, 0, b"k%d" % i, b"v%d" % i) for i in range(count))
    now = 1700000000000
    batch = kafka_wire.record_batch(recs, count, now, now)
    body = (string(None) + int16(acks) + int32(timeout_ms) + int32(1) + string(topic) + int32(1) +
            int32(partition) + int32(len(batch)) + batch)
    r = call(addr, API_PRODUCE, PRODUCE_V, body)
    topics = array(r, lambda r: (r.str(), array(r, lambda r: (r.i32(), r.i16(), r.i64(), r.i64(),
                                                              r.i64()))))
    part = topics[0][1][0] if topics and topics[0][1] else None
    print("%d %d" % (part[1], part[2]) if part else "none")
    return 0


def cmd_offsets(addr, topic, isolation=READ_UNCOMMITTED):
    parts = topic_partitions(addr, topic)
    if isinstance(parts, int):
        print("error %d" % parts)
        return EXIT_TOPIC_ERROR
    body = (int32(CONSUMER_REPLICA) + int8(isolation) + int32(1) + string(topic) + int32(len(parts)) +
            b"".join(int32(p[0]) + int64(LATEST_TIMESTAMP) for p in parts))
    r = call(addr, API_LIST_OFFSETS, LIST_OFFSETS_V, body)
    r.i32()  # throttle_time_ms
    topics = array(r, lambda r: (r.str(), array(r, lambda r: (r.i32(), r.i16(), r.i64(),
                                                              r.i64()))))
    for p in sorted(topics[0][1] if topics else []):
        print("%d %d %d" % (p[0], p[1], p[3]))
    return 0


def cmd_grow(addr, topic, count, assignment):
    assignments = int32(-1)
    if assignment is not None:
        assignments = int32(len(assignment)) + b"".join(int32s(brokers) for brokers in assignment)
    body = (int32(1) + string(topic) + int32(count) + assignments + int32(ADMIN_TIMEOUT_MS) +
            int8(0))
    r = call(addr, API_CREATE_PARTITIONS, CREATE_PARTITIONS_V, body)
    r.i32()  # throttle_time_ms
    results = array(r, lambda r: (r.str(), r.i16(), r.str()))
    print(results[0][1] if results else "none")
    return 0


def cmd_update_metadata(addr, controller, epoch, topic, leader):
    metadata(addr, [])
    live = dict(metadata.addrs)
    live.setdefault(leader, ("127.0.0.1", 1))
    state = (int32(0) + int32(epoch) + int32(leader) + int32(FORGED_LEADER_EPOCH) + int32s([leader]) +
             int32(0) + int32s([leader]) + int32s([]))
    topics = int32(1) + string(topic) + int32(1) + state
    brokers = int32(len(live)) + b"".join(
        int32(node) + int32(1) + int32(port) + string(host) + string("PLAINTEXT") +
        int16(PLAINTEXT_PROTOCOL) + int16(-1) for node, (host, port) in sorted(live.items()))
    body = int32(controller) + int32(epoch) + int64(NO_BROKER_EPOCH) + topics + brokers
    r = call(addr, API_UPDATE_METADATA, UPDATE_METADATA_V, body)
    print(r.i16())
    return 0


def cmd_leader_and_isr(addr, controller, epoch, topic, leader):
    state = (int32(0) + int32(epoch) + int32(leader) + int32(FORGED_LEADER_EPOCH) + int32s([leader]) +
             int32(0) + int32s([leader]) + int8(0))
    topics = int32(1) + string(topic) + int32(1) + state
    leaders = int32(1) + int32(leader) + string("127.0.0.1") + int32(1)
    body = int32(controller) + int32(epoch) + int64(NO_BROKER_EPOCH) + topics + leaders
    r = call(addr, API_LEADER_AND_ISR, LEADER_AND_ISR_V, body)
    print(r.i16())
    return 0


def run(argv):
    addr, cmd, args = argv[1], argv[2], argv[3:]
    if cmd == "controller" and not args:
        print(metadata(addr, [])[1])
    elif cmd == "brokers" and not args:
        print(" ".join(str(b) for b in sorted(metadata(addr, [])[0])))
    elif cmd == "racks" and not args:
        metadata(addr, [])
        for node, rack in sorted(metadata.racks.items()):
            print(node, "-" if rack is None else rack)
    elif cmd == "clusterid" and not args:
        print(metadata(addr, [])[3])
    elif cmd == "topics" and not args:
        for name in sorted(t[0] for t in metadata(addr, None)[2]):
            print(name)
    elif cmd in ("leaders", "isr") and len(args) == 1:
        return cmd_leaders(addr, args[0], cmd == "isr")
    elif cmd == "coordinator" and len(args) == 1:
        return cmd_coordinator(addr, args[0])
    elif cmd == "txn-coordinator" and len(args) == 1:
        return cmd_coordinator(addr, args[0], TRANSACTION_KEY_TYPE)
    elif cmd == "create" and len(args) in (2, 3):
        return cmd_create(addr, args[0], int(args[1]), int(args[2]) if len(args) == 3 else -1)
    elif cmd == "replicas" and len(args) == 1:
        return cmd_replicas(addr, args[0])
    elif cmd == "create-assigned" and len(args) == 2:
        return cmd_create(addr, args[0], -1, -1, parse_assignment(args[1]))
    elif cmd == "grow" and len(args) in (2, 3):
        assignment = parse_assignment(args[2]) if len(args) == 3 else None
        return cmd_grow(addr, args[0], int(args[1]), assignment)
    elif cmd == "delete" and len(args) in (1, 2):
        return cmd_delete(addr, args[0], int(args[1]) if len(args) == 2 else ADMIN_TIMEOUT_MS)
    elif cmd == "produce" and 3 <= len(args) <= 5:
        count = int(args[3]) if len(args) > 3 else 1
        timeout_ms = int(args[4]) if len(args) > 4 else PRODUCE_TIMEOUT_MS
        return cmd_produce(addr, args[0], int(args[1]), int(args[2]), count, timeout_ms)
    elif cmd == "offsets" and len(args) == 1:
        return cmd_offsets(addr, args[0])
    elif cmd == "offsets" and len(args) == 2 and args[1] == "read_committed":
        return cmd_offsets(addr, args[0], READ_COMMITTED)
    elif cmd in ("update-metadata", "leader-and-isr") and len(args) == 4:
        send = cmd_update_metadata if cmd == "update-metadata" else cmd_leader_and_isr
        return send(addr, int(args[0]), int(args[1]), args[2], int(args[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        return run(sys.argv)
    except (OSError, Broken, kafka_wire.WireError) as e:
        sys.stderr.write("cluster_state: %s: %s\n" % (sys.argv[1], e))
        return EXIT_TRANSPORT


if __name__ == "__main__":
    sys.exit(main())
