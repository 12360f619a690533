#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ZooKeeper stopped and restarted with its data kept, twice: once for less
# than the brokers' session timeout (10 s here) and once for more. While it is
# down the partition leaders keep serving producers and consumers; after each
# restart the brokers are all registered again with one controller, admin
# requests work (a new topic is created and used) and no record is lost.
# (A standalone ZooKeeper restores its sessions from its data and gives them
# a fresh timeout when it starts, so even the long outage need not expire
# them; cluster_session_expiry.sh forces expiry.)
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
# Long enough that the short outage (a JVM restart: seconds, more on a
# loaded machine) stays inside it.
CL_SESSION_TIMEOUT_MS=10000
PARTS=6
STEADY=0

cl_start_cluster 3
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create steady $PARTS 1) || gr_fail "admin create failed: $out"
[ "$out" = "steady NO_ERROR" ] || gr_fail "creating steady: $out"
cl_wait_all_led steady $PARTS

# shellcheck disable=SC2317
produce_steady() # COUNT: acks=all records to steady, counted in STEADY
{
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t steady -m produce -n "$1" -w 60) || gr_fail "producing to steady failed: $(tail -n 1 <<<"$out")"
    STEADY=$((STEADY + $1))
}

# shellcheck disable=SC2317
steady_count_is()
{
    [ "$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t steady -o beginning -e -q -f '%o\n' | wc -l)" = "$STEADY" ]
}

# shellcheck disable=SC2317
create_retrying()
{
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create "$CREATE_TOPIC" $PARTS 1) || gr_fail "admin create $CREATE_TOPIC failed: $out"
    case "$out" in
    "$CREATE_TOPIC NO_ERROR") return 0 ;;
    *NOT_CONTROLLER*) return 1 ;;
    *) gr_fail "creating $CREATE_TOPIC: $out" ;;
    esac
}

# After an outage: every broker back with one controller, a new topic is
# created and used, and steady still holds every record.
# shellcheck disable=SC2317
check_recovered()
{
    local topic=$1
    gr_wait_until "$CL_WAIT_S" "the brokers to reconnect to ZooKeeper" cl_zk_reconnected
    cl_wait_stable "brokers registered again after $topic"
    # Until the sessions cut off by the outage have expired, the controller
    # may still be changing hands: like Kafka's admin clients, retry
    # NOT_CONTROLLER.
    CREATE_TOPIC=$topic
    gr_wait_until 60 "creating $topic to succeed" create_retrying
    cl_wait_all_led "$topic" $PARTS
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "$topic" -n 300 -w 60) || gr_fail "roundtrip on $topic failed: $(tail -n 1 <<<"$out")"
    produce_steady 100
    gr_wait_until 30 "steady to hold $STEADY records" steady_count_is
}

produce_steady 200
session_s=$(((CL_SESSION_TIMEOUT_MS + 999) / 1000))

# A short outage, well inside the session timeout.
cl_stop_zk
sleep 1 # the outage itself (a stimulus, not a wait for a condition)
cl_start_zk
check_recovered after-short

# A long outage; the leaders keep serving meanwhile.
cl_stop_zk
stopped=$SECONDS
produce_steady 200
steady_count_is || gr_fail "steady does not hold its $STEADY records while ZooKeeper is down"
while [ $((SECONDS - stopped)) -le $((session_s + 3)) ]; do sleep 0.2; done
cl_start_zk
check_recovered after-long
gr_pass
