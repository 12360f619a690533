#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The share coordinator's state RPCs (APIs 83-87) and FindCoordinator's
# share keys need CLUSTER_ACTION on the cluster, as in Kafka: a client
# without it (User:ANONYMOUS, once the cluster resource has an ACL naming
# only someone else) gets CLUSTER_AUTHORIZATION_FAILED for every partition
# (py/share_state_raw.py).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
topic=share_state_acl_topic
echo one | gr_kcat -P -t $topic -p 0
topic_id=$(sed -n 's/^topic_id: //p' "$GR_TMP/logs/$topic-0/partition.metadata")
[ -n "$topic_id" ] || gr_fail "no topic id for $topic"
# The tool's listing after the add is refused already (DESCRIBE on the cluster is gone too).
acl_admin acls --add --allow-principal User:bob --operation ClusterAction --cluster \
    >"$GR_TMP/acl.out" 2>&1 || true
grep -q 'principal=User:bob' "$GR_TMP/acl.out" || gr_fail "cluster ACL: $(cat "$GR_TMP/acl.out")"
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/share_state_raw.py" 127.0.0.1 \
    "$GR_PORT" "$topic_id" unauthorized || gr_fail "the state RPCs were not refused"
gr_pass
