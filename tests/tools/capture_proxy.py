#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loopback TCP proxy that records Kafka frames both ways, for golden captures.

Usage:
    capture_proxy.py --upstream 127.0.0.1:PORT [--upstream ...] --out DIR
                     --client LABEL [--listen-port N] [--log FILE]
                     [--only ApiName[,ApiName...]]

For every --upstream broker the proxy listens on one loopback port (the first
one on --listen-port, if given, the others on ephemeral ports) and prints the
list of its listen addresses, comma separated, as the first line of stdout.
Point a client at that list. It runs until SIGINT or SIGTERM.

What it records: each request frame's api key, api version, correlation id
and client id; each response is paired with its request by correlation id
(responses on one connection come back in request order, but the pairing does
not rely on that). The first request seen for an (api key, api version) under
this --client label is written, without its 4-byte length prefix (that is,
header + body), as lowercase hex on one line to
    DIR/<client>_<ApiName>_v<version>_request.hex
and the response to that same request to ..._response.hex. A file that
already exists is never overwritten, so several runs of the proxy with the
same label add to one collection. With --only, only the named APIs (e.g.
"Produce,Fetch") are saved; every frame is still forwarded and logged. For
each file written it appends a line to
    DIR/manifest.txt: <file> <request|response> <api_key> <api_version>
                      <MessageName> <header_version>
    DIR/headers.txt:  <file> <correlation_id> <client_id> <header_bytes>
where client_id is a JSON string, "null", or "-" for responses, and
header_bytes is the header's length, so that the body is the hex after
2*header_bytes digits.

What it changes: nothing, except that in responses to Metadata,
FindCoordinator and DescribeCluster it replaces each upstream broker's
(host, port) pair by the proxy's own (same host, proxy port), so that the
client keeps talking through the proxy. That replacement keeps every length
unchanged (the host stays the same; only the int32 port differs), and the
golden file always holds the bytes the broker sent, before the replacement.

Protocol facts used here: a request header is int16 api_key, int16
api_version, int32 correlation_id, then (header v1+) a nullable string
client_id with an int16 length, then (header v2, flexible requests) a tagged
field section; ControlledShutdown v0 uses header v0 (no client id). A
response header is int32 correlation_id, then (v1, flexible responses except
ApiVersions) a tagged field section.
"""

import argparse
import json
import os
import signal
import socket
import struct
import sys
import threading

# api key -> (name, first flexible version or None), from the Kafka protocol.
API_TABLE = {
    0: ("Produce", 9),
    1: ("Fetch", 12),
    2: ("ListOffsets", 6),
    3: ("Metadata", 9),
    4: ("LeaderAndIsr", 4),
    5: ("StopReplica", 2),
    6: ("UpdateMetadata", 6),
    7: ("ControlledShutdown", 3),
    8: ("OffsetCommit", 8),
    9: ("OffsetFetch", 6),
    10: ("FindCoordinator", 3),
    11: ("JoinGroup", 6),
    12: ("Heartbeat", 4),
    13: ("LeaveGroup", 4),
    14: ("SyncGroup", 4),
    15: ("DescribeGroups", 5),
    16: ("ListGroups", 3),
    17: ("SaslHandshake", None),
    18: ("ApiVersions", 3),
    19: ("CreateTopics", 5),
    20: ("DeleteTopics", 4),
    21: ("DeleteRecords", 2),
    22: ("InitProducerId", 2),
    23: ("OffsetForLeaderEpoch", 4),
    24: ("AddPartitionsToTxn", 3),
    25: ("AddOffsetsToTxn", 3),
    26: ("EndTxn", 3),
    27: ("WriteTxnMarkers", 1),
    28: ("TxnOffsetCommit", 3),
    29: ("DescribeAcls", 2),
    30: ("CreateAcls", 2),
    31: ("DeleteAcls", 2),
    32: ("DescribeConfigs", 4),
    33: ("AlterConfigs", 2),
    34: ("AlterReplicaLogDirs", 2),
    35: ("DescribeLogDirs", 2),
    36: ("SaslAuthenticate", 2),
    37: ("CreatePartitions", 2),
    38: ("CreateDelegationToken", 2),
    39: ("RenewDelegationToken", 2),
    40: ("ExpireDelegationToken", 2),
    41: ("DescribeDelegationToken", 2),
    42: ("DeleteGroups", 2),
    43: ("ElectLeaders", 2),
    44: ("IncrementalAlterConfigs", 1),
    45: ("AlterPartitionReassignments", 0),
    46: ("ListPartitionReassignments", 0),
    47: ("OffsetDelete", None),
    48: ("DescribeClientQuotas", 1),
    49: ("AlterClientQuotas", 1),
    50: ("DescribeUserScramCredentials", 0),
    51: ("AlterUserScramCredentials", 0),
    55: ("DescribeQuorum", 0),
    56: ("AlterPartition", 0),
    57: ("UpdateFeatures", 0),
    58: ("Envelope", 0),
    60: ("DescribeCluster", 0),
    61: ("DescribeProducers", 0),
    65: ("DescribeTransactions", 0),
    66: ("ListTransactions", 0),
    67: ("AllocateProducerIds", 0),
    68: ("ConsumerGroupHeartbeat", 0),
    69: ("ConsumerGroupDescribe", 0),
}

API_API_VERSIONS = 18
API_CONTROLLED_SHUTDOWN = 7
# Responses that carry broker addresses the client will connect to.
APIS_WITH_BROKER_ADDRESSES = (3, 10, 60)

FRAME_LENGTH_SIZE = 4
MAX_FRAME_SIZE = 256 * 1024 * 1024


def api_name(key):
    return API_TABLE.get(key, ("Api%d" % key, None))[0]


def is_flexible(key, version):
    flexible_from = API_TABLE.get(key, (None, None))[1]
    return flexible_from is not None and version >= flexible_from


def request_header_version(key, version):
    if key == API_CONTROLLED_SHUTDOWN and version == 0:
        return 0
    return 2 if is_flexible(key, version) else 1


def response_header_version(key, version):
    if key == API_API_VERSIONS:
        return 0
    return 1 if is_flexible(key, version) else 0


def read_uvarint(buf, pos):
    """Returns (value, next position); raises ValueError past the end."""
    value = 0
    shift = 0
    while True:
        if pos >= len(buf) or shift > 28:
            raise ValueError("bad uvarint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def skip_tagged_fields(buf, pos):
    count, pos = read_uvarint(buf, pos)
    for _ in range(count):
        _, pos = read_uvarint(buf, pos)
        size, pos = read_uvarint(buf, pos)
        pos += size
        if pos > len(buf):
            raise ValueError("tagged field past the end")
    return pos


def parse_request_header(frame):
    """Returns (key, version, correlation_id, client_id, header_version,
    header_bytes); raises ValueError on a truncated header."""
    if len(frame) < 8:
        raise ValueError("request header shorter than 8 bytes")
    key, version, correlation_id = struct.unpack_from(">hhi", frame, 0)
    header_version = request_header_version(key, version)
    pos = 8
    client_id = None
    if header_version >= 1:
        if len(frame) < pos + 2:
            raise ValueError("truncated client_id length")
        (length,) = struct.unpack_from(">h", frame, pos)
        pos += 2
        if length >= 0:
            if len(frame) < pos + length:
                raise ValueError("truncated client_id")
            client_id = frame[pos:pos + length].decode("utf-8", "replace")
            pos += length
    if header_version >= 2:
        pos = skip_tagged_fields(frame, pos)
    return key, version, correlation_id, client_id, header_version, pos


def response_header_bytes(frame, header_version):
    pos = 4
    if header_version >= 1:
        pos = skip_tagged_fields(frame, pos)
    return pos


def address_patterns(host, port):
    """Byte strings that encode (host, port) as a Kafka string followed by an
    int32 port, in the classic (int16 length) and compact (uvarint length+1)
    forms. Host names here are short, so the compact length is one byte."""
    raw = host.encode()
    port_bytes = struct.pack(">i", port)
    return [struct.pack(">h", len(raw)) + raw + port_bytes,
            bytes([len(raw) + 1]) + raw + port_bytes]


class Capture:
    """Writes golden files and the manifest; shared by all connections."""

    def __init__(self, out_dir, client, log_file, only):
        self.out_dir = out_dir
        self.client = client
        self.only = only
        self.lock = threading.Lock()
        self.log = open(log_file, "a") if log_file else None

    def note(self, text):
        if self.log:
            with self.lock:
                self.log.write(text + "\n")
                self.log.flush()

    def file_name(self, key, version, kind):
        return "%s_%s_v%d_%s.hex" % (self.client, api_name(key), version, kind)

    def save(self, key, version, kind, frame, header_version, correlation_id,
             client_id, header_bytes):
        """Writes one golden file unless it exists. Returns True if written."""
        if self.only and api_name(key) not in self.only:
            return False
        name = self.file_name(key, version, kind)
        path = os.path.join(self.out_dir, name)
        message = api_name(key) + ("Request" if kind == "request" else "Response")
        with self.lock:
            if os.path.exists(path):
                return False
            with open(path, "w") as f:
                f.write(frame.hex() + "\n")
            with open(os.path.join(self.out_dir, "manifest.txt"), "a") as f:
                f.write("%s %s %d %d %s %d\n" % (name, kind, key, version, message,
                                                 header_version))
            if kind == "request":
                shown = json.dumps(client_id) if client_id is not None else "null"
            else:
                shown = "-"
            with open(os.path.join(self.out_dir, "headers.txt"), "a") as f:
                f.write("%s %d %s %d\n" % (name, correlation_id, shown, header_bytes))
            return True


def recv_exact(sock, size):
    chunks = []
    while size > 0:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock):
    """Returns one frame without its length prefix, or None at end of stream."""
    prefix = recv_exact(sock, FRAME_LENGTH_SIZE)
    if prefix is None:
        return None
    (size,) = struct.unpack(">i", prefix)
    if size < 0 or size > MAX_FRAME_SIZE:
        raise ValueError("frame size %d out of range" % size)
    return recv_exact(sock, size)


class Connection:
    """One client connection and its upstream connection, a thread each way.

    pending maps correlation id -> (key, version, saved) for requests sent
    upstream and not yet answered; the request thread adds an entry before
    it forwards the request, so the response thread always finds it."""

    def __init__(self, proxy, number, client_sock, upstream):
        self.proxy = proxy
        self.number = number
        self.client_sock = client_sock
        self.upstream_sock = socket.create_connection(upstream)
        self.pending = {}
        self.lock = threading.Lock()

    def start(self):
        for target in (self.pump_requests, self.pump_responses):
            threading.Thread(target=target, daemon=True).start()

    def close(self):
        for s in (self.client_sock, self.upstream_sock):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def pump_requests(self):
        capture = self.proxy.capture
        try:
            while True:
                frame = recv_frame(self.client_sock)
                if frame is None:
                    break
                key, version, corr, client_id, hv, hb = parse_request_header(frame)
                saved = capture.save(key, version, "request", frame, hv, corr,
                                     client_id, hb)
                capture.note("conn %d > %s v%d corr=%d client_id=%s header=%d "
                             "body=%d%s" % (self.number, api_name(key), version,
                                            corr, json.dumps(client_id), hb,
                                            len(frame) - hb,
                                            " saved" if saved else ""))
                with self.lock:
                    self.pending[corr] = (key, version, saved)
                self.upstream_sock.sendall(struct.pack(">i", len(frame)) + frame)
        except (OSError, ValueError) as e:
            capture.note("conn %d request stream: %s" % (self.number, e))
        self.close()

    def pump_responses(self):
        capture = self.proxy.capture
        try:
            while True:
                frame = recv_frame(self.upstream_sock)
                if frame is None:
                    break
                if len(frame) < 4:
                    raise ValueError("response shorter than a correlation id")
                (corr,) = struct.unpack_from(">i", frame, 0)
                with self.lock:
                    entry = self.pending.pop(corr, None)
                if entry is None:
                    capture.note("conn %d < unknown corr=%d len=%d" %
                                 (self.number, corr, len(frame)))
                    forwarded = frame
                else:
                    key, version, request_saved = entry
                    hv = response_header_version(key, version)
                    hb = response_header_bytes(frame, hv)
                    saved = request_saved and capture.save(
                        key, version, "response", frame, hv, corr, None, hb)
                    forwarded = self.proxy.rewrite(key, frame)
                    capture.note("conn %d < %s v%d corr=%d header=%d body=%d%s%s" %
                                 (self.number, api_name(key), version, corr, hb,
                                  len(frame) - hb, " saved" if saved else "",
                                  " rewritten" if forwarded != frame else ""))
                self.client_sock.sendall(struct.pack(">i", len(forwarded)) + forwarded)
        except (OSError, ValueError) as e:
            capture.note("conn %d response stream: %s" % (self.number, e))
        self.close()


class Proxy:
    def __init__(self, upstreams, listen_port, capture):
        self.capture = capture
        self.listeners = []
        self.replacements = []
        self.connection_count = 0
        self.lock = threading.Lock()
        for i, (host, port) in enumerate(upstreams):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, listen_port if i == 0 else 0))
            sock.listen(16)
            own_port = sock.getsockname()[1]
            self.listeners.append((sock, (host, port)))
            for old, new in zip(address_patterns(host, port),
                                address_patterns(host, own_port)):
                self.replacements.append((old, new))

    def addresses(self):
        return ",".join("%s:%d" % s.getsockname() for s, _ in self.listeners)

    def rewrite(self, key, frame):
        if key not in APIS_WITH_BROKER_ADDRESSES:
            return frame
        for old, new in self.replacements:
            frame = frame.replace(old, new)
        return frame

    def serve(self, listener, upstream):
        while True:
            try:
                client_sock, _ = listener.accept()
            except OSError:
                return
            with self.lock:
                self.connection_count += 1
                number = self.connection_count
            try:
                conn = Connection(self, number, client_sock, upstream)
            except OSError as e:
                self.capture.note("conn %d: upstream %s:%d: %s" %
                                  (number, upstream[0], upstream[1], e))
                client_sock.close()
                continue
            self.capture.note("conn %d accepted for %s:%d" %
                              (number, upstream[0], upstream[1]))
            conn.start()

    def start(self):
        for listener, upstream in self.listeners:
            threading.Thread(target=self.serve, args=(listener, upstream),
                             daemon=True).start()


def parse_address(text):
    host, _, port = text.rpartition(":")
    if host not in ("127.0.0.1", "localhost"):
        raise argparse.ArgumentTypeError("only loopback upstreams: %s" % text)
    return host, int(port)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", action="append", required=True,
                        type=parse_address, help="broker HOST:PORT (repeatable)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--client", required=True,
                        help="label that starts every file name, e.g. kcat")
    parser.add_argument("--listen-port", type=int, default=0,
                        help="port for the first upstream (default ephemeral)")
    parser.add_argument("--log", help="append a line per frame to this file")
    parser.add_argument("--only", help="save only these APIs, comma separated")
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    capture = Capture(args.out, args.client, args.log, only)
    proxy = Proxy(args.upstream, args.listen_port, capture)
    stop = threading.Event()
    for signo in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signo, lambda *_: stop.set())
    proxy.start()
    print(proxy.addresses(), flush=True)
    while not stop.wait(3600):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
