# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Share-group (KIP-932) helpers for the interop-tests/share/*.sh tests and
# cluster/cluster_share_failover.sh, sourced after lib.sh (and clusterlib.sh).
# The consumers are py/share_client.py (raw sockets); its output lines are
# "offset delivery_count value member", its --acked lines "offset
# delivery_count type member" (an acknowledgement the broker answered
# without error).
#
# A new share group starts at the end of the partitions
# (share.auto.offset.reset=latest): sh_init joins the group and fetches
# once so that the records produced after it are the group's.
#
# Functions:
#   sh_admin ARGS...               gregor-admin against the first broker
#   sh_topic NAME PARTS [RF]       create a topic (gr_fail on error)
#   sh_client ARGS...              share_client.py --bootstrap (running
#                                  brokers) ARGS, with a timeout
#   sh_init GROUP TOPIC            join GROUP, fetch TOPIC once, leave
#   sh_produce TOPIC PREFIX FROM TO  records PREFIX-FROM .. PREFIX-TO to
#                                  partition 0 (kcat)
#   sh_start NAME ARGS...          sh_client in the background, stdout in
#                                  $GR_TMP/NAME.out, stderr in NAME.err;
#                                  SH_PID[NAME] (timeout's: a SIGTERM to it
#                                  reaches the client, which then stops
#                                  cleanly; sh_kill9 kills both)
#   sh_kill9 NAME                  SIGKILL the client and its timeout
#   sh_wait NAME                   wait for it; gr_fail unless it exits 0
#   sh_lines FILE...               lines in the files (0 for none)
#   sh_take NAME WHAT ARGS...      sh_client ARGS --out $GR_TMP/NAME.out
#                                  in the foreground; gr_fail with its
#                                  stderr unless it exits 0
#   sh_expect WHAT WANT GOT        gr_fail unless GOT is WANT

SH_CLIENT=$GR_INTEROP_DIR/py/share_client.py
SH_ADMIN=$(dirname "${GR_BROKER:-.}")/gregor-admin
SH_TIMEOUT_S=${SH_TIMEOUT_S:-60}
declare -A SH_PID=()

sh_bootstrap()
{
    if declare -F cl_bootstrap >/dev/null; then cl_bootstrap; else echo "$GR_BOOTSTRAP"; fi
}

sh_admin()
{
    local all
    all=$(sh_bootstrap)
    timeout "$GR_CMD_TIMEOUT_S" "$SH_ADMIN" --bootstrap-server "${all%%,*}" "$@"
}

sh_topic()
{
    local out args=(topics create --topic "$1" --partitions "$2")
    [ -z "${3:-}" ] || args+=(--replication-factor "$3")
    out=$(sh_admin "${args[@]}" 2>&1) || gr_fail "creating topic $1: $out"
}

sh_client()
{
    timeout $((SH_TIMEOUT_S + 30)) "$GR_PYTHON" "$SH_CLIENT" --bootstrap "$(sh_bootstrap)" \
        --timeout "$SH_TIMEOUT_S" "$@"
}

sh_init()
{
    sh_client --group "$1" --topic "$2" --count 0 2>"$GR_TMP/init-$1.err" ||
        gr_fail "initialising share group $1 on $2: $(tail -n 5 "$GR_TMP/init-$1.err")"
}

sh_produce()
{
    seq "$3" "$4" | sed "s/^/$2-/" | gr_kcat -P -t "$1" -p 0 || gr_fail "producing $2-$3..$4 to $1"
}

sh_start()
{
    local name=$1
    shift
    timeout $((SH_TIMEOUT_S + 30)) "$GR_PYTHON" "$SH_CLIENT" --bootstrap "$(sh_bootstrap)" \
        --timeout "$SH_TIMEOUT_S" "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" &
    SH_PID[$name]=$!
    gr_track "${SH_PID[$name]}"
}

sh_kill9()
{
    gr_kill_tree "${SH_PID[$1]}"
    wait "${SH_PID[$1]}" 2>/dev/null || true
}

sh_wait()
{
    local rc=0
    wait "${SH_PID[$1]}" || rc=$?
    [ $rc = 0 ] || gr_fail "share consumer $1 exited $rc: $(tail -n 5 "$GR_TMP/$1.err")"
}

sh_lines() { cat "$@" 2>/dev/null | wc -l; }

sh_take()
{
    local name=$1 what=$2 rc=0
    shift 2
    sh_client "$@" --out "$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" || rc=$?
    [ $rc = 0 ] || gr_fail "$what: share_client exited $rc: $(tail -n 5 "$GR_TMP/$name.err")"
}

sh_expect()
{
    [ "$3" = "$2" ] || gr_fail "$1: got '$3', want '$2'"
    gr_note "$1: ok"
}
