# SPDX-License-Identifier: Apache-2.0
"""Broker processes for the benchmarks: a fresh Gregor (temp log dir, free
loopback port) or a fresh librdkafka mock cluster (tests/tools/mock_cluster),
each in its own process so its CPU time and memory can be read from /proc.

Every process started here is stopped by its pid (SIGTERM, then SIGKILL after
a deadline) and its temp dir removed, whatever happens to the run.
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
START_DEADLINE_S = 120
STOP_DEADLINE_S = 60
API_VERSIONS_KEY = 18


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def api_versions_ok(port, timeout=1.0):
    """True when 127.0.0.1:port answers an ApiVersions v0 request."""
    client = b"bench"
    header = struct.pack(">hhih", API_VERSIONS_KEY, 0, 1, len(client)) + client
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(struct.pack(">i", len(header)) + header)
            size = s.recv(4, socket.MSG_WAITALL)
            if len(size) != 4:
                return False
            body = s.recv(struct.unpack(">i", size)[0], socket.MSG_WAITALL)
            return len(body) >= 6 and struct.unpack(">ih", body[:6]) == (1, 0)
    except OSError:
        return False


class Broker:
    """One broker process: kind is "gregor" or "mock"."""

    def __init__(self, kind, paths, log_dir=None):
        self.kind = kind
        self.paths = paths
        self.proc = None
        self.port = None
        self.bootstrap = None
        self.tmp = log_dir or tempfile.mkdtemp(prefix=f"gr-bench-{kind}-")
        self.own_tmp = log_dir is None
        self.log = open(os.path.join(self.tmp, "broker.log"), "ab")

    def start(self, topics=(), overrides=()):
        """Starts the broker and waits until it answers. topics is a list of
        (name, partitions) the mock creates at start (Gregor auto-creates with
        num.partitions, or the caller creates them). Returns seconds from
        exec to the first answered ApiVersions request."""
        t0 = time.monotonic()
        if self.kind == "mock":
            args = [self.paths["mock"]]
            for name, parts in topics:
                args += ["-t", f"{name}:{parts}"]
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log)
            line = self.proc.stdout.readline().decode().strip()
            if not line:
                raise RuntimeError("mock cluster printed no bootstrap address")
            self.bootstrap = line.split(",")[0]
            self.port = int(self.bootstrap.rsplit(":", 1)[1])
        else:
            if self.port is None:
                self.port = free_port()
            self.bootstrap = f"127.0.0.1:{self.port}"
            args = [self.paths["gregor"],
                    "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "--override", f"log.dirs={self.tmp}/logs"]
            for kv in overrides:
                args += ["--override", kv]
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=self.log, stderr=self.log)
        deadline = t0 + START_DEADLINE_S
        while not api_versions_ok(self.port, timeout=0.5):
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode} "
                                   f"before serving (log: {self.tmp}/broker.log)")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind} not serving after {START_DEADLINE_S}s")
            time.sleep(0.002)
        return time.monotonic() - t0

    def cpu_seconds(self):
        """User + system CPU seconds of the whole process (all threads)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return round((int(fields[11]) + int(fields[12])) / CLK_TCK, 6)

    def _status_kib(self, key):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return 0

    def rss_kib(self):
        return self._status_kib("VmRSS")

    def peak_rss_kib(self):
        return self._status_kib("VmHWM")

    def stop(self, kill9=False):
        """SIGTERM (or SIGKILL) and wait; returns the exit status."""
        if not self.proc or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGKILL if kill9 else signal.SIGTERM)
        try:
            self.proc.wait(STOP_DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.returncode

    def close(self):
        self.stop()
        self.log.close()
        if self.own_tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def run_client(args, timeout=900):
    """Runs a benchmark program; returns the JSON object of its last line."""
    import json
    res = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    lines = res.stdout.decode().strip().splitlines()
    if res.returncode != 0 or not lines:
        raise RuntimeError(f"{os.path.basename(args[0])} failed ({res.returncode}): "
                           f"{res.stderr.decode().strip()[-500:]}")
    return json.loads(lines[-1])
