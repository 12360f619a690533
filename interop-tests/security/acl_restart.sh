#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACLs persist in single-node mode's metadata store, in Kafka's znodes: after
# a restart the literal and prefixed ACLs are listed again and still refuse;
# the store holds /kafka-acl/Topic/<name> and the prefixed node.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
acl_add --allow-principal User:bob --operation Read --operation Write --topic kept
acl_add --deny-principal User:ANONYMOUS --allow-host '*' --operation All --topic p- \
    --resource-pattern-type prefixed
acl_list >"$GR_TMP/before"

gr_restart_broker
acl_list >"$GR_TMP/after"
cmp -s "$GR_TMP/before" "$GR_TMP/after" ||
    gr_fail "ACLs changed over a restart: $(diff "$GR_TMP/before" "$GR_TMP/after")"
grep -q "loaded 3 ACL(s)" <(gr_broker_run_log) || gr_fail "the restart did not load 3 ACLs"
acl_expect_refused "produce to kept after the restart" "Topic authorization failed" acl_produce kept
acl_expect_refused "produce under p- after the restart" "Topic authorization failed" acl_produce p-1
acl_expect_allowed "an unrelated topic" acl_produce free

store=$(find "$GR_TMP" -path '*__gregor_metadata*' -type f -name metadata | head -n 1)
[ -n "$store" ] || gr_fail "no metadata store file"
for node in /kafka-acl/Topic/kept /kafka-acl-extended/prefixed/Topic/p-; do
    grep -aqF "$node" "$store" || gr_fail "no $node in the store"
done
gr_pass
