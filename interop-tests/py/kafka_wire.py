# SPDX-License-Identifier: Apache-2.0
"""Kafka's wire format for the raw-socket scripts beside this file: one copy
of each encoder, decoder and socket helper they share (standard library
only). Nothing here comes from Gregor's codec, so the scripts check the
broker against Kafka's message schemas as read by hand, not against Gregor's
own idea of them.

 - Encoders return bytes: int8 .. int64, uvarint (unsigned, for flexible
   lengths), varint (zigzag, inside records), string (int16 length) and
   compact_string (uvarint length + 1); None is null in both.
 - Writer and Reader build and take apart request and response bodies,
   classic or flexible; their methods carry short type names (i32, str,
   arr, tags) so a request reads as one chain.
 - record and record_batch build v2 record batches (magic 2);
   decode_record_batches takes a Records field apart into batches and
   their records (uncompressed or gzip).
 - request_header, frame, recv_exact, read_frame and Connection put requests
   on a socket and take responses off it.

An answer that cannot be taken apart raises WireError (ConnectionClosed,
also an EOFError, when the broker closes mid-frame); each script decides
what that means for its exit status.

Scripts run as "python3 interop-tests/py/X.py", so Python puts this
directory first on sys.path and "import kafka_wire" finds this file.
"""
import socket
import struct
import zlib

MAGIC_V2 = 2


class WireError(Exception):
    """A broker answer that cannot be taken apart."""


class ConnectionClosed(WireError, EOFError):
    """The broker closed the connection before a whole frame arrived."""


# ---- encoders -----------------------------------------------------------------


def int8(v):
    return struct.pack(">b", v)


def int16(v):
    return struct.pack(">h", v)


def int32(v):
    return struct.pack(">i", v)


def int64(v):
    return struct.pack(">q", v)


def uvarint(v):
    """Unsigned varint: flexible versions' lengths and tagged-field counts."""
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def varint(v):
    """Zigzag varint of a signed 64-bit value, as inside v2 records."""
    return uvarint((v << 1) ^ (v >> 63))


def string(s):
    """A classic (int16 length) string; None is null (-1)."""
    if s is None:
        return int16(-1)
    b = s.encode()
    return int16(len(b)) + b


def compact_string(s):
    """A flexible version's string: uvarint length + 1, None is 0."""
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


class Writer:
    """A request body under construction; each method appends and returns self."""

    def __init__(self, flexible=False):
        self.data = bytearray()
        self.flexible = flexible

    def i8(self, v):
        self.data += int8(v)
        return self

    def i16(self, v):
        self.data += int16(v)
        return self

    def i32(self, v):
        self.data += int32(v)
        return self

    def i64(self, v):
        self.data += int64(v)
        return self

    def uvar(self, v):
        self.data += uvarint(v)
        return self

    def uuid(self, b):
        """16 raw bytes (a topic id)."""
        self.data += b
        return self

    def str(self, s):
        self.data += compact_string(s) if self.flexible else string(s)
        return self

    def bytes(self, b):
        """Nullable bytes: compact (uvarint length + 1) when flexible."""
        if b is None:
            return self.uvar(0) if self.flexible else self.i32(-1)
        if self.flexible:
            self.uvar(len(b) + 1)
        else:
            self.i32(len(b))
        self.data += b
        return self

    def arr(self, items, fn):
        """items (None: a null array), each written by fn(writer, item)."""
        if items is None:
            return self.uvar(0) if self.flexible else self.i32(-1)
        if self.flexible:
            self.uvar(len(items) + 1)
        else:
            self.i32(len(items))
        for it in items:
            fn(self, it)
        return self

    def tags(self):
        """An empty tagged-field section (nothing in classic versions)."""
        if self.flexible:
            self.uvar(0)
        return self


# ---- decoders -----------------------------------------------------------------


class Reader:
    """Takes a response body apart from the front."""

    def __init__(self, data, flexible=False):
        self.data = data
        self.pos = 0
        self.flexible = flexible

    def take(self, n):
        """The next n bytes; a short response is a WireError, not a short slice."""
        if self.pos + n > len(self.data):
            raise WireError("response shorter than its fields")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def bool(self):
        return self.i8() != 0

    def uvar(self):
        v, shift = 0, 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7

    def uuid(self):
        return self.take(16)

    def str(self):
        """A string, compact in flexible versions; None when null."""
        n = self.uvar() - 1 if self.flexible else self.i16()
        if n < 0:
            return None
        return self.take(n).decode()

    def bytes(self):
        """Nullable bytes, compact in flexible versions; None when null."""
        n = self.uvar() - 1 if self.flexible else self.i32()
        if n < 0:
            return None
        return self.take(n)

    def varint(self):
        """A zigzag varint (inside v2 records)."""
        v = self.uvar()
        return (v >> 1) ^ -(v & 1)

    def arr(self, fn):
        """A list of fn(reader) per element; None when null."""
        n = self.uvar() - 1 if self.flexible else self.i32()
        if n < 0:
            return None
        return [fn(self) for _ in range(n)]

    def tags(self):
        """Skips a tagged-field section (there is none in classic versions)."""
        if not self.flexible:
            return
        for _ in range(self.uvar()):
            self.uvar()
            self.take(self.uvar())


# ---- record batches -------------------------------------------------------------


def crc32c(data):
    """CRC32C (Castagnoli), the checksum of v2 record batches; bitwise,
    as the standard library has only zlib's CRC32."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _varint_bytes(b):
    return varint(-1) if b is None else varint(len(b)) + b


def record(offset_delta, timestamp_delta, key, value, headers=()):
    """One v2 record with its length prefix; key, value and header values
    may be None (null)."""
    body = b"\x00" + varint(timestamp_delta) + varint(offset_delta)
    body += _varint_bytes(key) + _varint_bytes(value) + varint(len(headers))
    for header_key, header_value in headers:
        body += _varint_bytes(header_key) + _varint_bytes(header_value)
    return varint(len(body)) + body


def record_batch(records, count, base_timestamp, max_timestamp, attributes=0, base_offset=0,
                 producer_id=-1, producer_epoch=-1, base_sequence=-1, partition_leader_epoch=-1):
    """A v2 batch around records (count of them, already compressed if the
    attributes say so), its last offset delta count - 1. The CRC covers
    everything after the crc field, from the attributes on."""
    after_crc = struct.pack(">hiqqqhii", attributes, count - 1, base_timestamp, max_timestamp,
                            producer_id, producer_epoch, base_sequence, count) + records
    rest = struct.pack(">ibI", partition_leader_epoch, MAGIC_V2, crc32c(after_crc)) + after_crc
    return struct.pack(">qi", base_offset, len(rest)) + rest


ATTR_COMPRESSION_MASK = 0x07
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
COMPRESSION_NONE, COMPRESSION_GZIP = 0, 1
BATCH_HEADER_SIZE = 61  # base offset .. record count, before the records


def _varint_field(r):
    n = r.varint()
    return None if n < 0 else r.take(n)


def _decode_records(data, count, base_offset):
    r = Reader(data)
    out = []
    for _ in range(count):
        length = r.varint()
        rec = Reader(r.take(length))
        rec.i8()  # attributes
        timestamp_delta = rec.varint()
        offset_delta = rec.varint()
        key = _varint_field(rec)
        value = _varint_field(rec)
        headers = [(_varint_field(rec), _varint_field(rec)) for _ in range(rec.varint())]
        out.append({"offset": base_offset + offset_delta, "timestamp_delta": timestamp_delta,
                    "key": key, "value": value, "headers": headers})
    return out


def decode_record_batches(data):
    """The v2 batches of a Records field (None or empty: none), each a dict
    of its header fields and "records": [{"offset", "key", "value",
    "headers", "timestamp_delta"}]. A batch cut short at the end (a fetch
    may end mid-batch) is left out; other magics and codecs but gzip are a
    WireError."""
    batches = []
    pos = 0
    data = data or b""
    while pos + 12 <= len(data):
        base_offset, length = struct.unpack_from(">qi", data, pos)
        if pos + 12 + length > len(data):
            break
        (leader_epoch, magic, crc, attributes, last_delta, base_ts, max_ts, producer_id, producer_epoch,
         base_sequence, count) = struct.unpack_from(">ibIhiqqqhii", data, pos + 12)
        if magic != MAGIC_V2:
            raise WireError("record batch at offset %d has magic %d" % (base_offset, magic))
        records = data[pos + BATCH_HEADER_SIZE : pos + 12 + length]
        codec = attributes & ATTR_COMPRESSION_MASK
        if codec == COMPRESSION_GZIP:
            records = zlib.decompress(records, 16 + zlib.MAX_WBITS)
        elif codec != COMPRESSION_NONE:
            raise WireError("record batch at offset %d: codec %d not decoded here" % (base_offset, codec))
        batches.append({
            "base_offset": base_offset, "last_offset": base_offset + last_delta,
            "partition_leader_epoch": leader_epoch, "attributes": attributes, "crc": crc,
            "base_timestamp": base_ts, "max_timestamp": max_ts, "producer_id": producer_id,
            "producer_epoch": producer_epoch, "base_sequence": base_sequence,
            "control": bool(attributes & ATTR_CONTROL),
            "transactional": bool(attributes & ATTR_TRANSACTIONAL),
            "records": _decode_records(records, count, base_offset),
        })
        pos += 12 + length
    return batches


# ---- requests on a socket -------------------------------------------------------


def request_header(api_key, api_version, correlation_id, client_id, flexible=False):
    """Request header v1, or v2 (v1 and an empty tagged-field section) for a
    flexible version."""
    header = int16(api_key) + int16(api_version) + int32(correlation_id) + string(client_id)
    return (header + uvarint(0)) if flexible else header


def frame(message):
    """Kafka sends every request and response after its int32 size."""
    return int32(len(message)) + message


def recv_exact(sock, n):
    """n bytes from sock; ConnectionClosed if it closes first."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionClosed("connection closed by the broker after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


def read_frame(sock):
    """One size-prefixed frame, without the size."""
    (size,) = struct.unpack(">i", recv_exact(sock, 4))
    return recv_exact(sock, size)


class Connection:
    """One socket to a broker; its requests are numbered from 1. send and
    receive apart serve a request that waits (a long-polling Fetch)."""

    def __init__(self, host, port, client_id, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.client_id = client_id
        self.correlation_id = 0

    def send(self, api_key, api_version, body, flexible=False):
        """Sends one request; returns its correlation id."""
        self.correlation_id += 1
        header = request_header(api_key, api_version, self.correlation_id, self.client_id, flexible)
        self.sock.sendall(frame(header + body))
        return self.correlation_id

    def receive(self):
        """The next response: (its correlation id, the bytes after it)."""
        data = read_frame(self.sock)
        return struct.unpack(">i", data[:4])[0], data[4:]

    def call(self, api_key, api_version, body, flexible=False):
        """Sends one request and returns its response after the correlation
        id (a flexible response still starts with the header's tagged
        fields). A response to another request is a WireError."""
        want = self.send(api_key, api_version, body, flexible)
        got, data = self.receive()
        if got != want:
            raise WireError("correlation id %d, want %d" % (got, want))
        return data

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
