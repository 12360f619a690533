# SPDX-License-Identifier: Apache-2.0
"""Many clients on one broker, for the scale scenario (bench/lib/scale.py
calls scale_connections). For 1,000 and then 10,000 connections (a tenth of
each with --quick), on a fresh broker each run, bench_conn_load:

 - opens every connection at once (non-blocking connects on one thread,
   ApiVersions + Metadata on each, as a client starts): the accept storm,
   timed until the last connection has both answers, and its errors;
 - holds them idle (IDLE_S): the broker's RSS growth per connection and its
   CPU per connection-second, read from /proc;
 - then lets PRODUCERS of them produce one 100-byte record every
   INTERVAL_MS (acks=1) for PRODUCE_S while the rest stay idle: the latency
   of those requests (p50/p99/max; a loop stall shows as the max).

Run alone (prints the rows as JSON lines):
  python3 bench/lib/scale_conns.py --build build [--runs N] [--quick] [--conns N,...]
"""
import os
import sys

from brokers import run_client

SIZES = (1000, 10000)
PRODUCERS = 1000
INTERVAL_MS = 1000
IDLE_S = 10
PRODUCE_S = 10
RSS_TARGET_MIB = 200  # the target for 10,000 idle connections
TARGET_CONNS = 10000


def label(n):
    return f"{n // 1000}k" if n >= 1000 else str(n)


def one_run(bench, n):
    """One fresh broker, one bench_conn_load run of n connections: its JSON."""
    quick = bench.quick
    producers = min(PRODUCERS // 10 if quick else PRODUCERS, n)
    with bench.broker("gregor") as b:
        b.start()
        res = run_client([bench.prog("bench_conn_load"), "-b", b.bootstrap, "-n", str(n),
                          "-i", str(IDLE_S // 3 if quick else IDLE_S),
                          "-P", str(producers), "-S", str(INTERVAL_MS),
                          "-d", str(PRODUCE_S // 3 if quick else PRODUCE_S),
                          "-x", str(b.proc.pid)])
    bench.log(f"connections {label(n)}: open {res['open_seconds']:.2f} s "
              f"({res['open_errors']} errors), RSS {res['rss_kib_before'] // 1024} -> "
              f"{res['rss_kib_idle'] // 1024} MiB ({res['rss_bytes_per_conn']:.0f} B each), "
              f"idle CPU {res['idle_cpu_us_per_conn_s']:.2f} us per connection-s, produce "
              f"p99 {res['produce_ms_p99']:.1f} ms max {res['produce_ms_max']:.1f} ms")
    return res


def rows_for(row, n, runs):
    """The rows of one size from its runs' JSON objects."""
    def each(key, scale=1.0):
        return [r[key] * scale for r in runs]

    producers = runs[0]["producers"]
    rss_check = {}
    if n == TARGET_CONNS:
        rss_check = {"target": f"<= {RSS_TARGET_MIB} MiB",
                     "check": lambda g, r: g["median"] <= RSS_TARGET_MIB}
    errors = sum(r["open_errors"] for r in runs)
    return [
        row("scale", f"RSS with {label(n)} idle connections", "MiB",
            each("rss_kib_idle", 1 / 1024), better="lower",
            note=f"from {runs[0]['rss_kib_before'] // 1024} MiB before the first",
            **rss_check),
        row("scale", f"RSS per idle connection ({label(n)})", "KiB",
            each("rss_bytes_per_conn", 1 / 1024), better="lower"),
        row("scale", f"idle CPU per connection ({label(n)})", "us per connection-s",
            each("idle_cpu_us_per_conn_s"), better="lower",
            note="broker CPU over the idle phase / seconds / connections (/proc counts "
                 "CPU in 10 ms ticks: small sizes read 0 or one tick)"),
        row("scale", f"open {label(n)} connections at once", "s", each("open_seconds"),
            better="lower",
            note=f"ApiVersions + Metadata answered on each; {errors} errors over all runs; "
                 "socket.listen.backlog.size=50 (Kafka's default)"),
        row("scale", f"produce p99, {producers} slow producers, {label(n)} open", "ms",
            each("produce_ms_p99"), better="lower",
            note=f"one record every {runs[0]['interval_ms']} ms each, acks=1"),
        row("scale", f"produce max, {producers} slow producers, {label(n)} open", "ms",
            each("produce_ms_max"), better="lower", note="a loop stall shows here"),
    ]


def scale_connections(bench, row, sizes=None):
    sizes = sizes or [n // 10 if bench.quick else n for n in SIZES]
    rows = []
    for n in sizes:
        runs = [one_run(bench, n) for _ in range(bench.runs)]
        rows += rows_for(row, n, runs)
    return rows


def main():
    import argparse
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import scenarios
    ap = argparse.ArgumentParser(description="the connections part of the scale scenario")
    ap.add_argument("--build", required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--conns", help="sizes, comma-separated (default 1000,10000)")
    args = ap.parse_args()
    bench = scenarios.Bench(os.path.abspath(args.build), args.runs, args.quick,
                            lambda msg: print(msg, file=sys.stderr))
    sizes = [int(s) for s in args.conns.split(",")] if args.conns else None
    for r in scale_connections(bench, scenarios.row, sizes):
        print(json.dumps(r))


if __name__ == "__main__":
    main()
