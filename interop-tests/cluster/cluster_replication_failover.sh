#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Leader failover under an idempotent acks=all producer loses and duplicates
# nothing: a topic of 3 partitions, each replicated on all 3 brokers with
# min.insync.replicas=2, takes seq_producer's 0..N-1 (paced, so that it is
# still producing through both failovers) while, twice, the leader of
# partition 0 (the second time another broker than the first) is killed with
# SIGKILL. Every partition gets a new leader among the live brokers, records
# keep being acknowledged with one broker down (two in-sync replicas are
# enough), and the killed broker, restarted on its log dirs, rejoins the ISR
# of every partition (truncating whatever it had beyond the new leader's
# log). At the end every record is acknowledged, seq_verify finds each
# exactly once at its acknowledged partition and offset, and once in sync
# the three replicas of every partition hold the same bytes.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=3
RF=3
topic=failover
# ~20000 records; paced so that production spans both rounds: a round takes
# a session expiry (6 s) for the kill to be noticed, then a restart and the
# ISR rejoining, whose propagation to the brokers' metadata may lag too
# (Kafka batches ISR changes for up to 5 s). At 2000/s it would be over
# before the first round ends; the test warns if it was.
N=${SEQ_N:-20000}
RATE=${SEQ_RATE:-400}
ISR_WAIT_S=${ISR_WAIT_S:-120}
SYNC_WAIT_S=${SYNC_WAIT_S:-120}
PRODUCER_WAIT_S=${PRODUCER_WAIT_S:-200} # beyond its 120 s message.timeout.ms
# If the replica fetchers log ERROR lines when their leader dies, allow
# exactly those here, e.g. gr_allow_log_errors '\[replica\] .*connection refused'.

# Two fetchers per source broker (num.replica.fetchers) share its partitions.
# A follower that stops fetching leaves the ISR after 10 s (Kafka's default,
# 30 s, would stall acks=all that long; the controller shrinks the ISR of a
# dead broker's partitions on its session expiry anyway).
cl_start_cluster 3 replica.lag.time.max.ms=10000 num.replica.fetchers=2
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS $RF min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $PARTS

# shellcheck disable=SC2317
isr_full() # every running broker reports each partition led by a running
{          # broker with all RF replicas in its ISR
    local i out live
    live=" $(cl_live) "
    for i in $(cl_live); do
        out=$(cl_state "$i" isr $topic 2>/dev/null) || return 1
        awk -v parts=$PARTS -v rf=$RF -v live="$live" '
            { if ($2 < 0 || index(live, " " $2 " ") == 0 || split($3, isr, ",") != rf) bad = 1 }
            END { exit bad || NR != parts }' <<<"$out" || return 1
    done
}
# shellcheck disable=SC2317
isr_views() # what every running broker reports, on one line each
{
    local i
    for i in $(cl_live); do echo "broker $i: $(cl_state "$i" isr $topic 2>&1 | tr '\n' ';')"; done
}
wait_isr_full()
{
    local deadline=$((SECONDS + ISR_WAIT_S))
    until isr_full; do
        if [ $SECONDS -ge $deadline ]; then
            isr_views | sed "s/^/[$GR_TEST_NAME] /" >&2
            gr_fail "timed out after ${ISR_WAIT_S}s waiting for: $1 (every partition of $topic with an ISR of $RF)"
        fi
        sleep 0.1
    done
    gr_note "$1: every partition of $topic has an ISR of $RF: $(cl_state "$(cl_live | cut -d' ' -f1)" isr $topic | tr '\n' ';')"
}
wait_isr_full "topic created"

acked_count() { wc -l <"$GR_TMP/acked"; }
# shellcheck disable=SC2317
acked_beyond() { [ "$(acked_count)" -gt "$1" ]; }
# shellcheck disable=SC2317
producer_done() { ! gr_alive "$producer"; }
leader_of() # PARTITION: its leader, as the first running broker reports it
{
    cl_state "$(cl_live | cut -d' ' -f1)" isr $topic | awk -v p="$1" '$1 == p { print $2 }'
}

[ -x "${GR_PROGS:-}/seq_producer" ] || gr_fail "program seq_producer not built (GR_PROGS=${GR_PROGS:-unset})"
: >"$GR_TMP/acked"
"$GR_PROGS/seq_producer" -b "$GR_BOOTSTRAP" -t $topic -n "$N" -r "$RATE" -o "$GR_TMP/acked" \
    2>"$GR_TMP/producer.err" </dev/null &
producer=$!
gr_track "$producer"
gr_note "seq_producer pid $producer: $N records at $RATE/s"
gr_wait_until "$CL_WAIT_S" "seq_producer's first 1000 acknowledgements" acked_beyond 999

failover() # ROUND VICTIM: kill -9 VICTIM, new leaders, restart it, full ISR again
{
    local round=$1 victim=$2 before
    if producer_done; then
        gr_note "WARNING: round $round starts after seq_producer finished (raise N or lower RATE)"
    fi
    gr_note "round $round: killing broker $victim, leader of partition(s) $(cl_led_by $topic "$victim" | tr '\n' ' ')at $(acked_count) acknowledged"
    cl_kill9_broker "$victim"
    cl_wait_all_led $topic $PARTS
    gr_note "round $round: leaders without broker $victim: $(cl_state "$(cl_live | cut -d' ' -f1)" isr $topic | tr '\n' ';')"
    # With 2 of 3 replicas in sync (min.insync.replicas=2), acks=all goes on.
    if ! producer_done; then
        before=$(acked_count)
        gr_wait_until "$CL_WAIT_S" "records acknowledged while broker $victim is down" acked_beyond $((before + 100))
    fi
    cl_wait_stable "round $round: broker $victim gone"
    cl_start_broker "$victim"
    GR_BOOTSTRAP=$(cl_bootstrap)
    cl_wait_stable "round $round: broker $victim back"
    wait_isr_full "round $round: broker $victim back in sync"
}

victim1=$(leader_of 0)
[[ $victim1 =~ ^[0-2]$ ]] || gr_fail "partition 0 of $topic has no leader: '$victim1'"
failover 1 "$victim1"

# Round 2 kills another broker: partition 0's leader now, unless leadership
# went back to the first victim (a preferred-leader election), then the
# leader of another partition, else any other broker.
victim2=$(leader_of 0)
if [ "$victim2" = "$victim1" ]; then
    victim2=$(cl_state "$(cl_live | cut -d' ' -f1)" isr $topic | awk -v v="$victim1" '$2 != v && $2 >= 0 { print $2; exit }')
    [ -n "$victim2" ] || victim2=$(((victim1 + 1) % 3))
fi
failover 2 "$victim2"

gr_wait_until "$PRODUCER_WAIT_S" "seq_producer to finish" producer_done
rc=0
wait "$producer" || rc=$?
summary=$(grep '^seq_producer: topic=' "$GR_TMP/producer.err" || true)
gr_note "$summary"
if grep -q 'FATAL' "$GR_TMP/producer.err"; then
    gr_fail "seq_producer hit a fatal error: $(grep FATAL "$GR_TMP/producer.err" | head -n 1)"
fi
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 "$GR_TMP/producer.err")"

# In sync: every ISR full and every replica the same bytes (so the same log
# end offset, and the old leaders truncated what was never committed).
wait_isr_full "producer done"
deadline=$((SECONDS + SYNC_WAIT_S))
until cl_replicas_equal $topic $PARTS 0 1 2; do
    [ $SECONDS -lt $deadline ] || gr_fail "replicas not in sync after ${SYNC_WAIT_S}s: $CL_REPLICA_DIFF"
    sleep 0.2
done
gr_note "the 3 replicas of every partition hold the same bytes"

# Every acknowledged record once, at its place; with all acknowledged, all 0..N-1.
verify_args=()
[[ $summary != *" acked=$N failed=0" ]] || verify_args=(-n "$N")
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" "${verify_args[@]}") ||
    gr_fail "seq_verify: $out"
gr_note "$out"
[[ $summary == *" acked=$N failed=0" ]] ||
    gr_fail "not every record was acknowledged with 2 of 3 replicas always up: $summary"
gr_pass
