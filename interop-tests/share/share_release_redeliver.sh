#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a share group does with released and rejected records, on a broker
# with group.share.delivery.count.limit=2 (py/share_client.py):
#  - RELEASE makes a record available again: the same member gets it back
#    with delivery count 2 (--ack release-first: released on the first
#    delivery, accepted on the second);
#  - REJECT archives a record: a later consumer of the group never gets it;
#  - a record released at its second delivery reached the delivery count
#    limit and is archived too: never delivered a third time.
# Each later consumer reads up to a record produced after the others, so
# anything the group still had to deliver would come before it.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_release
group=release-g

gr_start_broker group.share.delivery.count.limit=2
sh_topic $topic 1
sh_init $group $topic
# A consumer's records, "offset delivery_count value", by offset and count.
lines() { cut -d' ' -f1-3 "$1" | sort -k1,1n -k2,2n | paste -sd' '; }

# Released, then redelivered with delivery count 2 and accepted.
sh_produce $topic r 0 2
sh_take released "release, then accept" --group $group --topic $topic --ack release-first --count 6 \
    --acked "$GR_TMP/released.acked"
sh_expect "released records come back with delivery count 2" \
    "0 1 r-0 0 2 r-0 1 1 r-1 1 2 r-1 2 1 r-2 2 2 r-2" "$(lines "$GR_TMP/released.out")"
sh_expect "acknowledgements answered" "0 1 release 0 2 accept 1 1 release 1 2 accept 2 1 release 2 2 accept" \
    "$(lines "$GR_TMP/released.acked")"

# Rejected: never delivered again.
sh_produce $topic j 0 2
sh_take rejected "reject" --group $group --topic $topic --ack reject --count 3
sh_expect "rejected records" "3 1 j-0 4 1 j-1 5 1 j-2" "$(lines "$GR_TMP/rejected.out")"
sh_produce $topic after-reject 0 0
sh_take after_reject "after the rejections" --group $group --topic $topic --ack accept --count 1
sh_expect "after the rejections" "6 1 after-reject-0" "$(lines "$GR_TMP/after_reject.out")"

# Released twice with a delivery count limit of 2: archived.
sh_produce $topic twice 0 0
sh_take twice "release twice" --group $group --topic $topic --ack release --count 2
sh_expect "released twice" "7 1 twice-0 7 2 twice-0" "$(lines "$GR_TMP/twice.out")"
sh_produce $topic after-limit 0 0
sh_take after_limit "after the limit" --group $group --topic $topic --ack accept --count 1
sh_expect "after the limit" "8 1 after-limit-0" "$(lines "$GR_TMP/after_limit.out")"
gr_pass
