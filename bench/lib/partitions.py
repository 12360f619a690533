# SPDX-License-Identifier: Apache-2.0
"""The partitions scenario: what a broker holding many partitions costs to
build and to restart. 20,000 partitions are created in 20 CreateTopics of
1,000 (each topic timed: a creation whose cost grows with the partitions
already there shows as a rising series), then the broker is stopped with
SIGTERM and restarted, then killed with SIGKILL and restarted. A restart is
timed from exec to the first Metadata answer that lists every partition
with a leader (the partitions are loaded and served, not just the socket
open). Gregor only: the mock keeps nothing across a restart.
"""
import time

from brokers import run_client
from served import restart

TOPICS = 20
PARTITIONS_PER_TOPIC = 1000


def create_many(bench, bootstrap, topics, per_topic=PARTITIONS_PER_TOPIC, replicas=1):
    """Creates topics of per_topic partitions one CreateTopics after another;
    returns the seconds each took."""
    took = []
    for t in topics:
        t1 = time.monotonic()
        run_client([bench.prog("bench_codec_load"), "create", "-b", bootstrap, "-t", t,
                    "-p", str(per_topic), "-R", str(replicas)])
        took.append(time.monotonic() - t1)
    return took


def scenario_partitions(bench, row):
    count = TOPICS // 4 if bench.quick else TOPICS
    topics = [f"p{i:02d}" for i in range(count)]
    total = count * PARTITIONS_PER_TOPIC
    create, clean, crashed, stop = [], [], [], []
    for run in range(bench.runs):
        with bench.broker("gregor") as b:
            b.start()
            t0 = time.monotonic()
            per_topic = create_many(bench, b.bootstrap, topics)
            create.append(time.monotonic() - t0)
            bench.log(f"partitions run {run}: created {total:,} in {create[-1]:.2f} s "
                      f"(first topic {per_topic[0]:.2f} s, last {per_topic[-1]:.2f} s)")
            t1 = time.monotonic()
            if b.stop() != 0:
                raise RuntimeError("gregor did not stop cleanly")
            stop.append(time.monotonic() - t1)
            clean.append(restart(b, topics, PARTITIONS_PER_TOPIC))
            b.stop(kill9=True)
            crashed.append(restart(b, topics, PARTITIONS_PER_TOPIC))
            bench.log(f"partitions run {run}: stop {stop[-1]:.2f} s, restart clean "
                      f"{clean[-1]:.2f} s, after kill -9 {crashed[-1]:.2f} s")
    what = f"{total:,} partitions ({count} topics of {PARTITIONS_PER_TOPIC:,})"
    return [
        row("partitions", f"create {what}", "s", create, better="lower",
            note=f"{count} CreateTopics one after another"),
        row("partitions", f"clean stop, {what}", "s", stop, better="lower"),
        row("partitions", f"restart after clean stop, {what}", "s", clean, better="lower",
            target="< 5 s", check=lambda g, r: g["median"] < 5,
            note="exec to the first Metadata listing every partition with a leader"),
        row("partitions", f"restart after kill -9, {what}", "s", crashed, better="lower"),
    ]
