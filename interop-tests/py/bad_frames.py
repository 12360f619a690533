#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sends one malformed request to a broker over a raw socket and checks the
answer: the broker must close that connection (or, for ApiVersions at an
unsupported version, answer with UNSUPPORTED_VERSION), then still serve a
well-formed ApiVersions request on a new connection.

Usage: bad_frames.py HOST PORT CASE    (CASE: see CASES; "list" prints them)
Exit status 0 when the broker behaved, 1 otherwise (the reason on stderr).
Standard library only.
"""
import socket
import struct
import sys

from kafka_wire import frame, read_frame, request_header

API_METADATA = 3
API_PRODUCE = 0
API_VERSIONS = 18
UNSUPPORTED_VERSION = 35
SOCKET_REQUEST_MAX_BYTES = 104857600  # Kafka's default socket.request.max.bytes
WAIT_S = 10.0
CLIENT_ID = "bad-frames"


def header_v1(api_key, version, correlation_id):
    return request_header(api_key, version, correlation_id, CLIENT_ID)


def garbage(n, seed=12345):
    out = bytearray()
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((x >> 16) & 0xFF)
    return bytes(out)


CASES = {
    # a negative length prefix
    "negative_size": struct.pack(">i", -5) + b"abcde",
    # a length over socket.request.max.bytes (only the prefix and a few bytes follow)
    "oversize": struct.pack(">i", SOCKET_REQUEST_MAX_BYTES + 1) + b"\0" * 16,
    "max_int_size": struct.pack(">i", 0x7FFFFFFF) + b"\0" * 16,
    # a zero-length frame: not even a request header
    "empty_frame": struct.pack(">i", 0),
    # a header cut short inside the client id
    "short_header": frame(struct.pack(">hhih", API_METADATA, 1, 7, 50) + b"abc"),
    # an API key nobody defines
    "unknown_api_key": frame(header_v1(9999, 0, 11)),
    # Metadata v1 whose topic array claims a million entries that are not there
    "garbage_metadata": frame(header_v1(API_METADATA, 1, 12) + struct.pack(">i", 1000000)),
    # Produce v7 with random bytes for a body
    "garbage_produce": frame(header_v1(API_PRODUCE, 7, 13) + garbage(300)),
    # Metadata at a version far outside the advertised range
    "metadata_bad_version": frame(header_v1(API_METADATA, 999, 14) + struct.pack(">i", -1)),
    # a negative version
    "metadata_negative_version": frame(header_v1(API_METADATA, -1, 15) + struct.pack(">i", -1)),
}
# ApiVersions at an unsupported version: Kafka answers (v0 layout) with
# UNSUPPORTED_VERSION and its supported ranges instead of closing. A newer
# client sends it as a flexible request: header v2 and a v3-shaped body
# (compact client software name and version, empty tagged fields).
APIVERSIONS_BAD = frame(request_header(API_VERSIONS, 999, 16, CLIENT_ID, flexible=True) +
                        b"\x02x" + b"\x021" + b"\x00")


def connect(host, port):
    s = socket.create_connection((host, port), timeout=WAIT_S)
    s.settimeout(WAIT_S)
    return s


def expect_close(host, port, payload):
    """Returns None when the broker closes the connection, else a complaint."""
    s = connect(host, port)
    try:
        try:
            s.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            return None  # closed while we were still sending
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            return None
        except socket.timeout:
            return "connection still open and silent after %.0fs" % WAIT_S
        if data == b"":
            return None
        return "broker answered instead of closing: %r" % data[:64]
    finally:
        s.close()


def check_apiversions_bad(host, port):
    s = connect(host, port)
    try:
        s.sendall(APIVERSIONS_BAD)
        try:
            body = read_frame(s)
        except (EOFError, ConnectionResetError) as e:
            return "ApiVersions v999: connection closed (%s), want an UNSUPPORTED_VERSION answer" % e
        except socket.timeout:
            return "ApiVersions v999: no answer within %.0fs" % WAIT_S
        if len(body) < 10:
            return "ApiVersions v999: short answer %r" % body
        correlation_id, error_code, count = struct.unpack(">ihi", body[:10])
        if len(body) < 10 + 6 * max(count, 0):
            return "ApiVersions v999: answer not in the v0 layout (%d entries claimed, %d bytes): %r" % (
                count, len(body), body[:64])
        if correlation_id != 16:
            return "ApiVersions v999: correlation id %d, want 16" % correlation_id
        if error_code != UNSUPPORTED_VERSION:
            return "ApiVersions v999: error %d, want %d" % (error_code, UNSUPPORTED_VERSION)
        keys = [struct.unpack(">hhh", body[10 + 6 * i:16 + 6 * i])[0] for i in range(count)]
        if API_VERSIONS not in keys:
            return "ApiVersions v999: the v0 answer does not list ApiVersions (keys %r)" % keys
        return None
    finally:
        s.close()


def check_still_serving(host, port):
    """A well-formed ApiVersions v0 request on a new connection gets its answer."""
    s = connect(host, port)
    try:
        s.sendall(frame(header_v1(API_VERSIONS, 0, 99)))
        body = read_frame(s)
        correlation_id, error_code = struct.unpack(">ih", body[:6])
        if correlation_id != 99 or error_code != 0:
            return "ApiVersions v0 afterwards: correlation %d error %d" % (correlation_id, error_code)
        return None
    except (OSError, EOFError) as e:
        return "ApiVersions v0 afterwards failed: %s" % e
    finally:
        s.close()


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "list":
        print("\n".join(list(CASES) + ["apiversions_bad_version"]))
        return 0
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    host, port, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if case == "apiversions_bad_version":
        problem = check_apiversions_bad(host, port)
    elif case in CASES:
        problem = expect_close(host, port, CASES[case])
    else:
        print("unknown case %s" % case, file=sys.stderr)
        return 2
    problem = problem or check_still_serving(host, port)
    if problem:
        print("%s: %s" % (case, problem), file=sys.stderr)
        return 1
    print("%s: ok" % case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
