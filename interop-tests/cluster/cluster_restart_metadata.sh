#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A broker restarted right after kill -9 says nothing wrong to clients while
# it starts: its old ZooKeeper session still holds /brokers/ids/N for up to a
# session timeout, and until it has registered again and the controller has
# told it the cluster, it holds client requests. Metadata asked of its own
# port as fast as possible, from before it listens (py/metadata_poll.py):
# every answer lists the three brokers and a controller and gives the
# existing topic with all its partitions, never UNKNOWN_TOPIC_OR_PARTITION
# (a refused or unanswered connection is fine). Its log says why it waited.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=3

cl_start_cluster 3
cl_expect "creating held" 0 "$(cl_state 0 create held $PARTS 3)"
cl_wait_all_led held $PARTS
victim=$(cl_non_controller)

cl_kill9_broker "$victim"
"$GR_PYTHON" "$GR_INTEROP_DIR/py/metadata_poll.py" "$(cl_addr "$victim")" held $PARTS "0 1 2" 50 "$CL_WAIT_S" \
    >"$GR_TMP/poll.out" 2>&1 &
poll=$!
gr_track "$poll"
cl_start_broker "$victim"
rc=0
wait "$poll" || rc=$?
[ $rc = 0 ] || gr_fail "Metadata from restarted broker $victim (poller exit $rc): $(tail -n 3 "$GR_TMP/poll.out")"
gr_note "broker $victim: $(tail -n 1 "$GR_TMP/poll.out")"
log=$(cl_broker_log "$victim")
grep -q "waiting for metadata from controller" "$log" ||
    gr_fail "broker $victim's log does not say it waited for the controller's metadata"
! grep -q "waiting for registration" "$log" ||
    gr_note "$(grep -m1 "waiting for registration" "$log")"
cl_wait_stable "broker $victim back"
gr_pass
