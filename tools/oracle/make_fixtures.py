#!/usr/bin/env python3
"""Independent codec oracle: writes tests/fixtures/oracle/<Message>.fix.

This is a developer tool, run by hand against a local reference copy of Apache
Kafka's JSON message schemas.  Neither the build nor the tests run it; they
only read the fixture files it writes and committed to the repository.

It deliberately shares no code with tools/gen_codec.py and does not read
proto/: it parses the reference schemas itself, builds pseudo-random but
deterministic values for every version of every covered message, encodes them
with its own encoder and prints the canonical dump described in
tests/fixtures/README.md.  Each value is decoded again with its own decoder and
must come back identical (self-check) before a fixture is written.

Usage (from the repository root):

  Generate all fixtures:
    python3 tools/oracle/make_fixtures.py \\
        --schemas ../shared/kafka-protocol --out tests/fixtures/oracle

  Generate some (--only Name,Name,...): the committed fixtures of the
  KIP-848 records hold Kafka 4.x fields this copy lacks, so regenerating
  everything would drop them.

  Decode one message body (no header, no length prefix) to the canonical dump:
    python3 tools/oracle/make_fixtures.py decode \\
        --schemas ../shared/kafka-protocol --message ProduceRequest \\
        --version 9 --hex 0001ff...        (or --hex - to read stdin)

  Re-check committed fixtures against the schemas:
    python3 tools/oracle/make_fixtures.py verify \\
        --schemas ../shared/kafka-protocol --dir tests/fixtures/oracle

Only the Python 3 standard library is used.
"""

import argparse
import glob
import hashlib
import json
import os
import struct
import sys

# ---------------------------------------------------------------------------
# Scope

API_KEYS = (set(range(0, 52)) | {56, 57, 58, 60, 61} | set(range(65, 70))
            | set(range(76, 80)) | set(range(83, 88)) | {90, 91, 92})
EXTRA_MESSAGES = (
    "RequestHeader",
    "ResponseHeader",
    "ConsumerProtocolSubscription",
    "ConsumerProtocolAssignment",
)

INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
}
INT_FORMATS = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "int64": ">q"}
PRIMITIVES = set(INT_RANGES) | {"bool", "float64", "string", "bytes", "records", "uuid"}
NULLABLE_KINDS = {"string", "bytes", "records", "array", "struct"}
FLOATS = (0.0, 0.5, -2.0, 1.25, -0.75, 3.0, 1024.0, -0.125, 1e6, 1099511627776.0)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class SchemaError(Exception):
    pass


class DecodeError(Exception):
    pass


# ---------------------------------------------------------------------------
# Version ranges


class Versions:
    """A closed version range parsed from "N", "N+", "N-M" or "none"."""

    def __init__(self, text):
        text = str(text).strip()
        if text == "none" or text == "":
            self.lo, self.hi = 1, 0
        elif text.endswith("+"):
            self.lo, self.hi = int(text[:-1]), 1 << 15
        elif "-" in text:
            a, b = text.split("-", 1)
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(text)

    def has(self, v):
        return self.lo <= v <= self.hi

    def all(self):
        return list(range(self.lo, self.hi + 1))


NO_VERSIONS = Versions("none")


# ---------------------------------------------------------------------------
# Schema model


class Type:
    """kind: a primitive name, "array" (elem set) or "struct" (sdef set)."""

    def __init__(self, kind, elem=None, sdef=None):
        self.kind = kind
        self.elem = elem
        self.sdef = sdef


class Field:
    def __init__(self, js, ftype):
        self.name = js["name"]
        self.type = ftype
        self.versions = Versions(js["versions"])
        self.nullable = Versions(js.get("nullableVersions", "none"))
        self.tagged = Versions(js.get("taggedVersions", "none"))
        self.tag = int(js["tag"]) if "tag" in js else None
        self.default = js.get("default")
        # A field-level flexibleVersions ("none" for RequestHeader.ClientId)
        # overrides the message's for the compactness of this field.
        self.flex = Versions(js["flexibleVersions"]) if "flexibleVersions" in js else None
        if self.tagged.lo <= self.tagged.hi and self.tag is None:
            raise SchemaError("field %s has taggedVersions but no tag" % self.name)

    def is_tagged(self, v):
        return self.tag is not None and self.tagged.has(v)


class Struct:
    def __init__(self, name):
        self.name = name
        self.fields = []


class Message:
    def __init__(self, name, mtype, api_key, valid, flexible, root):
        self.name = name
        self.mtype = mtype
        self.api_key = api_key
        self.valid = valid
        self.flexible = flexible
        self.root = root


def strip_comments(text):
    """Drop whole-line // comments (the reference schemas use no others)."""
    return "\n".join(
        line for line in text.split("\n") if not line.lstrip().startswith("//")
    )


# Versions above Kafka 3.8's that Gregor serves, for the messages whose 3.8
# schemas the reference copy holds: the new version range and the fields the
# new versions add or end, transcribed from the Kafka 4.x definitions
# (../shared/kafka-protocol/definitions-4x/). Each edit is (path, op, arg):
# path names nested fields from the message root; op "set" updates the
# field's keys with arg, "after" inserts the field arg after it, "append"
# adds arg at the end of path's fields (the root for an empty path).
KAFKA_4X = {
    "ConsumerGroupHeartbeatRequest": ("0-1", [
        (("SubscribedTopicNames",), "after",
         {"name": "SubscribedTopicRegex", "type": "string", "versions": "1+",
          "nullableVersions": "1+", "default": "null", "ignorable": True}),
    ]),
    "ConsumerGroupHeartbeatResponse": ("0-1", []),
    "ConsumerGroupDescribeRequest": ("0-1", []),
    "ConsumerGroupDescribeResponse": ("0-1", [
        (("Groups", "Members"), "append",
         {"name": "MemberType", "type": "int8", "versions": "1+", "default": "-1",
          "ignorable": True}),
    ]),
    "ApiVersionsRequest": ("0-4", []),
    "ApiVersionsResponse": ("0-4", []),
    "MetadataRequest": ("0-13", []),
    "MetadataResponse": ("0-13", [
        ((), "append", {"name": "ErrorCode", "type": "int16", "versions": "13+",
                        "ignorable": True}),
    ]),
    "ListOffsetsRequest": ("0-11", [
        ((), "append", {"name": "TimeoutMs", "type": "int32", "versions": "10+",
                        "ignorable": True, "default": "30000"}),
    ]),
    "ListOffsetsResponse": ("0-11", []),
    "FetchRequest": ("0-18", [
        (("Topics", "Partitions"), "append",
         {"name": "ReplicaDirectoryId", "type": "uuid", "versions": "17+",
          "taggedVersions": "17+", "tag": 0, "ignorable": True}),
        (("Topics", "Partitions"), "append",
         {"name": "HighWatermark", "type": "int64", "versions": "18+",
          "taggedVersions": "18+", "tag": 1, "ignorable": True,
          "default": "9223372036854775807"}),
    ]),
    "FetchResponse": ("0-18", []),
    "ProduceRequest": ("0-13", [
        (("TopicData", "Name"), "set", {"versions": "0-12", "ignorable": True}),
        (("TopicData", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "13+", "ignorable": True}),
    ]),
    "ProduceResponse": ("0-13", [
        (("Responses", "Name"), "set", {"versions": "0-12", "ignorable": True}),
        (("Responses", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "13+", "ignorable": True}),
    ]),
    "OffsetCommitRequest": ("0-10", [
        (("Topics", "Name"), "set", {"versions": "0-9", "ignorable": True}),
        (("Topics", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "10+", "ignorable": True}),
    ]),
    "OffsetCommitResponse": ("0-10", [
        (("Topics", "Name"), "set", {"versions": "0-9", "ignorable": True}),
        (("Topics", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "10+", "ignorable": True}),
    ]),
    "OffsetFetchRequest": ("0-10", [
        (("Groups", "Topics", "Name"), "set", {"versions": "8-9", "ignorable": True}),
        (("Groups", "Topics", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "10+", "ignorable": True}),
    ]),
    "OffsetFetchResponse": ("0-10", [
        (("Groups", "Topics", "Name"), "set", {"versions": "8-9", "ignorable": True}),
        (("Groups", "Topics", "Name"), "after",
         {"name": "TopicId", "type": "uuid", "versions": "10+", "ignorable": True}),
    ]),
    "DescribeClusterRequest": ("0-2", [
        ((), "append", {"name": "IncludeFencedBrokers", "type": "bool", "versions": "2+",
                        "default": "false"}),
    ]),
    "DescribeClusterResponse": ("0-2", [
        (("Brokers",), "append", {"name": "IsFenced", "type": "bool", "versions": "2+",
                                  "default": "false"}),
    ]),
    "DescribeGroupsRequest": ("0-6", []),
    "DescribeGroupsResponse": ("0-6", [
        (("Groups", "ErrorCode"), "after",
         {"name": "ErrorMessage", "type": "string", "versions": "6+",
          "nullableVersions": "6+", "default": "null", "ignorable": True}),
    ]),
    "FindCoordinatorRequest": ("0-6", []),
    "FindCoordinatorResponse": ("0-6", []),
    # Share-group records (internal/, October 2024) as Kafka 4.x has them.
    "ShareGroupMetadataValue": ("0", [
        ((), "append", {"name": "MetadataHash", "type": "int64", "versions": "0+"}),
    ]),
    "ShareSnapshotValue": ("0", [
        (("SnapshotEpoch",), "set", {"type": "int32", "versions": "0+"}),
        (("StartOffset",), "set", {"versions": "0+"}),
        (("StartOffset",), "after",
         {"name": "DeliveryCompleteCount", "type": "int32", "versions": "0+",
          "taggedVersions": "0+", "tag": 0, "default": "-1"}),
        (("DeliveryCompleteCount",), "after",
         {"name": "CreateTimestamp", "type": "int64", "versions": "0+"}),
        (("CreateTimestamp",), "after",
         {"name": "WriteTimestamp", "type": "int64", "versions": "0+"}),
        (("StateBatches",), "set", {"versions": "0+"}),
        (("StateBatches", "FirstOffset"), "set", {"versions": "0+"}),
        (("StateBatches", "LastOffset"), "set", {"versions": "0+"}),
        (("StateBatches", "DeliveryState"), "set", {"versions": "0+"}),
        (("StateBatches", "DeliveryCount"), "set", {"versions": "0+"}),
    ]),
    "ShareUpdateValue": ("0", [
        (("SnapshotEpoch",), "set", {"type": "int32", "versions": "0+"}),
        (("StartOffset",), "set", {"versions": "0+"}),
        (("StartOffset",), "after",
         {"name": "DeliveryCompleteCount", "type": "int32", "versions": "0+",
          "taggedVersions": "0+", "tag": 0, "default": "-1"}),
        (("StateBatches",), "set", {"versions": "0+"}),
        (("StateBatches", "FirstOffset"), "set", {"versions": "0+"}),
        (("StateBatches", "LastOffset"), "set", {"versions": "0+"}),
        (("StateBatches", "DeliveryState"), "set", {"versions": "0+"}),
        (("StateBatches", "DeliveryCount"), "set", {"versions": "0+"}),
    ]),
}


# Kafka 4.x messages the 3.8 reference copy does not hold at all: the share
# group APIs (KIP-932), written as JSON schemas from the Kafka 4.x
# definitions (../shared/kafka-protocol/definitions-4x/) with Kafka's field
# names, again without reading proto/.


def _f(name, ftype, versions="0+", fields=None, **kw):
    js = {"name": name, "type": ftype, "versions": versions}
    for key, val in kw.items():
        js[{"nullable": "nullableVersions", "tagged": "taggedVersions"}.get(key, key)] = val
    if fields is not None:
        js["fields"] = fields
    return js


def _msg(key, name, mtype, valid, fields, structs=()):
    js = {"apiKey": key, "type": mtype, "name": name, "validVersions": valid,
          "flexibleVersions": "0+", "fields": fields}
    if structs:
        js["commonStructs"] = [{"name": n, "versions": "0+", "fields": fs} for n, fs in structs]
    return js


def _errmsg(name="ErrorMessage"):
    return _f(name, "string", nullable="0+", default="null")


def _leader():
    return _f("CurrentLeader", "LeaderIdAndEpoch", fields=[
        _f("LeaderId", "int32"), _f("LeaderEpoch", "int32")])


def _endpoints():
    return _f("NodeEndpoints", "[]NodeEndpoint", fields=[
        _f("NodeId", "int32"), _f("Host", "string"), _f("Port", "int32"),
        _f("Rack", "string", nullable="0+", default="null")])


def _ack_batches():
    return _f("AcknowledgementBatches", "[]AcknowledgementBatch", fields=[
        _f("FirstOffset", "int64"), _f("LastOffset", "int64"),
        _f("AcknowledgeTypes", "[]int8")])


def _state_batches():
    return _f("StateBatches", "[]StateBatch", fields=[
        _f("FirstOffset", "int64"), _f("LastOffset", "int64"),
        _f("DeliveryState", "int8"), _f("DeliveryCount", "int16")])


def _state_request(key, name, valid, per_partition):
    return _msg(key, name + "Request", "request", valid, [
        _f("GroupId", "string"),
        _f("Topics", "[]%sData" % name, fields=[
            _f("TopicId", "uuid"),
            _f("Partitions", "[]PartitionData",
               fields=[_f("Partition", "int32")] + per_partition)])])


def _state_response(key, name, valid, per_partition=()):
    return _msg(key, name + "Response", "response", valid, [
        _f("Results", "[]%sResult" % name, fields=[
            _f("TopicId", "uuid"),
            _f("Partitions", "[]PartitionResult", fields=[
                _f("Partition", "int32"), _f("ErrorCode", "int16"), _errmsg()]
               + list(per_partition))])])


def _share_messages():
    tps = [_f("TopicId", "uuid"), _f("Partitions", "[]int32")]
    return [
        _msg(76, "ShareGroupHeartbeatRequest", "request", "0-1", [
            _f("GroupId", "string"), _f("MemberId", "string"), _f("MemberEpoch", "int32"),
            _f("RackId", "string", nullable="0+", default="null"),
            _f("SubscribedTopicNames", "[]string", nullable="0+", default="null")]),
        _msg(76, "ShareGroupHeartbeatResponse", "response", "0-1", [
            _f("ThrottleTimeMs", "int32"), _f("ErrorCode", "int16"), _errmsg(),
            _f("MemberId", "string", nullable="0+", default="null"),
            _f("MemberEpoch", "int32"), _f("HeartbeatIntervalMs", "int32"),
            _f("Assignment", "Assignment", nullable="0+", default="null", fields=[
                _f("TopicPartitions", "[]TopicPartitions")])],
            [("TopicPartitions", tps)]),
        _msg(77, "ShareGroupDescribeRequest", "request", "0-1", [
            _f("GroupIds", "[]string"), _f("IncludeAuthorizedOperations", "bool")]),
        _msg(77, "ShareGroupDescribeResponse", "response", "0-1", [
            _f("ThrottleTimeMs", "int32"),
            _f("Groups", "[]DescribedGroup", fields=[
                _f("ErrorCode", "int16"), _errmsg(), _f("GroupId", "string"),
                _f("GroupState", "string"), _f("GroupEpoch", "int32"),
                _f("AssignmentEpoch", "int32"), _f("AssignorName", "string"),
                _f("Members", "[]Member", fields=[
                    _f("MemberId", "string"),
                    _f("RackId", "string", nullable="0+", default="null"),
                    _f("MemberEpoch", "int32"), _f("ClientId", "string"),
                    _f("ClientHost", "string"), _f("SubscribedTopicNames", "[]string"),
                    _f("Assignment", "Assignment")]),
                _f("AuthorizedOperations", "int32", default="-2147483648")])],
            [("TopicPartitions", [_f("TopicId", "uuid"), _f("TopicName", "string"),
                                  _f("Partitions", "[]int32")]),
             ("Assignment", [_f("TopicPartitions", "[]TopicPartitions")])]),
        _msg(78, "ShareFetchRequest", "request", "0-2", [
            _f("GroupId", "string", nullable="0+", default="null"),
            _f("MemberId", "string", nullable="0+"),
            _f("ShareSessionEpoch", "int32"), _f("MaxWaitMs", "int32"),
            _f("MinBytes", "int32"), _f("MaxBytes", "int32", default="0x7fffffff"),
            _f("MaxRecords", "int32", "1+"), _f("BatchSize", "int32", "1+"),
            _f("ShareAcquireMode", "int8", "2+"), _f("IsRenewAck", "bool", "2+"),
            _f("Topics", "[]FetchTopic", fields=[
                _f("TopicId", "uuid"),
                _f("Partitions", "[]FetchPartition", fields=[
                    _f("PartitionIndex", "int32"), _f("PartitionMaxBytes", "int32", "0"),
                    _ack_batches()])]),
            _f("ForgottenTopicsData", "[]ForgottenTopic", fields=tps)]),
        _msg(78, "ShareFetchResponse", "response", "0-2", [
            _f("ThrottleTimeMs", "int32"), _f("ErrorCode", "int16"), _errmsg(),
            _f("AcquisitionLockTimeoutMs", "int32", "1+"),
            _f("Responses", "[]ShareFetchableTopicResponse", fields=[
                _f("TopicId", "uuid"),
                _f("Partitions", "[]PartitionData", fields=[
                    _f("PartitionIndex", "int32"), _f("ErrorCode", "int16"), _errmsg(),
                    _f("AcknowledgeErrorCode", "int16"), _errmsg("AcknowledgeErrorMessage"),
                    _leader(), _f("Records", "records", nullable="0+"),
                    _f("AcquiredRecords", "[]AcquiredRecords", fields=[
                        _f("FirstOffset", "int64"), _f("LastOffset", "int64"),
                        _f("DeliveryCount", "int16")])])]),
            _endpoints()]),
        _msg(79, "ShareAcknowledgeRequest", "request", "0-2", [
            _f("GroupId", "string", nullable="0+", default="null"),
            _f("MemberId", "string", nullable="0+"),
            _f("ShareSessionEpoch", "int32"), _f("IsRenewAck", "bool", "2+"),
            _f("Topics", "[]AcknowledgeTopic", fields=[
                _f("TopicId", "uuid"),
                _f("Partitions", "[]AcknowledgePartition", fields=[
                    _f("PartitionIndex", "int32"), _ack_batches()])])]),
        _msg(79, "ShareAcknowledgeResponse", "response", "0-2", [
            _f("ThrottleTimeMs", "int32"), _f("ErrorCode", "int16"), _errmsg(),
            _f("AcquisitionLockTimeoutMs", "int32", "2+"),
            _f("Responses", "[]ShareAcknowledgeTopicResponse", fields=[
                _f("TopicId", "uuid"),
                _f("Partitions", "[]PartitionData", fields=[
                    _f("PartitionIndex", "int32"), _f("ErrorCode", "int16"), _errmsg(),
                    _leader()])]),
            _endpoints()]),
        _state_request(83, "InitializeShareGroupState", "0", [
            _f("StateEpoch", "int32"), _f("StartOffset", "int64")]),
        _state_response(83, "InitializeShareGroupState", "0"),
        _state_request(84, "ReadShareGroupState", "0", [_f("LeaderEpoch", "int32")]),
        _state_response(84, "ReadShareGroupState", "0", [
            _f("StateEpoch", "int32"), _f("StartOffset", "int64"), _state_batches()]),
        _state_request(85, "WriteShareGroupState", "0-1", [
            _f("StateEpoch", "int32"), _f("LeaderEpoch", "int32"), _f("StartOffset", "int64"),
            _f("DeliveryCompleteCount", "int32", "1+", default="-1"), _state_batches()]),
        _state_response(85, "WriteShareGroupState", "0-1"),
        _state_request(86, "DeleteShareGroupState", "0", []),
        _state_response(86, "DeleteShareGroupState", "0"),
        _state_request(87, "ReadShareGroupStateSummary", "0-1", [_f("LeaderEpoch", "int32")]),
        _state_response(87, "ReadShareGroupStateSummary", "0-1", [
            _f("StateEpoch", "int32"), _f("LeaderEpoch", "int32"), _f("StartOffset", "int64"),
            _f("DeliveryCompleteCount", "int32", "1+", default="-1")]),
        _msg(90, "DescribeShareGroupOffsetsRequest", "request", "0-1", [
            _f("Groups", "[]DescribeShareGroupOffsetsRequestGroup", fields=[
                _f("GroupId", "string"),
                _f("Topics", "[]DescribeShareGroupOffsetsRequestTopic", nullable="0+", fields=[
                    _f("TopicName", "string"), _f("Partitions", "[]int32")])])]),
        _msg(90, "DescribeShareGroupOffsetsResponse", "response", "0-1", [
            _f("ThrottleTimeMs", "int32"),
            _f("Groups", "[]DescribeShareGroupOffsetsResponseGroup", fields=[
                _f("GroupId", "string"),
                _f("Topics", "[]DescribeShareGroupOffsetsResponseTopic", fields=[
                    _f("TopicName", "string"), _f("TopicId", "uuid"),
                    _f("Partitions", "[]DescribeShareGroupOffsetsResponsePartition", fields=[
                        _f("PartitionIndex", "int32"), _f("StartOffset", "int64"),
                        _f("LeaderEpoch", "int32"), _f("Lag", "int64", "1+", default="-1"),
                        _f("ErrorCode", "int16"), _errmsg()])]),
                _f("ErrorCode", "int16"), _errmsg()])]),
        _msg(91, "AlterShareGroupOffsetsRequest", "request", "0", [
            _f("GroupId", "string"),
            _f("Topics", "[]AlterShareGroupOffsetsRequestTopic", fields=[
                _f("TopicName", "string"),
                _f("Partitions", "[]AlterShareGroupOffsetsRequestPartition", fields=[
                    _f("PartitionIndex", "int32"), _f("StartOffset", "int64")])])]),
        _msg(91, "AlterShareGroupOffsetsResponse", "response", "0", [
            _f("ThrottleTimeMs", "int32"), _f("ErrorCode", "int16"), _errmsg(),
            _f("Responses", "[]AlterShareGroupOffsetsResponseTopic", fields=[
                _f("TopicName", "string"), _f("TopicId", "uuid"),
                _f("Partitions", "[]AlterShareGroupOffsetsResponsePartition", fields=[
                    _f("PartitionIndex", "int32"), _f("ErrorCode", "int16"), _errmsg()])])]),
        _msg(92, "DeleteShareGroupOffsetsRequest", "request", "0", [
            _f("GroupId", "string"),
            _f("Topics", "[]DeleteShareGroupOffsetsRequestTopic", fields=[
                _f("TopicName", "string")])]),
        _msg(92, "DeleteShareGroupOffsetsResponse", "response", "0", [
            _f("ThrottleTimeMs", "int32"), _f("ErrorCode", "int16"), _errmsg(),
            _f("Responses", "[]DeleteShareGroupOffsetsResponseTopic", fields=[
                _f("TopicName", "string"), _f("TopicId", "uuid"),
                _f("ErrorCode", "int16"), _errmsg()])]),
    ]


def _share_state_partition_metadata():
    # Kafka 4.x added InitializingTopics and the topics' CreateTimestamp.
    info = [_f("TopicId", "uuid"), _f("TopicName", "string"), _f("Partitions", "[]int32"),
            _f("CreateTimestamp", "int64")]
    js = _msg(None, "ShareGroupStatePartitionMetadataValue", "data", "0", [
        _f("InitializingTopics", "[]TopicPartitionsInfo"),
        _f("InitializedTopics", "[]TopicPartitionsInfo"),
        _f("DeletingTopics", "[]TopicInfo")],
        [("TopicPartitionsInfo", info), ("TopicInfo", info[:2])])
    del js["apiKey"]
    return js


KAFKA_4X_NEW = {js["name"]: js for js in _share_messages() + [_share_state_partition_metadata()]}


def apply_kafka_4x(js):
    """Raises a 3.8 schema to the versions of KAFKA_4X (in place)."""
    if js["name"] not in KAFKA_4X:
        return
    valid, edits = KAFKA_4X[js["name"]]
    js["validVersions"] = valid
    for path, op, arg in edits:
        fields = js["fields"]
        field = None
        for step in path:
            field = next(f for f in fields if f["name"] == step)
            fields = field.get("fields", [])
        if op == "set":
            field.update(arg)
        elif op == "after":
            parent = js["fields"]
            for step in path[:-1]:
                parent = next(f for f in parent if f["name"] == step)["fields"]
            parent.insert(parent.index(field) + 1, dict(arg))
        else:
            fields.append(dict(arg))


def load_message(path):
    with open(path, encoding="utf-8") as fh:
        js = json.loads(strip_comments(fh.read()))
    if js["name"] in KAFKA_4X_NEW:
        js = json.loads(json.dumps(KAFKA_4X_NEW[js["name"]]))
    return build_message(js)


def build_message(js):
    apply_kafka_4x(js)
    name = js["name"]

    # Every struct definition in the file, by type name: commonStructs and
    # inline definitions ("fields" on a field), so a field may name a struct
    # defined elsewhere in the same file.
    defs = {}
    for cs in js.get("commonStructs", []):
        defs[cs["name"]] = cs["fields"]

    def collect(fields):
        for f in fields:
            if "fields" in f:
                tname = f["type"][2:] if f["type"].startswith("[]") else f["type"]
                defs.setdefault(tname, f["fields"])
                collect(f["fields"])

    collect(js["fields"])
    for cs in js.get("commonStructs", []):
        collect(cs["fields"])

    built = {}

    def struct_of(tname, fields_js):
        if fields_js is None:
            if tname not in defs:
                raise SchemaError("%s: unknown struct type %s" % (name, tname))
            fields_js = defs[tname]
        key = (tname, id(fields_js))
        if key in built:
            return built[key]
        s = Struct(tname)
        built[key] = s
        s.fields = [build_field(f) for f in fields_js]
        return s

    def type_of(tname, fields_js):
        if tname.startswith("[]"):
            inner = tname[2:]
            return Type("array", elem=type_of(inner, fields_js))
        if tname in PRIMITIVES:
            if fields_js is not None:
                raise SchemaError("%s: primitive %s with fields" % (name, tname))
            return Type(tname)
        if not tname[:1].isupper():
            raise SchemaError("%s: unknown type %s" % (name, tname))
        return Type("struct", sdef=struct_of(tname, fields_js))

    def build_field(fjs):
        return Field(fjs, type_of(fjs["type"], fjs.get("fields")))

    root = Struct(name)
    root.fields = [build_field(f) for f in js["fields"]]
    return Message(
        name,
        js["type"],
        js.get("apiKey"),
        Versions(js["validVersions"]),
        Versions(js.get("flexibleVersions", "none")),
        root,
    )


def load_all(schemas_dir):
    paths = sorted(glob.glob(os.path.join(schemas_dir, "message", "*.json")))
    paths += sorted(glob.glob(os.path.join(schemas_dir, "internal", "*.json")))
    if not paths:
        raise SchemaError("no schemas under %s" % schemas_dir)
    msgs = {}
    for p in paths:
        m = load_message(p)
        m.internal = os.path.basename(os.path.dirname(p)) == "internal"
        msgs[m.name] = m
    for name, js in KAFKA_4X_NEW.items():
        if name not in msgs:
            m = build_message(json.loads(json.dumps(js)))
            m.internal = js["type"] not in ("request", "response")
            msgs[name] = m
    return msgs


def in_scope(m):
    if m.mtype in ("request", "response") and m.api_key in API_KEYS:
        return True
    return m.internal or m.name in EXTRA_MESSAGES


# ---------------------------------------------------------------------------
# Defaults


def default_value(f, v):
    t, d = f.type, f.default
    k = t.kind
    if k in INT_RANGES:
        if d is None:
            return 0
        if isinstance(d, bool):
            raise SchemaError("%s: bool default on integer" % f.name)
        return int(d, 0) if isinstance(d, str) else int(d)
    if k == "bool":
        if d is None:
            return False
        if isinstance(d, bool):
            return d
        if d in ("true", "false"):
            return d == "true"
        raise SchemaError("%s: bad bool default %r" % (f.name, d))
    if k == "float64":
        return float(d) if d is not None else 0.0
    if k == "string":
        if d == "null":
            return None
        return d if d is not None else ""
    if k in ("bytes", "records"):
        if d == "null":
            return None
        if d not in (None, ""):
            raise SchemaError("%s: unsupported bytes default %r" % (f.name, d))
        return b""
    if k == "uuid":
        if d not in (None, ""):
            raise SchemaError("%s: unsupported uuid default %r" % (f.name, d))
        return bytes(16)
    if k == "array":
        if d == "null":
            return None
        if d not in (None, ""):
            raise SchemaError("%s: unsupported array default %r" % (f.name, d))
        return []
    if k == "struct":
        if d == "null":
            return None
        if d not in (None, ""):
            raise SchemaError("%s: unsupported struct default %r" % (f.name, d))
        return default_struct(t.sdef, v)
    raise SchemaError("%s: no default for %s" % (f.name, k))


def default_struct(sdef, v):
    return {f.name: default_value(f, v) for f in sdef.fields if f.versions.has(v)}


# ---------------------------------------------------------------------------
# Deterministic PRNG (splitmix64) and value generation


class Rng:
    def __init__(self, seed_text):
        digest = hashlib.sha256(seed_text.encode("utf-8")).digest()
        self.state = int.from_bytes(digest[:8], "big")

    def next64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n):
        if n <= 0:
            raise ValueError("below(%d)" % n)
        if n > (1 << 64):
            return ((self.next64() << 64) | self.next64()) % n
        return self.next64() % n

    def chance(self, num, den):
        return self.below(den) < num

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)


def gen_int(rng, kind):
    lo, hi = INT_RANGES[kind]
    if rng.chance(1, 4):
        edges = [x for x in (lo, hi, -1, 0, 1) if lo <= x <= hi]
        return edges[rng.below(len(edges))]
    return rng.between(lo, hi)


def gen_value(rng, t, v, nullable):
    k = t.kind
    if nullable and k in NULLABLE_KINDS and rng.chance(1, 6):
        return None
    if k in INT_RANGES:
        return gen_int(rng, k)
    if k == "bool":
        return rng.chance(1, 2)
    if k == "float64":
        return FLOATS[rng.below(len(FLOATS))]
    if k == "string":
        n = rng.between(0, 8)
        return "".join(ALNUM[rng.below(len(ALNUM))] for _ in range(n))
    if k in ("bytes", "records"):
        n = rng.between(0, 8)
        return bytes(rng.below(256) for _ in range(n))
    if k == "uuid":
        return bytes(rng.below(256) for _ in range(16))
    if k == "array":
        n = rng.between(0, 3)
        return [gen_value(rng, t.elem, v, False) for _ in range(n)]
    if k == "struct":
        return gen_struct(rng, t.sdef, v)
    raise SchemaError("cannot generate %s" % k)


def gen_struct(rng, sdef, v):
    out = {}
    for f in sdef.fields:
        if not f.versions.has(v):
            continue
        nullable = f.nullable.has(v)
        if f.is_tagged(v):
            dflt = default_value(f, v)
            val = dflt
            if rng.chance(1, 2):
                for _ in range(16):
                    val = gen_value(rng, f.type, v, nullable)
                    if val != dflt:
                        break
            out[f.name] = val
        else:
            out[f.name] = gen_value(rng, f.type, v, nullable)
    return out


# ---------------------------------------------------------------------------
# Encoder


def put_uvarint(out, n):
    if n < 0:
        raise ValueError("negative uvarint")
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def enc_len(out, n, compact):
    """Length/count prefix; n is None for null."""
    if compact:
        put_uvarint(out, 0 if n is None else n + 1)
    elif n is None:
        out += struct.pack(">i", -1)
    else:
        out += struct.pack(">i", n)


def enc_str_len(out, n, compact):
    if compact:
        put_uvarint(out, 0 if n is None else n + 1)
    else:
        out += struct.pack(">h", -1 if n is None else n)


def enc_value(out, t, x, v, compact, flexible, nullable, where):
    k = t.kind
    if x is None and (not nullable or k not in NULLABLE_KINDS):
        raise ValueError("%s: null in non-nullable field" % where)
    if k in INT_FORMATS:
        out += struct.pack(INT_FORMATS[k], x)
    elif k == "bool":
        out.append(1 if x else 0)
    elif k == "float64":
        out += struct.pack(">d", x)
    elif k == "uuid":
        if len(x) != 16:
            raise ValueError("%s: uuid of %d bytes" % (where, len(x)))
        out += x
    elif k == "string":
        data = None if x is None else x.encode("utf-8", "surrogateescape")
        enc_str_len(out, None if data is None else len(data), compact)
        if data is not None:
            out += data
    elif k in ("bytes", "records"):
        enc_len(out, None if x is None else len(x), compact)
        if x is not None:
            out += x
    elif k == "array":
        enc_len(out, None if x is None else len(x), compact)
        if x is not None:
            for i, e in enumerate(x):
                enc_value(out, t.elem, e, v, compact, flexible, False,
                          "%s[%d]" % (where, i))
    elif k == "struct":
        if nullable:
            out += struct.pack(">b", -1 if x is None else 1)
        if x is not None:
            enc_struct(out, t.sdef, x, v, flexible, where)
    else:
        raise ValueError("%s: cannot encode %s" % (where, k))


def field_compact(f, v, flexible):
    if f.flex is not None:
        return f.flex.has(v)
    return flexible


def enc_struct(out, sdef, val, v, flexible, where):
    tagged = []
    for f in sdef.fields:
        if not f.versions.has(v):
            continue
        x = val[f.name]
        fw = where + "." + f.name
        compact = field_compact(f, v, flexible)
        nullable = f.nullable.has(v)
        if f.is_tagged(v):
            if not flexible:
                raise SchemaError("%s: tagged field in non-flexible version" % fw)
            if x != default_value(f, v):
                buf = bytearray()
                enc_value(buf, f.type, x, v, compact, flexible, nullable, fw)
                tagged.append((f.tag, bytes(buf)))
            continue
        enc_value(out, f.type, x, v, compact, flexible, nullable, fw)
    if flexible:
        tagged.sort(key=lambda p: p[0])
        put_uvarint(out, len(tagged))
        for tag, data in tagged:
            put_uvarint(out, tag)
            put_uvarint(out, len(data))
            out += data


def encode(msg, val, v):
    out = bytearray()
    enc_struct(out, msg.root, val, v, msg.flexible.has(v), msg.name)
    return bytes(out)


# ---------------------------------------------------------------------------
# Decoder


class Reader:
    def __init__(self, data, pos=0, end=None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def take(self, n, where):
        if n < 0 or self.pos + n > self.end:
            raise DecodeError(
                "%s: need %d bytes at offset %d, only %d left"
                % (where, n, self.pos, self.end - self.pos)
            )
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt, where):
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.take(size, where))[0]

    def uvarint(self, where):
        n, shift = 0, 0
        while True:
            if shift > 28:
                raise DecodeError("%s: uvarint too long at offset %d" % (where, self.pos))
            b = self.take(1, where)[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
        if n > 0xFFFFFFFF:
            raise DecodeError("%s: uvarint exceeds 32 bits" % where)
        return n


def dec_len(r, compact, nullable, where, is_string=False):
    if compact:
        n = r.uvarint(where) - 1
    elif is_string:
        n = r.unpack(">h", where)
    else:
        n = r.unpack(">i", where)
    if n == -1:
        if not nullable:
            raise DecodeError("%s: null in non-nullable field" % where)
        return None
    if n < 0:
        raise DecodeError("%s: negative length %d" % (where, n))
    return n


def dec_value(r, t, v, compact, flexible, nullable, where):
    k = t.kind
    if k in INT_FORMATS:
        return r.unpack(INT_FORMATS[k], where)
    if k == "bool":
        b = r.take(1, where)[0]
        if b > 1:
            raise DecodeError("%s: bool byte %d" % (where, b))
        return b == 1
    if k == "float64":
        return r.unpack(">d", where)
    if k == "uuid":
        return r.take(16, where)
    if k == "string":
        n = dec_len(r, compact, nullable, where, is_string=True)
        if n is None:
            return None
        return r.take(n, where).decode("utf-8", "surrogateescape")
    if k in ("bytes", "records"):
        n = dec_len(r, compact, nullable, where)
        return None if n is None else r.take(n, where)
    if k == "array":
        n = dec_len(r, compact, nullable, where)
        if n is None:
            return None
        if n > r.end - r.pos:
            raise DecodeError("%s: array count %d exceeds remaining bytes" % (where, n))
        return [
            dec_value(r, t.elem, v, compact, flexible, False, "%s[%d]" % (where, i))
            for i in range(n)
        ]
    if k == "struct":
        if nullable:
            flag = r.unpack(">b", where)
            if flag == -1:
                return None
            if flag != 1:
                raise DecodeError("%s: nullable struct marker %d" % (where, flag))
        return dec_struct(r, t.sdef, v, flexible, where)
    raise DecodeError("%s: cannot decode %s" % (where, k))


def dec_struct(r, sdef, v, flexible, where):
    val = {}
    by_tag = {}
    for f in sdef.fields:
        if not f.versions.has(v):
            continue
        fw = where + "." + f.name
        if f.is_tagged(v):
            by_tag[f.tag] = f
            val[f.name] = default_value(f, v)
            continue
        val[f.name] = dec_value(
            r, f.type, v, field_compact(f, v, flexible), flexible,
            f.nullable.has(v), fw
        )
    if flexible:
        count = r.uvarint(where + ".<tagged count>")
        last = -1
        for _ in range(count):
            tag = r.uvarint(where + ".<tag>")
            if tag <= last:
                raise DecodeError("%s: tag %d after tag %d" % (where, tag, last))
            last = tag
            size = r.uvarint(where + ".<tag %d size>" % tag)
            if size > r.end - r.pos:
                raise DecodeError("%s: tag %d size %d exceeds input" % (where, tag, size))
            f = by_tag.get(tag)
            if f is None:
                r.pos += size  # unknown tagged field: skip
                continue
            fw = where + "." + f.name
            sub = Reader(r.data, r.pos, r.pos + size)
            val[f.name] = dec_value(
                sub, f.type, v, field_compact(f, v, flexible), flexible,
                f.nullable.has(v), fw
            )
            if sub.pos != sub.end:
                raise DecodeError(
                    "%s: tagged field left %d of %d bytes" % (fw, sub.end - sub.pos, size)
                )
            r.pos += size
    else:
        # Tagged fields cannot exist in non-flexible versions.
        if by_tag:
            raise SchemaError("%s: tagged field in non-flexible version" % where)
    return val


def decode(msg, data, v):
    if not msg.valid.has(v):
        raise DecodeError("%s has no version %d" % (msg.name, v))
    r = Reader(bytes(data))
    val = dec_struct(r, msg.root, v, msg.flexible.has(v), msg.name)
    if r.pos != r.end:
        raise DecodeError(
            "%s v%d: %d leftover bytes at offset %d" % (msg.name, v, r.end - r.pos, r.pos)
        )
    return val


# ---------------------------------------------------------------------------
# Canonical dump (tests/fixtures/README.md)


def dump_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dump_value(t, x):
    if x is None:
        return "null"
    k = t.kind
    if k == "bool":
        return "true" if x else "false"
    if k in INT_RANGES:
        return str(x)
    if k == "float64":
        return "%.17g" % x
    if k == "string":
        return dump_string(x)
    if k in ("bytes", "records", "uuid"):
        return '"' + x.hex() + '"'
    if k == "array":
        return "[" + ",".join(dump_value(t.elem, e) for e in x) + "]"
    if k == "struct":
        return dump_struct(t.sdef, x)
    raise ValueError("cannot dump %s" % k)


def dump_struct(sdef, val):
    parts = []
    for f in sdef.fields:
        if f.name in val:
            parts.append(dump_string(f.name) + ":" + dump_value(f.type, val[f.name]))
    return "{" + ",".join(parts) + "}"


def dump(msg, val):
    return dump_struct(msg.root, val)


# ---------------------------------------------------------------------------
# Commands


def field_paths(sdef, v, val, path, out_all, out_set):
    """Collect every field path of the version into out_all, and those that
    val reaches into out_set: a field counts whenever its enclosing struct is
    there (a null or a defaulted tagged field counts; what is under a null or
    an empty array does not)."""
    for f in sdef.fields:
        if not f.versions.has(v):
            continue
        p = path + "/" + f.name
        out_all.add(p)
        x = None if val is None else val[f.name]
        if val is not None:
            out_set.add(p)
        t = f.type
        if t.kind == "array" and t.elem.kind == "struct":
            for e in (x or [None]):
                field_paths(t.elem.sdef, v, e, p, out_all, out_set)
        elif t.kind == "struct":
            field_paths(t.sdef, v, x, p, out_all, out_set)


SEED_TRIES = 64


def gen_message(msg, v):
    """Build the fixture value for one version.  Candidates come from seeds
    "<Name>:<version>", then "<Name>:<version>:<k>"; the first one that sets
    every field of the version (nested ones included) wins, else the one that
    sets the most."""
    best, best_score = None, -1
    for k in range(SEED_TRIES):
        seed = "%s:%d" % (msg.name, v) if k == 0 else "%s:%d:%d" % (msg.name, v, k)
        val = gen_struct(Rng(seed), msg.root, v)
        everything, reached = set(), set()
        field_paths(msg.root, v, val, "", everything, reached)
        if len(reached) > best_score:
            best, best_score = val, len(reached)
        if len(reached) == len(everything):
            break
    return best


def fixture_text(msg):
    lines = []
    for v in msg.valid.all():
        val = gen_message(msg, v)
        data = encode(msg, val, v)
        text = dump(msg, val)
        # Self-check: our own decoder must give back the same value and text,
        # and re-encoding must give the same bytes.
        back = decode(msg, data, v)
        if back != val or dump(msg, back) != text or encode(msg, back, v) != data:
            raise AssertionError("%s v%d: round trip mismatch" % (msg.name, v))
        lines.append("v%d %s" % (v, data.hex()))
        lines.append(text)
    return "\n".join(lines) + "\n"


def write_text(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
        fh.write(text)


def cmd_generate(args):
    msgs = load_all(args.schemas)
    os.makedirs(args.out, exist_ok=True)
    names = sorted(n for n, m in msgs.items() if in_scope(m))
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - set(names)
        if unknown:
            print("not in scope: %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
        names = sorted(wanted)
    for name in names:
        write_text(os.path.join(args.out, name + ".fix"), fixture_text(msgs[name]))
    print("wrote %d fixture files to %s" % (len(names), args.out))
    return 0


def cmd_decode(args):
    msgs = load_all(args.schemas)
    if args.message not in msgs:
        print("unknown message %s" % args.message, file=sys.stderr)
        return 2
    hx = sys.stdin.read() if args.hex == "-" else args.hex
    hx = "".join(hx.split())
    try:
        data = bytes.fromhex(hx)
    except ValueError as e:
        print("bad hex: %s" % e, file=sys.stderr)
        return 2
    msg = msgs[args.message]
    try:
        val = decode(msg, data, args.version)
    except DecodeError as e:
        print("decode error: %s" % e, file=sys.stderr)
        return 1
    text = dump(msg, val) + "\n"
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    return 0


def cmd_verify(args):
    msgs = load_all(args.schemas)
    bad = 0
    paths = sorted(glob.glob(os.path.join(args.dir, "*.fix")))
    for p in paths:
        name = os.path.basename(p)[:-4]
        with open(p, encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            lines = fh.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if name not in msgs or len(lines) % 2:
            print("%s: unknown message or odd line count" % p, file=sys.stderr)
            bad += 1
            continue
        for i in range(0, len(lines), 2):
            head, want = lines[i], lines[i + 1]
            vtxt, _, hx = head.partition(" ")
            try:
                got = dump(msgs[name], decode(msgs[name], bytes.fromhex(hx), int(vtxt[1:])))
            except (DecodeError, ValueError) as e:
                got = "<error: %s>" % e
            if got != want:
                print("%s line %d: mismatch\n  want %s\n  got  %s" % (p, i + 1, want, got),
                      file=sys.stderr)
                bad += 1
        if fixture_text(msgs[name]) != "\n".join(lines) + "\n":
            print("%s: differs from what generate would write" % p, file=sys.stderr)
            bad += 1
    print("verified %d files, %d problems" % (len(paths), bad))
    return 1 if bad else 0


def main(argv):
    if argv and argv[0] in ("decode", "verify", "generate"):
        cmd, argv = argv[0], argv[1:]
    else:
        cmd = "generate"
    ap = argparse.ArgumentParser(prog="make_fixtures.py " + cmd)
    ap.add_argument("--schemas", required=True,
                    help="reference schema directory (holds message/ and internal/)")
    if cmd == "generate":
        ap.add_argument("--out", required=True, help="fixture output directory")
        ap.add_argument("--only", default="",
                        help="comma-separated message names: write only their fixtures")
        return cmd_generate(ap.parse_args(argv))
    if cmd == "decode":
        ap.add_argument("--message", required=True)
        ap.add_argument("--version", required=True, type=int)
        ap.add_argument("--hex", required=True, help="message body as hex, or - for stdin")
        return cmd_decode(ap.parse_args(argv))
    ap.add_argument("--dir", required=True, help="fixture directory to check")
    return cmd_verify(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
