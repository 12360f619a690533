#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An acquisition lock runs out: a share consumer (py/share_client.py --ack
# none --hold) acquires five records and is killed with SIGKILL before
# acknowledging any (no session close, no leaving the group). Once
# group.share.record.lock.duration.ms has passed (3 s here, to keep the
# test short) the
# records are available again: another member of the group gets all five
# with delivery count 2, accepts them, and a third member finds nothing but
# a record produced after.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_lock
group=lock-g

gr_start_broker group.share.record.lock.duration.ms=3000
sh_topic $topic 1
sh_init $group $topic
sh_produce $topic l 1 5

sh_start holder --group $group --topic $topic --ack none --hold --count 5
# shellcheck disable=SC2317
holding() { grep -q '^holding$' "$GR_TMP/holder.out" || ! gr_alive "${SH_PID[holder]}"; }
gr_wait_until $SH_TIMEOUT_S "the holder to acquire 5 records" holding
grep -q '^holding$' "$GR_TMP/holder.out" || gr_fail "the holder exited: $(tail -n 5 "$GR_TMP/holder.err")"
sh_kill9 holder
sh_expect "the holder's records" "0 1 l-1 1 1 l-2 2 1 l-3 3 1 l-4 4 1 l-5" \
    "$(grep -v '^holding$' "$GR_TMP/holder.out" | cut -d' ' -f1-3 | sort -n | paste -sd' ')"

sh_take after "the records after the lock ran out" --group $group --topic $topic --ack accept --count 5 \
    --acked "$GR_TMP/after.acked"
sh_expect "redelivered after the lock ran out" "0 2 l-1 1 2 l-2 2 2 l-3 3 2 l-4 4 2 l-5" \
    "$(cut -d' ' -f1-3 "$GR_TMP/after.out" | sort -n | paste -sd' ')"
sh_expect "accepted" 5 "$(sh_lines "$GR_TMP/after.acked")"

sh_produce $topic next 1 1
sh_take next "the next record" --group $group --topic $topic --ack accept --count 1
sh_expect "only the next record" "5 1 next-1" "$(cut -d' ' -f1-3 "$GR_TMP/next.out")"
gr_pass
