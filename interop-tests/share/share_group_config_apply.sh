#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The share-partition leader applies a group's configs (gregor-admin
# configs --entity-type groups): with records produced before any group
# exists, share.auto.offset.reset=earliest and by_duration:PT1H deliver
# them all, the default (latest) none of them but the later ones;
# share.isolation.level=read_uncommitted delivers the records of an open
# transaction (progs/txn_producer left hanging), which a read_committed
# group (the default) never gets past; share.record.lock.duration.ms is
# announced as ShareFetch's AcquisitionLockTimeoutMillis.
SH_TIMEOUT_S=${SH_TIMEOUT_S:-20}
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor
topic=share_cfg

gr_start_broker
sh_topic $topic 1
sh_produce $topic old 1 4
set_cfg()
{
    local out
    out=$(sh_admin configs alter --entity-type groups --entity-name "$1" --add-config "$2" 2>&1) ||
        gr_fail "setting $2 on $1: $out"
}
set_cfg early share.auto.offset.reset=earliest
set_cfg dur share.auto.offset.reset=by_duration:PT1H
set_cfg ru share.auto.offset.reset=earliest,share.isolation.level=read_uncommitted
set_cfg rc share.auto.offset.reset=earliest
set_cfg lk share.record.lock.duration.ms=20000
sh_init late $topic

values() { cut -d' ' -f3 "$GR_TMP/$1.out" | sort | paste -sd' '; }
sh_take early "earliest" --group early --topic $topic --count 4
sh_expect "earliest: the old records" "old-1 old-2 old-3 old-4" "$(values early)"
sh_take dur "by_duration" --group dur --topic $topic --count 4
sh_expect "by_duration:PT1H: the old records" "old-1 old-2 old-3 old-4" "$(values dur)"
sh_produce $topic new 1 2
sh_take late "latest" --group late --topic $topic --count 2
sh_expect "latest: only the new records" "new-1 new-2" "$(values late)"

tx_start open -t $topic -i share-cfg -l tx -n 3 -e hang -T 600000
tx_wait_line open '^hanging '
sh_produce $topic after 1 1
sh_take ru "read_uncommitted" --group ru --topic $topic --count 10
sh_expect "read_uncommitted: the open transaction's records too" \
    "after-1 new-1 new-2 old-1 old-2 old-3 old-4 tx-0-0 tx-0-1 tx-0-2" "$(values ru)"
# read_committed stops at the open transaction: a 7th record never comes.
rc=0
sh_client --group rc --topic $topic --count 7 --timeout 2 --out "$GR_TMP/rc.out" \
    2>"$GR_TMP/rc.err" || rc=$?
sh_expect "read_committed: times out" 3 "$rc"
sh_expect "read_committed: below the open transaction" \
    "new-1 new-2 old-1 old-2 old-3 old-4" "$(values rc)"
tx_signal open TERM
tx_wait_exit open 0

lock_ms()
{
    PYTHONPATH=$GR_INTEROP_DIR/py timeout 30 "$GR_PYTHON" -c '
import sys, time, share_client as sc
c = sc.ShareConsumer(sys.argv[1], sys.argv[2], [sys.argv[3]])
end = time.time() + 20
while c.lock_timeout_ms is None and time.time() < end:
    c.poll()
print(c.lock_timeout_ms)
c.close()' "$(sh_bootstrap)" "$1" $topic
}
sh_expect "the group's lock duration announced" 20000 "$(lock_ms lk)"
sh_expect "the broker's lock duration announced" 30000 "$(lock_ms late)"

gr_stop_broker
gr_check_log
gr_pass
