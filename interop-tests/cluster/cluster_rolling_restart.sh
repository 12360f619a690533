#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A rolling restart under an idempotent acks=all producer: each of the three
# brokers in turn gets SIGTERM, makes a controlled shutdown (the controller
# moves its leadership to other in-sync replicas first), exits 0, and is
# started again on its log dirs; the controller's preferred-leader check
# then gives it back the partitions whose first replica it is. Throughout,
# a sampler asks every running broker's Metadata every 0.1 s: no sample may
# show a partition without a leader. At the end nothing acknowledged is lost
# or duplicated (seq_verify), leadership is as assigned (each partition led
# by its first replica) and the three replicas hold the same bytes.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=6
RF=3
topic=rolling
N=${SEQ_N:-12000}
RATE=${SEQ_RATE:-400}
ISR_WAIT_S=${ISR_WAIT_S:-120}
SYNC_WAIT_S=${SYNC_WAIT_S:-120}
PRODUCER_WAIT_S=${PRODUCER_WAIT_S:-200}

cl_start_cluster 3 replica.lag.time.max.ms=10000 leader.imbalance.check.interval.seconds=1 \
    leader.imbalance.per.broker.percentage=0
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS $RF min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $PARTS
gr_wait_until "$ISR_WAIT_S" "every ISR of $topic full" cl_isr_size_is $topic $RF

# shellcheck disable=SC2317
preferred_everywhere() # every running broker: each partition led by its first replica
{
    local i out
    for i in $(cl_live); do
        out=$(cl_state "$i" isr $topic 2>/dev/null) || return 1
        awk -v parts=$PARTS '{ split($4, r, ","); if ($2 != r[1]) bad = 1 } END { exit bad || NR != parts }' <<<"$out" || return 1
    done
}
gr_wait_until "$CL_WAIT_S" "preferred leaders at the start" preferred_everywhere

# The sampler: every leaderless partition any running broker reports, with the time.
sample_leaders()
{
    local i out
    while :; do
        for i in $(cat "$GR_TMP/live"); do
            out=$(cl_state "$i" leaders $topic 2>/dev/null) || continue
            echo "$i" >>"$GR_TMP/samples"
            awk -v b="$i" -v t="$(date +%T.%N)" '$2 < 0 || $3 != 0 { print t, "broker " b ": partition " $1 " leader " $2 " error " $3 }' \
                <<<"$out" >>"$GR_TMP/leaderless"
        done
        sleep 0.1
    done
}
cl_live >"$GR_TMP/live"
: >"$GR_TMP/leaderless"
: >"$GR_TMP/samples"
sample_leaders &
sampler=$!
gr_track "$sampler"

acked_count() { wc -l <"$GR_TMP/acked"; }
# shellcheck disable=SC2317
acked_beyond() { [ "$(acked_count)" -gt "$1" ]; }
# shellcheck disable=SC2317
producer_done() { ! gr_alive "$producer"; }

[ -x "${GR_PROGS:-}/seq_producer" ] || gr_fail "program seq_producer not built (GR_PROGS=${GR_PROGS:-unset})"
: >"$GR_TMP/acked"
"$GR_PROGS/seq_producer" -b "$GR_BOOTSTRAP" -t $topic -n "$N" -r "$RATE" -o "$GR_TMP/acked" \
    2>"$GR_TMP/producer.err" </dev/null &
producer=$!
gr_track "$producer"
gr_note "seq_producer pid $producer: $N records at $RATE/s"
gr_wait_until "$CL_WAIT_S" "seq_producer's first 500 acknowledgements" acked_beyond 499

for victim in 0 1 2; do
    producer_done && gr_note "WARNING: broker $victim's round starts after seq_producer finished"
    led=$(cl_led_by $topic "$victim" | tr '\n' ' ')
    gr_note "SIGTERM to broker $victim, leader of partition(s) ${led}at $(acked_count) acknowledged"
    # The sampler stops asking the victim once it is told to stop; the
    # others must show a leader for every partition all along.
    cl_live | tr ' ' '\n' | grep -vx "$victim" | tr '\n' ' ' >"$GR_TMP/live"
    cl_stop_broker "$victim" # fails unless it exits 0
    grep -q 'controlled shutdown: leadership moved' "$(cl_broker_log "$victim")" ||
        gr_fail "broker $victim did not complete a controlled shutdown"
    if ! producer_done; then
        before=$(acked_count)
        gr_wait_until "$CL_WAIT_S" "records acknowledged with broker $victim down" acked_beyond $((before + 100))
    fi
    cl_start_broker "$victim"
    GR_BOOTSTRAP=$(cl_bootstrap)
    cl_wait_stable "broker $victim back"
    cl_live >"$GR_TMP/live"
    gr_wait_until "$ISR_WAIT_S" "broker $victim back in every ISR" cl_isr_size_is $topic $RF
    gr_wait_until "$CL_WAIT_S" "preferred leaders after broker $victim's restart" preferred_everywhere
    gr_note "broker $victim restarted; leaders: $(cl_state "$victim" isr $topic | awk '{ print $1 "@" $2 }' | tr '\n' ' ')"
done

kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null || true
if [ -s "$GR_TMP/leaderless" ]; then
    head -n 10 "$GR_TMP/leaderless" | sed "s/^/[$GR_TEST_NAME] /" >&2
    gr_fail "$(wc -l <"$GR_TMP/leaderless") Metadata sample(s) showed a partition without a leader"
fi
samples=$(wc -l <"$GR_TMP/samples")
[ "$samples" -gt 30 ] || gr_fail "the sampler took only $samples Metadata sample(s)"
gr_note "none of $samples Metadata samples showed a partition without a leader"

gr_wait_until "$PRODUCER_WAIT_S" "seq_producer to finish" producer_done
rc=0
wait "$producer" || rc=$?
summary=$(grep '^seq_producer: topic=' "$GR_TMP/producer.err" || true)
gr_note "$summary"
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 "$GR_TMP/producer.err")"
[[ $summary == *" acked=$N failed=0" ]] || gr_fail "not every record was acknowledged: $summary"
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" -n "$N") ||
    gr_fail "seq_verify: $out"
gr_note "$out"

deadline=$((SECONDS + SYNC_WAIT_S))
until cl_replicas_equal $topic $PARTS 0 1 2; do
    [ $SECONDS -lt $deadline ] || gr_fail "replicas not in sync after ${SYNC_WAIT_S}s: $CL_REPLICA_DIFF"
    sleep 0.2
done
gr_note "the 3 replicas of every partition hold the same bytes"
gr_pass
