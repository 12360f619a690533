#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Without authorizer.class.name, as in Kafka: the ACL APIs answer
# SECURITY_DISABLED (gregor-admin acls exits 1 saying so) and everything else
# is served; Metadata reports every operation as authorized.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker
for action in --list "--add --allow-principal User:a --operation Read --topic t" \
    "--remove --force --topic t"; do
    # shellcheck disable=SC2086 # the action's words are separate arguments
    if acl_admin acls $action >"$GR_TMP/out" 2>"$GR_TMP/err"; then
        gr_fail "acls $action: exit 0 without an authorizer"
    fi
    grep -q SECURITY_DISABLED "$GR_TMP/err" || gr_fail "acls $action: $(cat "$GR_TMP/err")"
done
acl_expect_allowed "produce" acl_produce free
acl_expect_allowed "consume" acl_consume free
gr_pass
