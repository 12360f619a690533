#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prefixed ACLs and DENY for named principals over SASL (kcat), with no
# allow.everyone.if.no.acl.found: --producer on the prefix logs- lets alice
# write logs-app but not other nor logs (the prefix is "logs-"), and not bob;
# carol, a SCRAM-SHA-256 user made by gregor-admin, is refused until an ACL
# names User:carol. On topic t, ALLOW User:* WRITE lets alice and bob write;
# a DENY of WRITE for User:bob then refuses bob while alice still writes, and
# DENY for User:* refuses alice too; removing the DENYs lets both write again.
#
# gregor-admin's --command-config has no SASL keys yet, so the tool speaks to
# the PLAINTEXT listener as User:ANONYMOUS, made a super user for that.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_sasl_start_broker authorizer.class.name=$ACL_AUTHORIZER "super.users=User:admin;User:ANONYMOUS"
ACL_BOOTSTRAP=$GR_SASL_BOOTSTRAP
for topic in logs-app other logs t; do
    acl_admin topics create --topic $topic --partitions 1 --replication-factor 1 >/dev/null ||
        gr_fail "topics create $topic"
done
acl_admin configs alter --entity-type users --entity-name carol \
    --add-config 'SCRAM-SHA-256=[iterations=4096,password=carol-secret]' >/dev/null ||
    gr_fail "SCRAM credential for carol"

acl_add --allow-principal User:alice --producer --topic logs- --resource-pattern-type prefixed
acl_as alice acl_expect_allowed "alice writes logs-app under her prefix" acl_produce logs-app
acl_as alice acl_expect_refused "alice writes other" "Topic authorization failed" acl_produce other
acl_as alice acl_expect_refused "alice writes logs (not under logs-)" "Topic authorization failed" \
    acl_produce logs
acl_as bob acl_expect_refused "bob writes logs-app" "Topic authorization failed" \
    acl_produce logs-app
ACL_SASL_MECHANISM=SCRAM-SHA-256 acl_as carol acl_expect_refused "carol writes logs-app" \
    "Topic authorization failed" acl_produce logs-app
acl_add --allow-principal User:carol --producer --topic logs- --resource-pattern-type prefixed
ACL_SASL_MECHANISM=SCRAM-SHA-256 acl_as carol acl_expect_allowed \
    "carol writes logs-app with her ACL" acl_produce logs-app

# DENY wins over ALLOW, whichever principal pattern each names.
acl_add --allow-principal 'User:*' --operation Write --topic t
acl_as alice acl_expect_allowed "alice writes t (User:*)" acl_produce t
acl_as bob acl_expect_allowed "bob writes t (User:*)" acl_produce t
acl_add --deny-principal User:bob --operation Write --topic t
acl_as bob acl_expect_refused "bob writes t under his DENY" "Topic authorization failed" \
    acl_produce t
gr_broker_run_log_has "principal User:bob denied WRITE on Topic:t from 127.0.0.1" ||
    gr_fail "no log line for bob's DENY"
acl_as alice acl_expect_allowed "alice writes t beside bob's DENY" acl_produce t
acl_add --allow-principal User:alice --operation All --topic t
acl_add --deny-principal 'User:*' --operation Write --topic t
acl_as alice acl_expect_refused "alice writes t under DENY User:* (her ALLOW All too)" \
    "Topic authorization failed" acl_produce t
acl_remove --deny-principal 'User:*' --deny-principal User:bob --operation Write --topic t
acl_as alice acl_expect_allowed "alice writes t once the DENYs are gone" acl_produce t
acl_as bob acl_expect_allowed "bob writes t once the DENYs are gone" acl_produce t
gr_pass
