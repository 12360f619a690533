#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin groups against a live broker: a kcat consumer group reads a
# topic and commits; then groups list shows the group, describe shows its
# committed offsets and lag (tables and --json), reset-offsets computes new
# offsets as a dry run (nothing changes) and stores them with --execute
# (--to-earliest, --to-offset, --shift-by, --to-latest; the group then
# resumes there), and delete removes the group. __consumer_offsets cannot
# be grown nor have its records deleted. Skipped (77) while the broker
# does not advertise the group APIs.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }
GR_CMD_TIMEOUT_S=60

gr_start_broker group.initial.rebalance.delay.ms=0
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
run()
{
    local want=$1 rc=0
    shift
    out=$(ga "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out" ||
    gr_fail "not JSON, or no $1: '$out'"; }

rc=0
ga groups list >/dev/null 2>&1 || rc=$?
if [ "$rc" = 3 ]; then
    gr_note "the broker does not serve ListGroups yet: skipping"
    gr_stop_broker
    exit 77
fi

seq 1 40 | gr_kcat -P -t gtopic -p 0
group_read() { gr_kcat -G cli_g -e -q -f '%s\n' -X auto.offset.reset=earliest gtopic; }
got=$(group_read | wc -l)
[ "$got" = 40 ] || gr_fail "first group read got $got records"
seq 41 50 | gr_kcat -P -t gtopic -p 0

run 0 groups list
grep -qE '^cli_g +classic +Empty +consumer$' <<<"$out" || gr_fail "groups list: '$out'"
run 0 groups list --json
[ "$(json '[(g["group"], g["state"]) for g in d if g["group"] == "cli_g"]')" = "[('cli_g', 'Empty')]" ] ||
    gr_fail "groups list --json: $out"

run 0 groups describe --group cli_g
grep -qE '^cli_g +gtopic +0 +40 +50 +10 +- +- +-$' <<<"$out" || gr_fail "groups describe: '$out'"
run 0 groups describe --group cli_g --json
[ "$(json 'd["state"], [(o["current_offset"], o["log_end_offset"], o["lag"]) for o in d["offsets"]]')" = \
    "Empty [(40, 50, 10)]" ] || gr_fail "groups describe --json: $out"

run 0 groups describe --group cli_g --state --verbose
grep -qE "^cli_g +127\.0\.0\.1:$GR_PORT +\([0-9]+\) +- +Empty +- +- +0$" <<<"$out" ||
    gr_fail "describe --state --verbose of a classic group: '$out'"

run 0 groups reset-offsets --group cli_g --topic gtopic --to-earliest --dry-run
grep -qE '^cli_g +gtopic +0 +0$' <<<"$out" || gr_fail "dry run: '$out'"
run 0 groups describe --group cli_g --json
[ "$(json '[o["current_offset"] for o in d["offsets"]]')" = "[40]" ] || gr_fail "dry run changed offsets: $out"

run 0 groups reset-offsets --group cli_g --topic gtopic --to-offset 25 --execute
run 0 groups reset-offsets --group cli_g --topic gtopic --shift-by -5 --execute --json
[ "$(json '[o["new_offset"] for o in d]')" = "[20]" ] || gr_fail "shift-by -5: $out"
run 0 groups reset-offsets --group cli_g --topic gtopic --to-offset 999 --dry-run --json
[ "$(json '[o["new_offset"] for o in d]')" = "[50]" ] || gr_fail "to-offset past the end is not clamped: $out"
first=$(group_read | head -n 1)
[ "$first" = 21 ] || gr_fail "after reset to 20 the group resumed at '$first'"

run 0 groups reset-offsets --group cli_g --topic gtopic:0 --to-earliest --dry-run
grep -qE '^cli_g +gtopic +0 +0$' <<<"$out" || gr_fail "--topic gtopic:0: '$out'"
run 1 groups reset-offsets --group cli_g --topic gtopic:7 --to-earliest
run 0 groups reset-offsets --group cli_g --all-topics --to-latest --execute
run 0 groups describe --group cli_g --json
[ "$(json '[o["lag"] for o in d["offsets"]]')" = "[0]" ] || gr_fail "to-latest: $out"

run 0 groups delete --group cli_g
run 1 groups delete --group cli_g
run 0 groups list --json
[ "$(json '[g["group"] for g in d if g["group"] == "cli_g"]')" = "[]" ] || gr_fail "deleted group listed: $out"
run 2 groups reset-offsets --group cli_g --topic gtopic

# The internal topic the groups live in is protected.
run 1 topics alter --topic __consumer_offsets --partitions 100
grep -q INVALID_REQUEST "$GR_TMP/cli.err" || gr_fail "growing __consumer_offsets: $(cat "$GR_TMP/cli.err")"
run 1 records delete --topic __consumer_offsets --offset -1 --json
[ "$(json 'd["error"]')" = INVALID_TOPIC_EXCEPTION ] || gr_fail "DeleteRecords on __consumer_offsets: $out"
gr_pass
