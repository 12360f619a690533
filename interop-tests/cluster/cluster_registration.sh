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
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require

CL_START_WAIT=0 cl_start_cluster 3

# First what ZooKeeper holds (zkCli), then what the brokers report.
# shellcheck disable=SC2317
all_registered() { [ "$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids" 2>/dev/null)" = "[0, 1, 2]" ]; }
gr_wait_until "$CL_WAIT_S" "/brokers/ids to list [0, 1, 2] (zkCli)" all_registered
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
controller_json=$(cl_zk get "$CL_ZK_CHROOT/controller") || gr_fail "zkCli get /controller failed"
"$GR_PYTHON" - "$controller_json" <<'EOF' || gr_fail "/controller is '$controller_json', want Kafka's JSON naming one of brokers 0-2"
import json, sys
c = json.loads(sys.argv[1])
assert c["version"] == 1 and c["brokerid"] in (0, 1, 2) and int(c["timestamp"]) > 0
EOF
zk_controller=$(cl_zk_field "$CL_ZK_CHROOT/controller" brokerid)
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
[[ "$epoch" =~ ^[0-9]+$ ]] && [ "$epoch" -ge 1 ] || gr_fail "/controller_epoch is '$epoch', want a number >= 1"
cluster_json=$(cl_zk get "$CL_ZK_CHROOT/cluster/id") || gr_fail "zkCli get /cluster/id failed"
zk_cluster_id=$(cl_zk_field "$CL_ZK_CHROOT/cluster/id" id)
[ "$(cl_zk_field "$CL_ZK_CHROOT/cluster/id" version)" = 1 ] || gr_fail "/cluster/id is '$cluster_json', want Kafka's version \"1\""

cl_wait_stable "every broker to report brokers 0 1 2 and one controller"
[ "$zk_controller" = "$CL_CONTROLLER" ] || gr_fail "/controller names broker $zk_controller, the brokers report $CL_CONTROLLER"
for i in 0 1 2; do
    id=$(cl_state "$i" clusterid) || gr_fail "Metadata from broker $i failed"
    [ "$id" = "$zk_cluster_id" ] || gr_fail "broker $i reports cluster id '$id', /cluster/id holds '$zk_cluster_id'"
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
