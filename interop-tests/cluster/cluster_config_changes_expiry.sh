#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# /config/changes notifications expire, as in Kafka (15 minutes there; here
# gregor.config.change.expiration.ms, lowered): config changes made through
# gregor-admin leave config_change_NNNNNNNNNN nodes in ZooKeeper; once older
# than the expiry the brokers delete them, with no further change arriving
# (the periodic purge), while another znode there is left alone. A fresh
# change is then applied by every broker (DescribeConfigs on each) and its
# notification is not deleted while younger than the expiry; it goes in turn.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
TOPIC=expiring
EXPIRY_MS=8000
CHANGES=$CL_ZK_CHROOT/config/changes

cl_start_cluster 3 gregor.config.change.expiration.ms=$EXPIRY_MS
[ "$(cl_state 0 create $TOPIC 3 3)" = 0 ] || gr_fail "creating $TOPIC failed"
cl_wait_all_led $TOPIC 3

alter()
{
    "$ADMIN" --bootstrap-server "$(cl_addr "$1")" configs alter --topic $TOPIC --add-config "retention.ms=$2" \
        >"$GR_TMP/cli.out" 2>&1 || gr_fail "configs alter retention.ms=$2 through broker $1: $(cat "$GR_TMP/cli.out")"
}
# The config_change_* names under /config/changes, one a line.
notifications()
{
    local out
    out=$(cl_zk ls "$CHANGES") || gr_fail "zkCli ls $CHANGES failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
    tr -d '[],' <<<"$out" | tr ' ' '\n' | grep '^config_change_' || true
}
# shellcheck disable=SC2317
none_of()
{
    local now name
    now=$(notifications)
    for name in "$@"; do
        ! grep -qx "$name" <<<"$now" || return 1
    done
}
# shellcheck disable=SC2317
config_is()
{
    local got
    got=$("$ADMIN" --bootstrap-server "$(cl_addr "$1")" configs describe --topic $TOPIC --json 2>/dev/null |
        "$GR_PYTHON" -c "import json,sys; print([c['value'] for c in json.load(sys.stdin) if c['name']=='retention.ms'])") || return 1
    [ "$got" = "['$2']" ]
}
now_ms() { date +%s%3N; }

# Something else under /config/changes is not a notification: never deleted.
cl_zk create "$CHANGES/not_a_notification" "" >/dev/null || gr_fail "zkCli create under $CHANGES failed"

for value in 1111111 2222222 3333333; do alter 0 $value; done
mapfile -t old < <(notifications)
[ "${#old[@]}" -ge 3 ] || gr_fail "want at least 3 notifications after 3 changes, $CHANGES holds: ${old[*]}"
gr_note "notifications: ${old[*]}"
for i in 0 1 2; do
    gr_wait_until "$CL_WAIT_S" "broker $i describing retention.ms=3333333" config_is "$i" 3333333
done

gr_wait_until "$CL_WAIT_S" "the notifications ${old[*]} to be deleted" none_of "${old[@]}"
cl_zk ls "$CHANGES" | grep -q not_a_notification || gr_fail "$CHANGES/not_a_notification was deleted"

# A fresh change: applied everywhere, its notification kept while young.
before=$(now_ms)
alter 1 4444444
mapfile -t fresh < <(notifications)
listed=$(now_ms)
[ "${#fresh[@]}" -ge 1 ] || [ $((listed - before)) -gt $EXPIRY_MS ] ||
    gr_fail "the fresh notification is gone $((listed - before)) ms after the change, before the ${EXPIRY_MS} ms expiry"
for i in 0 1 2; do
    gr_wait_until "$CL_WAIT_S" "broker $i describing retention.ms=4444444" config_is "$i" 4444444
done
gr_wait_until "$CL_WAIT_S" "the fresh notifications ${fresh[*]} to be deleted in turn" none_of "${fresh[@]}"
cl_zk ls "$CHANGES" | grep -q not_a_notification || gr_fail "$CHANGES/not_a_notification was deleted"
gr_pass
