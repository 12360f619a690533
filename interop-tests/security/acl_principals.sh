#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ACLs for named principals over SASL/PLAIN (kcat), with no
# allow.everyone.if.no.acl.found: super user admin produces to orders with no
# ACL; alice is refused (Topic authorization failed, a log line naming
# User:alice) and Metadata leaves orders out of her list and answers
# TOPIC_AUTHORIZATION_FAILED when she names it; after --producer on orders she
# produces but may not consume in group g1 (GROUP_AUTHORIZATION_FAILED); after
# --consumer on orders and g1 she reads both records in g1 and its committed
# offset is 2; bob, another principal, is still refused, and sees no orders;
# once DeleteAcls removes alice's ACLs she is refused again.
#
# gregor-admin's --command-config has no SASL keys yet, so the tool speaks to
# the PLAINTEXT listener as User:ANONYMOUS, made a super user for that.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_sasl_start_broker authorizer.class.name=$ACL_AUTHORIZER "super.users=User:admin;User:ANONYMOUS"
ACL_BOOTSTRAP=$GR_SASL_BOOTSTRAP
acl_admin topics create --topic orders --partitions 1 --replication-factor 1 >/dev/null ||
    gr_fail "topics create orders"

# Prints the topics Metadata for all topics lists to USER, one per line.
listed_topics()
{
    gr_sasl_kcat PLAIN "$1" "$1-secret" -L | sed -n 's/^ *topic "\([^"]*\)" with .*/\1/p'
}

acl_as admin acl_expect_allowed "super user admin produces with no ACL" acl_produce orders
[ "$(listed_topics admin)" = orders ] || gr_fail "admin's metadata: '$(listed_topics admin)'"

acl_as alice acl_expect_refused "alice produces with no ACL" "Topic authorization failed" \
    acl_produce orders
gr_broker_log | grep -q "principal User:alice denied .* on Topic:orders from 127.0.0.1" ||
    gr_fail "no log line for alice's refusal"
[ -z "$(listed_topics alice)" ] || gr_fail "alice's metadata lists '$(listed_topics alice)'"
gr_sasl_kcat PLAIN alice alice-secret -L -t orders >"$GR_TMP/md" 2>&1 || true
grep -q 'topic "orders" with 0 partitions: Broker: Topic authorization failed' "$GR_TMP/md" ||
    gr_fail "alice's metadata for orders: $(cat "$GR_TMP/md")"

acl_add --allow-principal User:alice --producer --topic orders
acl_as alice acl_expect_allowed "alice produces with --producer" acl_produce orders
[ "$(listed_topics alice)" = orders ] || gr_fail "alice's metadata: '$(listed_topics alice)'"
acl_as alice acl_expect_refused "alice consumes in g1 with --producer only" \
    GROUP_AUTHORIZATION_FAILED acl_group_consume g1 orders

acl_add --allow-principal User:alice --consumer --topic orders --group g1
gr_sasl_kcat PLAIN alice alice-secret -G g1 orders -o beginning -e -q >"$GR_TMP/got" ||
    gr_fail "alice's consumer in g1 failed"
[ "$(grep -c acl-record "$GR_TMP/got")" = 2 ] || gr_fail "alice read in g1: $(cat "$GR_TMP/got")"
acl_admin groups describe --group g1 >"$GR_TMP/g1" || gr_fail "groups describe g1"
grep -qE '^g1 +orders +0 +2 +2 +0 +- +- +-$' "$GR_TMP/g1" || gr_fail "g1's offsets: $(cat "$GR_TMP/g1")"

acl_as bob acl_expect_refused "bob produces" "Topic authorization failed" acl_produce orders
acl_as bob acl_expect_refused "bob consumes in g1" GROUP_AUTHORIZATION_FAILED \
    acl_group_consume g1 orders
[ -z "$(listed_topics bob)" ] || gr_fail "bob's metadata lists '$(listed_topics bob)'"

acl_remove --allow-principal User:alice --producer --topic orders
acl_as alice acl_expect_refused "alice produces after DeleteAcls" "Topic authorization failed" \
    acl_produce orders
acl_as alice acl_expect_allowed "alice still reads (her --consumer ACLs are left)" \
    acl_consume orders
acl_remove --topic orders --group g1
acl_as alice acl_expect_refused "alice consumes in g1 after DeleteAcls" \
    GROUP_AUTHORIZATION_FAILED acl_group_consume g1 orders
[ -z "$(listed_topics alice)" ] || gr_fail "alice's metadata lists '$(listed_topics alice)'"
[ -z "$(acl_list)" ] || gr_fail "ACLs left: $(acl_list)"
gr_pass
