#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The share-group offset admin APIs 90-92 on a single broker (the group's
# coordinator), through py/share_admin_offsets_raw.py: describe a group's
# share-partition start offsets and lag, alter them (a new state epoch each
# time; a negative offset refused), refuse a group id a classic group holds,
# delete the state of a topic's partitions; then gregor-admin share-groups
# describe / reset-offsets (dry run, --to-earliest, --by-duration) /
# delete-offsets.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
gr_prog admin -b "$GR_BOOTSTRAP" create st 2 1 >/dev/null || gr_fail "create st"
for p in 0 1; do seq 1 10 | gr_kcat -P -t st -p $p; done
PYTHONPATH="$GR_INTEROP_DIR/py" python3 "$GR_INTEROP_DIR/py/share_admin_offsets_raw.py" \
    127.0.0.1 "$GR_PORT" st || gr_fail "share_admin_offsets_raw.py"

# The same through gregor-admin share-groups (kafka-share-groups.sh's verbs).
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
start_of() # group partition -> its start offset, from describe --json
{
    ga share-groups describe --group "$1" --topic "st:$2" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["start_offset"])'
}
out=$(ga share-groups reset-offsets --group sg2 --topic st --to-latest --dry-run) ||
    gr_fail "reset --dry-run: $out"
grep -q "sg2 *st *0 *10" <<<"$out" || gr_fail "dry run targets: $out"
[ "$(start_of sg2 0)" = -1 ] || gr_fail "a dry run changed the start offset"
ga share-groups reset-offsets --group sg2 --topic st:1 --to-earliest --execute >/dev/null ||
    gr_fail "reset --to-earliest --execute"
[ "$(start_of sg2 1)" = 0 ] || gr_fail "--to-earliest: $(start_of sg2 1)"
ga share-groups reset-offsets --group sg2 --topic st:1 --by-duration PT1H --execute >/dev/null ||
    gr_fail "reset --by-duration --execute"
[ "$(start_of sg2 1)" = 0 ] || gr_fail "--by-duration PT1H (records a second old): $(start_of sg2 1)"
ga share-groups delete-offsets --group sg2 --topic st >/dev/null || gr_fail "delete-offsets"
[ "$(start_of sg2 1)" = -1 ] || gr_fail "delete-offsets left $(start_of sg2 1)"
gr_stop_broker
gr_check_log
gr_pass
