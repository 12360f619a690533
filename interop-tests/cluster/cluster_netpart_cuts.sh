#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Network partitions under an idempotent acks=all producer lose, duplicate
# and diverge nothing. ZooKeeper and 3 brokers each in a network namespace
# of the test's own (lib/netnslib.sh; skipped where the machine does not
# allow namespaces), a topic of 3 partitions replicated on all 3 brokers
# with min.insync.replicas=2, seq_producer paced through three cuts in turn,
# each healed before the next, the clients never cut off from any broker:
#   a. a leader (not the controller) cut off from ZooKeeper AND its
#      followers:
#      its session expires, the others elect new leaders and go on taking
#      acknowledged records; what it still takes as an old leader can never
#      be acknowledged (no follower fetches it, no ISR change reaches
#      ZooKeeper), and it truncates it after healing;
#   b. the controller cut off from ZooKeeper only: a new controller, the
#      broker's partitions led elsewhere, then it registers again;
#   c. a leader (the controller if it leads a partition) cut off from its
#      peers only: ISRs shrink on the controller's side of the cut (the
#      victim's partitions to itself alone if it is the controller, else
#      the others' without it); partitions whose ISR cannot shrink, and
#      those with an ISR of one, take no acknowledged record until
#      healing, then every ISR grows again.
# After each healing the cluster recovers within RECOVER_S (a deadline, not
# a measured time): all 3 brokers registered with one controller, every
# partition with an ISR of 3, and records acknowledged again. At the end
# seq_verify finds every acknowledged record exactly once at its partition
# and offset, and the 3 replicas of every partition hold the same bytes.
# shellcheck disable=SC2034 # netnslib.sh's
NN_BROKERS=3
source "$(dirname "$0")/../lib/netnslib.sh"
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
nn_use_ports
PARTS=3
RF=3
topic=netpart
RECOVER_S=${RECOVER_S:-60}
# Paced, and more than the three cuts take (about 40 s): the test stops it
# (SIGUSR1) once the last cut has healed, and warns if it ended before.
N=${SEQ_N:-30000}
RATE=${SEQ_RATE:-250}
PRODUCER_WAIT_S=${PRODUCER_WAIT_S:-200} # beyond its 120 s message.timeout.ms

# A follower cut off from its leader leaves the ISR after 3 s (the leader's
# check runs every 1.5 s); sessions expire after 6 s (CL_SESSION_TIMEOUT_MS).
cl_start_cluster 3 replica.lag.time.max.ms=3000
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS $RF min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $PARTS

others() { cl_live_except "$1"; }
peers_of() { others "$1" | sed -E 's/[0-9]+/b&/g'; } # netnslib's node names
isr_of() { cl_state "$1" isr $topic 2>/dev/null; } # PARTITION LEADER ISR REPLICAS
# shellcheck disable=SC2317
isr_full() # every broker reports each partition led by a broker with all
{          # RF replicas in its ISR, and they agree
    local i out first=
    for i in $(cl_live); do
        out=$(isr_of "$i") || return 1
        awk -v parts="$PARTS" -v rf="$RF" '
            { if ($2 < 0 || split($3, isr, ",") != rf) bad = 1 }
            END { exit bad || NR != parts }' <<<"$out" || return 1
        out=$(awk '{ print $1, $2 }' <<<"$out")
        [ -n "$first" ] || first=$out
        [ "$out" = "$first" ] || return 1
    done
}
views() # what every broker reports, one line each
{
    local i
    for i in $(cl_live); do
        echo "broker $i: brokers [$(cl_state "$i" brokers 2>&1)] controller $(cl_controller "$i" 2>&1) $(isr_of "$i" | tr '\n' ';')"
    done
    nn_cuts
}
wait_for() # DESC CMD...: poll CMD for RECOVER_S, or fail with every view
{
    local desc=$1 deadline=$((SECONDS + RECOVER_S))
    shift
    until "$@"; do
        if [ $SECONDS -ge $deadline ]; then
            views | sed "s/^/[$GR_TEST_NAME] /" >&2
            gr_fail "timed out after ${RECOVER_S}s waiting for: $desc"
        fi
        sleep 0.1
    done
    gr_note "$desc: ok (test time ${SECONDS}s)"
}
# shellcheck disable=SC2317
isolated_from_zk() # VICTIM: the other brokers list only themselves, agree on
{                  # a controller among them, and lead every partition
    local v=$1 i rest c=
    rest=$(others "$v")
    for i in $rest; do
        [ "$(cl_state "$i" brokers 2>/dev/null)" = "$rest" ] || return 1
        [ -n "$c" ] || c=$(cl_controller "$i" 2>/dev/null) || return 1
        [ "$(cl_controller "$i" 2>/dev/null)" = "$c" ] || return 1
        awk -v v="$v" -v parts="$PARTS" '$2 < 0 || $2 == v { bad = 1 } END { exit bad || NR != parts }' \
            < <(isr_of "$i") || return 1
    done
    [[ " $rest " == *" $c "* ]]
}
# shellcheck disable=SC2317
isr_cut() # VICTIM: the ISRs as a leader cut off from its peers leaves them.
{         # A leader changes an ISR through the controller (AlterPartition):
    local v=$1 # if VICTIM is the controller, its partitions have an ISR of
    # itself alone; if not, the controller reports every partition led by
    # another broker with an ISR without VICTIM. (The other side cannot
    # change its ISRs: they keep VICTIM, whose absence stops acks=all there
    # until healing.)
    if [ "$v" = "$CL_CONTROLLER" ]; then
        awk -v v="$v" '$2 == v && $3 != v { bad = 1 } END { exit bad || NR == 0 }' < <(isr_of "$v")
    else
        awk -v v="$v" '
            $2 != v { n = split($3, isr, ","); for (k = 1; k <= n; k++) if (isr[k] == v) bad = 1 }
            END { exit bad || NR == 0 }' < <(isr_of "$CL_CONTROLLER")
    fi
}

acked_count() { wc -l <"$GR_TMP/acked"; }
# shellcheck disable=SC2317
acked_beyond() { [ "$(acked_count)" -gt "$1" ]; }
# shellcheck disable=SC2317
producer_done() { ! gr_alive "$producer"; }
leader_of() { isr_of "$2" | awk -v p="$1" '$1 == p { print $2 }'; } # PARTITION ASKED

wait_for "every partition of $topic with an ISR of $RF" isr_full
[ -x "${GR_PROGS:-}/seq_producer" ] || gr_fail "program seq_producer not built (GR_PROGS=${GR_PROGS:-unset})"
: >"$GR_TMP/acked"
"$GR_PROGS/seq_producer" -b "$GR_BOOTSTRAP" -t $topic -n "$N" -r "$RATE" -o "$GR_TMP/acked" \
    2>"$GR_TMP/producer.err" </dev/null &
producer=$!
gr_track "$producer"
gr_note "seq_producer pid $producer: $N records at $RATE/s"
gr_wait_until "$RECOVER_S" "seq_producer's first 500 acknowledgements" acked_beyond 499

healed() # CUT: after healing, wait for the whole cluster to recover
{
    local before
    wait_for "cut $1 healed: brokers $(cl_live) registered, one controller" cl_stable
    wait_for "cut $1 healed: every partition of $topic with an ISR of $RF" isr_full
    if producer_done; then
        gr_note "WARNING: seq_producer finished before cut $1 healed (raise SEQ_N)"
    else
        before=$(acked_count)
        wait_for "cut $1 healed: records acknowledged again" acked_beyond $((before + 100))
    fi
}

# a. A leader that is not the controller cut off from ZooKeeper and its
# followers (each broker leads one partition at first).
cl_stable || wait_for "one controller" cl_stable
victim=$(isr_of "$CL_CONTROLLER" | awk -v c="$CL_CONTROLLER" '$2 >= 0 && $2 != c { print $2; exit }')
[[ $victim =~ ^[0-2]$ ]] || gr_fail "no partition of $topic led by another broker than controller $CL_CONTROLLER"
gr_note "cut a: broker $victim (leads $(cl_led_by $topic "$victim" | paste -sd,)) at $(acked_count) acknowledged"
# shellcheck disable=SC2046 # one node a peer
nn_cut "b$victim" zk $(peers_of "$victim")
wait_for "cut a: brokers $(others "$victim") lead every partition without broker $victim" isolated_from_zk "$victim"
before=$(acked_count)
wait_for "cut a: records acknowledged with broker $victim cut off" acked_beyond $((before + 100))
# shellcheck disable=SC2046
nn_heal "b$victim" zk $(peers_of "$victim")
healed a

# b. The controller cut off from ZooKeeper only.
victim=$CL_CONTROLLER
gr_note "cut b: controller $victim (leads $(cl_led_by $topic "$victim" | paste -sd,)) at $(acked_count) acknowledged"
nn_cut "b$victim" zk
wait_for "cut b: brokers $(others "$victim") lead every partition without broker $victim" isolated_from_zk "$victim"
nn_heal "b$victim" zk
healed b

# c. A leader cut off from its peers only: the controller if it leads.
victim=$CL_CONTROLLER
[ -n "$(cl_led_by $topic "$victim")" ] || victim=$(leader_of 0 "$CL_CONTROLLER")
gr_note "cut c: broker $victim (controller $CL_CONTROLLER; leads $(cl_led_by $topic "$victim" | paste -sd,)) at $(acked_count) acknowledged"
# shellcheck disable=SC2046
nn_cut "b$victim" $(peers_of "$victim")
wait_for "cut c: ISRs shrunk on controller $CL_CONTROLLER's side" isr_cut "$victim"
# shellcheck disable=SC2046
nn_heal "b$victim" $(peers_of "$victim")
healed c

kill -USR1 "$producer" 2>/dev/null || true
gr_wait_until "$PRODUCER_WAIT_S" "seq_producer to finish" producer_done
rc=0
wait "$producer" || rc=$?
summary=$(grep '^seq_producer: topic=' "$GR_TMP/producer.err" || true)
gr_note "$summary"
[[ $summary =~ \ produced=([0-9]+)\  ]] || gr_fail "seq_producer printed no summary: $(tail -n 5 "$GR_TMP/producer.err")"
produced=${BASH_REMATCH[1]}
if grep -q 'FATAL' "$GR_TMP/producer.err"; then
    gr_fail "seq_producer hit a fatal error: $(grep FATAL "$GR_TMP/producer.err" | head -n 1)"
fi
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 "$GR_TMP/producer.err")"

wait_for "producer done: every partition of $topic with an ISR of $RF" isr_full
wait_for "the 3 replicas of every partition hold the same bytes" cl_replicas_equal $topic $PARTS 0 1 2
verify_args=()
[[ $summary != *" acked=$produced failed=0" ]] || verify_args=(-n "$produced")
out=$(gr_prog seq_verify -b "$GR_BOOTSTRAP" -t $topic -i "$GR_TMP/acked" "${verify_args[@]}") ||
    gr_fail "seq_verify: $out"
gr_note "$out"
[[ $summary == *" acked=$produced failed=0" ]] ||
    gr_fail "not every record was acknowledged (120 s message timeout, every cut healed): $summary"
gr_pass
