#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# acks=0, 1 and all (-1): every record is delivered and reads back intact.
# With acks=0 the producer gets no response, so the consumer side waits for
# the full count under its deadline.
. "$(dirname "$0")/../lib/lib.sh"

gr_start_broker
for acks in 0 1 all -1; do
    topic="acks_${acks/-/minus}"
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "$topic" -n 2000 -a "$acks" -w 60) ||
        gr_fail "acks=$acks: $out"
    echo "$out" >&2
    grep -q "acked=2000 failed=0 consumed=2000 .* ok$" <<<"$out" || gr_fail "acks=$acks: $out"
done
gr_pass
