#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A long-lived TLS client for the keystore rotation test: one TLS
connection kept open from start to end, driven by commands on stdin, one
answer line each on stdout:
  produce     Produce v3 (acks=-1) of one record to TOPIC partition 0 on the
              kept connection: "ok OFFSET" or "error CODE"
  serial      the serial number of the certificate the kept connection got
  new-serial  the serial a new TLS connection gets (then closed)
  quit
The server is verified against CA with 127.0.0.1 as its name. A failure of
the kept connection ends the script (exit 1, the reason on stderr).

Usage: tls_rotate_client.py HOST PORT CA TOPIC
Standard library only.
"""
import socket
import ssl
import struct
import sys
import time

import kafka_wire
from kafka_wire import record, record_batch, string

API_PRODUCE = 0
WAIT_S = 20.0


def connect(host, port, ca):
    ctx = ssl.create_default_context(cafile=ca)
    raw = socket.create_connection((host, port), timeout=WAIT_S)
    return ctx.wrap_socket(raw, server_hostname=host)


def serial(sock):
    return sock.getpeercert()["serialNumber"].upper()


def produce(conn, topic):
    now = int(time.time() * 1000)
    records = record_batch(record(0, 0, None, b"kept-connection"), 1, now, now)
    body = struct.pack(">h", -1) + struct.pack(">hi", -1, 30000)
    body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", 1)
    body += struct.pack(">ii", 0, len(records)) + records
    resp = conn.call(API_PRODUCE, 3, body)
    pos = 4 + 2 + len(topic) + 4  # topic count, name, partition count
    _index, err, base_offset = struct.unpack(">ihq", resp[pos:pos + 14])
    return "ok %d" % base_offset if err == 0 else "error %d" % err


def main():
    host, port, ca, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    conn = kafka_wire.Connection.__new__(kafka_wire.Connection)
    conn.sock, conn.client_id, conn.correlation_id = connect(host, port, ca), "tls-rotate", 0
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "produce":
            out = produce(conn, topic)
        elif cmd == "serial":
            out = serial(conn.sock)
        elif cmd == "new-serial":
            with connect(host, port, ca) as fresh:
                out = serial(fresh)
        elif cmd == "quit":
            break
        else:
            out = "unknown command " + cmd
        print(out, flush=True)
    conn.close()


if __name__ == "__main__":
    try:
        main()
    except (OSError, kafka_wire.WireError) as e:
        print("tls_rotate_client: FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
