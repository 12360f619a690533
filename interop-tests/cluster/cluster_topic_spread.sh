#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A 12-partition topic on three brokers: CreateTopics sent to a broker that is
# not the controller gets NOT_CONTROLLER, librdkafka's admin client (which
# retries on the controller) creates it through any bootstrap broker; every
# broker then reports all 12 partitions with a leader, each broker leads
# some, and only a partition's leader holds its log directory. A replication
# factor above the broker count is refused. librdkafka producers and
# consumers go through each broker as the only bootstrap address and get
# every record back, each partition read from its leader.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
NOT_CONTROLLER=41
INVALID_REPLICATION_FACTOR=38
PARTS=12

cl_start_cluster 3
other=$(cl_non_controller)
got=$(cl_state "$other" create misrouted 3) || gr_fail "CreateTopics to broker $other got no answer"
[ "$got" = "$NOT_CONTROLLER" ] || gr_fail "CreateTopics to broker $other (not the controller $CL_CONTROLLER) answered $got, want NOT_CONTROLLER ($NOT_CONTROLLER)"
got=$(cl_state "$CL_CONTROLLER" create too-many 3 4) || gr_fail "CreateTopics to the controller got no answer"
[ "$got" = "$INVALID_REPLICATION_FACTOR" ] || gr_fail "replication factor 4 on 3 brokers answered $got, want INVALID_REPLICATION_FACTOR"

out=$(gr_prog admin -b "$(cl_addr "$other")" create spread $PARTS 1) || gr_fail "admin create through broker $other failed: $out"
[ "$out" = "spread NO_ERROR" ] || gr_fail "creating spread through broker $other: $out"
cl_wait_all_led spread $PARTS

for i in 0 1 2; do
    led=$(cl_led_by spread "$i" | tr '\n' ' ')
    [ -n "$led" ] || gr_fail "broker $i leads no partition of spread: $(cl_state 0 leaders spread | tr '\n' ';')"
    gr_note "broker $i leads partitions $led"
    for ((p = 0; p < PARTS; p++)); do
        if [[ " $led " == *" $p "* ]]; then
            [ -d "$GR_TMP/b$i/logs/spread-$p" ] || gr_fail "broker $i leads spread-$p but has no log directory for it"
        else
            [ ! -d "$GR_TMP/b$i/logs/spread-$p" ] || gr_fail "broker $i holds spread-$p, led by another broker"
        fi
    done
done
for name in misrouted too-many; do
    [ -z "$(ls -d "$GR_TMP"/b*/logs/$name-* 2>/dev/null)" ] || gr_fail "refused topic $name has log directories"
done

# Through broker 0 alone: 1200 records produced and read back, verified.
out=$(gr_prog roundtrip -b "$(cl_addr 0)" -t spread -n 1200 -w 60) || gr_fail "roundtrip through broker 0: $(tail -n 1 <<<"$out")"
gr_note "$(tail -n 1 <<<"$out")"
# Through brokers 1 and 2: kcat producers, then each consumes everything.
for i in 1 2; do
    seq 1 300 | sed "s/^/b$i:/" | timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$(cl_addr "$i")" -P -t spread -K : ||
        gr_fail "kcat producing through broker $i failed"
done
for i in 1 2; do
    timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$(cl_addr "$i")" -C -t spread -o beginning -e -q -f '%p %k\n' >"$GR_TMP/consumed.$i" ||
        gr_fail "kcat consuming through broker $i failed"
    total=$(wc -l <"$GR_TMP/consumed.$i")
    [ "$total" = 1800 ] || gr_fail "consuming through broker $i got $total records, want 1800"
    for src in 1 2; do
        n=$(grep -c " b$src\$" "$GR_TMP/consumed.$i" || true)
        [ "$n" = 300 ] || gr_fail "consuming through broker $i got $n records produced through broker $src, want 300"
    done
    parts=$(cut -d' ' -f1 "$GR_TMP/consumed.$i" | sort -un | wc -l)
    [ "$parts" = $PARTS ] || gr_fail "records came from $parts partitions, want $PARTS"
done
gr_pass
