# SPDX-License-Identifier: Apache-2.0
"""SASL/PLAIN login for the raw-socket scripts (kafka_wire.py), so they can
speak as a named principal on a SASL_PLAINTEXT listener: SaslHandshake v1
(KIP-152) names the mechanism, then SaslAuthenticate v2 (flexible) carries
the one PLAIN token, "authzid NUL user NUL password" (RFC 4616) with an
empty authzid, as the Java client and librdkafka send it.

connect(host, port, user, password, client_id, timeout) returns an
authenticated kafka_wire.Connection; a refused login raises LoginRefused
(its error code and message), a garbled answer WireError.
"""
import kafka_wire as kw

API_SASL_HANDSHAKE = 17
API_SASL_AUTHENTICATE = 36
MECHANISM = "PLAIN"


class LoginRefused(kw.WireError):
    """The broker answered the handshake or the token with an error code."""

    def __init__(self, step, code, message):
        super().__init__("%s: error %d (%s)" % (step, code, message))
        self.code = code


def plain_token(user, password):
    return b"\0" + user.encode() + b"\0" + password.encode()


def handshake(conn):
    r = kw.Reader(conn.call(API_SASL_HANDSHAKE, 1, kw.string(MECHANISM)))
    code = r.i16()
    mechanisms = r.arr(lambda r: r.str())
    if code != 0:
        raise LoginRefused("SaslHandshake", code, "broker offers %s" % mechanisms)


def authenticate(conn, token):
    body = kw.uvarint(len(token) + 1) + token + kw.uvarint(0)
    r = kw.Reader(conn.call(API_SASL_AUTHENTICATE, 2, body, flexible=True), flexible=True)
    r.tags()  # response header
    code, message = r.i16(), r.str()
    if code != 0:
        raise LoginRefused("SaslAuthenticate", code, message)


def connect(host, port, user, password, client_id, timeout):
    conn = kw.Connection(host, port, client_id, timeout)
    try:
        handshake(conn)
        authenticate(conn, plain_token(user, password))
    except BaseException:
        conn.close()
        raise
    return conn
