#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Share groups read committed (KIP-932's default isolation): progs/
# txn_producer writes four transactions of 5 records, committed, aborted,
# committed, aborted, between plain records from kcat. A share consumer
# (py/share_client.py) gets exactly the plain records and those of the
# committed transactions, each once with delivery count 1; the aborted
# records and the transaction markers are never acquired (the consumer
# reads up to a last plain record, so any of them would come before it).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_rc
group=rc-g

gr_start_broker
sh_topic $topic 1
sh_init $group $topic
sh_produce $topic plain 1 3
tx_produce txn -t $topic -i share-rc -l tx -n 5 -r 4 -e alternate -T 30000
sh_produce $topic plain 4 6

{
    seq 1 6 | sed 's/^/plain-/'
    for t in 0 2; do seq 0 4 | sed "s/^/tx-$t-/"; done
} | sort >"$GR_TMP/want"
want=$(sh_lines "$GR_TMP/want")
sh_take rc "read committed" --group $group --topic $topic --ack accept --count "$want"
sh_expect "the values delivered" "$(cat "$GR_TMP/want")" "$(cut -d' ' -f3 "$GR_TMP/rc.out" | sort)"
sh_expect "delivery counts" 1 "$(cut -d' ' -f2 "$GR_TMP/rc.out" | sort -u | paste -sd' ')"
gr_pass
