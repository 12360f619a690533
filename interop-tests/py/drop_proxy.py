#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A TCP proxy in front of a broker that loses Produce responses: it
forwards client requests frame by frame and, at random (probability
DROP_PERCENT per Produce request, from a fixed seed), closes the client's
connection and its upstream right after forwarding one, so the broker
handles the request but its response never reaches the client, which then
retries it. While the broker is down, new connections are closed at once.

Usage: drop_proxy.py LISTEN_PORT BROKER_PORT DROP_PERCENT COUNT_FILE
COUNT_FILE gets the number of responses dropped so far, rewritten at each.
Runs until killed. Standard library only.
"""
import random
import socket
import struct
import sys
import threading

import kafka_wire

API_PRODUCE = 0
HOST = "127.0.0.1"


class Proxy:
    def __init__(self, broker_port, drop_percent, count_file):
        self.broker_port = broker_port
        self.drop_percent = drop_percent
        self.count_file = count_file
        self.random = random.Random(20260101)
        self.lock = threading.Lock()
        self.dropped = 0

    def should_drop(self):
        with self.lock:
            if self.random.random() * 100 >= self.drop_percent:
                return False
            self.dropped += 1
            with open(self.count_file, "w") as f:
                f.write("%d\n" % self.dropped)
            return True

    def serve(self, client):
        try:
            upstream = socket.create_connection((HOST, self.broker_port), timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        threading.Thread(target=copy, args=(upstream, client), daemon=True).start()
        try:
            self.forward_requests(client, upstream)
        finally:
            close(client)
            close(upstream)

    def forward_requests(self, client, upstream):
        while True:
            head = recv_exact(client, 4)
            if head is None:
                return
            size = struct.unpack(">i", head)[0]
            if size < 2:
                return
            body = recv_exact(client, size)
            if body is None:
                return
            upstream.sendall(head + body)
            api_key = struct.unpack(">h", body[:2])[0]
            if api_key == API_PRODUCE and self.should_drop():
                return


def recv_exact(sock, n):
    """n bytes from sock, or None once it closes or fails: the end of a relay, not an error."""
    try:
        return kafka_wire.recv_exact(sock, n)
    except (OSError, kafka_wire.ConnectionClosed):
        return None


def copy(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    close(src)
    close(dst)


def close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    listen_port, broker_port = int(sys.argv[1]), int(sys.argv[2])
    proxy = Proxy(broker_port, float(sys.argv[3]), sys.argv[4])
    with open(proxy.count_file, "w") as f:
        f.write("0\n")
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((HOST, listen_port))
    server.listen(64)
    while True:
        client, _ = server.accept()
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
