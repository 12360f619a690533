#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# message.max.bytes: a batch over the broker's limit (default 1048588) is
# refused with MESSAGE_TOO_LARGE, seen by librdkafka as the delivery report
# error MSG_SIZE_TOO_LARGE (the client's own limit is raised so that the
# refusal is the broker's, not a local check); with the broker's limit raised
# to 2 MiB (--override message.max.bytes=2097152) the same 1 MiB records
# round-trip, the consumer getting each batch even though it is larger than
# max.partition.fetch.bytes (1 MiB).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor # librdkafka's mock cluster does not enforce message.max.bytes

mib=1048576
gr_start_broker

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t too_large -n 2 -s $mib -m produce -w 60 \
    -X message.max.bytes=10000000 -x MSG_SIZE_TOO_LARGE) ||
    gr_fail "1 MiB records at the default limit were not refused with MESSAGE_TOO_LARGE: $out"
echo "$out" >&2
grep -q "acked=0 failed=2" <<<"$out" || gr_fail "unexpected outcome: $out"

# A record just under the limit (the batch overhead included) is accepted.
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t under_limit -n 1 -s $((mib - 512)) -w 60 \
    -X message.max.bytes=10000000) ||
    gr_fail "a record just under the default limit failed: $out"

gr_stop_broker
gr_start_broker message.max.bytes=2097152
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t large_ok -n 3 -s $mib -w 60 \
    -X message.max.bytes=10000000) ||
    gr_fail "1 MiB records with message.max.bytes=2097152 did not round-trip: $out"
echo "$out" >&2
grep -q "acked=3 failed=0 consumed=3 .* ok$" <<<"$out" || gr_fail "unexpected outcome: $out"
gr_pass
