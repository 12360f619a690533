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

    def start(self, topics=(), overrides=(), mock_brokers=1):
        """Starts the broker and waits until it answers. topics is a list of
        (name, partitions) or (name, partitions, replicas) the mock creates
        at start, on mock_brokers brokers (Gregor auto-creates with
        num.partitions, or the caller creates them). Returns seconds from
        exec to the first answered ApiVersions request."""
        t0 = time.monotonic()
        if self.kind == "mock":
            args = [self.paths["mock"], "-b", str(mock_brokers)]
            for topic in topics:
                args += ["-t", ":".join(str(v) for v in topic)]
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


ZK_MISSING = 77  # ci/zookeeper.sh: no Java or no ZooKeeper installed


class Unavailable(Exception):
    """What a scenario needs is not installed here (it reports, not fails)."""


class Cluster:
    """A ZooKeeper (ci/zookeeper.sh) and n Gregor brokers in one temp dir:
    broker i has broker.id=i, log dir b<i>/, a free loopback port and
    zookeeper.connect=127.0.0.1:<zk port>/gregor. close() stops every broker
    by its pid (SIGTERM, as Broker.stop), then ZooKeeper by the pid its
    script recorded, then removes the dir, whatever happened to the run."""

    def __init__(self, paths, repo, n):
        self.paths = paths
        self.repo = repo
        self.n = n
        self.tmp = tempfile.mkdtemp(prefix="gr-bench-cluster-")
        self.zk_dir = os.path.join(self.tmp, "zk")
        self.zk_port = None
        self.brokers = []
        self.state_py = os.path.join(repo, "interop-tests", "py", "cluster_state.py")

    def start(self, overrides=(), each=None):
        """Starts ZooKeeper, then the brokers (start_brokers). Raises
        Unavailable without Java or ZooKeeper (Debian's zookeeper package)."""
        res = subprocess.run(["bash", os.path.join(self.repo, "ci", "zookeeper.sh"), "start",
                              self.zk_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=START_DEADLINE_S + 30)
        if res.returncode == ZK_MISSING:
            raise Unavailable(res.stderr.decode().strip())
        if res.returncode != 0:
            raise RuntimeError(f"ZooKeeper did not start ({res.returncode}): "
                               f"{res.stderr.decode().strip()[-300:]}")
        self.zk_port = int(res.stdout.decode().split()[-1])
        self.start_brokers(overrides, each)

    def start_brokers(self, overrides=(), each=None):
        """Starts the n brokers (again, on the same ports and log dirs, after
        stop()), each with overrides and each(i)'s, and waits until every
        broker reports all n brokers and the same controller."""
        for i in range(self.n):
            if i == len(self.brokers):
                d = os.path.join(self.tmp, f"b{i}")
                os.makedirs(d)
                self.brokers.append(Broker("gregor", self.paths, log_dir=d))
            self.brokers[i].start(overrides=[f"broker.id={i}",
                                             f"zookeeper.connect=127.0.0.1:{self.zk_port}/gregor",
                                             "zookeeper.session.timeout.ms=6000",
                                             "offsets.topic.replication.factor=1", *overrides,
                                             *(each(i) if each else ())])
        want = " ".join(str(i) for i in range(self.n))
        self.wait(lambda: all(self.state(b, "brokers") == want for b in self.brokers) and
                  len({self.state(b, "controller") for b in self.brokers}) == 1,
                  "brokers agreeing on the members and the controller")

    @property
    def bootstrap(self):
        return ",".join(b.bootstrap for b in self.brokers)

    def state(self, b, *args):
        """cluster_state.py's answer from broker b, or None when it failed."""
        res = subprocess.run(["python3", self.state_py, b.bootstrap, *args],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        return res.stdout.decode().strip() if res.returncode == 0 else None

    def wait(self, cond, what, deadline_s=START_DEADLINE_S):
        deadline = time.monotonic() + deadline_s
        while not cond():
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster: no {what} after {deadline_s}s (logs: {self.tmp})")
            time.sleep(0.1)

    def create(self, topic, partitions, rf):
        """Creates topic and waits until every broker reports each partition
        with a leader and all rf replicas in the ISR."""
        err = self.state(self.brokers[0], "create", topic, str(partitions), str(rf))
        if err not in ("0", "36"):
            raise RuntimeError(f"cluster: create {topic} answered {err}")

        def full(b):
            lines = (self.state(b, "isr", topic) or "").splitlines()
            return len(lines) == partitions and all(
                int(f[1]) >= 0 and len(f[2].split(",")) == rf
                for f in (line.split() for line in lines))
        self.wait(lambda: all(full(b) for b in self.brokers), f"full ISR for {topic}")

    def stop(self):
        """SIGTERM to every broker; returns their exit statuses."""
        return [b.stop() for b in self.brokers]

    def log_text(self, i):
        with open(os.path.join(self.brokers[i].tmp, "broker.log"), errors="replace") as f:
            return f.read()

    def close(self):
        for b in self.brokers:
            try:
                b.close()
            except Exception:  # the others and ZooKeeper must still stop
                pass
        subprocess.run(["bash", os.path.join(self.repo, "ci", "zookeeper.sh"), "stop",
                        self.zk_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=STOP_DEADLINE_S)
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
