# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Cluster helpers for the interop-tests/cluster/cluster_*.sh tests (label
# cluster), sourced after lib.sh (and after grouplib.sh when a test uses
# both). (It lives in lib/, which CTest does not search for tests.)
#
# A cluster is a standalone ZooKeeper (ci/zookeeper.sh, in $GR_TMP/zk) and N
# gregor brokers, broker i with broker.id=i, its own log dirs
# ($GR_TMP/b<i>/logs), its own stderr log ($GR_TMP/b<i>.log), a free loopback
# port kept over restarts, and zookeeper.connect=127.0.0.1:<zk port>/gregor
# (a chroot) with a short session timeout. On exit, whatever happened, every
# broker and ZooKeeper are stopped by PID; the test fails if a broker died on
# its own, did not exit 0 on SIGTERM, or logged a sanitizer report or an
# ERROR line the test did not allow (lib.sh's checks, over every broker log).
#
# Functions:
#   cl_start_cluster N [key=value]...  ZooKeeper, then N brokers with these
#                                      overrides too (kept over restarts);
#                                      waits until they agree on the brokers
#                                      and one controller (not with
#                                      CL_START_WAIT=0). Sets GR_BOOTSTRAP to
#                                      every broker's address.
#   cl_start_broker I / cl_stop_broker I (SIGTERM, wants exit 0) /
#   cl_kill9_broker I / cl_restart_broker I (stop, then start)
#   cl_freeze_broker I / cl_thaw_broker I   SIGSTOP / SIGCONT
#   cl_start_zk / cl_stop_zk           ZooKeeper on the same port and data
#   cl_addr I                          127.0.0.1:<port of broker I> (or
#                                      the test's cl_broker_host address)
#   hooks a test may define: cl_broker_host I (broker I's address),
#   cl_before_cleanup (run on exit before the brokers stop),
#   cl_broker_exec I / cl_zk_exec (words to run broker I / ZooKeeper under,
#   which exec it), CL_ZK_HOST (ZooKeeper's address): netnslib.sh sets them
#   cl_http_url I                      with GR_HTTP=1 set before the brokers
#                                      start, each serves its metrics and
#                                      health endpoints (gregor.http.listener)
#                                      on its own free port, kept over
#                                      restarts: http://127.0.0.1:<port>
#   cl_http_get I PATH [CURL ARGS]...  curl -sS of broker I's PATH (with a
#                                      timeout); fails on no answer only
#   cl_live                            ids of the brokers running (by PID)
#   cl_bootstrap                       addresses of the running brokers
#   cl_state I CMD ARGS...             py/cluster_state.py against broker I
#   cl_controller I                    the controller id broker I reports
#   cl_stable                          true when every running broker reports
#                                      exactly the running brokers and the
#                                      same controller, one of them; sets
#                                      CL_CONTROLLER
#   cl_wait_stable DESC                poll cl_stable (CL_WAIT_S)
#   cl_leaders_are I TOPIC SPEC        broker I's "PARTITION LEADER" lines
#                                      for TOPIC equal SPEC
#   cl_wait_all_led TOPIC PARTS        every running broker knows TOPIC with
#                                      PARTS partitions, each with a live leader
#   cl_create_assigned I TOPIC ASSIGNMENT  create TOPIC through broker I
#                                      with cluster_state.py's create-assigned
#                                      ("1,2/2,0": a replica list a
#                                      partition), gr_fail unless it answers
#                                      0, then cl_wait_all_led
#   cl_led_by TOPIC I                  partitions of TOPIC broker 0.. says I
#                                      leads (asks the first running broker)
#   cl_zk ARGS...                      zkCli.sh against the ZooKeeper; prints
#                                      the command's output lines only (slow:
#                                      a JVM start each call)
#   cl_zk_field PATH KEY               field KEY of znode PATH's JSON
#   cl_zk_reconnected                  ZooKeeper has a client per running
#                                      broker (after a ZooKeeper restart)
#   cl_isr_size_is TOPIC SIZE          every running broker reports each
#                                      partition of TOPIC with an ISR of SIZE
#   cl_topic_gone TOPIC                every running broker answers TOPIC
#                                      unknown and no broker's log dirs hold
#                                      a partition directory of it
#   cl_non_controller                  a running broker that is not the
#                                      controller (after cl_stable)
#   cl_replica_dirs TOPIC P            ids of the brokers (running or not)
#                                      holding a log directory for
#                                      partition P of TOPIC
#   cl_replicas_equal TOPIC PARTS [I...]  true when, for each partition
#                                      0..PARTS-1, the .log segments
#                                      concatenated in name order are byte
#                                      for byte the same on brokers I... (all
#                                      of them must hold the partition), or
#                                      by default on cl_replica_dirs' brokers;
#                                      else sets CL_REPLICA_DIFF to the first
#                                      difference (for gr_wait_until)
#   cl_compare_replicas TOPIC PARTS [I...]  cl_replicas_equal, or gr_fail
#                                      with the partition, the brokers and
#                                      the first differing byte
#   cl_wait_replicas_equal TOPIC PARTS [I...]  poll cl_replicas_equal
#                                      (CL_MOVE_WAIT_S); gr_fail with
#                                      CL_REPLICA_DIFF on timeout
#   cl_wait_replica_dirs TOPIC P I...  poll until cl_replica_dirs is exactly
#                                      brokers I... (in any order)
#                                      (CL_MOVE_WAIT_S)
#   cl_partition_everywhere TOPIC P REPLICAS ISR LEADERS [I...]
#                                      every running broker (or brokers
#                                      I...) reports partition P of TOPIC
#                                      with the replica list REPLICAS ("1,2",
#                                      in that order), the ISR ISR (a set:
#                                      "1,2" matches "2,1") and a leader
#                                      among LEADERS ("1 2")
#   cl_partition_views TOPIC [I...]    what each running broker (or broker
#                                      I...) reports for TOPIC, one line each
#                                      (for a failure)
#   cl_wait_partition TOPIC P REPLICAS ISR LEADERS [I...]
#                                      poll cl_partition_everywhere
#                                      (CL_MOVE_WAIT_S); on timeout print
#                                      cl_partition_views and what the
#                                      controller lists as moving, gr_fail
#   cl_replicas_on TOPIC P REPLICAS I...  brokers I... each report partition
#                                      P of TOPIC with the replica list
#                                      REPLICAS (whatever its ISR, leader)
#   cl_live_except I                   ids of the running brokers but I
#   cl_reassign I ARGS...              py/reassign_raw.py against broker I
#                                      (alter TOPIC:P=R,R|none|null ...,
#                                      list [TOPIC:P ...]; see its usage)
#   cl_expect WHAT WANT GOT            gr_fail "WHAT: got 'GOT', want
#                                      'WANT'" unless GOT is WANT; else
#                                      notes "WHAT: ok"
#   cl_seq_produce TOPIC N ACKED_FILE  seq_producer's N records to TOPIC
#                                      (bootstrap: the running brokers),
#                                      acknowledgements in ACKED_FILE;
#                                      gr_fail unless it exits 0 with all N
#                                      acknowledged and none failed
#   cl_seq_verify TOPIC N ACKED_FILE   seq_verify of ACKED_FILE against
#                                      TOPIC; gr_fail with its output unless
#                                      it exits 0; notes its summary line
#   cl_legacy_reassign JSON            create /admin/reassign_partitions
#                                      holding JSON (as the old
#                                      kafka-reassign-partitions.sh), or
#                                      gr_fail
#   cl_legacy_reassign_gone            true when ZooKeeper lists /admin's
#                                      children without reassign_partitions
#   cl_zk_assignment TOPIC P           "REPLICAS ADDING REMOVING" of
#                                      partition P in TOPIC's assignment
#                                      znode, comma lists, "-" when empty or
#                                      absent (a reassignment in progress
#                                      has adding or removing replicas)

GR_CLUSTER_REPO=$(cd "$GR_INTEROP_DIR/.." && pwd)
CL_ZK_DIR=$GR_TMP/zk
CL_ZK_PORT=
# ZooKeeper's address (netnslib.sh sets its own, in ZooKeeper's namespace).
CL_ZK_HOST=${CL_ZK_HOST:-127.0.0.1}
CL_ZK_CHROOT=/gregor
CL_ZKCLI=${GR_ZKCLI:-/usr/share/zookeeper/bin/zkCli.sh}
CL_SESSION_TIMEOUT_MS=${CL_SESSION_TIMEOUT_MS:-6000}
CL_CONNECTION_TIMEOUT_MS=${CL_CONNECTION_TIMEOUT_MS:-20000}
# Session expiry takes the session timeout plus ZooKeeper's tick; a
# controller change then needs a watch, an election and a metadata push.
CL_WAIT_S=${CL_WAIT_S:-60}
# A partition reassignment copies a replica, then waits for its ISR and the
# controller's requests to every broker (a test may set it before sourcing).
CL_MOVE_WAIT_S=${CL_MOVE_WAIT_S:-120}
CL_REASSIGN_PY=$GR_INTEROP_DIR/py/reassign_raw.py
CL_STATE_PY=$GR_INTEROP_DIR/py/cluster_state.py
CL_COUNT=0
CL_OVERRIDES=()
CL_RACKS=() # CL_RACKS[i]: broker i's broker.rack (set before cl_start_cluster)
CL_CONTROLLER=
CL_REPLICA_DIFF=
declare -a CL_PID=() CL_PORT=() CL_HTTP_PORT=()
[ "$GR_CMD_TIMEOUT_S" -le 60 ] || GR_CMD_TIMEOUT_S=60

cl_require()
{
    gr_require_gregor
    [ -x /usr/bin/java ] && [ -f /usr/share/java/zookeeper.jar ] || {
        gr_note "skipped: ZooKeeper (Debian's zookeeper package) or Java not installed"
        exit 77
    }
}

cl_broker_log() { echo "$GR_TMP/b$1.log"; }

cl_start_zk()
{
    local out rc=0
    local launch=()
    ! declare -F cl_zk_exec >/dev/null || read -ra launch < <(cl_zk_exec)
    out=$(GR_ZK_HOST=$CL_ZK_HOST "${launch[@]}" bash "$GR_CLUSTER_REPO/ci/zookeeper.sh" start "$CL_ZK_DIR" ${CL_ZK_PORT:+"$CL_ZK_PORT"} 2>>"$GR_TMP/zk.err") || rc=$?
    [ $rc != 77 ] || exit 77
    [ $rc = 0 ] || gr_fail "ZooKeeper did not start: $(tail -n 5 "$GR_TMP/zk.err")"
    CL_ZK_PORT=$out
    gr_note "ZooKeeper pid $(cat "$CL_ZK_DIR/zookeeper.pid") on port $CL_ZK_PORT"
}

cl_stop_zk()
{
    bash "$GR_CLUSTER_REPO/ci/zookeeper.sh" stop "$CL_ZK_DIR" || gr_fail "stopping ZooKeeper failed"
    gr_note "ZooKeeper stopped"
}

cl_zk_alive() { [ -f "$CL_ZK_DIR/zookeeper.pid" ] && gr_alive "$(cat "$CL_ZK_DIR/zookeeper.pid")"; }

# Where broker I listens: 127.0.0.1, or what the test's cl_broker_host hook
# says (netnslib.sh puts each broker on its own address in its own network
# namespace).
cl_host()
{
    if declare -F cl_broker_host >/dev/null; then cl_broker_host "$1"; else echo 127.0.0.1; fi
}
cl_addr() { echo "$(cl_host "$1"):${CL_PORT[$1]}"; }
cl_http_url() { echo "http://127.0.0.1:${CL_HTTP_PORT[$1]}"; }
cl_http_get()
{
    local i=$1 path=$2
    shift 2
    [ -n "${CL_HTTP_PORT[$i]:-}" ] || gr_fail "cl_http_get: start the cluster with GR_HTTP=1"
    curl -sS --max-time 10 "$@" "$(cl_http_url "$i")$path"
}

cl_start_broker()
{
    local i=$1 log deadline kv
    log=$(cl_broker_log "$i")
    [ -n "${CL_PORT[$i]:-}" ] || CL_PORT[i]=$(gr_free_port)
    mkdir -p "$GR_TMP/b$i"
    touch "$log"
    local args=(--override "broker.id=$i"
        --override "listeners=PLAINTEXT://$(cl_addr "$i")"
        --override "log.dirs=$GR_TMP/b$i/logs"
        --override "zookeeper.connect=$CL_ZK_HOST:$CL_ZK_PORT$CL_ZK_CHROOT"
        --override "zookeeper.session.timeout.ms=$CL_SESSION_TIMEOUT_MS"
        --override "zookeeper.connection.timeout.ms=$CL_CONNECTION_TIMEOUT_MS"
        --override "offsets.topic.replication.factor=1")
    if [ "$GR_HTTP" = 1 ]; then
        [ -n "${CL_HTTP_PORT[$i]:-}" ] || CL_HTTP_PORT[i]=$(gr_free_port)
        args+=(--override "gregor.http.listener=$(cl_http_url "$i")")
    fi
    for kv in "${CL_OVERRIDES[@]}"; do args+=(--override "$kv"); done
    # A test may give each broker its own settings (listeners with extra
    # ports, credentials): a function cl_broker_overrides BROKER printing
    # one key=value per line.
    if declare -F cl_broker_overrides >/dev/null; then
        while IFS= read -r kv; do
            [ -z "$kv" ] || args+=(--override "$kv")
        done < <(cl_broker_overrides "$i")
    fi
    [ -z "${CL_RACKS[$i]:-}" ] || args+=(--override "broker.rack=${CL_RACKS[$i]}")
    # A test may run each broker under a command (netnslib.sh: "ip netns
    # exec NS"), a function cl_broker_exec BROKER printing its words; it
    # must exec the broker, so that the PID is the broker's.
    local launch=()
    ! declare -F cl_broker_exec >/dev/null || read -ra launch < <(cl_broker_exec "$i")
    echo "=== cluster broker $i start ===" >>"$log"
    "${launch[@]}" "$GR_BROKER" "${args[@]}" 2>>"$log" </dev/null &
    CL_PID[i]=$!
    deadline=$((SECONDS + GR_START_DEADLINE_S))
    until gr_port_open "${CL_PORT[$i]}" "$(cl_host "$i")"; do
        if ! gr_alive "${CL_PID[$i]}"; then
            local rc=0
            wait "${CL_PID[$i]}" || rc=$?
            CL_PID[i]=
            tail -n 30 "$log" >&2
            gr_fail "broker $i exited with status $rc before accepting connections"
        fi
        [ $SECONDS -lt $deadline ] || gr_fail "broker $i not accepting on port ${CL_PORT[$i]} after ${GR_START_DEADLINE_S}s"
        sleep 0.05
    done
    gr_note "broker $i pid ${CL_PID[$i]} at $(cl_addr "$i")"
}

# Waits up to $2 seconds for broker $1 to exit; sets GR_EXIT_STATUS.
cl_reap_broker()
{
    local pid=${CL_PID[$1]} deadline=$((SECONDS + $2))
    while gr_alive "$pid"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.05
    done
    GR_EXIT_STATUS=0
    wait "$pid" || GR_EXIT_STATUS=$?
}

cl_stop_broker()
{
    local i=$1
    [ -n "${CL_PID[$i]:-}" ] || gr_fail "cl_stop_broker: broker $i is not running"
    kill -TERM "${CL_PID[$i]}" 2>/dev/null || true
    if ! cl_reap_broker "$i" "$GR_STOP_DEADLINE_S"; then
        kill -KILL "${CL_PID[$i]}" 2>/dev/null || true
        cl_reap_broker "$i" 10 || true
        CL_PID[i]=
        gr_fail "broker $i did not exit within ${GR_STOP_DEADLINE_S}s of SIGTERM (killed)"
    fi
    CL_PID[i]=
    [ "$GR_EXIT_STATUS" = 0 ] || gr_fail "broker $i exited with status $GR_EXIT_STATUS after SIGTERM (want 0)"
    gr_note "broker $i stopped"
}

cl_kill9_broker()
{
    local i=$1
    [ -n "${CL_PID[$i]:-}" ] || gr_fail "cl_kill9_broker: broker $i is not running"
    kill -KILL "${CL_PID[$i]}" 2>/dev/null || true
    cl_reap_broker "$i" 30 || gr_fail "broker $i still running after SIGKILL"
    CL_PID[i]=
    gr_note "broker $i killed (SIGKILL)"
}

cl_restart_broker()
{
    cl_stop_broker "$1"
    cl_start_broker "$1"
}

cl_freeze_broker() { kill -STOP "${CL_PID[$1]}" && gr_note "broker $1 frozen (SIGSTOP)"; }
cl_thaw_broker() { kill -CONT "${CL_PID[$1]}" && gr_note "broker $1 thawed (SIGCONT)"; }

cl_live()
{
    local i ids=()
    for ((i = 0; i < CL_COUNT; i++)); do
        [ -z "${CL_PID[$i]:-}" ] || ids+=("$i")
    done
    echo "${ids[*]}"
}

cl_bootstrap()
{
    local i out=""
    for i in $(cl_live); do out="${out:+$out,}$(cl_addr "$i")"; done
    echo "$out"
}

cl_state()
{
    local i=$1
    shift
    timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$CL_STATE_PY" "$(cl_addr "$i")" "$@"
}

cl_controller() { cl_state "$1" controller; }

cl_stable()
{
    local live i controller="" c
    live=$(cl_live)
    [ -n "$live" ] || return 1
    for i in $live; do
        [ "$(cl_state "$i" brokers 2>/dev/null)" = "$live" ] || return 1
        c=$(cl_state "$i" controller 2>/dev/null) || return 1
        [ -n "$controller" ] || controller=$c
        [ "$c" = "$controller" ] || return 1
    done
    [[ " $live " == *" $controller "* ]] || return 1
    CL_CONTROLLER=$controller
}

# What each running broker reports: its broker list and controller.
cl_views()
{
    local i
    for i in $(cl_live); do
        echo "broker $i sees brokers [$(cl_state "$i" brokers 2>&1)] controller $(cl_state "$i" controller 2>&1)"
    done
}

cl_wait_stable()
{
    local deadline=$((SECONDS + CL_WAIT_S))
    until cl_stable; do
        if [ $SECONDS -ge $deadline ]; then
            cl_views | sed "s/^/[$GR_TEST_NAME] /" >&2
            gr_fail "timed out after ${CL_WAIT_S}s waiting for: $1 (brokers $(cl_live) registered, one controller)"
        fi
        sleep 0.1
    done
    gr_note "brokers $(cl_live) registered, controller $CL_CONTROLLER"
}

cl_topic_gone() # TOPIC (3: UNKNOWN_TOPIC_OR_PARTITION)
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" leaders "$1" 2>/dev/null)" = "error 3" ] || return 1
    done
    [ -z "$(ls -d "$GR_TMP"/b*/logs/"$1"-* 2>/dev/null | grep -E "/$1-[0-9]+\$")" ]
}

cl_isr_size_is()
{
    local i n
    for i in $(cl_live); do
        n=$(cl_state "$i" isr "$1" | awk -v want="$2" 'split($3, m, ",") != want { bad = 1 } END { print NR * !bad }')
        [ "${n:-0}" -gt 0 ] || return 1
    done
}

cl_non_controller()
{
    local i
    for i in $(cl_live); do
        [ "$i" = "$CL_CONTROLLER" ] || { echo "$i"; return 0; }
    done
    return 1
}

cl_replica_dirs()
{
    local i ids=()
    for ((i = 0; i < CL_COUNT; i++)); do
        [ ! -d "$GR_TMP/b$i/logs/$1-$2" ] || ids+=("$i")
    done
    echo "${ids[*]}"
}

# Concatenates broker $1's .log segments of partition directory $2 in name
# order (the zero-padded base offsets sort as numbers) into file $3.
cl_replica_bytes()
{
    local dir=$GR_TMP/b$1/logs/$2 segments
    segments=$(find "$dir" -maxdepth 1 -name '*.log' -printf '%f\n' | LC_ALL=C sort)
    : >"$3"
    [ -z "$segments" ] || (cd "$dir" && xargs cat <<<"$segments") >"$3"
}

# Byte-for-byte: a follower appends the leader's batches unchanged, so in
# sync replicas hold the same bytes wherever their segments were rolled.
# (Compare quiet logs: a segment being appended or deleted by retention
# meanwhile differs for a while.)
cl_replicas_equal()
{
    local topic=$1 parts=$2 p brokers i first out rc
    shift 2
    CL_REPLICA_DIFF=
    for ((p = 0; p < parts; p++)); do
        if [ $# -gt 0 ]; then brokers="$*"; else brokers=$(cl_replica_dirs "$topic" "$p"); fi
        [ -n "$brokers" ] || { CL_REPLICA_DIFF="partition $topic-$p: no broker holds a replica directory"; return 1; }
        first=
        for i in $brokers; do
            if [ ! -d "$GR_TMP/b$i/logs/$topic-$p" ]; then
                CL_REPLICA_DIFF="partition $topic-$p: broker $i holds no replica directory (brokers with one: $(cl_replica_dirs "$topic" "$p"))"
                return 1
            fi
            cl_replica_bytes "$i" "$topic-$p" "$GR_TMP/replica.$i"
            if [ -z "$first" ]; then
                first=$i
                continue
            fi
            rc=0
            out=$(cmp "$GR_TMP/replica.$first" "$GR_TMP/replica.$i" 2>&1) || rc=$?
            if [ $rc != 0 ]; then
                CL_REPLICA_DIFF="partition $topic-$p: brokers $first ($(stat -c %s "$GR_TMP/replica.$first") bytes) and $i ($(stat -c %s "$GR_TMP/replica.$i") bytes) differ"
                # cmp counts bytes from 1: "differ: byte N, line L", "EOF on FILE after byte N"
                if [[ $out =~ differ:\ (char|byte)\ ([0-9]+) ]]; then
                    CL_REPLICA_DIFF+=" first at byte offset $((BASH_REMATCH[2] - 1))"
                elif [[ $out =~ EOF\ on\ .*replica\.([0-9]+)\ after\ byte\ ([0-9]+) ]]; then
                    CL_REPLICA_DIFF+=" first at byte offset ${BASH_REMATCH[2]} (broker ${BASH_REMATCH[1]}'s copy ends there)"
                elif [[ $out =~ EOF\ on\ .*replica\.([0-9]+)\ which\ is\ empty ]]; then
                    CL_REPLICA_DIFF+=" first at byte offset 0 (broker ${BASH_REMATCH[1]}'s copy is empty)"
                else
                    CL_REPLICA_DIFF+=": $out"
                fi
                return 1
            fi
        done
    done
}

cl_compare_replicas()
{
    cl_replicas_equal "$@" || gr_fail "replicas differ: $CL_REPLICA_DIFF"
}

cl_wait_replicas_equal()
{
    local topic=$1 parts=$2 deadline=$((SECONDS + CL_MOVE_WAIT_S))
    shift 2
    until cl_replicas_equal "$topic" "$parts" "$@"; do
        [ $SECONDS -lt $deadline ] || gr_fail "replicas of $topic not the same bytes after ${CL_MOVE_WAIT_S}s: $CL_REPLICA_DIFF"
        sleep 0.2
    done
    gr_note "brokers ${*:-holding them} hold the same bytes for the $parts partition(s) of $topic"
}

cl_wait_replica_dirs()
{
    local topic=$1 p=$2 want deadline=$((SECONDS + CL_MOVE_WAIT_S))
    shift 2
    want=$(printf '%s\n' "$@" | sort -n | paste -sd' ')
    until [ "$(cl_replica_dirs "$topic" "$p")" = "$want" ]; do
        [ $SECONDS -lt $deadline ] || gr_fail "after ${CL_MOVE_WAIT_S}s brokers $(cl_replica_dirs "$topic" "$p") hold a directory for $topic-$p, want only $want"
        sleep 0.1
    done
    gr_note "only brokers $want hold a directory for $topic-$p"
}

cl_partition_everywhere()
{
    local topic=$1 p=$2 replicas=$3 isr leaders=" $5 " i line leader got_isr got_replicas brokers
    isr=$(tr ',' '\n' <<<"$4" | sort -n | paste -sd,)
    shift 5
    if [ $# -gt 0 ]; then brokers="$*"; else brokers=$(cl_live); fi
    for i in $brokers; do
        line=$(cl_state "$i" isr "$topic" 2>/dev/null | awk -v p="$p" '$1 == p') || return 1
        read -r _ leader got_isr got_replicas <<<"$line" || return 1
        [ "$got_replicas" = "$replicas" ] || return 1
        [ "$(tr ',' '\n' <<<"$got_isr" | sort -n | paste -sd,)" = "$isr" ] || return 1
        [[ $leaders == *" $leader "* ]] || return 1
    done
}

cl_partition_views()
{
    local topic=$1 i brokers
    shift
    if [ $# -gt 0 ]; then brokers="$*"; else brokers=$(cl_live); fi
    for i in $brokers; do
        echo "broker $i: $(cl_state "$i" isr "$topic" 2>&1 | tr '\n' ';') (PARTITION LEADER ISR REPLICAS)"
    done
}

cl_wait_partition()
{
    local topic=$1 p=$2 replicas=$3 isr=$4 leaders=$5 deadline=$((SECONDS + CL_MOVE_WAIT_S)) brokers
    shift 5
    if [ $# -gt 0 ]; then brokers="$*"; else brokers=$(cl_live); fi
    # shellcheck disable=SC2086 # one argument per broker id
    until cl_partition_everywhere "$topic" "$p" "$replicas" "$isr" "$leaders" $brokers; do
        if [ $SECONDS -ge $deadline ]; then
            # shellcheck disable=SC2086
            cl_partition_views "$topic" $brokers | sed "s/^/[$GR_TEST_NAME] /" >&2
            [[ " $brokers " != *" ${CL_CONTROLLER:-none} "* ]] ||
                gr_note "controller $CL_CONTROLLER lists: $(cl_reassign "$CL_CONTROLLER" list 2>&1 | paste -sd'|')"
            gr_fail "timed out after ${CL_MOVE_WAIT_S}s waiting for brokers $brokers to report $topic-$p on replicas $replicas, ISR {$isr}, leader in {$leaders}"
        fi
        sleep 0.1
    done
    gr_note "brokers $brokers report $topic-$p: $(cl_state "${brokers%% *}" isr "$topic" | awk -v p="$p" '$1 == p') (PARTITION LEADER ISR REPLICAS)"
}

cl_replicas_on()
{
    local topic=$1 p=$2 replicas=$3 i
    shift 3
    for i in "$@"; do
        [ "$(cl_state "$i" isr "$topic" 2>/dev/null | awk -v p="$p" '$1 == p { print $4 }')" = "$replicas" ] || return 1
    done
}

cl_live_except() { cl_live | tr ' ' '\n' | grep -vx "$1" | paste -sd' '; }

cl_reassign()
{
    local i=$1
    shift
    timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$CL_REASSIGN_PY" "$(cl_addr "$i")" "$@"
}

cl_expect()
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}

cl_seq_produce()
{
    local topic=$1 n=$2 out rc=0
    out=$(gr_prog seq_producer -b "$(cl_bootstrap)" -t "$topic" -n "$n" -o "$3" 2>&1) || rc=$?
    [ $rc = 0 ] || gr_fail "seq_producer to $topic exited $rc: $(tail -n 5 <<<"$out")"
    [[ $out == *"topic=$topic produced=$n acked=$n failed=0"* ]] || gr_fail "seq_producer to $topic: $(tail -n 5 <<<"$out")"
    gr_note "$(grep '^seq_producer: topic=' <<<"$out" | tail -n 1)"
}

cl_seq_verify()
{
    local out
    out=$(gr_prog seq_verify -b "$(cl_bootstrap)" -t "$1" -i "$3" -n "$2" 2>&1) || gr_fail "seq_verify $1: $out"
    gr_note "$(tail -n 1 <<<"$out")"
}

cl_legacy_reassign()
{
    cl_zk create "$CL_ZK_CHROOT/admin/reassign_partitions" "$1" >/dev/null ||
        gr_fail "zkCli create /admin/reassign_partitions failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
}

cl_legacy_reassign_gone()
{
    local children
    children=$(cl_zk ls "$CL_ZK_CHROOT/admin" 2>/dev/null) && [[ $children == \[* ]] && ! grep -qw reassign_partitions <<<"$children"
}

cl_zk_assignment()
{
    local doc
    doc=$(cl_zk get "$CL_ZK_CHROOT/brokers/topics/$1") || gr_fail "zkCli get /brokers/topics/$1 failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
    "$GR_PYTHON" -c '
import json, sys
doc, p = json.loads(sys.argv[1]), sys.argv[2]
print(*(",".join(str(b) for b in (doc.get(k) or {}).get(p) or []) or "-"
        for k in ("partitions", "adding_replicas", "removing_replicas")))' "$doc" "$2" ||
        gr_fail "znode /brokers/topics/$1 holds '$doc', not an assignment"
}

cl_leaders_are()
{
    [ "$(cl_state "$1" leaders "$2" 2>/dev/null | awk '{ print $1, $2 }')" = "$3" ]
}

# True when every running broker knows TOPIC with PARTS partitions, each
# led by a running broker, and they agree on the leaders.
cl_all_led()
{
    local topic=$1 parts=$2 i first="" out live
    live=" $(cl_live) "
    for i in $(cl_live); do
        out=$(cl_state "$i" leaders "$topic" 2>/dev/null) || return 1
        [ "$(wc -l <<<"$out")" = "$parts" ] || return 1
        awk -v live="$live" '$3 != 0 || index(live, " " $2 " ") == 0 { bad = 1 } END { exit bad }' <<<"$out" || return 1
        [ -n "$first" ] || first=$out
        [ "$out" = "$first" ] || return 1
    done
}

cl_wait_all_led()
{
    gr_wait_until "$CL_WAIT_S" "topic $1 known by brokers $(cl_live) with $2 partitions, all led" cl_all_led "$1" "$2"
}

cl_create_assigned()
{
    local i=$1 topic=$2 assignment=$3
    cl_expect "creating $topic on [$assignment]" 0 "$(cl_state "$i" create-assigned "$topic" "$assignment")"
    cl_wait_all_led "$topic" "$(awk -F/ '{ print NF }' <<<"$assignment")"
}

cl_led_by()
{
    local first
    first=$(cl_live | cut -d' ' -f1)
    cl_state "$first" leaders "$1" | awk -v b="$2" '$2 == b { print $1 }'
}

cl_zk()
{
    local rc=0 out
    out=$(timeout "$GR_CMD_TIMEOUT_S" "$CL_ZKCLI" -server "$CL_ZK_HOST:$CL_ZK_PORT" "$@" 2>"$GR_TMP/zkcli.err") || rc=$?
    grep -v -E '^(Connecting to |WATCHER::|WatchedEvent |$)' <<<"$out" || true
    return $rc
}

# Prints field KEY of the JSON document in znode PATH.
cl_zk_field()
{
    local doc
    doc=$(cl_zk get "$1") || gr_fail "zkCli get $1 failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
    "$GR_PYTHON" -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$doc" "$2" ||
        gr_fail "znode $1 holds '$doc', not JSON with a field $2"
}

# How many clients ZooKeeper has connected (its "stat" four-letter word,
# minus the asking connection itself).
cl_zk_clients()
{
    "$GR_PYTHON" - "$CL_ZK_HOST" "$CL_ZK_PORT" <<'EOF' 2>/dev/null || echo 0
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(b"stat")
out = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    out += chunk
print(sum(1 for line in out.decode().splitlines() if line.startswith(" /")) - 1)
EOF
}

# True when every running broker could be connected to ZooKeeper (as many
# clients as running brokers): after a ZooKeeper restart, the brokers'
# Metadata looks the same before they are back, so a test waits on this.
cl_zk_reconnected() { [ "$(cl_zk_clients)" -ge "$(wc -w <<<"$(cl_live)")" ]; }

cl_start_cluster()
{
    local n=$1 i
    shift
    CL_COUNT=$n
    # As lib.sh's single broker, plus what a cluster test wants: groups
    # rebalance at once, a small __consumer_offsets, topics created by
    # clients get one partition per broker.
    # Controlled shutdowns retry quickly: at clean-up every broker stops at
    # once, and none can take the others' partitions.
    CL_OVERRIDES=(group.initial.rebalance.delay.ms=0 group.min.session.timeout.ms=2000
        offsets.topic.num.partitions=6 controlled.shutdown.retry.backoff.ms=200 "$@")
    cl_start_zk
    for ((i = 0; i < n; i++)); do cl_start_broker "$i"; done
    GR_BOOTSTRAP=$(cl_bootstrap)
    [ "${CL_START_WAIT:-1}" = 0 ] || cl_wait_stable "cluster start"
}

# Stops every broker (SIGTERM to all first, so they shut down together, then
# reap each) and ZooKeeper; folds the broker logs into lib.sh's log so that
# its checks see them. Returns 1 if a broker crashed or misbehaved on stop.
cl_cleanup_cluster()
{
    local i bad=0 log
    for ((i = 0; i < CL_COUNT; i++)); do
        [ -n "${CL_PID[$i]:-}" ] || continue
        kill -CONT "${CL_PID[$i]}" 2>/dev/null
        if ! gr_alive "${CL_PID[$i]}"; then
            wait "${CL_PID[$i]}"
            gr_note "broker $i (pid ${CL_PID[$i]}) died during the test with status $?"
            CL_PID[i]=
            bad=1
            continue
        fi
        kill -TERM "${CL_PID[$i]}" 2>/dev/null
    done
    for ((i = 0; i < CL_COUNT; i++)); do
        [ -n "${CL_PID[$i]:-}" ] || continue
        if ! cl_reap_broker "$i" "$GR_STOP_DEADLINE_S"; then
            gr_note "broker $i did not exit within ${GR_STOP_DEADLINE_S}s of SIGTERM; SIGKILL"
            kill -KILL "${CL_PID[$i]}" 2>/dev/null
            cl_reap_broker "$i" 10
            bad=1
        elif [ "$GR_EXIT_STATUS" != 0 ]; then
            gr_note "broker $i exited with status $GR_EXIT_STATUS after SIGTERM (want 0)"
            bad=1
        fi
        CL_PID[i]=
    done
    bash "$GR_CLUSTER_REPO/ci/zookeeper.sh" stop "$CL_ZK_DIR" 2>/dev/null
    for ((i = 0; i < CL_COUNT; i++)); do
        log=$(cl_broker_log "$i")
        [ -f "$log" ] || continue
        { echo "=== gr_interop: cluster broker $i ==="; cat "$log"; } >>"$GR_LOG"
    done
    return $bad
}

cl_report()
{
    local i
    for ((i = 0; i < CL_COUNT; i++)); do
        [ -f "$(cl_broker_log "$i")" ] || continue
        gr_note "broker $i log, last lines ($(cl_broker_log "$i")):"
        tail -n 15 "$(cl_broker_log "$i")" | sed "s/^/[$GR_TEST_NAME]   b$i: /" >&2
    done
    [ ! -f "$CL_ZK_DIR/zookeeper.log" ] || gr_note "ZooKeeper log: $CL_ZK_DIR/zookeeper.log"
}

CL_EXIT_STATUS=0
# errexit goes off first, as in grouplib.sh: "(exit STATUS)" hands the status
# on to lib.sh's cleanup.
trap 'CL_EXIT_STATUS=$?; set +e
    if [ $CL_EXIT_STATUS != 0 ] && [ $CL_EXIT_STATUS != 77 ]; then
        ! declare -F gm_report >/dev/null || gm_report
        cl_report
    fi
    ! declare -F cl_before_cleanup >/dev/null || cl_before_cleanup
    cl_cleanup_cluster || { [ $CL_EXIT_STATUS != 0 ] || CL_EXIT_STATUS=1; }
    (exit $CL_EXIT_STATUS); gr_cleanup' EXIT
