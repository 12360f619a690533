#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# KIP-848 regex subscriptions (py/cgroup_regex_raw.py): a bad regex is
# INVALID_REGULAR_EXPRESSION; a member subscribed with a regex gets the
# matching topics' partitions, then a matching topic created later, the
# partitions added to one, and loses a deleted one; across a restart its
# regex and epoch are replayed and a topic created afterwards is assigned.
# With ACLs on (anyone may do anything, but only bob may see rx-secret), the
# regex leaves out the topic the member may not DESCRIBE.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"

gr_require_gregor
gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
acl_add --allow-principal User:bob --operation Describe --topic rx-secret
export GR_TMP
python3 "$GR_INTEROP_DIR/py/cgroup_regex_raw.py" 127.0.0.1 "$GR_PORT" before ||
    gr_fail "before the restart"
gr_restart_broker
python3 "$GR_INTEROP_DIR/py/cgroup_regex_raw.py" 127.0.0.1 "$GR_PORT" after ||
    gr_fail "after the restart"
gr_pass
