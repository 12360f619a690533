#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Many small requests, each in its own TLS record, pipelined in one socket
# write, on a broker that reads ahead (OpenSSL pulls a socketful of records
# per read()) and stops reading every 3 requests (queued.max.requests=3).
# Bytes OpenSSL already holds raise no readiness, so each time reading stops
# (the read block fills, or the queue does) and resumes, the broker must go
# back for them itself: every round must get all its responses, in order.
# Rounds of several sizes put the block's and OpenSSL's buffer ends at
# different places; a large request followed by small ones fills a read block
# exactly while OpenSSL still holds the small ones and the socket is empty.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
gr_tls_make_certs

GR_PORT=$(gr_free_port)
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)
gr_start_broker "listeners=SSL://127.0.0.1:$GR_PORT" security.inter.broker.protocol=SSL \
    queued.max.requests=3 "${tls_overrides[@]}"

"$GR_PYTHON" - 127.0.0.1 "$GR_PORT" "$GR_TLS/ca.pem" <<'PY' || gr_fail "pipelined TLS requests stalled"
import socket, ssl, struct, sys
host, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
API_VERSIONS, CLIENT_ID = 18, b"x" * 1000  # ~1 KiB frames: 64 fill a read block

ctx = ssl.create_default_context(cafile=ca)
ctx.check_hostname = False
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(inc, out)
sock = socket.create_connection((host, port))
sock.settimeout(20)

def send_out():
    data = out.read()
    if data:
        sock.sendall(data)

def receive():
    data = sock.recv(1 << 16)
    if not data:
        sys.exit("broker closed the connection")
    inc.write(data)

while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        send_out()
        receive()
send_out()

def request(corr, pad=0):
    body = struct.pack(">hhih", API_VERSIONS, 0, corr, len(CLIENT_ID)) + CLIENT_ID + b"\0" * pad
    return struct.pack(">i", len(body)) + body

def round_trip(sizes):
    """Writes one request of each pad size, one TLS record each (16 KiB records for
    a large one), all in one socket write, and reads every response back in order."""
    global corr, buf
    first = corr
    for pad in sizes:
        tls.write(request(corr, pad))
        corr += 1
    send_out()
    want = first
    while want < corr:
        try:
            buf += tls.read(1 << 16)
        except ssl.SSLWantReadError:
            try:
                receive()
            except socket.timeout:
                sys.exit("%d requests: %d responses after 20 s" % (len(sizes), want - first))
            continue
        while len(buf) >= 8 and len(buf) >= 4 + struct.unpack(">i", buf[:4])[0]:
            size, got = struct.unpack(">ii", buf[:8])
            if got != want:
                sys.exit("response %d where %d was due" % (got, want))
            buf = buf[4 + size:]
            want += 1

corr, buf = 0, b""
for n in (40, 64, 65, 100, 130, 200, 7):
    round_trip([0] * n)
# A large frame gets a read block of its own size, which fills exactly at its
# end: the small frames behind it are left in OpenSSL, the socket empty.
for n in (1, 5, 20):
    round_trip([200 * 1024] + [0] * n)
sock.close()
PY
gr_pass
