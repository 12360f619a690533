#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Metadata through kcat -L: the broker lists itself at the address it listens
# on, and a topic auto-created by producing to it (auto.create.topics.enable
# defaults to true) is listed with its partition, leader and no error.
. "$(dirname "$0")/../lib/lib.sh"

gr_start_broker

out=$(gr_kcat -L)
echo "$out" >&2
grep -Eq "^ *1 brokers:" <<<"$out" || gr_fail "kcat -L does not report exactly one broker"
grep -Eq "broker [0-9]+ at 127\.0\.0\.1:$GR_PORT" <<<"$out" ||
    gr_fail "kcat -L does not list the broker at 127.0.0.1:$GR_PORT"

echo "hello" | gr_kcat -P -t auto_created_topic
out=$(gr_kcat -L -t auto_created_topic)
echo "$out" >&2
grep -Eq "topic \"auto_created_topic\" with $GR_AUTO_PARTITIONS partitions:" <<<"$out" ||
    gr_fail "auto-created topic not listed with $GR_AUTO_PARTITIONS partition(s)"
grep -Eq 'partition 0, leader [0-9]+, replicas: [0-9]+, isrs: [0-9]+' <<<"$out" ||
    gr_fail "partition 0 not listed with leader, replicas and ISR"
if grep -Eqi 'err|error' <<<"$out"; then gr_fail "kcat -L reports an error"; fi

# The whole-cluster listing includes it as well.
gr_kcat -L | grep -q 'topic "auto_created_topic"' || gr_fail "topic missing from the full listing"

# And the record is there.
got=$(gr_kcat -C -t auto_created_topic -o beginning -e -q)
[ "$got" = hello ] || gr_fail "consumed \"$got\", want \"hello\""
gr_pass
