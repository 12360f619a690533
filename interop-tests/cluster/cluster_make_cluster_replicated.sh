#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make cluster` (ci/cluster.sh start) gives a cluster that replicates: a
# topic created without a replication factor gets 3 replicas, and so does
# every __consumer_offsets partition; the brokers run with
# transaction.state.log.replication.factor=3, transaction.state.log.min.isr=2
# and min.insync.replicas=2 (their DescribeConfigs, via gregor-admin). The
# script runs as a user would, on ports this test picked (the port files it
# keeps in its directory), and `ci/cluster.sh stop` ends it.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
[ -x /usr/bin/java ] && [ -f /usr/share/java/zookeeper.jar ] || {
    gr_note "skipped: ZooKeeper (Debian's zookeeper package) or Java not installed"
    exit 77
}
REPO=$(cd "$GR_INTEROP_DIR/.." && pwd)
BUILD=$(cd "$(dirname "$GR_BROKER")" && pwd)
DIR=$GR_TMP/cluster
STATE_PY=$GR_INTEROP_DIR/py/cluster_state.py
WAIT_S=60

cluster() { BUILD=$BUILD timeout "$GR_CMD_TIMEOUT_S" bash "$REPO/ci/cluster.sh" "$@"; }
# The brokers outlive ci/cluster.sh (setsid): stop them whatever happens, by
# their pid files, and hand their logs to lib.sh's checks.
stop_cluster()
{
    local status=$? i
    set +e
    cluster stop "$DIR" >/dev/null 2>&1
    for i in 0 1 2; do
        [ ! -f "$DIR/b$i.log" ] || { echo "=== broker $i ==="; cat "$DIR/b$i.log"; } >>"$GR_LOG"
    done
    (exit $status)
    gr_cleanup
}
trap stop_cluster EXIT

mkdir -p "$DIR/zk"
for i in 0 1 2; do gr_free_port >"$DIR/b$i.port"; done
gr_free_port >"$DIR/zk/port"
out=$(cluster start "$DIR" 2>&1) || gr_fail "ci/cluster.sh start failed: $out"
bootstrap=$(sed -n 's/^bootstrap servers: //p' <<<"$out")
gr_note "cluster: $bootstrap"
addr=127.0.0.1:$(cat "$DIR/b0.port")
state() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$STATE_PY" "$addr" "$@"; }

# shellcheck disable=SC2317 # called through gr_wait_until
created() { [[ " 0 36 " == *" $(state create plain 3 2>/dev/null) "* ]]; } # 36: exists already
gr_wait_until "$WAIT_S" "topic plain created (no replication factor given)" created
# shellcheck disable=SC2317
known() { [ "$(state replicas "$1" 2>/dev/null | wc -l)" = "$2" ]; } # TOPIC PARTITIONS
replicas_are_3() { # TOPIC: every partition has 3 replicas, or fail
    local out
    out=$(state replicas "$1") || gr_fail "replicas of $1: $out"
    [ -z "$(awk 'split($2, r, ",") != 3' <<<"$out")" ] ||
        gr_fail "$1 is not on 3 replicas everywhere: $(awk 'split($2, r, ",") != 3' <<<"$out" | head -n 3 | paste -sd';')"
}
gr_wait_until "$WAIT_S" "the 3 partitions of plain known" known plain 3
replicas_are_3 plain
gr_note "plain: $(state replicas plain | paste -sd';')"

# A group coordinator lookup creates __consumer_offsets (50 partitions).
# shellcheck disable=SC2317
coordinator() { [ "$(state coordinator g 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$WAIT_S" "a coordinator for group g" coordinator
gr_wait_until "$WAIT_S" "the 50 partitions of __consumer_offsets known" known __consumer_offsets 50
replicas_are_3 __consumer_offsets

configs=$(timeout "$GR_CMD_TIMEOUT_S" "$BUILD/gregor-admin" --bootstrap-server "$addr" configs describe \
    --broker 0 --all) || gr_fail "gregor-admin configs describe --broker 0 failed: $configs"
# "KEY VALUE SOURCE SENSITIVE" lines
for want in default.replication.factor=3 offsets.topic.replication.factor=3 \
    transaction.state.log.replication.factor=3 transaction.state.log.min.isr=2 min.insync.replicas=2; do
    key=${want%=*}
    got=$(awk -v k="$key" '$1 == k { print $2; exit }' <<<"$configs")
    [ "$got" = "${want#*=}" ] || gr_fail "broker 0 has $key='$got', want ${want#*=}"
done
gr_note "broker 0 runs with RF 3 for topics and internal topics, min ISR 2"

out=$(cluster stop "$DIR" 2>&1) || gr_fail "ci/cluster.sh stop failed: $out"
gr_pass
