#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A topic with 5000 partitions (auto-created with num.partitions=5000): one
# record produced to each partition, all read back (record i in partition i),
# and the broker's open file descriptors stay under a cap. Gregor caps open
# segment fds at GR_BROKER_MAX_OPEN_SEGMENTS (8192, src/broker/broker.h, not
# a config key); the cap here adds room for sockets and the rest.
. "$(dirname "$0")/../lib/lib.sh"

partitions=${GR_MANY_PARTITIONS:-5000}
# Creating 5000 partitions may take a while; let the client wait for it.
GR_CMD_TIMEOUT_S=${GR_MANY_PARTITIONS_TIMEOUT_S:-200}
fd_cap=${GR_MANY_PARTITIONS_FD_CAP:-$((8192 + 512))}
gr_start_broker num.partitions="$partitions"

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t many -E -s 64 -w 150) ||
    gr_fail "one record per partition did not round-trip: $(tail -n 1 <<<"$out")"
echo "$out" >&2
[ "$GR_BROKER_KIND" != gregor ] || grep -q "consumed=$partitions partitions=$partitions ok$" <<<"$out" ||
    gr_fail "unexpected outcome: $out"
gr_kcat -L -t many | grep -q "with $partitions partitions" || [ "$GR_BROKER_KIND" != gregor ] ||
    gr_fail "kcat -L does not show $partitions partitions"

fds=$(ls "/proc/$GR_PID/fd" | wc -l)
gr_note "broker has $fds open file descriptors with $partitions partitions (cap $fd_cap)"
[ "$fds" -le "$fd_cap" ] || gr_fail "broker holds $fds open fds, over the cap of $fd_cap"
gr_pass
