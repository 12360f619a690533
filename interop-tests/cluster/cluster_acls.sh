#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACLs in a 3-broker ZooKeeper cluster: created through broker 0, they reach
# brokers 1 and 2 through /kafka-acl-changes (and the prefixed ones through
# /kafka-acl-extended-changes): each lists them from its own cache and
# refuses User:ANONYMOUS; removed through broker 2, every broker serves the
# topic again. Kafka's znodes are where kafka-acls.sh would put them.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
source "$(dirname "$0")/../lib/acllib.sh"
cl_require

# No ACL names the cluster, so the brokers' own requests (CLUSTER_ACTION) pass.
cl_start_cluster 3 authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
[ "$(cl_state 0 create guarded 3 3)" = 0 ] || gr_fail "creating guarded failed"
cl_wait_all_led guarded 3
ALL=$GR_BOOTSTRAP

# The ACLs broker I lists from its cache, one entry a line.
acls_on() { GR_BOOTSTRAP=$(cl_addr "$1") acl_list 2>/dev/null | grep principal || true; }
# shellcheck disable=SC2317
has_acls() { [ "$(acls_on "$1" | wc -l)" -eq "$2" ]; }

GR_BOOTSTRAP=$(cl_addr 0)
acl_add --allow-principal User:bob --operation Write --topic guarded
acl_add --allow-principal User:bob --operation Read --topic g- --resource-pattern-type prefixed
for i in 1 2; do
    gr_wait_until 30 "broker $i lists both ACLs" has_acls "$i" 2
done
for i in 0 1 2; do
    GR_BOOTSTRAP=$(cl_addr "$i")
    acl_expect_refused "produce through broker $i" "Topic authorization failed" acl_produce guarded
    acl_expect_refused "consume g-1 through broker $i" "authoriz" acl_consume g-1
done
GR_BOOTSTRAP=$ALL
acl_expect_allowed "an unrelated topic" acl_produce open

[ "$(cl_zk get "$CL_ZK_CHROOT/kafka-acl/Topic/guarded" | grep -c '"principal":"User:bob"')" = 1 ] ||
    gr_fail "no /kafka-acl/Topic/guarded node with bob's ACL"

GR_BOOTSTRAP=$(cl_addr 2)
acl_remove --topic guarded
acl_remove --topic g- --resource-pattern-type prefixed
for i in 0 1; do
    gr_wait_until 30 "broker $i lists no ACL" has_acls "$i" 0
done
GR_BOOTSTRAP=$ALL
acl_expect_allowed "produce once the ACLs are gone" acl_produce guarded
acl_expect_allowed "consume once the ACLs are gone" acl_consume guarded
gr_pass
