#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 a broker (not the controller): once its session expires every
# surviving broker reports its partitions offline (leader -1) while the other
# partitions keep their leaders and keep serving producers and consumers.
# Restarted on the same log dirs, it leads its partitions again and every
# acknowledged record is there: the whole topic read back through the
# returned broker is exactly the acknowledged records (partition, offset,
# key), none lost, none extra.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=6

cl_start_cluster 3
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create data $PARTS 1) || gr_fail "admin create failed: $out"
[ "$out" = "data NO_ERROR" ] || gr_fail "creating data: $out"
cl_wait_all_led data $PARTS
victim=$(cl_non_controller)
before=$(cl_state "$CL_CONTROLLER" leaders data | awk '{ print $1, $2 }')
victim_parts=$(awk -v v="$victim" '$2 == v { print $1 }' <<<"$before" | tr '\n' ' ')
[ -n "$victim_parts" ] || gr_fail "broker $victim leads no partition of data: $(tr '\n' ';' <<<"$before")"
gr_note "broker $victim leads partitions $victim_parts"

# shellcheck disable=SC2317
produce() # PARTITION_ARGS... : acknowledged records appended as "P O KEY"
{
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t data -m produce -A -w 60 "$@") || gr_fail "producing $* failed: $(tail -n 1 <<<"$out")"
    awk '$1 == "acked" { printf "%d %d k%09d\n", $2, $3, $4 }' <<<"$out" >>"$GR_TMP/acked"
}
produce -n 600

cl_kill9_broker "$victim"
during=$(awk -v v="$victim" '{ print $1, ($2 == v ? -1 : $2) }' <<<"$before")
for i in $(cl_live); do
    gr_wait_until "$CL_WAIT_S" "broker $i to report broker $victim's partitions offline" cl_leaders_are "$i" data "$during"
done
cl_wait_stable "broker $victim gone"

# The other partitions keep serving, through the live brokers.
GR_BOOTSTRAP=$(cl_bootstrap)
serving=$(awk -v v="$victim" '$2 != v { print $1; exit }' <<<"$before")
produce -p "$serving" -n 50
want=$(awk -v p="$serving" '$1 == p' "$GR_TMP/acked" | wc -l)
got=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t data -p "$serving" -o beginning -e -q -f '%o\n' | wc -l)
[ "$got" = "$want" ] || gr_fail "partition $serving read back $got records while broker $victim is down, want $want"

cl_start_broker "$victim"
for i in $(cl_live); do
    gr_wait_until "$CL_WAIT_S" "broker $i to report broker $victim leading its partitions again" cl_leaders_are "$i" data "$before"
done
cl_wait_stable "broker $victim back"
timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$(cl_addr "$victim")" -C -t data -o beginning -e -q -f '%p %o %k\n' |
    sort >"$GR_TMP/consumed" || gr_fail "reading the topic back through broker $victim failed"
sort "$GR_TMP/acked" >"$GR_TMP/acked.sorted"
if ! cmp -s "$GR_TMP/acked.sorted" "$GR_TMP/consumed"; then
    gr_note "missing: $(comm -23 "$GR_TMP/acked.sorted" "$GR_TMP/consumed" | head -n 5 | tr '\n' ';')"
    gr_note "extra: $(comm -13 "$GR_TMP/acked.sorted" "$GR_TMP/consumed" | head -n 5 | tr '\n' ';')"
    gr_fail "records read back ($(wc -l <"$GR_TMP/consumed")) differ from those acknowledged ($(wc -l <"$GR_TMP/acked"))"
fi
gr_pass
