# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Network partitions for the cluster tests (interop-tests/cluster/
# cluster_netpart_*.sh): ZooKeeper and each broker in a network namespace of
# the test's own, every one joined by a veth pair to a bridge in one more
# namespace of the test's own, where the test itself (the clients) runs.
# Links are cut and healed with nftables inside the namespaces, per pair of
# endpoints, so that a broker cut off from ZooKeeper or from its peers is
# still reachable from the clients.
#
# Sourced FIRST, before lib.sh, with NN_BROKERS (the broker count) set:
#
#   NN_BROKERS=3
#   source "$(dirname "$0")/../lib/netnslib.sh"
#   source "$(dirname "$0")/../lib/lib.sh"
#   source "$(dirname "$0")/../lib/clusterlib.sh"
#
# The first time (in the caller's namespace) it builds the namespaces, runs
# the test script again inside the bridge namespace (ip netns exec) and,
# when that ends, kills whatever still runs in the namespaces (by PID, as
# "ip netns pids" lists them) and deletes them, whatever happened; it exits
# with the inner run's status and the rest of the outer script never runs.
# It skips the test (exit 77) with a message when the machine does not allow
# it: not root, no ip or nft (ci/install-deps.sh installs iproute2 and
# nftables), no network namespaces, bridges, veth pairs or nftables in them
# (a container without CAP_SYS_ADMIN / CAP_NET_ADMIN).
#
# Layout: namespaces grnp<PID>-br (the bridge and the test, 10.77.0.1/24),
# grnp<PID>-zk (ZooKeeper, 10.77.0.2, port 2181) and grnp<PID>-b<I>
# (broker I, 10.77.0.<10+I>, port 9092); PID is the outer test's, so that
# concurrent tests never share a name. The host's own namespace is not
# touched: every interface is created inside these namespaces. (Only a test
# killed with SIGKILL leaves its namespaces behind: `ip netns list` shows
# them, `ip netns del NAME` removes one.)
# Each endpoint's namespace has an nftables table "inet grcut" whose set
# "cut" holds the addresses it may not exchange packets with (dropped both
# ways, silently, as a lost link; established connections stall).
#
# Inside, clusterlib.sh's hooks are set (cl_broker_host, cl_broker_exec,
# cl_zk_exec, CL_ZK_HOST, cl_before_cleanup: every cut healed) and, after clusterlib.sh is sourced, nn_use_ports
# sets the fixed ports. Functions:
#   nn_use_ports                 call after sourcing clusterlib.sh
#   nn_addr NODE                 NODE's address (NODE: zk or b<I>)
#   nn_cut NODE NODE...          cut the first NODE off from every other one
#                                (both directions, both ends)
#   nn_heal NODE NODE...         undo nn_cut for those pairs
#   nn_heal_all                  empty every endpoint's set (returns 1 if
#                                one could not be)
#   nn_cuts                      what each endpoint drops, one line each

NN_SUBNET=10.77.0
NN_BR_ADDR=$NN_SUBNET.1
NN_ZK_ADDR=$NN_SUBNET.2
NN_BROKER_BASE=10
NN_ZK_PORT=2181
NN_BROKER_PORT=9092
NN_TABLE=grcut

nn_addr()
{
    case $1 in
    zk) echo "$NN_ZK_ADDR" ;;
    b[0-9]*) echo "$NN_SUBNET.$((NN_BROKER_BASE + ${1#b}))" ;;
    *) echo "nn_addr: unknown node '$1'" >&2; return 1 ;;
    esac
}

nn_ns() { echo "$NN_ID-$1"; }

nn_nodes()
{
    local i
    echo zk
    for ((i = 0; i < NN_BROKERS; i++)); do echo "b$i"; done
}

nn_skip()
{
    echo "[$(basename "${0%.sh}")] skipped: $*" >&2
    exit 77
}

# Outer run: kills what still runs in the namespaces, deletes them.
nn_teardown()
{
    local ns pid
    set +e
    [ -z "${NN_INNER_PID:-}" ] || kill -TERM "$NN_INNER_PID" 2>/dev/null
    [ -z "${NN_INNER_PID:-}" ] || wait "$NN_INNER_PID" 2>/dev/null
    for ns in "${NN_CREATED[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    done
    for ns in "${NN_CREATED[@]}"; do ip netns del "$ns" 2>/dev/null; done
}

nn_add_ns()
{
    ip netns add "$1" || return 1
    NN_CREATED+=("$1")
    ip -n "$1" link set lo up
}

# The table that cuts links, in node $1's namespace.
nn_add_table()
{
    ip netns exec "$(nn_ns "$1")" nft -f - <<EOF
table inet $NN_TABLE {
    set cut { type ipv4_addr; }
    chain input { type filter hook input priority 0; policy accept; ip saddr @cut drop; }
    chain output { type filter hook output priority 0; policy accept; ip daddr @cut drop; }
}
EOF
}

# Node $1's namespace, joined to the bridge by a veth pair (created inside
# the bridge namespace, its other end moved into the node's).
nn_add_node()
{
    local node=$1 ns
    ns=$(nn_ns "$node")
    nn_add_ns "$ns" || return 1
    ip -n "$NN_BR_NS" link add "v$node" type veth peer name eth0 netns "$ns" || return 1
    ip -n "$NN_BR_NS" link set "v$node" master br0 up &&
        ip -n "$ns" addr add "$(nn_addr "$node")/24" dev eth0 &&
        ip -n "$ns" link set eth0 up
}

nn_outer()
{
    local node rc=0
    [ "${GR_BROKER_KIND:-gregor}" = gregor ] || nn_skip "needs gregor (running against $GR_BROKER_KIND)"
    [ "$(id -u)" = 0 ] || nn_skip "network namespaces need root"
    command -v ip >/dev/null || nn_skip "no ip (apt-get install iproute2; ci/install-deps.sh does)"
    command -v nft >/dev/null || nn_skip "no nft (apt-get install nftables; ci/install-deps.sh does)"
    NN_ID=grnp$$
    NN_BR_NS=$(nn_ns br)
    NN_CREATED=()
    NN_INNER_PID=
    trap nn_teardown EXIT
    trap 'exit 143' TERM
    trap 'exit 130' INT
    # The first of each kind is a probe: failing there, the machine does
    # not allow it (skip); failing later is a failure.
    nn_add_ns "$NN_BR_NS" || nn_skip "cannot create a network namespace (ip netns add; no CAP_SYS_ADMIN?)"
    ip -n "$NN_BR_NS" link add br0 type bridge || nn_skip "cannot create a bridge in a network namespace"
    if ! ip -n "$NN_BR_NS" addr add "$NN_BR_ADDR/24" dev br0 || ! ip -n "$NN_BR_NS" link set br0 up; then
        echo "netnslib: cannot set up the bridge" >&2
        exit 1
    fi
    for node in $(nn_nodes); do
        if ! nn_add_node "$node"; then
            [ "$node" != zk ] || nn_skip "cannot create a veth pair between network namespaces"
            echo "netnslib: setting up namespace $(nn_ns "$node") failed" >&2
            exit 1
        fi
        if ! nn_add_table "$node"; then
            [ "$node" != zk ] || nn_skip "nftables do not work in a network namespace (nf_tables module?)"
            echo "netnslib: nftables table in $(nn_ns "$node") failed" >&2
            exit 1
        fi
    done
    echo "[$(basename "${0%.sh}")] namespaces $NN_ID-{br,$(nn_nodes | paste -sd,)} on $NN_SUBNET.0/24" >&2
    NN_INSIDE=1 NN_ID=$NN_ID ip netns exec "$NN_BR_NS" bash "$0" "$@" &
    NN_INNER_PID=$!
    wait "$NN_INNER_PID" || rc=$?
    NN_INNER_PID=
    exit $rc
}

if [ "${NN_INSIDE:-0}" != 1 ]; then
    nn_outer "$@"
fi

# Inside: clusterlib.sh's hooks.
# shellcheck disable=SC2034 # clusterlib.sh's
CL_ZK_HOST=$NN_ZK_ADDR
cl_broker_host() { nn_addr "b$1"; }
cl_broker_exec() { echo ip netns exec "$(nn_ns "b$1")"; }
cl_zk_exec() { echo ip netns exec "$(nn_ns zk)"; }
# A test that fails with a link cut still stops its brokers cleanly (a
# controlled shutdown across a cut waits for connection timeouts).
cl_before_cleanup() { nn_heal_all 2>/dev/null; }

nn_use_ports()
{
    local i
    # shellcheck disable=SC2034 # clusterlib.sh's
    CL_ZK_PORT=$NN_ZK_PORT
    # shellcheck disable=SC2034 # clusterlib.sh's
    for ((i = 0; i < NN_BROKERS; i++)); do CL_PORT[i]=$NN_BROKER_PORT; done
}

# nft OP ELEMENT on node $2's set, for the address of node $3.
nn_set()
{
    ip netns exec "$(nn_ns "$2")" nft "$1" element inet "$NN_TABLE" cut "{ $(nn_addr "$3") }"
}

nn_cut()
{
    local a=$1 b
    shift
    for b in "$@"; do
        if ! nn_set add "$a" "$b" || ! nn_set add "$b" "$a"; then gr_fail "nn_cut $a $b failed"; fi
    done
    gr_note "link cut: $a <-> $*"
}

nn_heal()
{
    local a=$1 b
    shift
    for b in "$@"; do
        if ! nn_set delete "$a" "$b" || ! nn_set delete "$b" "$a"; then gr_fail "nn_heal $a $b failed"; fi
    done
    gr_note "link healed: $a <-> $*"
}

nn_heal_all()
{
    local node rc=0
    for node in $(nn_nodes); do
        ip netns exec "$(nn_ns "$node")" nft flush set inet "$NN_TABLE" cut || rc=1
    done
    return $rc
}

nn_cuts()
{
    local node
    for node in $(nn_nodes); do
        echo "$node drops: $(ip netns exec "$(nn_ns "$node")" nft list set inet "$NN_TABLE" cut 2>&1 |
            sed -n 's/.*elements = { \(.*\) }.*/\1/p')"
    done
}
