#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Consumer groups through librdkafka's Admin API (progs/group_admin):
# ListConsumerGroups with and without a state filter (ListGroups),
# DescribeConsumerGroups (members, client ids, assignments), DeleteGroups
# (NON_EMPTY_GROUP while members are in, GROUP_ID_NOT_FOUND once gone),
# ListConsumerGroupOffsets (OffsetFetch), AlterConsumerGroupOffsets
# (OffsetCommit outside the group, with metadata that OffsetFetch returns; on
# a new group it makes a simple one)
# and DeleteConsumerGroupOffsets (OffsetDelete; GROUP_SUBSCRIBED_TO_TOPIC
# while a member consumes the topic). A member started after the offsets
# were altered and deleted (and the broker restarted) resumes where they say;
# deleted groups stay deleted across a restart, and a new group of the same
# name starts from scratch.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

# librdkafka's mock cluster has no ListGroups, DescribeGroups, DeleteGroups or
# OffsetDelete.
gr_require_gregor
topic=admin_topic
gm_topic $topic 4
gm_start_broker
admin() { gr_prog group_admin -b "$GR_BOOTSTRAP" "$@" || gr_fail "group_admin $* failed"; }
has() { grep -qx -- "$2" <<<"$1" || gr_fail "expected line '$2' in: $(tr '\n' ';' <<<"$1")"; }
lacks() { ! grep -qx -- "$2" <<<"$1" || gr_fail "unexpected line '$2' in: $(tr '\n' ';' <<<"$1")"; }

gm_produce $topic 80
for m in a b; do gm_start $m -g live_group -t $topic -c sync -X client.id=admin-$m; done
gm_wait_counts a=2 b=2
gm_start c -g idle_group -t $topic -c sync
gm_wait_counts c=4
gm_wait_consumed_all a b
gm_wait_consumed_all c
gm_wait_committed_ends c
gm_stop c

out=$(admin list)
has "$out" "group live_group Stable consumer"
has "$out" "group idle_group Empty consumer"
out=$(admin list Stable)
has "$out" "group live_group Stable consumer"
lacks "$out" "group idle_group Empty consumer"
out=$(admin list Empty)
has "$out" "group idle_group Empty consumer"
lacks "$out" "group live_group Stable consumer"

out=$(admin describe live_group idle_group no_such_group)
has "$out" "group live_group Stable NO_ERROR assignor=range members=2"
has "$out" "group idle_group Empty NO_ERROR assignor=- members=0"
grep -q '^group no_such_group Dead ' <<<"$out" || gr_fail "unknown group not described as Dead: $out"
for m in a b; do
    grep -Eq "^member live_group [^ ]+ admin-$m - $(gm_assignment $m)\$" <<<"$out" ||
        gr_fail "member $m ($(gm_assignment $m)) not described: $out"
done

has "$(admin delete live_group)" "result live_group NON_EMPTY_GROUP"
out=$(admin delete-offsets live_group $topic:0)
grep -Eq "^offset live_group $topic 0 -?[0-9]+ GROUP_SUBSCRIBED_TO_TOPIC\$" <<<"$out" ||
    gr_fail "deleting the offsets of a consumed topic: $out"

out=$(admin offsets idle_group)
got=$(awk '$1 == "offset" && $6 == "NO_ERROR" { print $3, $4, $5 }' <<<"$out" | sort)
[ "$got" = "$(gm_produced_ends)" ] || gr_fail "idle_group's committed offsets: $out"
has "$(admin alter-offsets idle_group $topic:0:3:rewound-by-admin)" "offset idle_group $topic 0 3 NO_ERROR metadata=rewound-by-admin"
out=$(admin delete-offsets idle_group $topic:1)
grep -Eq "^offset idle_group $topic 1 -?[0-9]+ NO_ERROR\$" <<<"$out" || gr_fail "deleting a committed offset: $out"
# A commit outside any membership (generation -1) creates a simple group.
has "$(admin alter-offsets standalone_group $topic:2:5)" "offset standalone_group $topic 2 5 NO_ERROR"
has "$(admin list)" "group standalone_group Empty simple"

# Admin commits and offset deletions are records in __consumer_offsets too:
# they outlive a restart.
gr_restart_broker
has "$(admin list Empty)" "group standalone_group Empty simple"
has "$(admin offsets standalone_group)" "offset standalone_group $topic 2 5 NO_ERROR"
out=$(admin offsets idle_group $topic:0 $topic:1 $topic:2)
has "$out" "offset idle_group $topic 0 3 NO_ERROR metadata=rewound-by-admin"
grep -Eq "^offset idle_group $topic 1 -[0-9]+ NO_ERROR\$" <<<"$out" || gr_fail "a deleted offset is still there: $out"
has "$out" "offset idle_group $topic 2 $(gm_produced_ends | awk -v t=$topic '$1 == t && $2 == 2 { print $3 }') NO_ERROR"

# A member now resumes at offset 3 of partition 0, from the start of
# partition 1 (no offset: auto.offset.reset=earliest), and at the ends of
# partitions 2 and 3.
gm_start d -g idle_group -t $topic -c sync
gm_wait_counts d=4
want=$(awk -v t=$topic '$1 == t && (($2 == 0 && $3 >= 3) || $2 == 1)' "$GM_PRODUCED" | sort)
consumed_is() { [ "$(gm_consumed d | sort)" = "$want" ]; }
gr_wait_until "$GM_WAIT_S" "the resumed member's records" consumed_is
gm_stop d
[ "$(gm_consumed d | sort)" = "$want" ] || gr_fail "the resumed member consumed more than it should"

has "$(admin delete idle_group)" "result idle_group NO_ERROR"
out=$(admin list)
lacks "$out" "group idle_group Empty consumer"
out=$(admin offsets idle_group)
[ -z "$(awk '$1 == "offset" && $5 >= 0' <<<"$out")" ] || gr_fail "a deleted group still has offsets: $out"
has "$(admin delete idle_group)" "result idle_group GROUP_ID_NOT_FOUND"
gm_stop_all a b
has "$(admin delete live_group)" "result live_group NO_ERROR"

# Deleted groups stay deleted across a restart; a group of the same name
# starts afresh, from the beginning of the topic.
gr_restart_broker
out=$(admin list)
lacks "$out" "group idle_group Empty consumer"
lacks "$out" "group live_group Empty consumer"
out=$(admin offsets idle_group)
[ -z "$(awk '$1 == "offset" && $5 >= 0' <<<"$out")" ] || gr_fail "a deleted group has offsets after a restart: $out"
gm_start e -g idle_group -t $topic -c sync
gm_wait_counts e=4
gm_wait_consumed_all e
gm_check_no_duplicates e
gm_stop e
gr_pass
