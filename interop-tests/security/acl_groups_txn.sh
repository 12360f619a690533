#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACLs on consumer groups and transactional ids, as User:ANONYMOUS with
# allow.everyone.if.no.acl.found=true: a group only bob may READ refuses a
# kcat -G consumer (GROUP_AUTHORIZATION_FAILED from FindCoordinator) while
# another group works; a transactional id only bob may WRITE refuses
# init_transactions (TRANSACTIONAL_ID_AUTHORIZATION_FAILED) while another
# commits; removing the ACLs lets both through.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true \
    offsets.topic.replication.factor=1 transaction.state.log.replication.factor=1 \
    transaction.state.log.min.isr=1
acl_expect_allowed "produce the record to read" acl_produce events

acl_add --allow-principal User:bob --operation Read --group bobs
acl_expect_refused "consume in bob's group" "GROUP_AUTHORIZATION_FAILED" \
    acl_group_consume bobs events
acl_expect_allowed "consume in another group" acl_group_consume others events

acl_add --allow-principal User:bob --producer --transactional-id bob-tx
acl_expect_refused "a transaction with bob's id" "Transactional Id authorization failed" \
    acl_txn_produce bob-tx events
acl_expect_allowed "a transaction with another id" acl_txn_produce other-tx events

acl_remove --group bobs
acl_remove --transactional-id bob-tx
acl_expect_allowed "consume in the group once open" acl_group_consume bobs events
acl_expect_allowed "the transactional id once open" acl_txn_produce bob-tx events
gr_pass
