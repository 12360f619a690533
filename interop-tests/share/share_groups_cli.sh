#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin share-groups list / describe --members / --state / describe
# without --topic / delete, as kafka-share-groups.sh has them, against a
# share group whose member is py/share_client.py: list shows the group
# Stable; --members the member with its partition; --state Stable with one
# member; the default view, with no --topic, the start offset past the
# acknowledged records (DescribeShareGroupOffsets with null topics answers
# the group's initialized partitions); delete is NON_EMPTY_GROUP while the
# member is there and works once it left, after which list has no group.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=cli_t
group=cli-g

gr_start_broker
sh_topic $topic 1
sh_init $group $topic
sh_produce $topic c 1 5
sh_take first "five records accepted" --group $group --topic $topic --ack accept --count 5 \
    --acked "$GR_TMP/first.acked"
sh_expect "accepted" 5 "$(sh_lines "$GR_TMP/first.acked")"

sh_start member --group $group --topic $topic --ack accept --count 1000
# shellcheck disable=SC2317
stable() { sh_admin share-groups describe --group $group --state | grep -q ' Stable .* 1 *$'; }
gr_wait_until $SH_TIMEOUT_S "the member to join" stable

out=$(sh_admin share-groups list --state) || gr_fail "list --state: $out"
grep -Eq "^$group +Stable *$" <<<"$out" || gr_fail "list --state: $out"
out=$(sh_admin share-groups list) || gr_fail "list: $out"
[ "$out" = $group ] || gr_fail "list: '$out'"

out=$(sh_admin share-groups describe --group $group --members) || gr_fail "--members: $out"
grep -Eq "^$group +[^ ]+ +[^ ]+ +[^ ]+ +1 +$topic:0 *$" <<<"$out" || gr_fail "--members: $out"
out=$(sh_admin share-groups describe --group $group --state) || gr_fail "--state: $out"
grep -Eq "^$group +[^ ]+ +\([0-9]+\) +simple +Stable +[0-9]+ +[0-9]+ +1 *$" <<<"$out" ||
    gr_fail "--state: $out"

out=$(sh_admin share-groups describe --group $group) || gr_fail "describe: $out"
grep -Eq "^$group +$topic +0 +5 +[-0-9]+ *$" <<<"$out" || gr_fail "describe without --topic: $out"

out=$(sh_admin share-groups delete --group $group 2>&1) && gr_fail "delete with a member: $out"
grep -q NON_EMPTY_GROUP <<<"$out" || gr_fail "delete with a member: $out"

kill -TERM "${SH_PID[member]}"
sh_wait member
out=$(sh_admin share-groups delete --group $group) || gr_fail "delete: $out"
out=$(sh_admin share-groups list) || gr_fail "list after delete: $out"
[ -z "$out" ] || gr_fail "list after delete: '$out'"
gr_stop_broker
gr_check_log
gr_pass
