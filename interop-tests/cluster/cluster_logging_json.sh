#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor.log.format=json on a broker with a real ZooKeeper: the ZooKeeper
# client library's own lines (turned up by zookeeper=DEBUG) come out as JSON
# lines of the "zookeeper" logger too, so every line of the broker's stderr
# parses with python3's json module, from start to a clean stop.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require

# The library reports at ERROR a connection attempt that finds ZooKeeper not
# yet listening (it retries): with its lines turned up, that is expected here.
GR_ALLOWED_ERRORS='"logger":"zookeeper","broker":[0-9]+,"message":"client: check_events@[0-9]+: Socket [^ ]+ zk retcode=-4'
cl_start_cluster 1 gregor.log.format=json gregor.log.levels=zookeeper=DEBUG
printf 'a\nb\n' | gr_kcat -P -t zk_json || gr_fail "produce"
cl_stop_broker 0
"$GR_PYTHON" - "$(cl_broker_log 0)" <<'PY' || gr_fail "broker 0's stderr is not all JSON lines"
import json, sys

lines = client = 0
with open(sys.argv[1], "rb") as f:
    for raw in f:
        if raw.startswith(b"=== cluster broker"):
            continue  # the test library's own marker
        lines += 1
        try:
            line = json.loads(raw.decode("utf-8"))
        except ValueError as e:
            sys.exit("not a JSON line (%s): %r" % (e, raw[:200]))
        if line["broker"] != 0 or not isinstance(line["message"], str):
            sys.exit("bad line: %r" % raw[:200])
        client += line["logger"] == "zookeeper" and line["message"].startswith("client: ")
if client == 0:
    sys.exit("%d lines, none from the ZooKeeper client library" % lines)
print("%d JSON lines, %d from the ZooKeeper client library" % (lines, client))
PY
gr_pass
