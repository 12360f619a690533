# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Interop test harness, sourced by every test script,
# interop-tests/<subsystem>/<api>_<behaviour>.sh.
#
# A test makes a temp dir, starts one broker on a free loopback port with its
# log dirs and its stderr log inside that dir, drives it with stock clients
# (kcat, the librdkafka programs in progs/, kafka-python, kafkajs), and ends
# with gr_pass. On exit, whatever happened, the trap stops the broker by PID
# (SIGTERM, then SIGKILL after a deadline), fails the test if the broker log
# holds a sanitizer report or an ERROR line the test did not allow, or if the
# broker died on its own, and removes the temp dir (kept when GR_KEEP_TMP=1).
#
# Environment (set by CTest, or by run.sh when run by hand):
#   GR_BROKER        the gregor binary
#   GR_PROGS         directory of the built progs/*.c programs
#   GR_KCAT          kcat (default: kcat from PATH)
#   GR_MOCK_CLUSTER  librdkafka mock cluster launcher; with GR_BROKER_KIND=mock
#                    the tests run against it instead (to check the harness
#                    and the tests themselves; gregor-only tests skip)
#   GR_PYTHON        python with python3-kafka (default /usr/bin/python3)
#
# Functions:
#   gr_start_broker [key=value]...   start (overrides persist over restarts;
#                                    GR_CONFIG_FILE, if set, is the
#                                    server.properties they apply to);
#                                    sets GR_PID, GR_PORT, GR_BOOTSTRAP;
#                                    returns once the port accepts, which
#                                    can be before the partitions are open
#   GR_HTTP=1 (set before gr_start_broker)  the broker also serves its
#                                    metrics and health endpoints
#                                    (gregor.http.listener) on a free port,
#                                    the same over restarts: sets
#                                    GR_HTTP_PORT and GR_HTTP_URL
#                                    (http://127.0.0.1:PORT); GR_HTTP=https
#                                    for https (the ssl.keystore.* overrides
#                                    are the test's: tlslib.sh)
#   gr_http_get PATH [CURL ARGS]...  curl -sS $GR_HTTP_URL$PATH (with a
#                                    timeout); the body on stdout, fails on
#                                    no answer, not on an HTTP status
#   gr_wait_broker_started           wait for this run's "started:" line: its
#                                    partitions are open (recovered) by then
#   gr_stop_broker                   SIGTERM, wait; fails unless it exits 0
#   gr_kill9_broker                  SIGKILL, wait
#   gr_restart_broker                stop, then start on the same dirs and port
#   gr_broker_log                    the broker's log so far (all runs)
#   gr_broker_run_log                the log of the current (last) run only
#   gr_broker_run_log_has PATTERN    whether that log has a line matching PATTERN
#   gr_allow_log_errors REGEX        ERROR lines matching REGEX are expected
#   gr_kcat ARGS...                  kcat -b $GR_BOOTSTRAP ARGS (with a timeout)
#   gr_prog NAME ARGS...             a progs/ program (with a timeout)
#   gr_wait_until SECONDS DESC CMD.. poll CMD until it succeeds, or fail
#   gr_require_gregor                skip (exit 77) when not running gregor
#   gr_track PID...                  background clients to kill (with their
#                                    descendants) if the test ends first
#   gr_fail MESSAGE / gr_pass
#
# Exit status: 0 pass, 1 fail, 77 skipped (CTest's SKIP_RETURN_CODE).
# Nothing here sleeps for a fixed time to wait for a condition: waits are poll
# loops with short intervals under a deadline.

set -euo pipefail

GR_TEST_NAME=$(basename "${0%.sh}")
GR_BROKER_KIND=${GR_BROKER_KIND:-gregor}
GR_KCAT=${GR_KCAT:-kcat}
GR_PYTHON=${GR_PYTHON:-/usr/bin/python3}
GR_START_DEADLINE_S=${GR_START_DEADLINE_S:-30}
GR_STOP_DEADLINE_S=${GR_STOP_DEADLINE_S:-30}
GR_CMD_TIMEOUT_S=${GR_CMD_TIMEOUT_S:-120}
# The interop-tests folder (this file is in its lib/): py/, js/, progs/ and
# node_modules/ are found from it.
GR_INTEROP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

GR_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gr-interop-$GR_TEST_NAME.XXXXXX")
GR_LOG=$GR_TMP/broker.log
GR_PID=
GR_PORT=
GR_BOOTSTRAP=
GR_RUN=0
GR_RUN_START_LINE=1
GR_ALLOWED_ERRORS=
GR_PASSED=0
GR_OVERRIDES=()
GR_CONFIG_FILE=
GR_HTTP=${GR_HTTP:-0}
GR_HTTP_PORT=
GR_HTTP_URL=
GR_CHILDREN=()
GR_EXIT_STATUS=
# Partitions of an auto-created topic at the default num.partitions (Kafka's
# default is 1; librdkafka's mock cluster uses 4).
GR_AUTO_PARTITIONS=1
[ "$GR_BROKER_KIND" != mock ] || GR_AUTO_PARTITIONS=4
: >"$GR_LOG"

gr_note() { echo "[$GR_TEST_NAME] $*" >&2; }

gr_fail()
{
    gr_note "FAIL: $*"
    exit 1
}

gr_pass()
{
    GR_PASSED=1
    exit 0
}

gr_require_gregor()
{
    if [ "$GR_BROKER_KIND" != gregor ]; then
        gr_note "skipped: needs gregor (running against $GR_BROKER_KIND)"
        exit 77
    fi
}

gr_allow_log_errors()
{
    if [ -z "$GR_ALLOWED_ERRORS" ]; then GR_ALLOWED_ERRORS=$1; else GR_ALLOWED_ERRORS="$GR_ALLOWED_ERRORS|$1"; fi
}

# Prints a free loopback port: the kernel picks it for a socket bound to
# port 0, which is then closed (another process could take it in between;
# the start then fails visibly rather than silently). The kernel may hand
# out a port it just freed again, so the ports this test was given are kept
# in $GR_TMP/ports and never given twice: a broker's listeners, picked one
# after the other, get distinct ports.
gr_free_port()
{
    "$GR_PYTHON" -c 'import socket, sys
path = sys.argv[1]
try:
    taken = set(open(path).read().split())
except FileNotFoundError:
    taken = set()
for _ in range(100):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = str(s.getsockname()[1])
    s.close()
    if port not in taken:
        break
else:
    sys.exit("no free loopback port that this test was not already given")
open(path, "a").write(port + "\n")
print(port)' "$GR_TMP/ports"
}

# True when something accepts TCP connections on 127.0.0.1:$1 (or on $2).
gr_port_open()
{
    (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# True while $1 is a live process (a zombie child counts as gone).
gr_alive()
{
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ "$state" != Z ]
}

gr_wait_until()
{
    local seconds=$1 desc=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        [ $SECONDS -lt $deadline ] || gr_fail "timed out after ${seconds}s waiting for: $desc"
        sleep 0.05
    done
}

gr_track() { GR_CHILDREN+=("$@"); }

# SIGKILLs a process and its descendants, children first listed by parent id.
gr_kill_tree()
{
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do gr_kill_tree "$child"; done
    kill -KILL "$1" 2>/dev/null || true
}

gr_http_get()
{
    local path=$1
    shift
    [ -n "$GR_HTTP_URL" ] || gr_fail "gr_http_get: start the broker with GR_HTTP=1"
    curl -sS --max-time 10 "$@" "$GR_HTTP_URL$path"
}

gr_broker_log() { cat "$GR_LOG"; }
gr_broker_run_log() { tail -n +"$GR_RUN_START_LINE" "$GR_LOG"; }
# Not "gr_broker_run_log | grep -q": grep leaves at the first match, tail may
# then die of SIGPIPE, and pipefail turns a match into a failure.
gr_broker_run_log_has() { grep -q -- "$1" < <(gr_broker_run_log); }

gr_start_broker()
{
    local deadline
    if [ $# -gt 0 ]; then GR_OVERRIDES+=("$@"); fi
    GR_RUN=$((GR_RUN + 1))
    GR_RUN_START_LINE=$(($(wc -l <"$GR_LOG") + 2))
    echo "=== gr_interop: broker run $GR_RUN ===" >>"$GR_LOG"
    if [ "$GR_BROKER_KIND" = mock ]; then
        [ -x "${GR_MOCK_CLUSTER:-}" ] || gr_fail "GR_MOCK_CLUSTER is not set to the mock_cluster binary"
        "$GR_MOCK_CLUSTER" >"$GR_TMP/mock.out" 2>>"$GR_LOG" &
        GR_PID=$!
        gr_wait_until "$GR_START_DEADLINE_S" "mock cluster bootstrap line" test -s "$GR_TMP/mock.out"
        GR_BOOTSTRAP=$(head -n 1 "$GR_TMP/mock.out")
        GR_PORT=${GR_BOOTSTRAP##*:}
        gr_note "mock cluster pid $GR_PID at $GR_BOOTSTRAP"
        return 0
    fi
    [ -x "${GR_BROKER:-}" ] || gr_fail "GR_BROKER is not set to the gregor binary"
    [ -n "$GR_PORT" ] || GR_PORT=$(gr_free_port)
    GR_BOOTSTRAP=127.0.0.1:$GR_PORT
    # A single broker can only host __consumer_offsets with one replica, as
    # in Kafka's sample server.properties; a test's own overrides come later and win.
    local args=(${GR_CONFIG_FILE:+"$GR_CONFIG_FILE"} --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT"
        --override "log.dirs=$GR_TMP/logs"
        --override "offsets.topic.replication.factor=1"
        --override "transaction.state.log.replication.factor=1"
        --override "transaction.state.log.min.isr=1"
        --override "share.coordinator.state.topic.replication.factor=1"
        --override "share.coordinator.state.topic.min.isr=1")
    if [ "$GR_HTTP" = 1 ] || [ "$GR_HTTP" = https ]; then
        [ -n "$GR_HTTP_PORT" ] || GR_HTTP_PORT=$(gr_free_port)
        GR_HTTP_URL=http://127.0.0.1:$GR_HTTP_PORT
        [ "$GR_HTTP" = 1 ] || GR_HTTP_URL=https://127.0.0.1:$GR_HTTP_PORT
        args+=(--override "gregor.http.listener=$GR_HTTP_URL")
    fi
    local kv
    for kv in "${GR_OVERRIDES[@]}"; do args+=(--override "$kv"); done
    "$GR_BROKER" "${args[@]}" 2>>"$GR_LOG" </dev/null &
    GR_PID=$!
    deadline=$((SECONDS + GR_START_DEADLINE_S))
    until gr_port_open "$GR_PORT"; do
        if ! gr_alive "$GR_PID"; then
            local rc=0
            wait "$GR_PID" || rc=$?
            GR_PID=
            gr_note "broker log:"
            gr_broker_run_log | tail -n 30 >&2
            gr_fail "broker exited with status $rc before accepting connections"
        fi
        [ $SECONDS -lt $deadline ] || gr_fail "broker not accepting on port $GR_PORT after ${GR_START_DEADLINE_S}s"
        sleep 0.05
    done
    gr_note "broker pid $GR_PID listening at $GR_BOOTSTRAP (run $GR_RUN)"
}

# The port accepts (into the kernel's backlog) as soon as the broker
# listens, but a broker opens, and so recovers, the partitions it leads only
# when its controller assigns them; alone (no ZooKeeper) it logs "started:"
# after that. A test that looks at the log dir after a restart waits for
# that line first.
gr_wait_broker_started()
{
    [ "$GR_BROKER_KIND" = gregor ] || return 0
    gr_wait_until "$GR_START_DEADLINE_S" "the broker's \"started:\" line (run $GR_RUN)" \
        gr_broker_run_started
}
gr_broker_run_started()
{
    gr_broker_run_log_has '^[0-9TZ:.+-]* INFO  \[broker\] started: ' ||
        gr_broker_run_log_has '"level":"INFO","logger":"broker",.*"message":"started: '
}

# Waits for the broker to exit within $1 seconds and sets GR_EXIT_STATUS.
# Returns 1 if it is still running at the deadline. (Not in a subshell: only
# this shell can wait for its child.)
gr_reap_broker()
{
    local deadline=$((SECONDS + $1))
    while gr_alive "$GR_PID"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.05
    done
    GR_EXIT_STATUS=0
    wait "$GR_PID" || GR_EXIT_STATUS=$?
}

gr_stop_broker()
{
    [ -n "$GR_PID" ] || gr_fail "gr_stop_broker: no broker running"
    kill -TERM "$GR_PID" 2>/dev/null || true
    if ! gr_reap_broker "$GR_STOP_DEADLINE_S"; then
        kill -KILL "$GR_PID" 2>/dev/null || true
        gr_reap_broker 10 || true
        GR_PID=
        gr_fail "broker did not exit within ${GR_STOP_DEADLINE_S}s of SIGTERM (killed)"
    fi
    GR_PID=
    # the mock launcher exits 0 on SIGTERM too
    [ "$GR_EXIT_STATUS" = 0 ] || gr_fail "broker exited with status $GR_EXIT_STATUS after SIGTERM (want 0)"
}

gr_kill9_broker()
{
    [ -n "$GR_PID" ] || gr_fail "gr_kill9_broker: no broker running"
    kill -KILL "$GR_PID" 2>/dev/null || true
    gr_reap_broker 30 || gr_fail "broker still running after SIGKILL"
    GR_PID=
}

gr_restart_broker()
{
    gr_stop_broker
    gr_start_broker
}

gr_kcat()
{
    local rc=0
    timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" "$@" || rc=$?
    [ $rc != 124 ] || gr_note "kcat killed after ${GR_CMD_TIMEOUT_S}s: $*"
    return $rc
}

gr_prog()
{
    local name=$1
    shift
    local rc=0
    [ -x "${GR_PROGS:-}/$name" ] || gr_fail "program $name not built (GR_PROGS=${GR_PROGS:-unset})"
    timeout "$GR_CMD_TIMEOUT_S" "$GR_PROGS/$name" "$@" || rc=$?
    [ $rc != 124 ] || gr_note "$name killed after ${GR_CMD_TIMEOUT_S}s: $*"
    return $rc
}

# Scans the whole broker log. Prints the problems; returns 1 if any.
gr_check_log()
{
    local bad=0 errors
    if grep -E -n 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: [A-Za-z]*Sanitizer|WARNING: ThreadSanitizer' "$GR_LOG" >&2; then
        gr_note "sanitizer report in the broker log"
        bad=1
    fi
    # Text lines, and JSON ones (gregor.log.format=json).
    errors=$(grep -E '^[0-9TZ:.+-]+ ERROR |^\{"time":"[^"]*","level":"ERROR"' "$GR_LOG" || true)
    if [ -n "$errors" ] && [ -n "$GR_ALLOWED_ERRORS" ]; then
        errors=$(printf '%s\n' "$errors" | grep -E -v "$GR_ALLOWED_ERRORS" || true)
    fi
    if [ -n "$errors" ]; then
        printf '%s\n' "$errors" | head -n 20 >&2
        gr_note "unexpected ERROR lines in the broker log"
        bad=1
    fi
    return $bad
}

gr_cleanup()
{
    local status=$? crashed=0 rc
    trap - EXIT
    set +e
    local child
    for child in "${GR_CHILDREN[@]}"; do gr_kill_tree "$child"; done
    if [ -n "$GR_PID" ]; then
        if ! gr_alive "$GR_PID"; then
            wait "$GR_PID"
            rc=$?
            gr_note "broker (pid $GR_PID) died during the test with status $rc"
            crashed=1
        else
            kill -TERM "$GR_PID" 2>/dev/null
            if ! gr_reap_broker "$GR_STOP_DEADLINE_S"; then
                gr_note "broker did not exit within ${GR_STOP_DEADLINE_S}s of SIGTERM; SIGKILL"
                kill -KILL "$GR_PID" 2>/dev/null
                gr_reap_broker 10
                crashed=1
            elif [ "$GR_EXIT_STATUS" != 0 ]; then
                gr_note "broker exited with status $GR_EXIT_STATUS after SIGTERM (want 0)"
                crashed=1
            fi
        fi
    fi
    if ! gr_check_log || [ $crashed = 1 ]; then
        status=1
    fi
    if [ $status = 0 ] && [ $GR_PASSED != 1 ]; then
        gr_note "test script ended without gr_pass"
        status=1
    fi
    if [ $status != 0 ] && [ $status != 77 ]; then
        gr_note "last broker log lines ($GR_LOG):"
        tail -n 40 "$GR_LOG" >&2
        gr_note "FAILED (status $status)"
    elif [ $status = 0 ]; then
        gr_note "passed"
    fi
    if [ "${GR_KEEP_TMP:-0}" = 1 ]; then
        gr_note "kept $GR_TMP"
    else
        rm -rf "$GR_TMP"
    fi
    exit $status
}

trap gr_cleanup EXIT
trap 'gr_note "error at line $LINENO: $BASH_COMMAND"' ERR
trap 'exit 143' TERM
trap 'exit 130' INT
