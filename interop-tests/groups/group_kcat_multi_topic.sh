#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kcat -G (librdkafka's balanced consumer) with a subscription to several
# topics: one group reads two topics (3 and 2 partitions) to their ends; a
# second group subscribes by regex (^mt_) and gets a third topic too; after
# more records arrive in every topic, the first group resumes at its commits
# and reads only the new records of its two topics.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/grouplib.sh"

GR_CMD_TIMEOUT_S=${GR_GROUP_READ_TIMEOUT_S:-60}
gm_topic mt_a 3
gm_topic mt_b 2
gm_topic mt_c 1
gm_start_broker
produce() # topic first last
{
    local p
    for p in $(seq 0 $((${GM_TOPIC_PARTITIONS[$1]} - 1))); do
        seq "$2" "$3" | sed "s/^/$1-p$p-/" | gr_kcat -P -t "$1" -p "$p"
    done
}
group_read() # group topic...
{
    local group=$1
    shift
    gr_kcat -G "$group" -e -q -f '%s\n' -X auto.offset.reset=earliest "$@" | sort
}
expect() # topic first last: the values produce wrote, sorted
{
    local p
    for p in $(seq 0 $((${GM_TOPIC_PARTITIONS[$1]} - 1))); do seq "$2" "$3" | sed "s/^/$1-p$p-/"; done
}
produce mt_a 1 20
produce mt_b 1 20
produce mt_c 1 20

got=$(group_read mt_two mt_a mt_b) || gr_fail "kcat -G over mt_a mt_b failed"
want=$( (expect mt_a 1 20; expect mt_b 1 20) | sort)
[ "$got" = "$want" ] || gr_fail "group mt_two read $(wc -l <<<"$got") records, want $(wc -l <<<"$want"): $(diff <(echo "$want") <(echo "$got") | head -n 4 | tr '\n' ';')"

got=$(group_read mt_regex '^mt_.*') || gr_fail "kcat -G over ^mt_.* failed"
want=$( (expect mt_a 1 20; expect mt_b 1 20; expect mt_c 1 20) | sort)
[ "$got" = "$want" ] || gr_fail "group mt_regex read $(wc -l <<<"$got") records, want $(wc -l <<<"$want")"

produce mt_a 21 30
produce mt_b 21 30
produce mt_c 21 30
got=$(group_read mt_two mt_a mt_b) || gr_fail "kcat -G over mt_a mt_b failed"
want=$( (expect mt_a 21 30; expect mt_b 21 30) | sort)
[ "$got" = "$want" ] || gr_fail "group mt_two after its commits read $(wc -l <<<"$got") records, want only the $(wc -l <<<"$want") new ones"
gr_pass
