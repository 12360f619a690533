#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Malformed and out-of-order SASL and TLS input over raw sockets.

On the SASL_PLAINTEXT listener (PLAIN user alice/alice-secret, SCRAM user
bob/bob-secret for both SCRAM mechanisms):
 - requests before authentication (Produce, Metadata, also after a
   SaslHandshake) are not served: the connection closes with nothing sent;
 - SaslAuthenticate before SaslHandshake, or after a finished login, gets
   ILLEGAL_SASL_STATE (34) and the connection closes;
 - an unknown mechanism gets UNSUPPORTED_SASL_MECHANISM (33) with the list
   of enabled ones, and the connection stays unauthenticated;
 - malformed PLAIN tokens and SCRAM messages get SASL_AUTHENTICATION_FAILED
   (58) and a closed connection over SaslAuthenticate (v1 and the flexible
   v2), and a closed connection with no token after SaslHandshake v0;
 - truncated frames and bytes from a seeded generator (random frames, and
   valid SASL frames with bytes flipped) must not take the broker down.
On the SSL listener: garbage and a plaintext Kafka request before the TLS
handshake, a handshake cut short, and after a good handshake garbage,
a corrupted record and a truncated record. The TLS side runs through
ssl.MemoryBIO, so the script decides every byte on the wire.

Last, the logins that must work still do: PLAIN over SaslAuthenticate v1
and v2 and over v0 bare tokens, SCRAM-SHA-256 over v1 and SCRAM-SHA-512
over v0, each then served a Metadata request; and ApiVersions over TLS.

Usage: sasl_fuzz.py HOST SASL_PORT SSL_PORT CA SEED
Exit status 0 when the broker behaved in every case, 1 otherwise (each
failed case on stderr). Standard library only; the same SEED sends the same
bytes (SCRAM nonces aside, which the broker makes).
"""
import base64
import hashlib
import hmac
import random
import socket
import ssl
import struct
import sys

from kafka_wire import Reader, Writer, frame, int32, read_frame, request_header, uvarint

API_PRODUCE = 0
API_METADATA = 3
API_SASL_HANDSHAKE = 17
API_VERSIONS = 18
API_SASL_AUTHENTICATE = 36
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
SASL_AUTHENTICATION_FAILED = 58
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
SCRAM_HASH = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}
WAIT_S = 10.0
CLIENT_ID = "sasl-fuzz"
RANDOM_CONNECTIONS = 60

HOST = None
SASL_PORT = None
SSL_PORT = None
CA = None
rng = None


class CaseFailed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CaseFailed(msg)


# ---- one SASL connection ------------------------------------------------------


class Sasl:
    """A raw connection to the SASL listener; requests numbered from 1."""

    def __init__(self):
        self.sock = socket.create_connection((HOST, SASL_PORT), timeout=WAIT_S)
        self.correlation_id = 0

    def close(self):
        self.sock.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, api_key, version, body, flexible=False):
        self.correlation_id += 1
        header = request_header(api_key, version, self.correlation_id, CLIENT_ID, flexible)
        self.send_raw(frame(header + body))

    def response(self, flexible=False):
        """The next response's body (after the correlation id, and the header
        tags when flexible)."""
        data = read_frame(self.sock)
        (cid,) = struct.unpack(">i", data[:4])
        check(cid == self.correlation_id, "correlation id %d, want %d" % (cid, self.correlation_id))
        r = Reader(data[4:], flexible)
        r.tags()
        return r

    def expect_closed(self, what):
        """The broker must close without sending anything more."""
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            return
        except socket.timeout:
            raise CaseFailed("%s: connection still open after %.0f s" % (what, WAIT_S))
        check(data == b"", "%s: got %d bytes instead of a closed connection (%r)" % (what, len(data), data[:40]))

    def handshake(self, mechanism, version=1):
        """SaslHandshake; returns (error_code, mechanisms)."""
        self.send(API_SASL_HANDSHAKE, version, Writer().str(mechanism).data)
        r = self.response()
        return r.i16(), r.arr(lambda r: r.str())

    def authenticate(self, token, version=1):
        """SaslAuthenticate; returns (error_code, error_message, auth_bytes)."""
        flexible = version >= 2
        if flexible:
            body = uvarint(len(token) + 1) + token + uvarint(0)
        else:
            body = int32(len(token)) + token
        self.send(API_SASL_AUTHENTICATE, version, body, flexible)
        r = self.response(flexible)
        error, message = r.i16(), r.str()
        n = r.uvar() - 1 if flexible else r.i32()
        auth_bytes = r.take(n) if n >= 0 else None
        return error, message, auth_bytes

    def raw_token(self, token):
        """After SaslHandshake v0: a bare token; returns the bare answer."""
        self.send_raw(int32(len(token)) + token)
        (n,) = struct.unpack(">i", read_exact(self.sock, 4))
        return read_exact(self.sock, n)

    def metadata_served(self):
        self.send(API_METADATA, 1, int32(-1))
        r = self.response()
        brokers = r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str()))
        check(brokers, "Metadata with no brokers")


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise CaseFailed("connection closed after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


def ready(mechanism, version=1):
    """A connection that has chosen mechanism with SaslHandshake v0 (bare
    tokens follow) when version is 0, else v1 (SaslAuthenticate v1/v2 follow)."""
    version = min(version, 1)
    c = Sasl()
    error, mechanisms = c.handshake(mechanism, version)
    check(error == 0, "SaslHandshake v%d %s: error %d" % (version, mechanism, error))
    check(mechanisms == MECHANISMS, "enabled mechanisms %r" % (mechanisms,))
    return c


def refused(c, token, version, what):
    """token over SaslAuthenticate version must fail the login and close."""
    error, message, _ = c.authenticate(token, version)
    check(error == SASL_AUTHENTICATION_FAILED, "%s: error %d, want %d" % (what, error, SASL_AUTHENTICATION_FAILED))
    check(message, "%s: no error message" % what)
    c.expect_closed(what)


def refused_raw(c, token, what):
    """token after SaslHandshake v0 must close the connection, unanswered."""
    c.send_raw(int32(len(token)) + token)
    c.expect_closed(what)


# ---- SCRAM client (RFC 5802) ---------------------------------------------------


def scram_first(user, nonce):
    bare = "n=%s,r=%s" % (user.replace("=", "=3D").replace(",", "=2C"), nonce)
    return "n,," + bare, bare


def scram_parse(server_first):
    fields = dict(kv.split("=", 1) for kv in server_first.split(","))
    return fields["r"], base64.b64decode(fields["s"]), int(fields["i"])


def scram_final(mechanism, password, bare, server_first, iterations_delta=0, gs2="n,,",
                nonce=None, proof_text=None):
    """client-final for server_first; the keyword arguments spoil one part."""
    h = SCRAM_HASH[mechanism]
    full_nonce, salt, iterations = scram_parse(server_first)
    salted = hashlib.pbkdf2_hmac(h().name, password.encode(), salt, iterations + iterations_delta)
    client_key = hmac.new(salted, b"Client Key", h).digest()
    stored = h(client_key).digest()
    without_proof = "c=%s,r=%s" % (base64.b64encode(gs2.encode()).decode(), nonce or full_nonce)
    auth_message = "%s,%s,%s" % (bare, server_first, without_proof)
    signature = hmac.new(stored, auth_message.encode(), h).digest()
    proof = bytes(a ^ b for a, b in zip(client_key, signature))
    return "%s,p=%s" % (without_proof, proof_text or base64.b64encode(proof).decode())


def scram_login(mechanism, user, password, version):
    """A whole SCRAM exchange that must succeed; returns the connection."""
    c = ready(mechanism, version)
    first, bare = scram_first(user, "fuzz%d" % rng.randrange(1 << 30))
    if version == 0:
        server_first = c.raw_token(first.encode()).decode()
        server_final = c.raw_token(scram_final(mechanism, password, bare, server_first).encode())
    else:
        error, _, answer = c.authenticate(first.encode(), version)
        check(error == 0, "%s client-first: error %d" % (mechanism, error))
        server_first = answer.decode()
        error, _, server_final = c.authenticate(
            scram_final(mechanism, password, bare, server_first).encode(), version)
        check(error == 0, "%s client-final: error %d" % (mechanism, error))
    check(server_final.startswith(b"v="), "%s server-final %r" % (mechanism, server_final))
    return c


def scram_second_step(mechanism, version, what, **spoil):
    """A good client-first, then a client-final spoiled as spoil says."""
    c = ready(mechanism, version)
    first, bare = scram_first("bob", "fuzz%d" % rng.randrange(1 << 30))
    if version == 0:
        server_first = c.raw_token(first.encode()).decode()
    else:
        error, _, answer = c.authenticate(first.encode(), version)
        check(error == 0, "%s: client-first error %d" % (what, error))
        server_first = answer.decode()
    final = spoil.pop("final", None)
    if final is None:
        final = scram_final(mechanism, spoil.pop("password", "bob-secret"), bare, server_first, **spoil)
    if version == 0:
        refused_raw(c, final.encode(), what)
    else:
        refused(c, final.encode(), version, what)


# ---- the cases ------------------------------------------------------------------

PRODUCE_V7 = (Writer().str(None).i16(1).i32(1000)
              .arr([b"t"], lambda w, t: w.str("fuzz").arr([0], lambda w, p: w.i32(p).i32(0))).data)

PLAIN_BAD_TOKENS = {
    "no NULs": b"alicealice-secret",
    "empty": b"",
    "one NUL": b"alice\0alice-secret",
    "many NULs": b"\0" * 4096,
    "empty user": b"\0\0alice-secret",
    "empty password": b"\0alice\0",
    "wrong password": b"\0alice\0alice-secreT",
    "NUL in password": b"\0alice\0alice-secret\0",
    "other authzid": b"admin\0alice\0alice-secret",
    "long user": b"\0" + b"u" * 5000 + b"\0x",
    "big (400 KiB, under sasl.server.max.receive.size)": b"\0alice\0" + b"p" * (400 << 10),
}

SCRAM_BAD_FIRST = {
    "empty": "",
    "no gs2 header": "n=bob,r=abc",
    "channel binding asked": "p=tls-unique,,n=bob,r=abc",
    "no nonce": "n,,n=bob",
    "empty nonce": "n,,n=bob,r=",
    "bad name escape": "n,,n=b=ZZob,r=abc",
    "other authzid": "n,a=admin,n=bob,r=abc",
    "tokenauth": "n,,n=bob,r=abc,tokenauth=true",
    "huge nonce": "n,,n=bob,r=" + "x" * 5000,
    "NUL inside": "n,,n=bob\0,r=abc",
    "binary": None,  # filled from the seeded generator
}


def case_requests_before_login():
    for name, api, version, body in (("Produce v7", API_PRODUCE, 7, PRODUCE_V7),
                                     ("Metadata v1", API_METADATA, 1, int32(-1))):
        c = Sasl()
        c.send(api, version, body)
        c.expect_closed(name + " before SaslHandshake")
        c.close()
        c = ready("PLAIN")
        c.send(api, version, body)
        c.expect_closed(name + " between SaslHandshake and SaslAuthenticate")
        c.close()
    # pipelined behind a good handshake: at most the handshake is answered
    c = Sasl()
    c.send(API_SASL_HANDSHAKE, 1, Writer().str("PLAIN").data)
    c.send(API_PRODUCE, 7, PRODUCE_V7)
    data = b""
    while True:
        try:
            chunk = c.sock.recv(65536)
        except ConnectionResetError:
            break
        except socket.timeout:
            raise CaseFailed("Produce pipelined behind SaslHandshake: connection still open")
        if not chunk:
            break
        data += chunk
    if data:
        (n,) = struct.unpack(">i", data[:4])
        check(len(data) == 4 + n and data[4:8] == int32(1),
              "Produce pipelined behind SaslHandshake: %d bytes came back, more than the handshake's" % len(data))
    c.close()


def case_authenticate_out_of_order():
    for version in (0, 1, 2):
        c = Sasl()
        error, message, _ = c.authenticate(b"\0alice\0alice-secret", version)
        check(error == ILLEGAL_SASL_STATE, "SaslAuthenticate v%d first: error %d" % (version, error))
        c.expect_closed("SaslAuthenticate v%d before SaslHandshake" % version)
        c.close()
    c = ready("PLAIN")
    error, _, _ = c.authenticate(b"\0alice\0alice-secret")
    check(error == 0, "PLAIN login: error %d" % error)
    error, _, _ = c.authenticate(b"\0alice\0alice-secret")
    check(error == ILLEGAL_SASL_STATE, "SaslAuthenticate after the login: error %d" % error)
    c.expect_closed("SaslAuthenticate after the login")
    c.close()
    # a second SaslHandshake before authenticating
    c = ready("PLAIN")
    error, _ = c.handshake("PLAIN")
    check(error == ILLEGAL_SASL_STATE, "second SaslHandshake: error %d" % error)
    c.close()


def case_unknown_mechanism():
    for mechanism in ("FOO", "", "plain", "GSSAPI", "OAUTHBEARER", "SCRAM-SHA-1", "P" * 300,
                      "PLAIN\0", "PLAIN\xff"):
        for version in (0, 1):
            c = Sasl()
            error, mechanisms = c.handshake(mechanism, version)
            check(error == UNSUPPORTED_SASL_MECHANISM,
                  "SaslHandshake v%d %r: error %d" % (version, mechanism[:20], error))
            check(mechanisms == MECHANISMS, "SaslHandshake %r: mechanisms %r" % (mechanism[:20], mechanisms))
            c.send(API_METADATA, 1, int32(-1))
            c.expect_closed("Metadata after an unsupported mechanism")
            c.close()


def case_plain_tokens():
    for what, token in PLAIN_BAD_TOKENS.items():
        for version in (1, 2):
            c = ready("PLAIN")
            refused(c, token, version, "PLAIN %s over SaslAuthenticate v%d" % (what, version))
            c.close()
        c = ready("PLAIN", 0)
        refused_raw(c, token, "PLAIN %s as a bare token" % what)
        c.close()


def case_oversized_before_login():
    """Frames over sasl.server.max.receive.size (512 KiB) before the login close
    the connection unanswered, whatever they claim to be."""
    for version in (0, 1):
        c = ready("PLAIN", version)
        token = b"\0alice\0" + b"p" * (1 << 20)
        try:
            if version:
                c.send(API_SASL_AUTHENTICATE, 1, int32(len(token)) + token)
            else:
                c.send_raw(int32(len(token)) + token)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed while the rest was on its way: what is wanted
        c.expect_closed("a 1 MiB token after SaslHandshake v%d" % version)
        c.close()
    c = Sasl()
    try:
        c.send_raw(int32(600 << 10) + b"\0" * 4096)
    except (BrokenPipeError, ConnectionResetError):
        pass
    c.expect_closed("a 600 KiB frame size as the first bytes")
    c.close()


def case_scram_first():
    SCRAM_BAD_FIRST["binary"] = bytes(rng.randrange(256) for _ in range(300)).decode("latin-1")
    for mechanism in SCRAM_HASH:
        for what, first in SCRAM_BAD_FIRST.items():
            token = first.encode("latin-1")
            c = ready(mechanism)
            refused(c, token, 1, "%s client-first %s" % (mechanism, what))
            c.close()
            c = ready(mechanism, 0)
            refused_raw(c, token, "%s bare client-first %s" % (mechanism, what))
            c.close()


def case_scram_final():
    spoilers = {
        "wrong password": dict(password="bob-secreT"),
        "iteration count mismatch": dict(iterations_delta=1),
        "nonce not the server's": dict(nonce="fuzz-made-up-nonce"),
        "proof not base64": dict(proof_text="!!!not*base64!!!"),
        "proof too short": dict(proof_text=base64.b64encode(b"short").decode()),
        "proof too long": dict(proof_text=base64.b64encode(b"x" * 100).decode()),
        "empty proof": dict(proof_text="="),
        "channel binding y,,": dict(gs2="y,,"),
        "channel binding p=tls-unique": dict(gs2="p=tls-unique,,"),
        "no proof": dict(final="c=biws,r=abc"),
        "empty": dict(final=""),
        "garbage": dict(final="c=biws,p=,r=,,,,=,="),
        "huge": dict(final="c=biws,r=" + "r" * 5000 + ",p=AAAA"),
    }
    for mechanism in SCRAM_HASH:
        for what, spoil in spoilers.items():
            for version in (0, 1, 2):
                scram_second_step(mechanism, version, "%s client-final %s (v%d)" % (mechanism, what, version),
                                  **dict(spoil))


def case_truncated_frames():
    header = request_header(API_SASL_HANDSHAKE, 1, 1, CLIENT_ID)
    handshake = frame(header + Writer().str("PLAIN").data)
    # cut anywhere inside the frame, then the client goes away
    for cut in range(1, len(handshake)):
        c = Sasl()
        c.send_raw(handshake[:cut])
        c.close()
    # a whole frame whose body is shorter than its fields say
    for body in (struct.pack(">h", 50) + b"PLA", b"", struct.pack(">h", -2)):
        c = Sasl()
        c.send_raw(frame(header + body))
        c.expect_closed("SaslHandshake body %r" % body)
        c.close()
    for body in (int32(1000) + b"\0alice\0", int32(-5), b"\0\0"):
        c = ready("PLAIN")
        c.send(API_SASL_AUTHENTICATE, 1, body)
        c.expect_closed("SaslAuthenticate body %r" % body[:12])
        c.close()
    # a bare token cut short, and a bare token size that is negative
    for data in (int32(100) + b"\0alice", int32(-1), b"\0\0"):
        c = ready("PLAIN", 0)
        c.send_raw(data)
        c.close()


def case_random_bytes():
    handshake = frame(request_header(API_SASL_HANDSHAKE, 1, 1, CLIENT_ID) + Writer().str("SCRAM-SHA-256").data)
    first = b"n,,n=bob,r=abcdefgh"
    authenticate = frame(request_header(API_SASL_AUTHENTICATE, 1, 2, CLIENT_ID) + int32(len(first)) + first)
    for i in range(RANDOM_CONNECTIONS):
        kind = i % 3
        if kind == 0:
            # random bytes behind a sane size prefix
            n = rng.randrange(1, 2048)
            data = int32(n) + bytes(rng.randrange(256) for _ in range(n))
        elif kind == 1:
            # the SASL conversation with a few bytes flipped
            data = bytearray(handshake + authenticate)
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(4, len(data))] = rng.randrange(256)
            data = bytes(data)
        else:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 512)))
        c = Sasl()
        try:
            c.send_raw(data)
            c.sock.settimeout(0.2)
            while c.sock.recv(65536):
                pass
        except (socket.timeout, ConnectionError):
            pass
        c.close()


# ---- TLS --------------------------------------------------------------------------


class Tls:
    """A TLS client over ssl.MemoryBIO: every byte on the socket is ours."""

    def __init__(self):
        self.sock = socket.create_connection((HOST, SSL_PORT), timeout=WAIT_S)
        ctx = ssl.create_default_context(cafile=CA)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.incoming, self.outgoing, server_hostname="127.0.0.1")

    def flush(self):
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def pump(self):
        data = self.sock.recv(65536)
        if not data:
            raise CaseFailed("TLS: connection closed")
        self.incoming.write(data)

    def handshake(self):
        while True:
            try:
                self.obj.do_handshake()
                self.flush()
                return
            except ssl.SSLWantReadError:
                self.flush()
                self.pump()

    def records(self, plaintext):
        """The TLS records carrying plaintext, not sent."""
        self.obj.write(plaintext)
        return self.outgoing.read()

    def read(self, n):
        data = b""
        while len(data) < n:
            try:
                data += self.obj.read(n - len(data))
            except ssl.SSLWantReadError:
                self.pump()
        return data

    def expect_closed(self, what):
        """The broker closes (a TLS alert may come first, nothing else)."""
        while True:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                return
            except socket.timeout:
                raise CaseFailed("%s: connection still open after %.0f s" % (what, WAIT_S))
            if not data:
                return
            self.incoming.write(data)
            try:
                got = self.obj.read(65536)
            except ssl.SSLWantReadError:
                continue
            except (ssl.SSLError, ssl.SSLEOFError):
                continue
            check(not got, "%s: got %d bytes of application data" % (what, len(got)))

    def close(self):
        self.sock.close()


def api_versions_frame(cid):
    return frame(request_header(API_VERSIONS, 0, cid, CLIENT_ID))


def tls_api_versions(t, cid):
    t.sock.sendall(t.records(api_versions_frame(cid)))
    (n,) = struct.unpack(">i", t.read(4))
    data = t.read(n)
    check(struct.unpack(">i", data[:4])[0] == cid, "TLS ApiVersions: wrong correlation id")
    check(struct.unpack(">h", data[4:6])[0] == 0, "TLS ApiVersions: an error")


def expect_plain_closed(sock, what):
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return
            # a TLS alert (content type 21) is a fine answer; a Kafka frame is not
            check(data[0] == 21, "%s: got %r" % (what, data[:20]))
    except ConnectionResetError:
        return
    except socket.timeout:
        raise CaseFailed("%s: connection still open after %.0f s" % (what, WAIT_S))


def case_tls_before_handshake():
    inputs = {
        "random bytes": bytes(rng.randrange(256) for _ in range(1000)),
        "a plaintext ApiVersions": api_versions_frame(1),
        "an HTTP request": b"GET / HTTP/1.0\r\n\r\n",
        "a handshake record of 16 MiB": b"\x16\x03\x01\xff\xff" + b"\0" * 100 + b"\x16\x03\x01" * 300,
    }
    for what, data in inputs.items():
        s = socket.create_connection((HOST, SSL_PORT), timeout=WAIT_S)
        s.sendall(data)
        if what != "a handshake record of 16 MiB":
            expect_plain_closed(s, what + " before the TLS handshake")
        s.close()
    # a ClientHello cut short, at a few places
    t = Tls()
    try:
        t.obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = t.outgoing.read()
    for cut in (1, 5, len(hello) // 2, len(hello) - 1):
        s = socket.create_connection((HOST, SSL_PORT), timeout=WAIT_S)
        s.sendall(hello[:cut])
        s.close()
    t.close()


def case_tls_after_handshake():
    t = Tls()
    t.handshake()
    tls_api_versions(t, 1)
    t.sock.sendall(bytes(rng.randrange(256) for _ in range(500)))
    t.expect_closed("garbage after the TLS handshake")
    t.close()

    t = Tls()
    t.handshake()
    records = bytearray(t.records(api_versions_frame(2)))
    records[len(records) // 2] ^= 0x55
    t.sock.sendall(bytes(records))
    t.expect_closed("a corrupted TLS record")
    t.close()

    # a record cut short: the broker waits for the rest; the client goes away
    t = Tls()
    t.handshake()
    records = t.records(api_versions_frame(3))
    t.sock.sendall(records[: len(records) // 2])
    t.close()

    # a good request, then a record header promising more than TLS allows
    t = Tls()
    t.handshake()
    tls_api_versions(t, 4)
    t.sock.sendall(b"\x17\x03\x03\xff\xff" + b"\0" * 64)
    t.expect_closed("an oversized TLS record")
    t.close()

    # a Kafka frame cut short inside a good TLS record, then the client goes away
    t = Tls()
    t.handshake()
    t.sock.sendall(t.records(api_versions_frame(5)[:7]))
    t.close()


# ---- what must still work ------------------------------------------------------------


def case_good_logins():
    for version in (1, 2):
        c = ready("PLAIN")
        error, message, _ = c.authenticate(b"\0alice\0alice-secret", version)
        check(error == 0, "PLAIN over SaslAuthenticate v%d: error %d %s" % (version, error, message))
        c.metadata_served()
        c.close()
    c = ready("PLAIN", 0)
    check(c.raw_token(b"alice\0alice\0alice-secret") == b"", "PLAIN bare token: an answer")
    c.metadata_served()
    c.close()
    for mechanism, version in (("SCRAM-SHA-256", 1), ("SCRAM-SHA-512", 0), ("SCRAM-SHA-512", 2)):
        c = scram_login(mechanism, "bob", "bob-secret", version)
        c.metadata_served()
        c.close()
    t = Tls()
    t.handshake()
    tls_api_versions(t, 1)
    t.close()


CASES = [
    case_requests_before_login,
    case_authenticate_out_of_order,
    case_unknown_mechanism,
    case_plain_tokens,
    case_oversized_before_login,
    case_scram_first,
    case_scram_final,
    case_truncated_frames,
    case_random_bytes,
    case_tls_before_handshake,
    case_tls_after_handshake,
    case_good_logins,
]


def main():
    global HOST, SASL_PORT, SSL_PORT, CA, rng
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    HOST, SASL_PORT, SSL_PORT, CA = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(int(sys.argv[5]))
    failed = 0
    for case in CASES:
        try:
            case()
            print("sasl_fuzz: %s ok" % case.__name__[5:])
        except (CaseFailed, OSError, EOFError) as e:
            print("sasl_fuzz: %s FAILED: %s: %s" % (case.__name__[5:], type(e).__name__, e), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
