#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make bench: runs the benchmark scenarios against a fresh Gregor and a
fresh librdkafka mock cluster, alternating them, and reports medians of the
runs with their min–max and the Gregor/mock ratio: a table on stdout, and
results.json, results.md and PNG charts in the output folder.

usage: bench/run.py --build DIR [--scenario NAME[,NAME...]] [--runs N]
                    [--quick] [--out DIR]

Scenarios: produce, consume, latency, ceiling, startup, group, replication, tls,
partitions, share, metrics, scale (all by default). --quick shrinks every size
tenfold, for trying the harness.
"""
import argparse
import datetime
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

import report  # noqa: E402
import scenarios  # noqa: E402


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "load_at_start": " ".join(load),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--scenario", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    args = ap.parse_args()
    names = [s for s in args.scenario.split(",") if s] or list(scenarios.SCENARIOS)
    unknown = [s for s in names if s not in scenarios.SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario {','.join(unknown)}; "
                 f"choose from {','.join(scenarios.SCENARIOS)}")
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):  # charts of an earlier run would pass for this one's
        if old.endswith((".png", ".dat")):
            os.remove(os.path.join(args.out, old))
    started = time.monotonic()

    def log(msg):
        print(f"[{time.monotonic() - started:6.1f}s] {msg}", flush=True)

    bench = scenarios.Bench(os.path.abspath(args.build), args.runs, args.quick, log)
    meta = machine()
    meta.update({"runs": args.runs, "quick": args.quick, "scenarios": names})
    rows, failed = [], []
    for name in names:
        log(f"scenario {name}")
        try:
            rows += scenarios.SCENARIOS[name](bench)
        except Exception as e:  # one broken scenario must not hide the others
            log(f"scenario {name} FAILED: {e}")
            failed.append(name)
    meta["seconds"] = round(time.monotonic() - started, 1)
    meta["load_at_end"] = machine()["load_at_start"]
    text = report.table(rows)
    head = (f"{meta['date']}, {meta['cpu']}, {meta['cores']} cores, load "
            f"{meta['load_at_start']} -> {meta['load_at_end']}, {args.runs} runs, "
            f"{meta['seconds']:.0f} s")
    print("\n" + head + "\n\n" + text)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(head + "\n\n" + text + "\n")
    report.write_json(os.path.join(args.out, "results.json"), meta, rows)
    pngs = report.charts(args.out, rows)
    print(f"\nwrote {args.out}/results.json, results.md and {len(pngs)} charts")
    if failed:
        print(f"failed scenarios: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
