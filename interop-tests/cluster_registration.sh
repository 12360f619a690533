#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Three brokers and a real ZooKeeper: every broker registers and sees the
# other two, exactly one is the controller (each broker names the same one in
# Metadata), and an operator reads that with ZooKeeper's own CLI in Kafka's
# layout and JSON, under the chroot: /brokers/ids lists 0, 1, 2; each
# /brokers/ids/N holds its endpoint; /controller names the controller;
# /controller_epoch, /cluster/id (the cluster id Metadata reports) exist.
# Then the controller's clean stop (SIGTERM) hands the role to another broker
# and its registration goes away at once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/clusterlib.sh"
cl_require

cl_start_cluster 3

# One zkCli call for everything under the chroot, in Kafka's layout.
ids=$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids") || gr_fail "zkCli ls $CL_ZK_CHROOT/brokers/ids failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
[ "$ids" = "[0, 1, 2]" ] || gr_fail "/brokers/ids holds '$ids', want [0, 1, 2]"

controller_json=$(cl_zk get "$CL_ZK_CHROOT/controller") || gr_fail "zkCli get /controller failed"
"$GR_PYTHON" - "$controller_json" "$CL_CONTROLLER" <<'EOF' || gr_fail "/controller is '$controller_json', want Kafka's JSON naming broker $CL_CONTROLLER"
import json, sys
c = json.loads(sys.argv[1])
assert c["version"] == 1 and c["brokerid"] == int(sys.argv[2]) and int(c["timestamp"]) > 0
EOF

for i in 0 1 2; do
    reg=$(cl_zk get "$CL_ZK_CHROOT/brokers/ids/$i") || gr_fail "zkCli get /brokers/ids/$i failed"
    "$GR_PYTHON" - "$reg" "${CL_PORT[$i]}" <<'EOF' || gr_fail "/brokers/ids/$i is '$reg', want Kafka's registration JSON for 127.0.0.1:${CL_PORT[$i]}"
import json, sys
r, port = json.loads(sys.argv[1]), int(sys.argv[2])
assert r["endpoints"] == ["PLAINTEXT://127.0.0.1:%d" % port], r["endpoints"]
assert r["host"] == "127.0.0.1" and r["port"] == port
assert r["listener_security_protocol_map"]["PLAINTEXT"] == "PLAINTEXT"
assert r["version"] >= 4 and int(r["timestamp"]) > 0
EOF
done

epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
[[ "$epoch" =~ ^[0-9]+$ ]] && [ "$epoch" -ge 1 ] || gr_fail "/controller_epoch is '$epoch', want a number >= 1"

cluster_json=$(cl_zk get "$CL_ZK_CHROOT/cluster/id") || gr_fail "zkCli get /cluster/id failed"
metadata_id=$(cl_state 0 clusterid) || gr_fail "Metadata from broker 0 failed"
"$GR_PYTHON" - "$cluster_json" "$metadata_id" <<'EOF' || gr_fail "/cluster/id is '$cluster_json', Metadata says cluster id '$metadata_id'"
import json, sys
c = json.loads(sys.argv[1])
assert c["version"] == "1" and c["id"] == sys.argv[2] and len(c["id"]) > 0
EOF
for i in 1 2; do
    [ "$(cl_state "$i" clusterid)" = "$metadata_id" ] || gr_fail "broker $i reports another cluster id than broker 0"
done

# A clean stop of the controller: its registration and /controller go, the
# others elect another one (no session expiry to wait for).
old=$CL_CONTROLLER
cl_stop_broker "$old"
cl_wait_stable "another controller after broker $old stopped"
[ "$CL_CONTROLLER" != "$old" ] || gr_fail "broker $old still named controller after it stopped"
cl_start_broker "$old"
cl_wait_stable "broker $old back"
ids=$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids") || gr_fail "zkCli ls $CL_ZK_CHROOT/brokers/ids failed"
[ "$ids" = "[0, 1, 2]" ] || gr_fail "/brokers/ids holds '$ids' after broker $old returned, want [0, 1, 2]"
new_epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch")
[ "$new_epoch" -gt "$epoch" ] || gr_fail "/controller_epoch is $new_epoch after a new controller, was $epoch"
gr_pass
