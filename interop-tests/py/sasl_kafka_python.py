#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kafka-python (Debian's python3-kafka) over one secured listener.

With EXPECT "ok": a KafkaProducer logs in and sends COUNT keyed records
(acks=all) to TOPIC; a group-less KafkaConsumer, logged in the same way,
reads them back from the beginning. Checks count, keys, values and offsets.

With EXPECT "denied": a KafkaProducer with these credentials must fail to
start. kafka-python 2.0.x sends SaslHandshake v0 and then bare tokens, a path
where Kafka (and Gregor) answer a failed login only by closing the
connection, so the client reports no brokers available (or, from newer
clients that use SaslAuthenticate, an authentication error); the shell test
checks the broker's log for the failed login itself.

The SaslHandshake and SaslAuthenticate requests the client sends are
printed as "sasl requests: ..." so the log shows which path it took.

Usage: sasl_kafka_python.py BOOTSTRAP PROTOCOL MECHANISM USER PASSWORD CA TOPIC ok|denied
(PROTOCOL: SASL_PLAINTEXT, SSL or SASL_SSL; MECHANISM, USER and PASSWORD are
ignored for SSL; CA is the PEM file the broker's certificate chains to)
Exit status 0 when the client behaved as EXPECT says, 1 otherwise (the
reason on stderr).
"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka import conn as kafka_conn
from kafka import errors as kafka_errors

COUNT = 20
DEADLINE_S = 40
API_SASL_HANDSHAKE = 17
API_SASL_AUTHENTICATE = 36

sasl_requests = []


def fail(msg):
    print("sasl_kafka_python: " + msg, file=sys.stderr)
    sys.exit(1)


def trace_sasl_requests():
    """Records the SASL requests every BrokerConnection sends."""
    send = kafka_conn.BrokerConnection._send

    def traced(self, request, *args, **kwargs):
        if request.API_KEY in (API_SASL_HANDSHAKE, API_SASL_AUTHENTICATE):
            name = "%s_v%d" % (type(request).__name__.split("_")[0], request.API_VERSION)
            if name not in sasl_requests:
                sasl_requests.append(name)
        return send(self, request, *args, **kwargs)

    kafka_conn.BrokerConnection._send = traced


def client_config(bootstrap, protocol, mechanism, user, password, ca):
    config = dict(bootstrap_servers=bootstrap, security_protocol=protocol)
    if protocol.startswith("SASL_"):
        config.update(sasl_mechanism=mechanism, sasl_plain_username=user,
                      sasl_plain_password=password)
    if protocol.endswith("SSL"):
        # the test CA signed a certificate for IP 127.0.0.1: check it
        config.update(ssl_cafile=ca, ssl_check_hostname=True)
    return config


def round_trip(config, topic):
    producer = KafkaProducer(acks="all", retries=3, **config)
    futures = []
    for i in range(COUNT):
        key = ("key-%d" % i).encode()
        value = ("value-%d-" % i).encode() + bytes(range(i * 7 % 256))
        futures.append((key, value, producer.send(topic, key=key, value=value, partition=0)))
    sent = {}
    for key, value, future in futures:
        md = future.get(timeout=DEADLINE_S)
        sent[md.offset] = (key, value)
    producer.close(timeout=DEADLINE_S)

    consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, **config)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got = {}
    deadline = time.monotonic() + DEADLINE_S
    while len(got) < COUNT and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=500).values():
            for r in records:
                got[r.offset] = (r.key, r.value)
    consumer.close()
    if got != sent:
        missing = sorted(k for k in sent if k not in got)
        wrong = sorted(k for k in sent if k in got and got[k] != sent[k])
        fail("consumed %d of %d; missing offsets %r, differing %r" % (len(got), COUNT, missing[:5], wrong[:5]))


def denied(config):
    try:
        producer = KafkaProducer(**config)
    except (kafka_errors.NoBrokersAvailable, kafka_errors.AuthenticationFailedError,
            kafka_errors.KafkaConnectionError) as e:
        return "%s: %s" % (type(e).__name__, e)
    producer.close(timeout=5)
    fail("a producer with a wrong password started")


def main():
    if len(sys.argv) != 9 or sys.argv[8] not in ("ok", "denied"):
        fail("usage: sasl_kafka_python.py BOOTSTRAP PROTOCOL MECHANISM USER PASSWORD CA TOPIC ok|denied")
    bootstrap, protocol, mechanism, user, password, ca, topic, expect = sys.argv[1:]
    trace_sasl_requests()
    config = client_config(bootstrap, protocol, mechanism, user, password, ca)
    if expect == "ok":
        round_trip(config, topic)
        outcome = "%d records round-tripped" % COUNT
    else:
        outcome = "refused (%s)" % denied(config)
    print("sasl_kafka_python: %s %s: %s; sasl requests: %s" % (
        protocol, mechanism if protocol.startswith("SASL_") else "-", outcome,
        " ".join(sasl_requests) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
