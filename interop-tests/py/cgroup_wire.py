# SPDX-License-Identifier: Apache-2.0
"""KIP-848 consumer groups on the wire, for raw-socket scripts (standard
library only, on kafka_wire's Writer, Reader and Connection).

 - heartbeat_request / decode_heartbeat_response: ConsumerGroupHeartbeat
   (API 68) v0 and v1 (v1 adds SubscribedTopicRegex). Both versions are
   flexible.
 - describe_request / decode_describe_response: ConsumerGroupDescribe
   (API 69) v0 and v1 (v1 adds each member's MemberType).
 - heartbeat(conn, ...) and describe(conn, ...) send one request on a
   kafka_wire.Connection and return the decoded response.
 - TopicIds: topic names <-> topic ids from Metadata v12 (topic ids are in
   Metadata v10+), since the heartbeat speaks ids only.

Decoded responses are dicts with snake_case keys named after Kafka's
fields; a topic id is 16 raw bytes (topic_id_hex prints one); an assignment
is a list of (topic id, [partitions]) or, in describe, (topic id, topic
name, [partitions]).

"python3 interop-tests/py/cgroup_wire.py --self-test" checks the encoders
and decoders against bytes written out by hand from the schemas; it needs
no broker.
"""
import sys

from kafka_wire import Connection, Reader, WireError, Writer  # noqa: F401 (re-exported)

API_METADATA = 3
API_CONSUMER_GROUP_HEARTBEAT = 68
API_CONSUMER_GROUP_DESCRIBE = 69
METADATA_VERSION = 12
HEARTBEAT_VERSIONS = (0, 1)
DESCRIBE_VERSIONS = (0, 1)

# MemberEpoch values with a meaning of their own in a heartbeat request.
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
STATIC_LEAVE_EPOCH = -2  # a static member leaves, meaning to come back

# Error codes the heartbeat answers with (Kafka's numbers).
NONE = 0
NOT_COORDINATOR = 16
UNKNOWN_MEMBER_ID = 25
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
FENCED_MEMBER_EPOCH = 110
UNRELEASED_INSTANCE_ID = 111
UNSUPPORTED_ASSIGNOR = 112
INVALID_REGULAR_EXPRESSION = 128

ZERO_UUID = bytes(16)


def topic_id_hex(topic_id):
    return topic_id.hex()


def _check_version(version, versions, api):
    if version not in versions:
        raise ValueError("%s has no version %r (known: %s)" % (api, version, versions))


# ---- ConsumerGroupHeartbeat ------------------------------------------------------


def heartbeat_request(version, group_id, member_id="", member_epoch=JOIN_EPOCH, instance_id=None,
                      rack_id=None, rebalance_timeout_ms=-1, subscribed_topic_names=None,
                      subscribed_topic_regex=None, server_assignor=None, topic_partitions=None):
    """The request body. None means "unchanged" for the nullable fields;
    topic_partitions is [(topic id bytes, [partition, ...])]. A regex needs v1."""
    _check_version(version, HEARTBEAT_VERSIONS, "ConsumerGroupHeartbeat")
    if version == 0 and subscribed_topic_regex is not None:
        raise ValueError("SubscribedTopicRegex needs ConsumerGroupHeartbeat v1")
    w = Writer(True)
    w.str(group_id).str(member_id).i32(member_epoch).str(instance_id).str(rack_id)
    w.i32(rebalance_timeout_ms)
    w.arr(subscribed_topic_names, Writer.str)
    if version >= 1:
        w.str(subscribed_topic_regex)
    w.str(server_assignor)
    w.arr(topic_partitions, _write_topic_partitions)
    w.tags()
    return bytes(w.data)


def _write_topic_partitions(w, tp):
    topic_id, partitions = tp
    w.uuid(topic_id).arr(partitions, Writer.i32).tags()


def _read_topic_partitions(r):
    topic_id, partitions = r.uuid(), r.arr(Reader.i32)
    r.tags()
    return (topic_id, partitions)


def decode_heartbeat_response(data, version):
    """data: what Connection.call returns (response header tags first)."""
    _check_version(version, HEARTBEAT_VERSIONS, "ConsumerGroupHeartbeat")
    r = Reader(data, True)
    r.tags()
    out = {
        "throttle_time_ms": r.i32(),
        "error_code": r.i16(),
        "error_message": r.str(),
        "member_id": r.str(),
        "member_epoch": r.i32(),
        "heartbeat_interval_ms": r.i32(),
        "assignment": None,
    }
    if r.i8() >= 0:  # a nullable struct: -1 null, 1 present
        out["assignment"] = r.arr(_read_topic_partitions)
        r.tags()
    r.tags()
    _check_consumed(r, "ConsumerGroupHeartbeatResponse")
    return out


def heartbeat(conn, version=1, **fields):
    """One heartbeat on conn; fields as heartbeat_request's. Returns the
    decoded response."""
    body = heartbeat_request(version, **fields)
    data = conn.call(API_CONSUMER_GROUP_HEARTBEAT, version, body, flexible=True)
    return decode_heartbeat_response(data, version)


# ---- ConsumerGroupDescribe -------------------------------------------------------


def describe_request(version, group_ids, include_authorized_operations=False):
    _check_version(version, DESCRIBE_VERSIONS, "ConsumerGroupDescribe")
    w = Writer(True)
    w.arr(group_ids, Writer.str).i8(1 if include_authorized_operations else 0).tags()
    return bytes(w.data)


def _read_described_assignment(r):
    def topic(r):
        topic_id, name, partitions = r.uuid(), r.str(), r.arr(Reader.i32)
        r.tags()
        return (topic_id, name, partitions)

    topics = r.arr(topic)
    r.tags()
    return topics


def _read_member(version):
    def member(r):
        m = {
            "member_id": r.str(),
            "instance_id": r.str(),
            "rack_id": r.str(),
            "member_epoch": r.i32(),
            "client_id": r.str(),
            "client_host": r.str(),
            "subscribed_topic_names": r.arr(Reader.str),
            "subscribed_topic_regex": r.str(),
            "assignment": _read_described_assignment(r),
            "target_assignment": _read_described_assignment(r),
            "member_type": -1,
        }
        if version >= 1:
            m["member_type"] = r.i8()
        r.tags()
        return m

    return member


def decode_describe_response(data, version):
    """Returns {"throttle_time_ms", "groups": [group dict, ...]}."""
    _check_version(version, DESCRIBE_VERSIONS, "ConsumerGroupDescribe")
    r = Reader(data, True)
    r.tags()
    throttle = r.i32()

    def group(r):
        g = {
            "error_code": r.i16(),
            "error_message": r.str(),
            "group_id": r.str(),
            "group_state": r.str(),
            "group_epoch": r.i32(),
            "assignment_epoch": r.i32(),
            "assignor_name": r.str(),
            "members": r.arr(_read_member(version)),
            "authorized_operations": r.i32(),
        }
        r.tags()
        return g

    groups = r.arr(group)
    r.tags()
    _check_consumed(r, "ConsumerGroupDescribeResponse")
    return {"throttle_time_ms": throttle, "groups": groups}


def describe(conn, group_ids, version=1, include_authorized_operations=False):
    body = describe_request(version, group_ids, include_authorized_operations)
    data = conn.call(API_CONSUMER_GROUP_DESCRIBE, version, body, flexible=True)
    return decode_describe_response(data, version)


def _check_consumed(r, what):
    if r.pos != len(r.data):
        raise WireError("%s: %d bytes left over" % (what, len(r.data) - r.pos))


# ---- topic ids from Metadata -------------------------------------------------------


def metadata_request(names=None):
    """Metadata v12 for the named topics (None: all), without creating any."""
    w = Writer(True)

    def topic(w, name):
        w.uuid(ZERO_UUID).str(name).tags()

    w.arr(names, topic).i8(0).i8(0).tags()
    return bytes(w.data)


def decode_metadata_topics(data):
    """[{"error_code", "name", "topic_id", "partitions": [index, ...]}]."""
    r = Reader(data, True)
    r.tags()
    r.i32()  # throttle

    def broker(r):
        r.i32(), r.str(), r.i32(), r.str()
        r.tags()

    r.arr(broker)
    r.str(), r.i32()  # cluster id, controller id

    def partition(r):
        r.i16()
        index = r.i32()
        r.i32(), r.i32()  # leader, leader epoch
        r.arr(Reader.i32), r.arr(Reader.i32), r.arr(Reader.i32)
        r.tags()
        return index

    def topic(r):
        t = {"error_code": r.i16(), "name": r.str(), "topic_id": r.uuid()}
        r.bool()
        t["partitions"] = sorted(r.arr(partition))
        r.i32()  # authorized operations
        r.tags()
        return t

    topics = r.arr(topic)
    r.tags()
    return topics


class TopicIds:
    """Topic names <-> ids as one Metadata answer gave them."""

    def __init__(self, topics):
        self.by_name = {t["name"]: t for t in topics if t["error_code"] == NONE}
        self.by_id = {t["topic_id"]: t for t in self.by_name.values()}

    @classmethod
    def load(cls, conn, names=None):
        data = conn.call(API_METADATA, METADATA_VERSION, metadata_request(names), flexible=True)
        return cls(decode_metadata_topics(data))

    def id(self, name):
        """The topic's id; KeyError for a topic the answer did not have."""
        return self.by_name[name]["topic_id"]

    def name(self, topic_id):
        return self.by_id[topic_id]["name"]

    def partitions(self, name):
        return self.by_name[name]["partitions"]

    def named(self, assignment):
        """[(topic id, [p])] -> {topic name: [p]} (unknown ids by their hex)."""
        out = {}
        for topic_id, parts in assignment or []:
            key = self.by_id[topic_id]["name"] if topic_id in self.by_id else topic_id_hex(topic_id)
            out[key] = sorted(parts)
        return out


# ---- self-test ----------------------------------------------------------------------


def _expect(what, got, want):
    if got != want:
        raise AssertionError("%s:\n  got  %r\n  want %r" % (what, got, want))


def self_test():
    tid = bytes(range(16))
    # v1 join: group "g", no member id, epoch 0, instance "i", rack null,
    # timeout 0x1000, topics ["t"], regex "t.*", assignor null, owned [(tid, [0])].
    got = heartbeat_request(1, "g", "", 0, "i", None, 0x1000, ["t"], "t.*", None, [(tid, [0])])
    want = (b"\x02g" b"\x01" b"\x00\x00\x00\x00" b"\x02i" b"\x00" b"\x00\x00\x10\x00"
            b"\x02\x02t" b"\x04t.*" b"\x00" b"\x02" + tid + b"\x02\x00\x00\x00\x00"
            b"\x00"  # topic entry tags
            b"\x00")  # request tags
    _expect("heartbeat v1 request", got, want)
    # v0 leave: the same without the regex; null topics and partitions.
    got = heartbeat_request(0, "g", "m", LEAVE_EPOCH)
    want = b"\x02g\x02m\xff\xff\xff\xff\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00"
    _expect("heartbeat v0 request", got, want)
    try:
        heartbeat_request(0, "g", subscribed_topic_regex="x")
        raise AssertionError("v0 took a regex")
    except ValueError:
        pass

    resp = (b"\x00" b"\x00\x00\x00\x00" b"\x00\x00" b"\x00" b"\x02m" b"\x00\x00\x00\x03"
            b"\x00\x00\x13\x88" b"\x01" b"\x02" + tid + b"\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00"
            b"\x00" b"\x00")
    _expect("heartbeat response", decode_heartbeat_response(resp, 1), {
        "throttle_time_ms": 0, "error_code": 0, "error_message": None, "member_id": "m",
        "member_epoch": 3, "heartbeat_interval_ms": 5000, "assignment": [(tid, [1, 2])]})
    null_assignment = b"\x00\x00\x00\x00\x00\x00\x6e\x02x\x00\xff\xff\xff\xff\x00\x00\x00\x00\xff\x00"
    got = decode_heartbeat_response(null_assignment, 0)
    _expect("fenced heartbeat", (got["error_code"], got["error_message"], got["assignment"]),
            (FENCED_MEMBER_EPOCH, "x", None))

    _expect("describe request", describe_request(1, ["g"], True), b"\x02\x02g\x01\x00")
    for version in DESCRIBE_VERSIONS:
        member = (b"\x02m" b"\x00" b"\x02r" b"\x00\x00\x00\x02" b"\x02c" b"\x02h" b"\x02\x02t"
                  b"\x00"  # regex null
                  b"\x02" + tid + b"\x02t" b"\x02\x00\x00\x00\x00" b"\x00" b"\x00"  # assignment
                  b"\x01" b"\x00"  # empty target assignment
                  + (b"\x01" if version >= 1 else b"") + b"\x00")
        group = (b"\x00\x00" b"\x00" b"\x02g" b"\x07Stable" b"\x00\x00\x00\x02"
                 b"\x00\x00\x00\x02" b"\x08uniform" b"\x02" + member + b"\x00\x00\x00\x08" b"\x00")
        body = b"\x00" b"\x00\x00\x00\x00" b"\x02" + group + b"\x00"
        g = decode_describe_response(body, version)["groups"][0]
        m = g["members"][0]
        _expect("describe v%d" % version,
                (g["group_state"], g["group_epoch"], g["assignor_name"], g["authorized_operations"],
                 m["rack_id"], m["subscribed_topic_names"], m["assignment"], m["target_assignment"],
                 m["member_type"]),
                ("Stable", 2, "uniform", 8, "r", ["t"], [(tid, "t", [0])], [], 1 if version else -1))
    print("cgroup_wire self-test: ok")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        print("usage: cgroup_wire.py --self-test (it is a module for other scripts)", file=sys.stderr)
        sys.exit(2)
