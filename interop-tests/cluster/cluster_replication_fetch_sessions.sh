#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replica fetchers in fetch sessions (KIP-227): two brokers, eight
# partitions replicated on both, so each broker follows the other's. Each
# leader keeps its follower's session (kafka_server_fetchsessioncache_*
# on /metrics); records produced with acks=all reach the followers through
# incremental fetches and the replicas hold the same bytes. With one
# session slot and no eviction grace, a consumer's new session evicts the
# follower's on broker 0: the follower's next incremental fetch gets
# FETCH_SESSION_ID_NOT_FOUND, it starts over with a full fetch (evicting the
# consumer's in turn) and replication goes on. Broker 1
# restarted: broker 0 takes over its partitions (its fetcher toward broker 1
# goes), broker 1's new fetcher opens a session on broker 0 with a full
# fetch, and replication goes on, byte for byte. A preferred election then
# moves some leaderships back to broker 1: its fetcher forgets those
# partitions in its session on broker 0 (an incremental fetch, as Kafka's
# follower does) instead of starting a new session with a full fetch.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
command -v curl >/dev/null || { gr_note "no curl"; exit 77; }
topic=sessions
parts=8

metric() { cl_http_get "$1" /metrics | awk -v m="$2" '$1 == m { print $2 }'; }
sessions_on() { metric "$1" kafka_server_fetchsessioncache_numincrementalfetchsessions; }
# Both brokers lead some partitions: each keeps a session for the other's fetcher.
both_keep_sessions()
{
    local i n
    for i in 0 1; do
        n=$(sessions_on "$i")
        [ "${n:-0}" != 0 ] || return 1
    done
}

sessions_positive() { local n; n=$(sessions_on "$1"); [ "${n:-0}" != 0 ]; }

GR_HTTP=1
cl_start_cluster 2 replica.fetch.backoff.ms=100 max.incremental.fetch.session.cache.slots=1 \
    min.incremental.fetch.session.eviction.ms=0 gregor.log.levels=replica=DEBUG
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $parts 2) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $parts
gr_wait_until "$CL_WAIT_S" "an ISR of 2 everywhere" cl_isr_size_is $topic 2

gr_wait_until "$CL_WAIT_S" "both leaders to keep their follower's fetch session" both_keep_sessions
cached=$(metric 0 kafka_server_fetchsessioncache_numincrementalfetchpartitionscached)
gr_note "broker 0: $(sessions_on 0) session(s), ${cached:-0} partition(s) cached"
[ "${cached:-0}" != 0 ] || gr_fail "broker 0's fetch session holds no partition"

cl_seq_produce $topic 400 "$GR_TMP/acked1"
gr_wait_until 30 "the replicas to hold the same bytes" cl_replicas_equal $topic $parts 0 1

# A consumer's full fetch (v12, epoch 0, no partitions) takes the only slot.
consumer_session() {
    python3 - "${CL_PORT[0]}" "$GR_INTEROP_DIR/py" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import kafka_wire
from kafka_wire import Reader, Writer
c = kafka_wire.Connection("127.0.0.1", int(sys.argv[1]), "evictor", 10)
w = Writer(True).i32(-1).i32(0).i32(1).i32(1 << 20).i8(0).i32(0).i32(0)
w.arr([], None).arr([], None).str("").tags()
r = Reader(c.call(1, 12, bytes(w.data), True), True)
r.tags()
r.i32()
print(r.i16(), r.i32())
PY
}
evictions() { metric 0 kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total; }
evicted_twice() { [ "$(evictions)" -ge 2 ]; }
got=$(consumer_session) || gr_fail "the consumer's fetch got no answer"
[ "${got%% *}" = 0 ] && [ "${got#* }" != 0 ] || gr_fail "the consumer's full fetch answered '$got'"
gr_note "a consumer's session evicted the follower's ($(evictions) eviction(s))"
gr_wait_until "$CL_WAIT_S" "the follower to start over, evicting the consumer's session" evicted_twice
cl_seq_produce $topic 400 "$GR_TMP/acked1b"
gr_wait_until 30 "the replicas to hold the same bytes after the eviction" \
    cl_replicas_equal $topic $parts 0 1

cl_restart_broker 1
cl_wait_stable "broker 1 back"
gr_wait_until "$CL_WAIT_S" "an ISR of 2 again" cl_isr_size_is $topic 2
# Broker 0 leads everything now: its sessions are the restarted follower's.
gr_wait_until "$CL_WAIT_S" "broker 1's new fetch session on broker 0" sessions_positive 0
cl_seq_produce $topic 400 "$GR_TMP/acked2"
gr_wait_until 30 "the replicas to hold the same bytes after the restart" \
    cl_replicas_equal $topic $parts 0 1
gr_note "replicas identical, in fetch sessions"

full_fetches() { grep -c "full fetch from broker 0" "$(cl_broker_log 1)"; }
ops() { local i=$1; shift; timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/cluster_ops_raw.py" "$(cl_addr "$i")" "$@"; }
before=$(full_fetches)
out=$(ops "$(cl_controller 0)" elect preferred | paste -sd'|') || gr_fail "ElectLeaders: no answer"
case $out in "top 0"*) ;; *) gr_fail "ElectLeaders PREFERRED answered '$out'" ;; esac
moved_back() { [ "$(metric 1 kafka_server_replicamanager_leadercount)" != 0 ]; }
gr_wait_until "$CL_WAIT_S" "broker 1 to lead its preferred partitions again" moved_back
cl_seq_produce $topic 400 "$GR_TMP/acked3"
gr_wait_until 30 "the replicas to hold the same bytes after the election" \
    cl_replicas_equal $topic $parts 0 1
after=$(full_fetches)
gr_note "broker 1's full fetches toward broker 0: $before before the election, $after after"
[ "$after" = "$before" ] ||
    gr_fail "partitions leaving broker 1's fetcher started a new session (a full fetch) instead of being forgotten"
gr_pass
