#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Clean restart: records produced before a SIGTERM (exit status 0) are all
# there after a restart on the same log dir, offsets continue where they
# stopped, and the broker trusts the clean-shutdown marker (Kafka's
# .kafka_cleanshutdown, written at shutdown and removed at start-up) and says
# in its log that it needs no recovery.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker num.partitions=3
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t restart_a -n 5000 -s 300 -z lz4 -w 60) ||
    gr_fail "producing before the restart failed: $out"
seq 1 10 | sed 's/^/key-&:value-&/' | gr_kcat -P -t restart_b -p 0 -K:
gr_kcat -C -t restart_b -p 0 -o beginning -e -q -f '%o %k %s\n' >"$GR_TMP/before"
[ "$(wc -l <"$GR_TMP/before")" = 10 ] || gr_fail "restart_b holds $(wc -l <"$GR_TMP/before") records before the restart"

[ ! -e "$GR_TMP/logs/.kafka_cleanshutdown" ] || gr_fail "clean-shutdown marker present while the broker runs"
gr_stop_broker
[ -e "$GR_TMP/logs/.kafka_cleanshutdown" ] || gr_fail "no .kafka_cleanshutdown marker after a clean shutdown"
gr_broker_run_log | grep -Eqi 'stopped cleanly|clean(ly)? shut' || gr_fail "the broker did not log a clean stop"

gr_start_broker
run_log=$(gr_broker_run_log)
grep -Ei 'clean shutdown|recover' <<<"$run_log" >&2 || true
grep -Eqi 'clean shutdown marker found|no recovery needed' <<<"$run_log" ||
    gr_fail "after a clean shutdown the broker did not log that it skips recovery"
if grep -Eqi 'no clean shutdown|recovering|recovered [1-9]' <<<"$run_log"; then
    gr_fail "the broker recovered (rescanned) after a clean shutdown"
fi
[ ! -e "$GR_TMP/logs/.kafka_cleanshutdown" ] || gr_fail "clean-shutdown marker not removed at start-up"

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t restart_a -n 5000 -s 300 -m consume -w 60) ||
    gr_fail "records produced before the restart are not all there: $out"
echo "$out" >&2
gr_kcat -C -t restart_b -p 0 -o beginning -e -q -f '%o %k %s\n' >"$GR_TMP/after"
cmp -s "$GR_TMP/before" "$GR_TMP/after" || gr_fail "restart_b differs after the restart"
gr_kcat -L -t restart_a | grep -q 'topic "restart_a" with 3 partitions' || gr_fail "restart_a lost its partitions"

# New records continue the offsets.
echo 'key-11:value-11' | gr_kcat -P -t restart_b -p 0 -K:
last=$(gr_kcat -C -t restart_b -p 0 -o -1 -c 1 -e -q -f '%o %k\n')
[ "$last" = "10 key-11" ] || gr_fail "record produced after the restart is '$last', want '10 key-11'"
gr_pass
