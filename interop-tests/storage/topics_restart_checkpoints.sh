#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The log dir's offset checkpoints across restarts, with several topics: log
# start offsets moved by DeleteRecords (kept only in
# log-start-offset-checkpoint) come back after a clean stop and after a
# SIGKILL, and the checkpoint files still name every partition. The
# checkpoint timer runs every few milliseconds, so it rewrites the files while
# the restarted broker is still opening its partitions: a partition not open
# yet must keep its line (the files are read once at start-up, not once per
# partition from whatever the timer last wrote).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_allow_log_errors 'recover'

adm() { gr_prog admin_configs -b "$GR_BOOTSTRAP" "$@"; }
earliest() { gr_kcat -Q -t "$1:$2:-2" | sed -E 's/.*offset ([0-9-]+).*/\1/'; }
# "<topic> <partition> <offset>" of a checkpoint file, sorted.
lines() { tail -n +3 "$GR_TMP/logs/$1" | sort; }

# Topics are auto-created with num.partitions.
gr_start_broker num.partitions=3 log.flush.offset.checkpoint.interval.ms=20
for t in ck_a:0 ck_a:1 ck_a:2 ck_b:0 ck_b:1 ck_b:2; do
    seq 1 20 | gr_kcat -P -t "${t%:*}" -p "${t#*:}"
done
# A start offset for each partition, all different.
starts="ck_a 0 3
ck_a 1 5
ck_a 2 7
ck_b 0 11
ck_b 1 13
ck_b 2 17"
while read -r t p o; do
    out=$(adm delete-records "$t" "$p" "$o")
    grep -q "^$t $p NO_ERROR $o\$" <<<"$out" || gr_fail "delete-records $t $p $o: $out"
done <<<"$starts"

check_files()
{
    [ "$(lines log-start-offset-checkpoint)" = "$starts" ] ||
        gr_fail "$1: log-start-offset-checkpoint holds $(lines log-start-offset-checkpoint | tr '\n' ,)"
    [ "$(lines recovery-point-offset-checkpoint | wc -l)" = 6 ] ||
        gr_fail "$1: recovery-point-offset-checkpoint does not name the 6 partitions"
}

check_starts()
{
    local when=$1 t p o got
    gr_wait_until 30 "ck_a and ck_b served $when" eval \
        '[ "$(gr_kcat -L | grep -c "partition [0-9]*, leader 0")" -ge 6 ]'
    while read -r t p o; do
        got=$(earliest "$t" "$p")
        [ "$got" = "$o" ] || gr_fail "$when: $t-$p starts at '$got', want $o"
        got=$(gr_kcat -C -t "$t" -p "$p" -o beginning -e -q | head -n 1)
        [ "$got" = $((o + 1)) ] || gr_fail "$when: first record of $t-$p is '$got', want $((o + 1))"
    done <<<"$starts"
    check_files "$when"
}

gr_stop_broker
check_files "after a clean stop"
gr_start_broker
check_starts "after a clean restart"
gr_kill9_broker
check_files "after SIGKILL"
gr_start_broker
check_starts "after SIGKILL and a restart"
gr_pass
