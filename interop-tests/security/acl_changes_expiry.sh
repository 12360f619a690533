#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACL change notifications expire as Kafka's do (15 minutes there; here
# gregor.config.change.expiration.ms, lowered): /kafka-acl-changes and
# /kafka-acl-extended-changes notifications older than that are deleted when
# the broker next lists them, and the ACLs themselves stay.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true \
    gregor.config.change.expiration.ms=1000
acl_add --allow-principal User:bob --operation Read --topic first
acl_add --allow-principal User:bob --operation Read --topic pre- --resource-pattern-type prefixed
store=$(find "$GR_TMP" -path '*__gregor_metadata*' -type f -name metadata | head -n 1)
[ -n "$store" ] || gr_fail "no metadata store file"
# The store's nodes now (its snapshot with its journal replayed).
store_nodes() { python3 "$GR_INTEROP_DIR/py/store_nodes.py" "$(dirname "$store")"; }
for node in kafka-acl-changes/acl_changes_0000000000 kafka-acl-extended-changes/acl_changes_0000000000; do
    store_nodes | grep -aqF "$node" || gr_fail "no $node after the first changes"
done

# Every change lists the notifications: keep changing one ACL until the first ones are gone.
n=0
# shellcheck disable=SC2317
first_ones_gone()
{
    n=$((n + 1))
    acl_add --allow-principal "User:u$n" --operation Read --topic churn
    acl_add --allow-principal "User:u$n" --operation Read --topic churn- --resource-pattern-type prefixed
    local nodes
    nodes=$(store_nodes)
    ! grep -aqF kafka-acl-changes/acl_changes_0000000000 <<<"$nodes" &&
        ! grep -aqF kafka-acl-extended-changes/acl_changes_0000000000 <<<"$nodes"
}
gr_wait_until 60 "the first notifications expire" first_ones_gone
acl_list --topic first | grep -qF 'principal=User:bob' || gr_fail "the ACL of first is gone"
gr_pass
