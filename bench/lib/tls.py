# SPDX-License-Identifier: Apache-2.0
"""The tls scenario: the same librdkafka producer and consumer as the
produce and consume scenarios, over a PLAINTEXT listener and over an SSL one
(security.protocol=ssl), with kernel TLS allowed and forced off
(gregor.ssl.ktls.enable=false: fetches then pread file ranges into 64 KiB
chunks and SSL_write them). Whether kernel TLS carried the fetches is read
from the broker's stop line: under TLS, sendfile bytes only come from
SSL_sendfile on a kTLS socket. Gregor only (the mock has no TLS listener).
"""
import os
import re
import subprocess
import tempfile

from brokers import free_port, run_client

STOP_LINE = re.compile(r"sent (\d+) bytes with sendfile and (\d+) with writev")
MODES = [("plaintext", None), ("TLS, kernel TLS allowed", "true"), ("TLS, kernel TLS off", "false")]
RECORD_SIZE = 1024


def make_certs(d):
    """A CA and a broker certificate for 127.0.0.1 in d; returns (keystore, ca)."""
    def ssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=bench-ca",
        "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", f"{d}/b.key", "-out", f"{d}/b.csr")
    with open(f"{d}/b.ext", "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", f"{d}/b.csr", "-CA", f"{d}/ca.pem", "-CAkey", f"{d}/ca.key",
        "-CAcreateserial", "-days", "1", "-extfile", f"{d}/b.ext", "-out", f"{d}/b.crt")
    with open(f"{d}/b.pem", "w") as out:
        for name in ("b.key", "b.crt"):
            with open(f"{d}/{name}") as f:
                out.write(f.read())
    return f"{d}/b.pem", f"{d}/ca.pem"


def kernel_tls_note():
    """Whether the kernel's tls module is there (loading it if we may)."""
    if not os.path.exists("/sys/module/tls"):
        try:
            subprocess.run(["modprobe", "tls"], capture_output=True)
        except OSError:
            pass  # no modprobe (a container): said below
    if os.path.exists("/sys/module/tls"):
        return "kernel tls module loaded"
    return "kernel tls module unavailable (modprobe tls failed): kernel TLS cannot be active"


def one_run(bench, certs, ktls, n, rates):
    """Produces n records then consumes them on a fresh broker; appends rec/s to rates."""
    keystore, ca = certs
    with bench.broker("gregor") as b:
        b.port = free_port()  # named in the listeners below, so chosen before start
        overrides = []
        client = []
        if ktls is not None:
            ssl_port = free_port()
            overrides = [f"listeners=SSL://127.0.0.1:{ssl_port},PLAINTEXT://127.0.0.1:{b.port}",
                         f"ssl.keystore.location={keystore}", f"gregor.ssl.ktls.enable={ktls}"]
            client = ["-X", "security.protocol=ssl", "-X", f"ssl.ca.location={ca}"]
        bench.start(b, "t", 1, overrides)  # created over the plaintext port
        bootstrap = f"127.0.0.1:{ssl_port}" if ktls is not None else b.bootstrap
        args = [bench.prog("bench_produce"), "-b", bootstrap, "-t", "t", "-n", str(n),
                "-s", str(RECORD_SIZE), "-p", "1", "-X", "linger.ms=5", "-X", "acks=all", *client]
        r = run_client(args)
        rates["produce"].append(n / r["seconds"])
        r = run_client([bench.prog("bench_consume"), "-b", bootstrap, "-t", "t",
                        "-X", "fetch.wait.max.ms=5", *client])
        rates["consume"].append(r["records"] / r["seconds"])
        b.stop()
        with open(os.path.join(b.tmp, "broker.log"), errors="replace") as f:
            found = STOP_LINE.findall(f.read())
        return int(found[-1][0]) if found else 0


def scenario_tls(bench, row):
    n = bench.records(300000)
    note = kernel_tls_note()
    bench.log(note)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gr-bench-tls-") as d:
        certs = make_certs(d)
        for name, ktls in MODES:
            rates = {"produce": [], "consume": []}
            sendfile = 0
            for run in range(bench.runs):
                sendfile += one_run(bench, certs, ktls, n, rates)
                bench.log(f"tls {name} run {run}: produce {rates['produce'][-1]:,.0f}, "
                          f"consume {rates['consume'][-1]:,.0f} rec/s")
            mode_note = None
            if ktls == "true":
                mode_note = (f"kernel TLS {'ACTIVE' if sendfile else 'NOT active'} "
                             f"({sendfile:,} bytes by SSL_sendfile); {note}")
            for what in ("produce", "consume"):
                rows.append(row("tls", f"{what} {RECORD_SIZE} B records, {name}", "records/s",
                                rates[what], note=mode_note))
    return rows
