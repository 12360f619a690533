#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quota entities in ZooKeeper, as Kafka lays them out: a (user, client-id)
# quota written through gregor-admin creates /config/users/<u>/clients/<c>
# with its parents, and an alteration refused because its path would be too
# long for the store leaves no node behind (not even the user's parent).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
USERS=$CL_ZK_CHROOT/config/users

cl_start_cluster 1

# alter <user> <client>: sets a produce quota on the pair through the broker.
alter()
{
    "$ADMIN" --bootstrap-server "$(cl_addr 0)" configs --alter --entity-type users --entity-name "$1" \
        --entity-type clients --entity-name "$2" --add-config producer_byte_rate=1000 \
        >"$GR_TMP/cli.out" 2>&1
}

alter alice app || gr_fail "a quota for (alice, app) was refused: $(cat "$GR_TMP/cli.out")"
doc=$(cl_zk get "$USERS/alice/clients/app") || gr_fail "no $USERS/alice/clients/app after the alteration"
grep -q '"producer_byte_rate":"1000"' <<<"$doc" || gr_fail "$USERS/alice/clients/app holds '$doc'"

# Names at most 256 bytes, whose escaped path (each '@' becomes %40) fits
# the entity's own limit, 1017 bytes, but not the store's once /config/ is
# in front.
long_user=$(printf '@%.0s' {1..200})
long_client=$(printf '@%.0s' {1..134})
! alter "$long_user" "$long_client" || gr_fail "a quota whose znode path exceeds the store's limit was accepted"
grep -q INVALID_REQUEST "$GR_TMP/cli.out" || gr_fail "the over-long alteration failed with: $(cat "$GR_TMP/cli.out")"
users=$(cl_zk ls "$USERS") || gr_fail "zkCli ls $USERS failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
[ "$(tr -d '[] ' <<<"$users")" = alice ] || gr_fail "after the refused alteration $USERS lists $users, not only alice"
gr_pass
