#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A broker stopped (SIGTERM) while share consumers are connected exits
# cleanly: one member holds acquired records in an open share session, a
# second waits in a ShareFetch long poll, and both keep their connections
# while the server drains. The share manager they use must outlive the
# drain (the broker once freed it at the stop and died with SIGSEGV when a
# waiting fetch was cancelled or a new ShareFetch came in).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_stop
group=stop-g

gr_start_broker
sh_topic $topic 1
sh_init $group $topic
sh_produce $topic s 1 3

sh_start holder --group $group --topic $topic --ack none --hold --count 3
# shellcheck disable=SC2317
holding() { grep -q '^holding$' "$GR_TMP/holder.out" || ! gr_alive "${SH_PID[holder]}"; }
gr_wait_until $SH_TIMEOUT_S "the holder to acquire 3 records" holding
grep -q '^holding$' "$GR_TMP/holder.out" || gr_fail "the holder exited: $(tail -n 5 "$GR_TMP/holder.err")"
# A second group starting at the log end (share.auto.offset.reset=latest):
# nothing to acquire, its member's fetches wait in long polls.
sh_start waiter --group $group-latest --topic $topic --ack accept --count 1 --max-wait-ms 5000 --verbose
# shellcheck disable=SC2317
waiting() { grep -q assignment "$GR_TMP/waiter.err" || ! gr_alive "${SH_PID[waiter]}"; }
gr_wait_until $SH_TIMEOUT_S "the waiter to hold the partition" waiting
gr_alive "${SH_PID[waiter]}" || gr_fail "the waiter exited: $(cat "$GR_TMP/waiter.err" "$GR_TMP/waiter.out")"
sleep 1 # its first ShareFetch is in the broker's long poll
gr_stop_broker
gr_pass
