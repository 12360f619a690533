#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Metadata under the ACL authorizer (raw v10, py/acl_metadata_raw.py): a
# topic named in the request that ANONYMOUS may not describe answers
# TOPIC_AUTHORIZATION_FAILED (29) and is left out of the all-topics list; the
# authorized operations of a topic follow its ACLs with their implied ones
# (READ implies DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS); the
# cluster's are all of its operations while no ACL names it.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
acl_expect_allowed "produce to mine" acl_produce mine
acl_expect_allowed "produce to theirs" acl_produce theirs
acl_add --allow-principal User:ANONYMOUS --operation Read --operation AlterConfigs --topic mine
acl_add --allow-principal User:bob --operation All --topic theirs

meta() { "$GR_PYTHON" "$GR_INTEROP_DIR/py/acl_metadata_raw.py" "$GR_BOOTSTRAP" "$@"; }
meta mine theirs >"$GR_TMP/named" || gr_fail "Metadata failed"
cat >"$GR_TMP/want" <<'W'
topic mine 0 READ,DESCRIBE,DESCRIBE_CONFIGS,ALTER_CONFIGS
topic theirs 29 -
cluster CREATE,ALTER,DESCRIBE,CLUSTER_ACTION,DESCRIBE_CONFIGS,ALTER_CONFIGS,IDEMPOTENT_WRITE
W
cmp -s "$GR_TMP/want" "$GR_TMP/named" || gr_fail "named topics: $(diff "$GR_TMP/want" "$GR_TMP/named")"
meta >"$GR_TMP/all" || gr_fail "Metadata failed"
grep -q "^topic mine " "$GR_TMP/all" || gr_fail "mine missing from all topics: $(cat "$GR_TMP/all")"
! grep -q "^topic theirs " "$GR_TMP/all" || gr_fail "theirs listed: $(cat "$GR_TMP/all")"
gr_pass
