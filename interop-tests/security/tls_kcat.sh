#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# TLS listener with kcat: an SSL listener (first, so it is the advertised one)
# beside a PLAINTEXT one. Produce and consume over SSL; a plaintext client on
# the SSL port gets nothing; garbage before the handshake, random bytes inside
# a good TLS session and raw bytes after a good handshake each close only their
# connection, with a log line, and the broker keeps serving.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
gr_tls_make_certs

GR_PORT=$(gr_free_port) # the plaintext port lib.sh waits for
ssl_port=$(gr_free_port)
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)
gr_start_broker "listeners=SSL://127.0.0.1:$ssl_port,PLAINTEXT://127.0.0.1:$GR_PORT" \
    "${tls_overrides[@]}"
gr_wait_until 30 "SSL port open" gr_port_open "$ssl_port"
GR_BOOTSTRAP=127.0.0.1:$ssl_port

seq 1 500 | sed 's/^/record-/' >"$GR_TMP/want"
gr_kcat_ssl -P -t tls_topic -p 0 <"$GR_TMP/want"
gr_kcat_ssl -C -t tls_topic -p 0 -o beginning -e -q >"$GR_TMP/got"
cmp -s "$GR_TMP/want" "$GR_TMP/got" || gr_fail "records consumed over SSL differ"

# Kernel TLS is allowed by default; a kernel without the tls upper layer
# (asking for it on a fresh socket answers ENOENT) gets the user-space path
# at once, said once, instead of every session trying and failing.
ulp=$("$GR_PYTHON" -c '
import errno, socket
try:
    socket.socket().setsockopt(socket.IPPROTO_TCP, 31, b"tls")  # TCP_ULP
    print("present")
except OSError as e:
    print("absent" if e.errno == errno.ENOENT else "present")')
if [ "$ulp" = absent ]; then
    grep -q "the kernel has no tls module: user-space TLS" "$GR_LOG" ||
        gr_fail "no kernel tls module here, and the broker did not say it runs user-space TLS"
elif grep -q "the kernel has no tls module" "$GR_LOG"; then
    gr_fail "the broker says the kernel has no tls module, but it has"
fi

# A plaintext Kafka client on the SSL port: the handshake fails, nothing is served.
if gr_kcat -L -m 3 >"$GR_TMP/plain.out" 2>&1; then
    gr_fail "a plaintext client got metadata from the SSL port"
fi
gr_wait_until 10 "log line for the plaintext client" \
    grep -q "TLS handshake failed" "$GR_LOG"

# Garbage before the handshake, random bytes as TLS application data, and
# raw (non-TLS) bytes after a completed handshake.
"$GR_PYTHON" - "$ssl_port" "$GR_TLS/ca.pem" <<'PY'
import os, socket, ssl, sys
port, ca = int(sys.argv[1]), sys.argv[2]

def closed(sock):
    sock.settimeout(10)
    try:
        while sock.recv(4096):
            pass
    except (ConnectionResetError, ssl.SSLError):
        pass

s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET / HTTP/1.0\r\n\r\n" + os.urandom(2000))
closed(s)

ctx = ssl.create_default_context(cafile=ca)
t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1")
t.sendall(b"\x7f\xff\xff\xff" + os.urandom(5000))
closed(t)

# Handshake through memory BIOs, then raw bytes on the plain socket.
raw = socket.create_connection(("127.0.0.1", port))
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
obj = ctx.wrap_bio(inc, out, server_hostname="127.0.0.1")
while True:
    try:
        obj.do_handshake()
        break
    except ssl.SSLWantReadError:
        raw.sendall(out.read())
        inc.write(raw.recv(65536))
raw.sendall(out.read())
raw.sendall(b"\x17\x03\x03\x00\x40" + os.urandom(64) + os.urandom(3000))
closed(raw)
PY
gr_wait_until 10 "log line for the bad TLS record" \
    grep -Eq "WARN .*closing connection .*(TLS read failed|decryption|bad record)" "$GR_LOG"
grep -q "request size .* outside" "$GR_LOG" || gr_fail "no log line for the random frame size"

# Still serving, on both listeners.
echo after-garbage | gr_kcat_ssl -P -t tls_topic -p 0
gr_kcat_ssl -C -t tls_topic -p 0 -o -1 -e -q | grep -qx after-garbage ||
    gr_fail "the broker no longer serves over SSL"
gr_alive "$GR_PID" || gr_fail "broker died"
gr_pass
