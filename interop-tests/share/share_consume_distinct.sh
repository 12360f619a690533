#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Three members of one share group (py/share_client.py, three processes)
# consume one partition together: 300 records, each delivered to exactly
# one of them, once (delivery count 1), and acknowledged (ACCEPT, riding on
# the next ShareFetch) exactly once. Each member takes at most 10 records a
# fetch and pauses after each, so that the partition is really shared; at
# least two of them get records.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_distinct
group=distinct-g
N=300

gr_start_broker
sh_topic $topic 1
sh_init $group $topic
for i in 1 2 3; do
    sh_start c$i --group $group --topic $topic --ack accept --max-records 10 --delay-ms 20 \
        --acked "$GR_TMP/acked$i.out" --verbose
done
# The records come once every member holds the partition (its verbose log
# says "assignment"), so that none of them takes them all before the others joined.
# shellcheck disable=SC2317
all_assigned() { for i in 1 2 3; do grep -q assignment "$GR_TMP/c$i.err" || return 1; done; }
gr_wait_until $SH_TIMEOUT_S "the three members to hold the partition" all_assigned
# Batches of 10, one per fetch of 10: the three members wait in long polls
# when the records come, and each fetch takes a whole batch, so one member
# cannot take everything at once (a single 300-record batch would go whole
# to the first fetch: Kafka's batch alignment).
seq 1 $N | sed 's/^/v-/' | gr_kcat -P -t $topic -p 0 -X batch.num.messages=10 -X linger.ms=0 ||
    gr_fail "producing v-1..$N"
# shellcheck disable=SC2317
all_acked() { [ "$(sh_lines "$GR_TMP"/acked?.out)" -ge $N ]; }
gr_wait_until $SH_TIMEOUT_S "$N acknowledgements answered" all_acked
for i in 1 2 3; do kill -TERM "${SH_PID[c$i]}"; done
for i in 1 2 3; do sh_wait c$i; done

cat "$GR_TMP"/c?.out >"$GR_TMP/delivered"
cat "$GR_TMP"/acked?.out >"$GR_TMP/acked"
sh_expect "records delivered" $N "$(sh_lines "$GR_TMP/delivered")"
sh_expect "distinct offsets delivered" $N "$(cut -d' ' -f1 "$GR_TMP/delivered" | sort -un | wc -l)"
sh_expect "offsets 0..$((N - 1))" "0 $((N - 1))" "$(cut -d' ' -f1 "$GR_TMP/delivered" | sort -n | sed -n '1p;$p' | paste -sd' ')"
sh_expect "values" "$(seq 1 $N | sed 's/^/v-/' | sort)" "$(cut -d' ' -f3 "$GR_TMP/delivered" | sort)"
sh_expect "delivery counts" 1 "$(cut -d' ' -f2 "$GR_TMP/delivered" | sort -u | paste -sd' ')"
sh_expect "acknowledgements" $N "$(sh_lines "$GR_TMP/acked")"
sh_expect "distinct offsets acknowledged" $N "$(cut -d' ' -f1 "$GR_TMP/acked" | sort -un | wc -l)"
sh_expect "acknowledgement types" accept "$(cut -d' ' -f3 "$GR_TMP/acked" | sort -u | paste -sd' ')"
members=0
for i in 1 2 3; do
    n=$(sh_lines "$GR_TMP/c$i.out")
    gr_note "member $i took $n records"
    [ "$n" = 0 ] || members=$((members + 1))
done
[ $members -ge 2 ] || gr_fail "only $members member(s) got records: the partition was not shared"
gr_pass
