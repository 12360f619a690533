#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 while the cleaner is writing: a throttled cleaner
# (log.cleaner.io.max.bytes.per.second) is caught with ".cleaned" files on
# disk and the broker is killed. After a restart with the cleaner off the
# leftovers are gone, every key still reads back with its last value
# (nothing not yet superseded was lost) and offsets increase; with the
# cleaner back on, a cleaning completes and each key appears exactly once.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker log.cleaner.backoff.ms=100 log.cleaner.io.max.bytes.per.second=20000
dir=$GR_TMP/logs/slow-0

out=$(gr_prog admin -b "$GR_BOOTSTRAP" create slow 1 1 cleanup.policy=compact \
    segment.bytes=4096 min.cleanable.dirty.ratio=0.01) || gr_fail "create got no answer: $out"
[ "$out" = "slow NO_ERROR" ] || gr_fail "create: $out"

for round in $(seq 1 15); do
    seq 0 99 | awk -v r=$round '{printf "key%03d:round%02d-value-padding-padding\n", $1, r}' |
        gr_kcat -P -t slow -K: -z lz4 -X batch.num.messages=25 || gr_fail "round $round failed"
done
seq 1 200 | awk '{printf "fill%04d:filler-padding-padding-padding\n", $1}' |
    gr_kcat -P -t slow -K: -X batch.num.messages=10 || gr_fail "producing filler failed"

# True once every thread of the broker has stopped (state T): a thread in
# a system call (a rename, an fsync) stops only when it returns.
broker_stopped() {
    local stat state
    for stat in /proc/"$GR_PID"/task/*/stat; do
        state=$(sed 's/.*) //' "$stat" 2>/dev/null | cut -d' ' -f1) || return 1
        [ "$state" = T ] || return 1
    done
}
# Kills the broker if it has .cleaned files on disk, else lets it go on.
# It is frozen (SIGSTOP) from before the log dir is listed until the
# SIGKILL, so the cleaner cannot finish its swap between the look and the
# kill.
kill_mid_clean() {
    kill -STOP "$GR_PID"
    gr_wait_until 30 "broker $GR_PID stopped by SIGSTOP" broker_stopped
    if ls "$dir" | grep -q '\.cleaned$'; then
        gr_kill9_broker
        return 0
    fi
    kill -CONT "$GR_PID"
    return 1
}
gr_wait_until 120 "the cleaner writing .cleaned files" kill_mid_clean
ls "$dir" | grep -q '\.cleaned$' || gr_fail "no .cleaned files left by the kill: $(ls "$dir")"
gr_note "killed with $(ls "$dir" | grep -c '\.cleaned$') .cleaned file(s) on disk"

# First without the cleaner, to see what the recovery left.
gr_start_broker log.cleaner.enable=false
gr_wait_broker_started # slow-0 is open, so its recovery is done
ls "$dir" | grep -q '\.cleaned$\|\.swap$' && gr_fail "leftovers after restart: $(ls "$dir")"

consume() { gr_kcat -C -t slow -o beginning -e -q -f '%o %k %s\n'; }
# Nothing lost: each key's last record is its round 15 value.
consume >"$GR_TMP/seen"
awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1 } END { exit bad }' "$GR_TMP/seen" ||
    gr_fail "offsets do not increase"
awk '$2 ~ /^key/ { last[$2] = $3 }
    END { for (k in last) { n++; if (last[k] !~ /^round15-/) { print k, last[k]; bad = 1 } }
          exit bad || n != 100 }' "$GR_TMP/seen" ||
    gr_fail "keys lost their last value in the crash (above), or keys missing"
[ "$(grep -c ' fill' "$GR_TMP/seen")" = 200 ] || gr_fail "filler records lost"

# Once cleaned again, each key exactly once.
gr_stop_broker
gr_start_broker log.cleaner.enable=true log.cleaner.io.max.bytes.per.second=1.7976931348623157E308
exactly_once() {
    consume | awk '$2 ~ /^key/ { seen[$2]++; if ($3 !~ /^round15-/) bad = 1 }
        END { for (k in seen) { n++; if (seen[k] != 1) bad = 1 }; exit bad || n != 100 }'
}
gr_wait_until 120 "a cleaning after the restart" exactly_once
gr_pass
