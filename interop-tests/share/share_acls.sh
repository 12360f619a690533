#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Share groups under the ACL authorizer, as Kafka checks them, for the
# PLAINTEXT listener's User:ANONYMOUS with allow.everyone.if.no.acl.found
# (a resource with an ACL for someone else, User:bob, is closed to it):
# ShareGroupHeartbeat, ShareFetch and ShareAcknowledge of a group without
# READ answer GROUP_AUTHORIZATION_FAILED; a heartbeat subscribing a topic
# without DESCRIBE, and a ShareFetch of a topic with DESCRIBE but without
# READ, answer TOPIC_AUTHORIZATION_FAILED; an open group on an open topic is
# served (py/share_raw.py acls).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/acllib.sh"
. "$GR_INTEROP_DIR/lib/sharelib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
for t in share_open share_readless share_hidden; do sh_topic $t 1; done
readless_id=$("$GR_PYTHON" "$GR_INTEROP_DIR/py/share_raw.py" "$GR_BOOTSTRAP" topic-id share_readless) ||
    gr_fail "no topic id for share_readless"

acl_add --allow-principal User:bob --operation Read --group closed-g
acl_add --allow-principal User:bob --operation All --topic share_readless
acl_add --allow-principal User:ANONYMOUS --operation Describe --topic share_readless
acl_add --allow-principal User:bob --operation All --topic share_hidden

"$GR_PYTHON" "$GR_INTEROP_DIR/py/share_raw.py" "$GR_BOOTSTRAP" acls open-g closed-g share_open \
    share_readless "$readless_id" share_hidden || gr_fail "share_raw.py acls failed"
gr_broker_log | grep -q "principal User:ANONYMOUS denied .* on Group:closed-g" ||
    gr_fail "no log line for the refused group"
gr_pass
