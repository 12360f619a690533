#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CreateTopics and DeleteTopics through librdkafka's Admin API (progs/admin):
# a topic is created with the asked partition count and is then listed and
# usable; the broker answers TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS,
# INVALID_REPLICATION_FACTOR (one broker), TOPIC_EXCEPTION (bad name) and
# INVALID_CONFIG (unknown config) as Kafka does; validate_only creates
# nothing; -1 takes the broker's defaults; a deleted topic is gone from the
# metadata and deleting an unknown one is UNKNOWN_TOPIC_OR_PART.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor # librdkafka's mock cluster has no controller for admin requests

gr_start_broker num.partitions=2
admin() { gr_prog admin -b "$GR_BOOTSTRAP" "$@"; }
expect()
{
    local want=$1 got
    shift
    got=$(admin "$@") || gr_fail "admin $*: no answer"
    echo "admin $*: $got" >&2
    [ "$(awk '{ print $2 }' <<<"$got")" = "$want" ] || gr_fail "admin $*: '$got', want $want"
}
topics() { gr_kcat -L | sed -n 's/^ *topic "\([^"]*\)" with \([0-9]*\) partitions:.*/\1 \2/p' | sort; }

expect NO_ERROR create admin_a 7 1
expect TOPIC_ALREADY_EXISTS create admin_a 7 1
expect INVALID_PARTITIONS create admin_b 0 1
expect INVALID_REPLICATION_FACTOR create admin_b 1 3
expect TOPIC_EXCEPTION create 'bad/name' 1 1
expect INVALID_CONFIG create admin_b 1 1 no.such.config=1
expect NO_ERROR create-validate admin_validated 3 1
expect NO_ERROR create admin_defaults -1 -1 cleanup.policy=delete retention.ms=3600000

want=$(printf 'admin_a 7\nadmin_defaults 2\n')
got=$(topics)
[ "$got" = "$want" ] || gr_fail "topics after the creates: '$got', want '$want'"

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t admin_a -n 700 -w 60) || gr_fail "admin_a unusable: $out"
grep -q "consumed=700 partitions=7 ok$" <<<"$out" || gr_fail "admin_a: $out"

expect NO_ERROR delete admin_a
expect UNKNOWN_TOPIC_OR_PART delete admin_a
expect UNKNOWN_TOPIC_OR_PART delete admin_never_was
got=$(topics)
[ "$got" = "admin_defaults 2" ] || gr_fail "topics after the delete: '$got', want 'admin_defaults 2'"
# Its partition dirs leave the log dir (Kafka renames them to *-delete first).
partition_dirs_gone()
{
    local p
    for p in 0 1 2 3 4 5 6; do [ ! -d "$GR_TMP/logs/admin_a-$p" ] || return 1; done
}
gr_wait_until 30 "admin_a's partition dirs to leave the log dir" partition_dirs_gone

# The name can be used again, from scratch.
expect NO_ERROR create admin_a 1 1
count=$(gr_kcat -C -t admin_a -p 0 -o beginning -e -q -f '%o\n' | wc -l)
[ "$count" = 0 ] || gr_fail "re-created admin_a holds $count old records"
gr_pass
