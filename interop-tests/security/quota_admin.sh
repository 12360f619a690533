#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quota entities through gregor-admin (AlterClientQuotas,
# DescribeClientQuotas): client ids, users, (user, client id) and default
# entities set, described in kafka-configs.sh's words, changed, deleted;
# unknown keys and values <= 0 refused (exit 1); --validate-only writes
# nothing; everything survives a broker restart (read back from the store).
# kafka-python 2.0.2 has no quota admin calls, so only gregor-admin is used.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

gr_start_broker
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
expect()
{
    local want=$1 got
    shift
    got=$(ga configs --describe "$@") || gr_fail "describe $*"
    [ "$got" = "$want" ] || gr_fail "describe $*: got '$got', want '$want'"
}

ga configs --alter --entity-type clients --entity-name C1 \
    --add-config 'producer_byte_rate=1024,consumer_byte_rate=2048' >/dev/null || gr_fail "alter C1"
ga configs --alter --entity-type users --entity-name alice --entity-type clients \
    --entity-name C1 --add-config request_percentage=12.5 >/dev/null || gr_fail "alter alice/C1"
ga configs --alter --entity-type users --entity-default --add-config producer_byte_rate=99 \
    >/dev/null || gr_fail "alter default user"
ga configs --alter --client-defaults --add-config consumer_byte_rate=5 >/dev/null ||
    gr_fail "alter default client"

check_all()
{
    expect "Quota configs for client-id 'C1' are producer_byte_rate=1024.0, consumer_byte_rate=2048.0" \
        --entity-type clients --entity-name C1
    expect "Quota configs for user-principal 'alice', client-id 'C1' are request_percentage=12.5" \
        --entity-type users --entity-name alice --entity-type clients --entity-name C1
    expect "Quota configs for the default user-principal are producer_byte_rate=99.0" \
        --entity-type users --entity-default
    expect "Quota configs for the default client-id are consumer_byte_rate=5.0" --client-defaults
    [ "$(ga configs --describe --entity-type clients | wc -l)" = 2 ] || gr_fail "describe all clients"
}
check_all

rc=0
ga configs --alter --entity-type clients --entity-name C1 --add-config bogus=1 2>/dev/null || rc=$?
[ $rc = 1 ] || gr_fail "unknown key: exit $rc"
rc=0
ga configs --alter --entity-type clients --entity-name C1 --add-config producer_byte_rate=0 \
    2>/dev/null || rc=$?
[ $rc = 1 ] || gr_fail "zero quota: exit $rc"
ga configs --alter --entity-type clients --entity-name C2 --add-config producer_byte_rate=7 \
    --validate-only >/dev/null || gr_fail "validate-only"
expect "" --entity-type clients --entity-name C2

gr_restart_broker
check_all

ga configs --alter --entity-type clients --entity-name C1 --delete-config producer_byte_rate \
    >/dev/null || gr_fail "delete"
expect "Quota configs for client-id 'C1' are consumer_byte_rate=2048.0" \
    --entity-type clients --entity-name C1
ga configs --alter --entity-type clients --entity-name C1 --delete-config consumer_byte_rate \
    >/dev/null || gr_fail "delete the last"
expect "" --entity-type clients --entity-name C1
gr_restart_broker
expect "" --entity-type clients --entity-name C1
gr_pass
