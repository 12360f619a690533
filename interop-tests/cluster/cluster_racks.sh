#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# broker.rack seen from every broker: three brokers in racks rA, rB, rC (each
# registers its rack in /brokers/ids/N; the controller sends it to every
# broker in UpdateMetadata), and Metadata v4 answered by EACH broker lists
# every broker with its own rack, not only the answering broker's. A broker
# restarted into another rack is then reported there by all of them, and
# one without a rack is reported with a null rack.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require

CL_RACKS=(rA rB rC)
cl_start_cluster 3

# The racks every running broker reports equal "ID RACK" lines $1.
# shellcheck disable=SC2317
racks_are()
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" racks 2>/dev/null)" = "$1" ] || return 1
    done
}

# Polls racks_are $1 (CL_WAIT_S); on time-out notes what each broker says and fails with $2.
wait_racks()
{
    local deadline=$((SECONDS + CL_WAIT_S)) i
    until racks_are "$1"; do
        if [ $SECONDS -ge $deadline ]; then
            for i in $(cl_live); do
                gr_note "broker $i reports racks: $(cl_state "$i" racks 2>&1 | tr '\n' ' ')"
            done
            gr_fail "timed out after ${CL_WAIT_S}s: $2"
        fi
        sleep 0.1
    done
}

wait_racks $'0 rA\n1 rB\n2 rC' "every broker to report every broker's rack (rA rB rC)"
for i in 0 1 2; do
    rack=$(cl_zk_field "$CL_ZK_CHROOT/brokers/ids/$i" rack)
    [ "$rack" = "${CL_RACKS[$i]}" ] || gr_fail "/brokers/ids/$i holds rack '$rack', want ${CL_RACKS[$i]}"
done

# A broker that comes back in another rack, and one with none at all.
CL_RACKS[1]=rD
cl_restart_broker 1
CL_RACKS[2]=
cl_restart_broker 2
cl_wait_stable "brokers 1 and 2 back"
wait_racks $'0 rA\n1 rD\n2 -' "every broker to report racks rA, rD and none after the restarts"
gr_pass
