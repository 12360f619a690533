# SPDX-License-Identifier: Apache-2.0
"""The metrics scenario: what the metrics cost on the produce path. The
produce scenario's baseline (1M x 100 B, acks=all, linger.ms=5, 1 partition)
against Gregor without its HTTP listener, against Gregor with
gregor.http.listener set and a scraper reading /metrics every 100 ms for the
whole run, and against the mock, alternating run by run. The counters the
hot paths bump are there in both Gregor columns (they cannot be turned off);
what differs is the listener and the scrapes (rendering the page on the
loop). The rows compare each Gregor column with the mock, and the note gives
scraped / not scraped.
"""
import threading
import time
import urllib.request

from brokers import free_port

SCRAPE_INTERVAL_S = 0.1
MILLION = 1e6


class Scraper(threading.Thread):
    """GETs url every SCRAPE_INTERVAL_S until stopped; counts the pages."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url = url
        self.pages = 0
        self.halt = threading.Event()

    def run(self):
        while not self.halt.wait(SCRAPE_INTERVAL_S):
            with urllib.request.urlopen(self.url, timeout=5) as r:
                r.read()
            self.pages += 1


def one_run(bench, kind, scraped, n):
    """Produces n records; returns (records/s, broker CPU s per M, pages scraped)."""
    overrides = []
    http_port = None
    if scraped:
        http_port = free_port()
        overrides.append(f"gregor.http.listener=http://127.0.0.1:{http_port}")
    with bench.broker(kind) as b:
        bench.start(b, "p", 1, overrides)
        scraper = Scraper(f"http://127.0.0.1:{http_port}/metrics") if scraped else None
        if scraper:
            scraper.start()
        c0 = b.cpu_seconds()
        r = bench.produce(b, "p", n, 100, 1, ["linger.ms=5", "acks=all"])
        cpu = (b.cpu_seconds() - c0) / (n / MILLION)
        if scraper:
            scraper.halt.set()
            scraper.join()
        return n / r["seconds"], cpu, scraper.pages if scraper else 0


def scenario_metrics(bench, row, order):
    n = bench.records(1000000)
    cols = {"plain": [], "scraped": [], "mock": []}
    cpu = {"plain": [], "scraped": [], "mock": []}
    pages = []
    for run in range(bench.runs):
        kinds = ["plain", "scraped", "mock"]
        if order(run)[0] == "mock":
            kinds.reverse()
        for col in kinds:
            kind = "mock" if col == "mock" else "gregor"
            rate, c, p = one_run(bench, kind, col == "scraped", n)
            cols[col].append(rate)
            cpu[col].append(c)
            if col == "scraped":
                pages.append(p)
            bench.log(f"metrics {col} run {run}: {rate:,.0f} rec/s, {c:.3f} s CPU per M")
    med = lambda v: sorted(v)[len(v) // 2]  # noqa: E731
    ratio = med(cols["scraped"]) / med(cols["plain"])
    note = (f"scraped / not scraped {ratio:.2f} (throughput), "
            f"{med(cpu['scraped']) / med(cpu['plain']):.2f} (CPU); {med(pages)} pages per run")
    return [
        row("metrics", "produce, no HTTP listener: throughput", "records/s", cols["plain"],
            cols["mock"]),
        row("metrics", "produce, /metrics every 100 ms: throughput", "records/s",
            cols["scraped"], cols["mock"], target="within noise of not scraped", note=note),
        row("metrics", "produce, no HTTP listener: broker CPU", "s per M records", cpu["plain"],
            cpu["mock"], better="lower"),
        row("metrics", "produce, /metrics every 100 ms: broker CPU", "s per M records",
            cpu["scraped"], cpu["mock"], better="lower"),
    ]
