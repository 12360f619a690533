#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SCRAM credential and client quota APIs as named SASL/PLAIN principals,
# raw (py/acl_cluster_apis_raw.py, which logs in with py/sasl_wire.py): alice,
# with no ACL, gets CLUSTER_AUTHORIZATION_FAILED from AlterUserScramCredentials,
# DescribeUserScramCredentials, AlterClientQuotas and DescribeClientQuotas, and
# nothing is written; super user admin gets all four answered, and the
# credential it made logs in with kcat (SCRAM-SHA-256). Then ACLs on the
# cluster for alice (DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS) open the two
# describes and AlterClientQuotas, while AlterUserScramCredentials (ALTER)
# stays refused; bob, whom no ACL names, is still refused all four. The
# broker's loggers (BROKER_LOGGER) follow DESCRIBE_CONFIGS and ALTER_CONFIGS
# on the cluster the same way.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

# gregor-admin's --command-config has no SASL keys yet: it reaches the
# PLAINTEXT listener as User:ANONYMOUS, a super user for that.
gr_sasl_start_broker broker.id=1 authorizer.class.name=$ACL_AUTHORIZER "super.users=User:admin;User:ANONYMOUS"

# Runs the four calls as USER with TARGET as the user they name; their lines
# in $GR_TMP/apis.
cluster_apis()
{
    "$GR_PYTHON" "$GR_INTEROP_DIR/py/acl_cluster_apis_raw.py" "$GR_SASL_BOOTSTRAP" "$1" "$1-secret" \
        "$2" 1 >"$GR_TMP/apis" 2>&1 || gr_fail "cluster APIs as $1: $(cat "$GR_TMP/apis")"
}
expect_line()
{
    grep -qx "$1" "$GR_TMP/apis" || gr_fail "want '$1' in: $(cat "$GR_TMP/apis")"
}

cluster_apis alice dave
expect_line "alter-scram CLUSTER_AUTHORIZATION_FAILED"
expect_line "describe-scram CLUSTER_AUTHORIZATION_FAILED"
expect_line "alter-quotas CLUSTER_AUTHORIZATION_FAILED"
expect_line "describe-quotas CLUSTER_AUTHORIZATION_FAILED 0"
expect_line "describe-loggers CLUSTER_AUTHORIZATION_FAILED"
expect_line "alter-loggers CLUSTER_AUTHORIZATION_FAILED"
gr_broker_log | grep -q "principal User:alice denied ALTER on Cluster:kafka-cluster from 127.0.0.1" ||
    gr_fail "no log line for alice's refusal"
# Prints what gregor-admin shows of user $1 (its quotas and SCRAM credentials).
user_configs() { acl_admin configs describe --entity-type users --entity-name "$1" 2>&1 || true; }
user_configs dave | grep -q "dave' are" && gr_fail "alice's refused calls wrote: $(user_configs dave)"

cluster_apis admin dave
expect_line "alter-scram NONE"
expect_line "describe-scram NONE NONE 1:4096"
expect_line "alter-quotas NONE"
expect_line "describe-quotas NONE 1"
expect_line "describe-loggers NONE"
expect_line "alter-loggers NONE"
user_configs dave | grep -q "user-principal 'dave' are producer_byte_rate=1024.0" ||
    gr_fail "admin's quota for dave: $(user_configs dave)"
gr_sasl_kcat SCRAM-SHA-256 dave target-secret -L >/dev/null ||
    gr_fail "dave's credential, made by admin, does not log in"

acl_add --allow-principal User:alice --operation Describe --operation DescribeConfigs \
    --operation AlterConfigs --cluster
cluster_apis alice erin
expect_line "alter-scram CLUSTER_AUTHORIZATION_FAILED"
expect_line "describe-scram NONE RESOURCE_NOT_FOUND -"
expect_line "alter-quotas NONE"
expect_line "describe-quotas NONE 1"
expect_line "describe-loggers NONE"
expect_line "alter-loggers NONE"
cluster_apis bob erin
expect_line "alter-scram CLUSTER_AUTHORIZATION_FAILED"
expect_line "describe-scram CLUSTER_AUTHORIZATION_FAILED"
expect_line "alter-quotas CLUSTER_AUTHORIZATION_FAILED"
expect_line "describe-quotas CLUSTER_AUTHORIZATION_FAILED 0"
expect_line "describe-loggers CLUSTER_AUTHORIZATION_FAILED"
expect_line "alter-loggers CLUSTER_AUTHORIZATION_FAILED"
gr_pass
