#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACLs for the only principal a PLAINTEXT listener has, User:ANONYMOUS, with
# allow.everyone.if.no.acl.found=true: an open topic is served; a topic with
# an ACL for someone else (User:bob) refuses kcat's produce and consume
# with "Topic authorization failed"; a prefixed DENY for ANONYMOUS closes
# every topic it covers; DeleteAcls opens them again; kafka-acls.sh's
# output format; then the authorizer refuses ACL changes once the cluster
# resource has an ACL that does not name ANONYMOUS (CLUSTER_AUTHORIZATION_FAILED).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true

acl_expect_allowed "produce to an open topic" acl_produce open
acl_expect_allowed "consume an open topic" acl_consume open

acl_add --allow-principal User:bob --operation All --topic closed
acl_expect_refused "produce to a topic only bob may use" "Topic authorization failed" \
    acl_produce closed
acl_expect_refused "consume a topic only bob may use" "authoriz" acl_consume closed
gr_broker_log | grep -q "principal User:ANONYMOUS denied .* on Topic:closed from 127.0.0.1" ||
    gr_fail "no log line for the refusal"

# kafka-acls.sh's format.
acl_list --topic closed >"$GR_TMP/list"
grep -qF 'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=closed, patternType=LITERAL)`:' \
    "$GR_TMP/list" || gr_fail "list: $(cat "$GR_TMP/list")"
grep -qF '(principal=User:bob, host=*, operation=ALL, permissionType=ALLOW)' "$GR_TMP/list" ||
    gr_fail "list: $(cat "$GR_TMP/list")"

# Prefixed ACLs: everyone may do anything under secret-, but a DENY of WRITE
# for ANONYMOUS wins over that ALLOW.
acl_expect_allowed "produce to secret-1 before the ACLs" acl_produce secret-1
acl_add --allow-principal 'User:*' --operation All --topic secret- --resource-pattern-type prefixed
acl_add --deny-principal User:ANONYMOUS --operation Write --topic secret- \
    --resource-pattern-type prefixed
acl_expect_refused "produce under a prefixed DENY" "Topic authorization failed" \
    acl_produce secret-2
acl_expect_allowed "consume is still allowed (the DENY is for WRITE)" acl_consume secret-1
acl_expect_allowed "a topic outside the prefix" acl_produce public

# Removing the ACLs opens the topics again.
acl_remove --topic closed
acl_remove --topic secret- --resource-pattern-type prefixed
acl_expect_allowed "produce after DeleteAcls" acl_produce closed
acl_expect_allowed "consume after DeleteAcls" acl_consume closed
acl_expect_allowed "produce under the removed prefix" acl_produce secret-2
[ -z "$(acl_list)" ] || gr_fail "ACLs left: $(acl_list)"

# Once the cluster has an ACL for someone else, ANONYMOUS may not change ACLs.
# (The tool's listing after the add is already refused: DESCRIBE on the cluster is gone too.)
acl_admin acls --add --allow-principal User:admin --operation Alter --cluster >"$GR_TMP/acl.out" 2>&1 || true
grep -q 'principal=User:admin' "$GR_TMP/acl.out" || gr_fail "cluster ACL: $(cat "$GR_TMP/acl.out")"
if acl_admin acls --add --allow-principal User:x --operation Read --topic t >/dev/null \
    2>"$GR_TMP/acl.err"; then
    gr_fail "CreateAcls allowed without ALTER on the cluster"
fi
grep -q CLUSTER_AUTHORIZATION_FAILED "$GR_TMP/acl.err" || gr_fail "$(cat "$GR_TMP/acl.err")"
gr_pass
