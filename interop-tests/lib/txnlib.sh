# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Transaction helpers for the interop-tests/txn/txn_*.sh and
# cluster/cluster_txn_*.sh tests, sourced after lib.sh (and clusterlib.sh).
# (It lives in lib/, which CTest does not search for tests.)
#
# The clients are progs/txn_producer (transactions ended as asked, a status
# line per step: "open L T N", "committed L T N", ...), progs/txn_verify
# (reads a topic with read_committed or read_uncommitted and checks each
# transaction against those lines) and progs/txn_pipeline (exactly-once
# consume-transform-produce); see their headers. Each producer's stdout goes
# to $GR_TMP/<name>.out, its stderr to <name>.err.
#
# Functions:
#   tx_admin ARGS...                gregor-admin against the (first running) broker
#   tx_topic NAME PARTS [k=v]...    create a topic (replication factor -1:
#                                   the broker's default), or gr_fail
#   tx_produce NAME ARGS...         txn_producer ARGS (-b set) to the end;
#                                   gr_fail with its errors unless it exits 0
#   tx_start NAME ARGS...           the same in the background: TX_PID[NAME]
#   tx_wait_line NAME REGEX         poll until NAME's stdout has a line
#                                   matching REGEX (TX_WAIT_S); gr_fail with
#                                   its last lines if it exits first
#   tx_signal NAME SIG              kill -SIG its process
#   tx_wait_exit NAME [STATUS]      wait for it to exit (with STATUS, default 0)
#   tx_verify ISOLATION TOPIC [ARGS...]  txn_verify -I ISOLATION over every
#                                   producer's stdout so far; gr_fail with its
#                                   output unless it exits 0
#   tx_offsets TOPIC [read_committed]  "PARTITION ERROR OFFSET" per partition:
#                                   ListOffsets latest (the LSO with
#                                   read_committed), py/cluster_state.py
#                                   (one broker: single-node tests only)
#   tx_offset_of TOPIC P [read_committed]  that offset of partition P
#   tx_read TOPIC [ISOLATION [KCAT ARGS...]]  kcat: every record of TOPIC up
#                                   to its end for the isolation level, one
#                                   "PARTITION OFFSET VALUE" line each
#   tx_state TXN_ID                 its state as gregor-admin transactions
#                                   describe prints it (empty if none)
#   tx_wait_state TXN_ID REGEX      poll until tx_state matches
#   tx_committed GROUP              its committed offsets, "TOPIC PARTITION
#                                   OFFSET" lines (gregor-admin groups describe)
#   tx_ends TOPIC                   its high watermarks, the same format
#
# Before the transaction coordinator serves, InitProducerId with a
# transactional id answers COORDINATOR_NOT_AVAILABLE: txn_producer then
# fails after its -w deadline (tx_produce passes -w "$TX_WAIT_S"), and the
# failure says so.

declare -A TX_PID=()
TX_VERIFY_OUT=
TX_WAIT_S=${TX_WAIT_S:-60}
TX_ADMIN=$(dirname "${GR_BROKER:-.}")/gregor-admin
TX_OUTS=()

# The running brokers' addresses, comma-separated (in a cluster test, those
# clusterlib.sh knows to be up), and the first of them.
tx_brokers()
{
    if declare -F cl_bootstrap >/dev/null; then cl_bootstrap; else echo "$GR_BOOTSTRAP"; fi
}
# TX_BROKER (HOST:PORT), when a test sets it, replaces the first: a test
# that freezes a broker points the admin tool elsewhere.
tx_broker()
{
    local all
    all=$(tx_brokers)
    echo "${TX_BROKER:-${all%%,*}}"
}

tx_admin()
{
    [ -x "$TX_ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
    timeout "$GR_CMD_TIMEOUT_S" "$TX_ADMIN" --bootstrap-server "$(tx_broker)" "$@"
}

tx_topic()
{
    local name=$1 parts=$2 kv out
    shift 2
    local args=(topics create --topic "$name" --partitions "$parts")
    for kv in "$@"; do args+=(--config "$kv"); done
    out=$(tx_admin "${args[@]}" 2>&1) || gr_fail "creating topic $name: $out"
}

tx_out() { echo "$GR_TMP/$1.out"; }

# The producer's stdout joins the expectations tx_verify checks.
tx_register() { TX_OUTS+=("$(tx_out "$1")"); }

tx_produce()
{
    local name=$1 rc=0
    shift
    tx_register "$name"
    gr_prog txn_producer -b "$GR_BOOTSTRAP" -w "$TX_WAIT_S" "$@" >>"$(tx_out "$name")" \
        2>>"$GR_TMP/$name.err" || rc=$?
    if [ $rc != 0 ]; then
        tail -n 15 "$GR_TMP/$name.err" >&2
        gr_fail "txn_producer $name ($*) exited $rc; last line: $(tail -n 1 "$(tx_out "$name")")"
    fi
}

tx_start()
{
    local name=$1
    shift
    [ -x "${GR_PROGS:-}/txn_producer" ] || gr_fail "txn_producer not built (GR_PROGS=${GR_PROGS:-unset})"
    tx_register "$name"
    "$GR_PROGS/txn_producer" -b "$GR_BOOTSTRAP" -w "$TX_WAIT_S" "$@" >>"$(tx_out "$name")" \
        2>>"$GR_TMP/$name.err" &
    TX_PID[$name]=$!
    gr_track "${TX_PID[$name]}"
}

# True once NAME's stdout has a line matching REGEX; fails if it exited first.
tx_has_line()
{
    local name=$1 regex=$2
    grep -Eq -- "$regex" "$(tx_out "$name")" 2>/dev/null && return 0
    if [ -n "${TX_PID[$name]:-}" ] && ! gr_alive "${TX_PID[$name]}"; then
        grep -Eq -- "$regex" "$(tx_out "$name")" 2>/dev/null && return 0
        tail -n 15 "$GR_TMP/$name.err" >&2
        gr_fail "$name exited before printing a line matching '$regex'; its last: $(tail -n 1 "$(tx_out "$name")")"
    fi
    return 1
}

tx_wait_line() { gr_wait_until "$TX_WAIT_S" "$1: a line matching '$2'" tx_has_line "$1" "$2"; }

tx_signal() { kill -"$2" "${TX_PID[$1]}" 2>/dev/null || gr_fail "$1 is not running to take SIG$2"; }

tx_wait_exit()
{
    local name=$1 want=${2:-0} rc=0 deadline=$((SECONDS + TX_WAIT_S))
    while gr_alive "${TX_PID[$name]}"; do
        [ $SECONDS -lt $deadline ] || gr_fail "$name still running after ${TX_WAIT_S}s"
        sleep 0.05
    done
    wait "${TX_PID[$name]}" || rc=$?
    if [ "$rc" != "$want" ]; then
        tail -n 15 "$GR_TMP/$name.err" >&2
        gr_fail "$name exited $rc, want $want; last line: $(tail -n 1 "$(tx_out "$name")")"
    fi
}

tx_verify()
{
    local isolation=$1 topic=$2 out rc=0 f
    shift 2
    local args=(-b "$(tx_brokers)" -t "$topic" -I "$isolation" -w "$TX_WAIT_S")
    for f in "${TX_OUTS[@]}"; do args+=(-i "$f"); done
    out=$(gr_prog txn_verify "${args[@]}" "$@" 2>"$GR_TMP/verify.err") || rc=$?
    if [ $rc != 0 ]; then
        grep -v ': ok$' <<<"$out" | head -n 20 >&2
        cat "$GR_TMP/verify.err" >&2
        gr_fail "txn_verify $isolation of $topic: $(tail -n 1 <<<"$out")"
    fi
    gr_note "$(tail -n 1 <<<"$out")"
    TX_VERIFY_OUT=$out # for the caller: the per-transaction and "end" lines
}

tx_offsets()
{
    "$GR_PYTHON" "$GR_INTEROP_DIR/py/cluster_state.py" "$(tx_broker)" offsets "$@"
}

tx_offset_of()
{
    local topic=$1 p=$2
    shift 2
    tx_offsets "$topic" "$@" | awk -v p="$p" '$1 == p && $2 == 0 { print $3 }'
}

tx_read()
{
    local topic=$1 isolation=${2:-read_committed}
    shift 2 || shift $#
    gr_kcat -C -t "$topic" -o beginning -e -q -X isolation.level="$isolation" \
        -f '%p %o %s\n' "$@"
}

tx_state()
{
    tx_admin transactions describe --transactional-id "$1" --json 2>/dev/null |
        "$GR_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null || true
}

tx_state_is() { [[ "$(tx_state "$1")" =~ $2 ]]; }

tx_wait_state() { gr_wait_until "$TX_WAIT_S" "transactional id $1 in state $2" tx_state_is "$1" "$2"; }

# The group's committed offsets, "TOPIC PARTITION OFFSET" lines sorted, as
# gregor-admin groups describe reports them (OffsetFetch: pending
# transactional offsets are not there).
tx_committed()
{
    tx_admin groups describe --group "$1" --json 2>/dev/null |
        "$GR_PYTHON" -c 'import json,sys
d = json.load(sys.stdin)
for o in sorted(d.get("offsets", []), key=lambda o: (o["topic"], o["partition"])):
    if o["current_offset"] >= 0:
        print(o["topic"], o["partition"], o["current_offset"])'
}

# "TOPIC PARTITION OFFSET" of TOPIC's high watermarks, sorted.
tx_ends()
{
    tx_offsets "$1" | awk -v t="$1" '$2 == 0 { print t, $1, $3 }'
}
