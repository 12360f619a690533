# SPDX-License-Identifier: Apache-2.0
"""The benchmark scenarios. Each function runs one scenario against fresh
brokers, alternating Gregor and the mock run by run (who goes first swaps
each run, so a slow spell on the shared machine hurts both), and returns a
list of rows:

  {"scenario", "name", "unit", "gregor": summary, "mock": summary or None,
   "ratio": gregor/mock or None, "better": "higher"|"lower",
   "target": text or None, "met": True/False/None, "note": text or None}

where a summary is stats.summary() of the per-run values.
"""
import os
import re
import time

from brokers import Broker, Cluster, Unavailable, run_client
import metrics_cost
import partitions
import scale
import share
import stats
import tls

MIB = 1 << 20
MILLION = 1e6


def order(run):
    return ("gregor", "mock") if run % 2 == 0 else ("mock", "gregor")


def row(scenario, name, unit, gregor, mock=None, better="higher", target=None, check=None,
        note=None):
    g, m = stats.summary(gregor), stats.summary(mock or [])
    r = stats.ratio(g, m)
    met = None
    if check is not None and g is not None:
        met = bool(check(g, r))
    return {"scenario": scenario, "name": name, "unit": unit, "gregor": g, "mock": m,
            "ratio": r, "better": better, "target": target, "met": met, "note": note}


class Bench:
    """What every scenario needs: the programs, the size knobs, the log."""

    def __init__(self, build, runs, quick, log):
        self.build = build
        self.runs = runs
        self.quick = quick
        self.log = log
        self.repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.paths = {"gregor": os.path.join(build, "gregor"),
                      "mock": os.path.join(build, "tests", "mock_cluster")}

    def prog(self, name):
        return os.path.join(self.build, "bench", name)

    def broker(self, kind):
        return Broker(kind, self.paths)

    def records(self, full):
        """The baseline record count, scaled down in quick mode."""
        return max(full // 10, 1000) if self.quick else full

    def start(self, b, topic, partitions, overrides=()):
        """Starts b with topic (partitions) ready to use."""
        b.start(topics=[(topic, partitions)],
                overrides=[f"num.partitions={partitions}", *overrides])
        if b.kind == "gregor":
            run_client([self.prog("bench_codec_load"), "create", "-b", b.bootstrap,
                        "-t", topic, "-p", str(partitions)])

    def produce(self, b, topic, n, size, partitions, settings):
        args = [self.prog("bench_produce"), "-b", b.bootstrap, "-t", topic, "-n", str(n),
                "-s", str(size), "-p", str(partitions)]
        for kv in settings:
            args += ["-X", kv]
        return run_client(args)


# --- 1 and 3: produce throughput and broker cost --------------------------

PRODUCE_CONFIGS = [
    # name, record size, partitions, settings beyond linger.ms=5
    ("baseline 100 B acks=all 1 part.", 100, 1, ["acks=all"]),
    ("1 KiB records", 1024, 1, ["acks=all"]),
    ("acks=1", 100, 1, ["acks=1"]),
    ("8 partitions", 100, 8, ["acks=all"]),
    ("64 partitions", 100, 64, ["acks=all"]),
    ("lz4", 100, 1, ["acks=all", "compression.codec=lz4"]),
    ("zstd", 100, 1, ["acks=all", "compression.codec=zstd"]),
]


def scenario_produce(bench):
    rows = []
    n = bench.records(1000000)
    for name, size, parts, settings in PRODUCE_CONFIGS:
        rate = {"gregor": [], "mock": []}
        cpu = {"gregor": [], "mock": []}
        rss = {"gregor": [], "mock": []}
        for run in range(bench.runs):
            for kind in order(run):
                with bench.broker(kind) as b:
                    bench.start(b, "p", parts)
                    c0 = b.cpu_seconds()
                    r = bench.produce(b, "p", n, size, parts, ["linger.ms=5"] + settings)
                    cpu[kind].append(round(b.cpu_seconds() - c0, 3) / (n / MILLION))
                    rate[kind].append(n / r["seconds"])
                    rss[kind].append(b.peak_rss_kib() / 1024)
                bench.log(f"produce {name} run {run} {kind}: {n / r['seconds']:,.0f} rec/s")
        rows.append(row("produce", f"{name}: throughput", "records/s", rate["gregor"],
                        rate["mock"], target="Gregor/mock >= 0.95",
                        check=lambda g, r: r is not None and r >= 0.95))
        cost_target, cost_check = None, None
        if name.startswith("baseline") or name in ("acks=1", "8 partitions", "64 partitions"):
            cost_target = "<= 0.10 s per M (100 B, uncompressed)"
            cost_check = lambda g, r: g["median"] <= 0.10  # noqa: E731
        rows.append(row("cost", f"produce {name}: broker CPU", "s per M records", cpu["gregor"],
                        cpu["mock"], better="lower", target=cost_target, check=cost_check))
        rows.append(row("cost", f"produce {name}: peak RSS", "MiB", rss["gregor"], rss["mock"],
                        better="lower"))
    return rows


# --- 2 and 3: consume throughput and broker cost --------------------------

# The mock keeps about its last 5 MiB per partition (whole message sets): a
# window of 30,000 records of 100 B (about 3.3 MB on the wire) always fits.
CONSUME_WINDOW = 30000
CONSUME_SETTINGS = ["fetch.wait.max.ms=5"]


def scenario_consume(bench):
    n = bench.records(1000000)
    passes = 5 if bench.quick else 30
    window = min(CONSUME_WINDOW, n)
    rate = {"gregor": [], "mock": []}
    cpu = {"gregor": [], "mock": []}
    rss = {"gregor": [], "mock": []}
    full_rate, full_cpu = [], []
    for run in range(bench.runs):
        for kind in order(run):
            with bench.broker(kind) as b:
                bench.start(b, "c", 1)
                bench.produce(b, "c", n, 100, 1, ["linger.ms=5", "acks=all"])
                args = [bench.prog("bench_consume"), "-b", b.bootstrap, "-t", "c"]
                for kv in CONSUME_SETTINGS:
                    args += ["-X", kv]
                c0 = b.cpu_seconds()
                r = run_client(args + ["-l", str(window), "-r", str(passes)])
                cpu[kind].append(round(b.cpu_seconds() - c0, 3) / (r["records"] / MILLION))
                rate[kind].append(r["records"] / r["seconds"])
                if kind == "gregor":
                    c0 = b.cpu_seconds()
                    r = run_client(args)
                    full_cpu.append(round(b.cpu_seconds() - c0, 3) / (r["records"] / MILLION))
                    full_rate.append(r["records"] / r["seconds"])
                rss[kind].append(b.peak_rss_kib() / 1024)
            bench.log(f"consume run {run} {kind}: {rate[kind][-1]:,.0f} rec/s on the window")
    note = (f"last {window:,} records x {passes} passes; the mock keeps only ~5 MiB "
            "per partition")
    return [
        row("consume", "window the mock serves: throughput", "records/s", rate["gregor"],
            rate["mock"], target="Gregor/mock >= 0.95",
            check=lambda g, r: r is not None and r >= 0.95, note=note),
        row("consume", f"all {n:,} records (Gregor only)", "records/s", full_rate,
            note="the mock cannot serve this: it dropped all but its last 5 MiB"),
        row("cost", "consume window: broker CPU", "s per M records", cpu["gregor"],
            cpu["mock"], better="lower"),
        row("cost", f"consume all {n:,}: broker CPU (Gregor)", "s per M records", full_cpu,
            better="lower", target="<= 0.05 s per M",
            check=lambda g, r: g["median"] <= 0.05),
        row("cost", "consume: peak RSS", "MiB", rss["gregor"], rss["mock"], better="lower"),
    ]


# --- 4: end-to-end latency -------------------------------------------------

LATENCY_RATES = [(1000, 10.0, 2.0), (50000, 5.0, 5.0)]  # rate, seconds, p99 target ms


def scenario_latency(bench):
    rows = []
    for rate, seconds, target in LATENCY_RATES:
        if bench.quick:
            seconds = 2.0
        res = {"gregor": [], "mock": []}
        for run in range(bench.runs):
            for kind in order(run):
                with bench.broker(kind) as b:
                    bench.start(b, "l", 1)
                    r = run_client([bench.prog("bench_latency"), "-b", b.bootstrap, "-t", "l",
                                    "-r", str(rate), "-d", str(seconds)])
                    if kind == "gregor" and r["received"] != r["sent"]:
                        raise RuntimeError(f"gregor lost records: {r}")
                    res[kind].append(r)
                bench.log(f"latency {rate}/s run {run} {kind}: p99 {r['p99_ms']} ms")
        lost = [1 - r["received"] / r["sent"] for r in res["mock"]]
        late = {k: max((r.get("late_ms", 0) for r in res[k]), default=0) for k in res}
        mock_note = "mock answers waiting fetches only at fetch.wait.max.ms"
        if max(late.values()) > 10:
            mock_note += (f"; the sender fell up to {late['gregor']:.0f} ms (Gregor runs) and "
                          f"{late['mock']:.0f} ms (mock runs) behind its schedule")
        if any(lost):
            mock_note += (f"; it lost up to {max(lost):.0%} of the records (its 5 MiB window "
                          "rolled past the waiting consumer)")
        for q, label in (("p50_ms", "p50"), ("p99_ms", "p99"), ("p999_ms", "p99.9")):
            check = None
            if q == "p99_ms":
                check = (lambda t: lambda g, r: g["median"] <= t)(target)
            rows.append(row("latency", f"{rate:,} records/s: {label}", "ms",
                            [r[q] for r in res["gregor"]], [r[q] for r in res["mock"]],
                            better="lower", target=f"p99 <= {target:g} ms" if check else None,
                            check=check,
                            note=mock_note if q == "p50_ms" else None))
    return rows


# --- 5: the broker's own ceiling -------------------------------------------

CEILING_CONNS = 4
CEILING_PARTITIONS = 8


def scenario_ceiling(bench):
    total = (256 if bench.quick else 1024) * MIB
    ingest, fetch, loop = [], [], []
    for run in range(bench.runs):
        r = run_client([bench.prog("bench_loopback"), "-c", str(CEILING_CONNS), "-B",
                        str(2 * total)])
        loop.append(r["bytes"] / r["seconds"] / MIB)
        with bench.broker("gregor") as b:
            bench.start(b, "ceiling", CEILING_PARTITIONS)
            common = ["-b", b.bootstrap, "-t", "ceiling", "-p", str(CEILING_PARTITIONS),
                      "-c", str(CEILING_CONNS)]
            r = run_client([bench.prog("bench_codec_load"), "produce", *common, "-s", "1024",
                            "-r", "64", "-d", "8", "-B", str(total)])
            ingest.append(r["bytes"] / r["seconds"] / MIB)
            r = run_client([bench.prog("bench_codec_load"), "fetch", *common])
            fetch.append(r["bytes"] / r["seconds"] / MIB)
        bench.log(f"ceiling run {run}: loopback {loop[-1]:,.0f} MiB/s, ingest "
                  f"{ingest[-1]:,.0f}, fetch {fetch[-1]:,.0f}")
    share_ingest = [i / l for i, l in zip(ingest, loop)]
    share_fetch = [f / l for f, l in zip(fetch, loop)]
    note = (f"{CEILING_CONNS} connections, {CEILING_PARTITIONS} partitions, 64 x 1 KiB "
            "batches, 8 requests in flight per connection")
    return [
        row("ceiling", "loopback TCP (plain sockets)", "MiB/s", loop, note=note),
        row("ceiling", "ingest, 1 KiB records", "MiB/s", ingest),
        row("ceiling", "fetch", "MiB/s", fetch),
        row("ceiling", "ingest / loopback", "share", share_ingest, target=">= 0.55",
            check=lambda g, r: g["median"] >= 0.55),
        row("ceiling", "fetch / loopback", "share", share_fetch, target=">= 0.75",
            check=lambda g, r: g["median"] >= 0.75),
    ]


# --- 6: start-up and memory -------------------------------------------------

STARTUP_PARTITIONS = 1000
IDLE_PARTITIONS = 10000
SETTLE_S = 1.0


def fill(bench, b, topic, partitions, total):
    run_client([bench.prog("bench_codec_load"), "create", "-b", b.bootstrap, "-t", topic,
                "-p", str(partitions)])
    run_client([bench.prog("bench_codec_load"), "produce", "-b", b.bootstrap, "-t", topic,
                "-p", str(partitions), "-c", "4", "-s", "1024", "-r", "64", "-d", "8",
                "-B", str(total)])


def scenario_startup(bench):
    total = 200_000_000 if bench.quick else 2_000_000_000
    clean, crashed = [], []
    with bench.broker("gregor") as b:
        b.start()
        fill(bench, b, "startup", STARTUP_PARTITIONS, total)
        for run in range(bench.runs):
            if b.stop() != 0:
                raise RuntimeError("gregor did not stop cleanly")
            clean.append(b.start())
        for run in range(bench.runs):
            b.stop(kill9=True)
            crashed.append(b.start())
        bench.log(f"startup: clean {clean}, after kill -9 {crashed}")
    idle = {"gregor": [], "mock": []}
    big = {"gregor": [], "mock": []}
    per_part = {"gregor": [], "mock": []}
    # Memory is not timing: one run each (10,000 partition dirs take a
    # minute to create and another to delete on a loaded machine).
    for run in range(1):
        for kind in order(run):
            with bench.broker(kind) as b:
                b.start()
                time.sleep(SETTLE_S)
                idle[kind].append(b.rss_kib() / 1024)
            with bench.broker(kind) as b:
                b.start(topics=[("many", IDLE_PARTITIONS)])
                if kind == "gregor":
                    run_client([bench.prog("bench_codec_load"), "create", "-b", b.bootstrap,
                                "-t", "many", "-p", str(IDLE_PARTITIONS)])
                time.sleep(SETTLE_S)
                big[kind].append(b.rss_kib() / 1024)
            per_part[kind].append((big[kind][-1] - idle[kind][-1]) * 1024 / IDLE_PARTITIONS)
    size = f"{total / 1e9:g} GB"
    return [
        row("startup", f"start, {STARTUP_PARTITIONS:,} partitions + {size}, clean", "s", clean,
            better="lower", target="<= 1 s", check=lambda g, r: g["median"] <= 1.0,
            note="exec to first ApiVersions answer"),
        row("startup", f"start, {STARTUP_PARTITIONS:,} partitions + {size}, after kill -9", "s",
            crashed, better="lower"),
        row("memory", "RSS idle", "MiB", idle["gregor"], idle["mock"], better="lower",
            target="<= 16 MiB", check=lambda g, r: g["median"] <= 16),
        row("memory", f"RSS with {IDLE_PARTITIONS:,} idle partitions", "MiB", big["gregor"],
            big["mock"], better="lower"),
        row("memory", "RSS per idle partition", "KiB", per_part["gregor"], per_part["mock"],
            better="lower", target="<= 4 KiB", check=lambda g, r: g["median"] <= 4),
    ]


# --- 7: a consumer group ----------------------------------------------------

GROUP_PARTITIONS = 16
GROUP_CONSUMERS = 4
# One broker holds __consumer_offsets alone (Kafka's default asks for 3
# replicas and would leave the group without a coordinator); the members join
# together, so the first rebalance need not wait.
GROUP_OVERRIDES = ["offsets.topic.replication.factor=1", "group.initial.rebalance.delay.ms=0"]
JOIN_GROUP_KEY = 11


def gregor_api_keys(bench):
    """The API keys a fresh Gregor advertises in ApiVersions v0."""
    import socket
    import struct
    with bench.broker("gregor") as b:
        b.start()
        header = struct.pack(">hhih", 18, 0, 1, 5) + b"bench"
        with socket.create_connection(("127.0.0.1", b.port)) as s:
            s.sendall(struct.pack(">i", len(header)) + header)
            size = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
            body = s.recv(size, socket.MSG_WAITALL)
        count = struct.unpack(">i", body[6:10])[0]
        return {struct.unpack(">h", body[10 + 6 * i:12 + 6 * i])[0] for i in range(count)}


def gregor_has_groups(bench):
    """True when Gregor advertises JoinGroup (consumer groups have landed)."""
    return JOIN_GROUP_KEY in gregor_api_keys(bench)


# 500,000 records of 100 B over 16 partitions is about 3.5 MB per partition,
# inside what the mock keeps (5 MiB per partition), so both serve all of it.
GROUP_RECORDS = 500000


def scenario_group(bench):
    n = bench.records(GROUP_RECORDS)
    has_groups = gregor_has_groups(bench)
    rate = {"gregor": [], "mock": []}
    joined = {"gregor": [], "mock": []}
    for run in range(bench.runs):
        for kind in order(run):
            if kind == "gregor" and not has_groups:
                continue
            with bench.broker(kind) as b:
                bench.start(b, "g", GROUP_PARTITIONS, GROUP_OVERRIDES)
                bench.produce(b, "g", n, 100, GROUP_PARTITIONS, ["linger.ms=5", "acks=1"])
                r = run_client([bench.prog("bench_group"), "-b", b.bootstrap, "-t", "g",
                                "-n", str(n), "-c", str(GROUP_CONSUMERS)])
                rate[kind].append(r["records"] / r["seconds"])
                joined[kind].append(r["seconds_with_join"])
            bench.log(f"group run {run} {kind}: {rate[kind][-1]:,.0f} rec/s")
    note = (f"{GROUP_CONSUMERS} consumers, {GROUP_PARTITIONS} partitions, first record to "
            "last")
    if not has_groups:
        note = "pending: this Gregor does not advertise JoinGroup yet (mock only)"
    return [row("group", f"{GROUP_CONSUMERS} consumers read {n:,} records", "records/s",
                rate["gregor"], rate["mock"], note=note),
            row("group", "subscribe to last record (join and rebalance included)", "s",
                joined["gregor"], joined["mock"], better="lower")]


# --- 8: replication ---------------------------------------------------------

REPL_BROKERS = 3
# Topic, replication factor, its latency topic; 1 partition each. The latency
# runs get topics of their own so their consumer does not first read the
# throughput runs' records (and the stop lines' consumer bytes stay small).
REPL_TOPICS = [("r1", 1, "l1"), ("r3", 3, "l3")]
# 3M records: a million takes under half a second, too short a window on a
# shared machine; the RF3 topic then holds about 1 GB over the 3 brokers.
REPL_RECORDS = 3000000
REPL_LATENCY_RATE = 1000
REPL_LATENCY_S = 10.0  # bench_latency's producer: librdkafka's default acks=all
# The broker's stop line (src/broker/broker.c, gr_broker_fini).
REPL_STOP_LINE = re.compile(r"sent (\d+) bytes with sendfile and (\d+) with writev; fetch "
                            r"responses carried (\d+) record bytes \((\d+) to followers\)")


def repl_stop_counts(cluster):
    """Sums over the brokers of their stop lines: sendfile, writev, fetched
    record and follower record bytes. Raises unless every broker exited 0
    and printed its line."""
    statuses = cluster.stop()
    if any(statuses):
        raise RuntimeError(f"gregor brokers exited {statuses} on SIGTERM")
    total = [0, 0, 0, 0]
    for i in range(cluster.n):
        found = REPL_STOP_LINE.findall(cluster.log_text(i))
        if not found:
            raise RuntimeError(f"broker {i} printed no stop line")
        total = [t + int(v) for t, v in zip(total, found[-1])]
    return total


def scenario_replication(bench):
    try:
        return replication_runs(bench)
    except Unavailable as e:
        bench.log(f"replication skipped: {e}")
        return [row("replication", "3 brokers, RF1 vs RF3", "-", [],
                    note=f"skipped: {e} (ci/install-deps.sh installs zookeeper)")]


def replication_runs(bench):
    n = bench.records(REPL_RECORDS)
    seconds = 2.0 if bench.quick else REPL_LATENCY_S
    rate = {(k, t): [] for k in ("gregor", "mock") for t, _, _ in REPL_TOPICS}
    mbs = {key: [] for key in rate}
    lat = {key: [] for key in rate}
    wire = {"sendfile": [], "writev": [], "records": [], "follower": []}
    for run in range(bench.runs):
        topics = REPL_TOPICS if run % 2 == 0 else REPL_TOPICS[::-1]
        for kind in order(run):
            if kind == "gregor":
                ctx = Cluster(bench.paths, bench.repo, REPL_BROKERS)
            else:
                ctx = bench.broker("mock")
            with ctx as c:
                if kind == "gregor":
                    c.start()
                    for topic, rf, latency_topic in REPL_TOPICS:
                        c.create(topic, 1, rf)
                        c.create(latency_topic, 1, rf)
                else:
                    c.start(topics=[(t, 1, rf) for topic, rf, latency_topic in REPL_TOPICS
                                    for t in (topic, latency_topic)],
                            mock_brokers=REPL_BROKERS)
                for topic, _, _ in topics:
                    r = bench.produce(c, topic, n, 100, 1, ["linger.ms=5", "acks=all"])
                    rate[kind, topic].append(n / r["seconds"])
                    mbs[kind, topic].append(r["bytes"] / r["seconds"] / 1e6)
                    bench.log(f"replication {topic} run {run} {kind}: "
                              f"{n / r['seconds']:,.0f} rec/s")
                for topic, _, latency_topic in topics:
                    r = run_client([bench.prog("bench_latency"), "-b", c.bootstrap,
                                    "-t", latency_topic,
                                    "-r", str(REPL_LATENCY_RATE), "-d", str(seconds)])
                    if kind == "gregor" and r["received"] != r["sent"]:
                        raise RuntimeError(f"gregor lost records on {topic}: {r}")
                    lat[kind, topic].append(r)
                    bench.log(f"replication latency {topic} run {run} {kind}: "
                              f"p99 {r['p99_ms']} ms")
                if kind == "gregor":
                    counts = repl_stop_counts(c)
                    for key, v in zip(("sendfile", "writev", "records", "follower"), counts):
                        wire[key].append(v)
                    bench.log(f"replication run {run}: stop lines (sendfile, writev, record, "
                              f"follower bytes) {counts}")
    nominal = "mock: replicas nominal (nothing is copied; acks=all answers at once)"
    rows = []
    for topic, rf, _ in REPL_TOPICS:
        g, m = ("gregor", topic), ("mock", topic)
        rows.append(row("replication", f"RF{rf} acks=all, {n:,} x 100 B: throughput",
                        "records/s", rate[g], rate[m], note=nominal if rf > 1 else None))
        rows.append(row("replication", f"RF{rf} acks=all: throughput", "MB/s", mbs[g], mbs[m]))
    share = {k: [r3 / r1 for r1, r3 in zip(rate[k, "r1"], rate[k, "r3"])]
             for k in ("gregor", "mock")}
    rows.append(row("replication", "throughput RF3 / RF1", "share", share["gregor"],
                    share["mock"], target=">= 0.6", check=lambda g, r: g["median"] >= 0.6))
    for topic, rf, _ in REPL_TOPICS:
        for q, label in (("p50_ms", "p50"), ("p99_ms", "p99")):
            rows.append(row("replication", f"RF{rf} latency at {REPL_LATENCY_RATE:,}/s: {label}",
                            "ms", [r[q] for r in lat["gregor", topic]],
                            [r[q] for r in lat["mock", topic]], better="lower",
                            note=("mock answers waiting fetches only at fetch.wait.max.ms"
                                  if topic == "r1" and q == "p50_ms" else None)))
    p99 = {k: [r3["p99_ms"] / r1["p99_ms"] for r1, r3 in zip(lat[k, "r1"], lat[k, "r3"])]
           for k in ("gregor", "mock")}
    rows.append(row("replication", "latency p99 RF3 / RF1", "share", p99["gregor"], p99["mock"],
                    better="lower", target="<= 2", check=lambda g, r: g["median"] <= 2))
    stop_note = "sums of the 3 brokers' stop lines over the run (throughput and latency topics)"
    rows += [
        row("replication", "record bytes fetched by followers (Gregor)", "MB",
            [v / 1e6 for v in wire["follower"]], note=stop_note),
        row("replication", "record bytes in all fetch responses (Gregor)", "MB",
            [v / 1e6 for v in wire["records"]]),
        row("replication", "bytes sent with sendfile (Gregor)", "MB",
            [v / 1e6 for v in wire["sendfile"]]),
        row("replication", "bytes sent with writev (Gregor)", "MB",
            [v / 1e6 for v in wire["writev"]]),
        row("replication", "fetched record bytes sent with sendfile", "share",
            [s / r if r else None for s, r in zip(wire["sendfile"], wire["records"])],
            target=">= 0.99 (zero-copy)", check=lambda g, r: g["median"] >= 0.99),
    ]
    return rows


SCENARIOS = {
    "produce": scenario_produce,
    "consume": scenario_consume,
    "latency": scenario_latency,
    "ceiling": scenario_ceiling,
    "startup": scenario_startup,
    "group": scenario_group,
    "replication": scenario_replication,
    "tls": lambda bench: tls.scenario_tls(bench, row),
    "partitions": lambda bench: partitions.scenario_partitions(bench, row),
    "share": lambda bench: share.scenario_share(bench, row, order, gregor_api_keys),
    "metrics": lambda bench: metrics_cost.scenario_metrics(bench, row, order),
    "scale": lambda bench: scale.scenario_scale(bench, row),
}
