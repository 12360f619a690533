# SPDX-License-Identifier: Apache-2.0
"""The share scenario: records per second through a share group (KIP-932)
of 1, 4 and 16 consumers on one partition, beside a classic group of 4
librdkafka consumers on 16 partitions.

Each share run gets a fresh topic of one partition and a fresh group, read
by load/share_load.c (librdkafka has no share consumer). The group must see
the records from offset 0: the consumers join and open their share sessions
on the empty topic (the default share.auto.offset.reset=latest then starts
at offset 0), say they are ready, the records are produced, and only then
are they let go, so the clock runs over the reading alone. (Setting the
group config share.auto.offset.reset=earliest and producing first would be
simpler, but the leader does not read group configs yet.) share_load
checks every offset was delivered exactly once.

librdkafka's mock cluster has no share groups: its column holds the classic
group only, the anchor; the share rows have no mock figure ("n/a").
"""
import json
import subprocess

from brokers import run_client

MILLION = 1e6
SHARE_CONSUMERS = (1, 4, 16)
SHARE_RECORDS = 1000000
SHARE_MAX_RECORDS = 500  # MaxRecords and BatchSize of each ShareFetch
SHARE_KEYS = {76, 78, 79}  # ShareGroupHeartbeat, ShareFetch, ShareAcknowledge
CLASSIC_PARTITIONS = 16
CLASSIC_CONSUMERS = 4
# The mock keeps about 5 MiB per partition: 500,000 records of 100 B over
# 16 partitions (about 3.5 MB each) fit, 1M would not.
CLASSIC_RECORDS = 500000
# One broker holds __consumer_offsets and __share_group_state alone; the
# classic members join together, so the first rebalance need not wait.
OVERRIDES = ["offsets.topic.replication.factor=1", "group.initial.rebalance.delay.ms=0",
             "share.coordinator.state.topic.replication.factor=1",
             "share.coordinator.state.topic.min.isr=1"]
READY_TIMEOUT_S = 300


def share_consume(bench, b, topic, group, n, consumers):
    """Joins the consumers on the empty topic, produces n records, then
    lets them read; returns (share_load's result, broker CPU seconds of the
    reading)."""
    args = [bench.prog("bench_share_load"), "consume", "-b", b.bootstrap, "-t", topic,
            "-g", group, "-n", str(n), "-c", str(consumers), "-m", str(SHARE_MAX_RECORDS)]
    proc = subprocess.Popen(args + ["-W"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline().decode()
        if '"ready"' not in line:
            raise RuntimeError(f"share_load never got ready: {proc.stderr.read().decode()[-500:]}")
        bench.produce(b, topic, n, 100, 1, ["linger.ms=5", "acks=all"])
        c0 = b.cpu_seconds()
        out, err = proc.communicate(b"go\n", timeout=READY_TIMEOUT_S + 600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    cpu = b.cpu_seconds() - c0
    lines = out.decode().strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"share_load failed ({proc.returncode}): {err.decode()[-500:]}")
    return json.loads(lines[-1]), cpu


def share_runs(bench, n, results):
    """One Gregor: a fresh topic and group per consumer count."""
    with bench.broker("gregor") as b:
        b.start(overrides=OVERRIDES)
        for consumers in SHARE_CONSUMERS:
            topic, group = f"share{consumers}", f"bench-share-{consumers}"
            run_client([bench.prog("bench_codec_load"), "create", "-b", b.bootstrap,
                        "-t", topic, "-p", "1"])
            r, cpu = share_consume(bench, b, topic, group, n, consumers)
            res = results[consumers]
            res["rate"].append(r["records"] / r["seconds"])
            res["with_join"].append(r["seconds_with_join"])
            res["cpu"].append(round(cpu, 3) / (r["records"] / MILLION))
            res["wrong"].append(r["duplicates"] + r["gaps"] + r["uncovered"])
            res["errors"].append(r["ack_errors"] + r["close_errors"])
            res["fetches"].append(r["fetches"])
            bench.log(f"share {consumers} consumers: {res['rate'][-1]:,.0f} rec/s, "
                      f"duplicates {r['duplicates']} gaps {r['gaps']} uncovered "
                      f"{r['uncovered']}, {r['fetches']} fetches")


def classic_run(bench, kind, n, rate, cpu):
    with bench.broker(kind) as b:
        bench.start(b, "g", CLASSIC_PARTITIONS, OVERRIDES[:2])
        bench.produce(b, "g", n, 100, CLASSIC_PARTITIONS, ["linger.ms=5", "acks=1"])
        c0 = b.cpu_seconds()
        r = run_client([bench.prog("bench_group"), "-b", b.bootstrap, "-t", "g", "-n", str(n),
                        "-c", str(CLASSIC_CONSUMERS)])
        cpu[kind].append(round(b.cpu_seconds() - c0, 3) / (r["records"] / MILLION))
        rate[kind].append(r["records"] / r["seconds"])
    bench.log(f"share scenario, classic group {kind}: {rate[kind][-1]:,.0f} rec/s")


def members(c):
    return f"{c} consumer{'s' if c > 1 else ''}"


def scenario_share(bench, row, order, api_keys):
    n = bench.records(SHARE_RECORDS)
    classic_n = bench.records(CLASSIC_RECORDS)
    keys = api_keys(bench)
    has_share = SHARE_KEYS <= keys
    results = {c: {"rate": [], "with_join": [], "cpu": [], "wrong": [], "errors": [],
                   "fetches": []}
               for c in SHARE_CONSUMERS}
    rate = {"gregor": [], "mock": []}
    cpu = {"gregor": [], "mock": []}
    for run in range(bench.runs):
        for kind in order(run):
            if kind == "gregor" and has_share:
                share_runs(bench, n, results)
            classic_run(bench, kind, classic_n, rate, cpu)
    if has_share:
        note = "mock n/a: no share groups; consumers joined before the produce"
    else:
        note = "pending: this Gregor does not advertise ShareGroupHeartbeat/ShareFetch yet"
    rows = []
    for c in SHARE_CONSUMERS:
        res = results[c]
        rows.append(row("share", f"share group, {members(c)}, 1 partition, "
                        f"{n:,} records", "records/s", res["rate"],
                        note=note if c == SHARE_CONSUMERS[0] else "mock n/a"))
    rows.append(row("share", f"classic group, {CLASSIC_CONSUMERS} consumers, "
                    f"{CLASSIC_PARTITIONS} partitions, {classic_n:,} records", "records/s",
                    rate["gregor"], rate["mock"], note="librdkafka consumers; the mock's anchor"))
    for c in SHARE_CONSUMERS:
        res = results[c]
        rows.append(row("share", f"{members(c)}: records produced to last one read", "s",
                        res["with_join"], better="lower"))
        rows.append(row("share", f"{members(c)}: ShareFetch requests", "requests",
                        res["fetches"], better="lower",
                        note="the leader acquires whole batches: MaxRecords 500 is exceeded"))
        rows.append(row("share", f"{members(c)}: offsets not delivered exactly once", "records",
                        res["wrong"], better="lower", target="0",
                        check=lambda g, r: g["max"] == 0,
                        note="duplicates + gaps + acquired but not in the batches"))
        rows.append(row("share", f"{members(c)}: acknowledgement errors", "answers",
                        res["errors"], better="lower", target="0",
                        check=lambda g, r: g["max"] == 0))
    for c in SHARE_CONSUMERS:
        rows.append(row("cost", f"share group, {members(c)}: broker CPU", "s per M records",
                        results[c]["cpu"], better="lower", note="mock n/a"))
    rows.append(row("cost", f"classic group, {CLASSIC_CONSUMERS} consumers: broker CPU",
                    "s per M records", cpu["gregor"], cpu["mock"], better="lower"))
    return rows
