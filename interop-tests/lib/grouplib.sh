# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Consumer-group helpers for the interop-tests/groups/group_*.sh tests,
# sourced after lib.sh. (It lives in lib/, which CTest does not search for
# tests.) Members are progs/group_member processes in the background, each
# printing to $GR_TMP/<name>.out (see group_member.c for the line formats);
# a test reads those files to learn assignments and consumed records.
#
# Records are identified by "TOPIC PARTITION OFFSET": gm_produce appends the
# acknowledged ones to $GR_TMP/produced, so "no loss" and "no duplicate" are
# checks on those triples.
#
# Functions:
#   gm_start_broker [key=value]...    gr_start_broker with the group settings
#                                     every group test wants, and the topics
#                                     declared with gm_topic
#   gm_topic NAME PARTITIONS          declare a topic (before gm_start_broker;
#                                     created after it starts, on gregor by
#                                     CreateTopics, on the mock by its launcher)
#   gm_produce TOPIC COUNT            produce COUNT records (acks=all)
#   gm_start NAME ARGS...             start a member (group_member ARGS) with
#                                     -b set; PID in GM_PID[NAME]
#   gm_start_cmd NAME CMD...          start another client printing the same
#                                     lines (py/group_member.py, js/...)
#   gm_stop NAME                      SIGTERM, wait; fails unless it exits 0
#   gm_stop_all NAME...               gm_stop each in turn, after the others
#                                     took its partitions over
#   gm_kill NAME                      SIGKILL, wait
#   gm_wait_exit NAME STATUS          wait for a member to exit by itself
#   gm_assignment NAME                its last whole assignment (PARTS)
#   gm_assigned_count NAME            its last assignment's partition count
#   gm_wait_counts NAME=COUNT...      wait until each has that many partitions
#                                     and together they hold every declared
#                                     partition of their topics exactly once
#   gm_rebalances NAME                how many rebalance callbacks it has had
#   gm_consumed NAME...               "TOPIC PARTITION OFFSET" lines consumed
#   gm_wait_consumed_all NAME...      wait until they consumed every produced
#                                     record
#   gm_positions NAME...              "TOPIC PARTITION POSITION" of their
#                                     last commits (the highest per partition)
#   gm_wait_committed_ends NAME...    wait until those are the produced ends
#   gm_assignment_is NAME PARTS       its last assignment is PARTS

declare -A GM_PID=()
declare -A GM_TOPIC_PARTITIONS=()
GM_PRODUCED=$GR_TMP/produced
# CTest stops a test after 120 s (and SIGKILL skips lib.sh's cleanup), so a
# failing wait or client gives up well before that.
GM_WAIT_S=${GM_WAIT_S:-45}
[ "$GR_CMD_TIMEOUT_S" -le 60 ] || GR_CMD_TIMEOUT_S=60
: >"$GM_PRODUCED"

gm_topic() { GM_TOPIC_PARTITIONS[$1]=$2; }

# On failure, a summary of every member (before lib.sh's cleanup, which gets
# the exit status unchanged): what it holds, what it did, its last errors.
gm_report()
{
    local name
    for name in "${!GM_PID[@]}"; do
        gr_note "member $name: assignment $(gm_assignment "$name"), rebalances $(gm_rebalances "$name")," \
            "consumed $(grep -c '^got ' "$GR_TMP/$name.out"), failed commits" \
            "$(grep -c '^commit-failed ' "$GR_TMP/$name.out") $(grep -m 3 '^commit-failed\|^fatal\|^closed' "$GR_TMP/$name.out" | tr '\n' ';')"
        tail -n 3 "$GR_TMP/$name.err" | sed "s/^/[$GR_TEST_NAME]   $name stderr: /" >&2
    done
}
GM_EXIT_STATUS=0
# errexit goes off first: "(exit STATUS)", which hands the status on to
# lib.sh's cleanup, would otherwise end the shell before that cleanup stops
# the broker and the members.
trap 'GM_EXIT_STATUS=$?; set +e; [ $GM_EXIT_STATUS = 0 ] || [ $GM_EXIT_STATUS = 77 ] || gm_report; (exit $GM_EXIT_STATUS); gr_cleanup' EXIT

# A launcher for the mock cluster that creates the declared topics.
gm_mock_launcher()
{
    local launcher=$GR_TMP/mock_launcher.sh topic args=""
    for topic in "${!GM_TOPIC_PARTITIONS[@]}"; do args="$args -t $topic:${GM_TOPIC_PARTITIONS[$topic]}"; done
    printf '#!/bin/sh\nexec %q%s\n' "$GR_MOCK_CLUSTER" "$args" >"$launcher"
    chmod +x "$launcher"
    GR_MOCK_CLUSTER=$launcher
}

gm_start_broker()
{
    local topic out
    [ "$GR_BROKER_KIND" != mock ] || gm_mock_launcher
    # A new group rebalances as soon as its first member joins; members may
    # ask for session timeouts down to 2 s.
    gr_start_broker group.initial.rebalance.delay.ms=0 offsets.topic.replication.factor=1 \
        group.min.session.timeout.ms=2000 "$@"
    [ "$GR_BROKER_KIND" != mock ] || return 0
    for topic in "${!GM_TOPIC_PARTITIONS[@]}"; do
        out=$(gr_prog admin -b "$GR_BOOTSTRAP" create "$topic" "${GM_TOPIC_PARTITIONS[$topic]}" 1) ||
            gr_fail "creating topic $topic failed"
        [ "$out" = "$topic NO_ERROR" ] || gr_fail "creating topic $topic: $out"
    done
}

gm_produce()
{
    local topic=$1 count=$2
    gr_prog roundtrip -b "$GR_BOOTSTRAP" -t "$topic" -m produce -n "$count" -A -w "$GR_CMD_TIMEOUT_S" >"$GR_TMP/produce.out" ||
        gr_fail "producing $count records to $topic failed: $(tail -n 1 "$GR_TMP/produce.out")"
    awk -v t="$topic" '$1 == "acked" { print t, $2, $3 }' "$GR_TMP/produce.out" >>"$GM_PRODUCED"
}

gm_start()
{
    local name=$1
    shift
    [ -x "${GR_PROGS:-}/group_member" ] || gr_fail "program group_member not built (GR_PROGS=${GR_PROGS:-unset})"
    gm_start_cmd "$name" "$GR_PROGS/group_member" -b "$GR_BOOTSTRAP" "$@"
}

gm_start_cmd()
{
    local name=$1
    shift
    "$@" >"$GR_TMP/$name.out" 2>"$GR_TMP/$name.err" &
    GM_PID[$name]=$!
    gr_track "${GM_PID[$name]}"
}

# Waits up to $2 seconds for member $1 to exit; sets GM_STATUS.
gm_reap()
{
    local pid=${GM_PID[$1]} deadline=$((SECONDS + $2))
    while gr_alive "$pid"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.05
    done
    GM_STATUS=0
    wait "$pid" 2>/dev/null || GM_STATUS=$?
}

gm_stop()
{
    kill -TERM "${GM_PID[$1]}" 2>/dev/null || true
    gm_reap "$1" "$GM_WAIT_S" || gr_fail "member $1 did not exit within ${GM_WAIT_S}s of SIGTERM"
    [ "$GM_STATUS" = 0 ] || gr_fail "member $1 exited with status $GM_STATUS: $(tail -n 3 "$GR_TMP/$1.err")"
}

# Stops the members one by one, each only once the others have taken over
# its partitions, so that every rebalance completes on its own and no member
# closes in the middle of one (which would make the test depend on how
# librdkafka interleaves a close with a rebalance).
gm_stop_all()
{
    local topics
    topics=$(gm_held "$@" | cut -d: -f1 | sort -u)
    while [ $# -gt 0 ]; do
        gm_stop "$1"
        shift
        [ $# -gt 0 ] || break
        gr_wait_until "$GM_WAIT_S" "members $* to take the partitions over" gm_cover "$topics" "$@"
    done
}

# True when the members (after $1, the topics) hold every partition of the
# topics exactly once.
gm_cover()
{
    local topics=$1
    shift
    # shellcheck disable=SC2086
    [ "$(gm_held "$@")" = "$(gm_partitions_of $topics)" ]
}

gm_kill()
{
    kill -KILL "${GM_PID[$1]}" 2>/dev/null || true
    gm_reap "$1" 30 || gr_fail "member $1 still running after SIGKILL"
}

gm_wait_exit()
{
    gm_reap "$1" "$GM_WAIT_S" || gr_fail "member $1 did not exit within ${GM_WAIT_S}s"
    [ "$GM_STATUS" = "$2" ] || gr_fail "member $1 exited with status $GM_STATUS, want $2"
}

gm_assignment() { awk '$1 == "assignment" { parts = $3 } END { print parts }' "$GR_TMP/$1.out"; }
gm_assigned_count() { awk '$1 == "assignment" { n = $2 } END { print n + 0 }' "$GR_TMP/$1.out"; }
gm_rebalances() { grep -c '^rebalance ' "$GR_TMP/$1.out" || true; }

# Every declared partition of the topics in the members' assignments, one a
# line, sorted; and what the members hold, the same way.
gm_partitions_of()
{
    local topic p
    for topic in "$@"; do
        for ((p = 0; p < ${GM_TOPIC_PARTITIONS[$topic]}; p++)); do echo "$topic:$p"; done
    done | sort
}

gm_held()
{
    local name
    for name in "$@"; do gm_assignment "$name"; done | tr ',' '\n' | { grep -v '^-\?$' || true; } | sort
}

# True when each NAME=COUNT member holds COUNT partitions and together they
# hold every partition of their topics exactly once.
gm_counts_are()
{
    local spec name names=() topics
    for spec in "$@"; do
        name=${spec%=*}
        names+=("$name")
        [ "$(gm_assigned_count "$name")" = "${spec#*=}" ] || return 1
    done
    topics=$(gm_held "${names[@]}" | cut -d: -f1 | sort -u)
    # shellcheck disable=SC2086
    [ "$(gm_held "${names[@]}")" = "$(gm_partitions_of $topics)" ]
}

gm_wait_counts()
{
    local deadline=$((SECONDS + GM_WAIT_S)) spec
    until gm_counts_are "$@"; do
        if [ $SECONDS -ge $deadline ]; then
            for spec in "$@"; do gr_note "member ${spec%=*} holds $(gm_assignment "${spec%=*}")"; done
            gr_fail "timed out after ${GM_WAIT_S}s waiting for assignments $*"
        fi
        sleep 0.1
    done
}

gm_consumed()
{
    local name
    for name in "$@"; do awk '$1 == "got" { print $2, $3, $4 }' "$GR_TMP/$name.out"; done
}

# True when the members consumed every produced record (at least once).
gm_consumed_all()
{
    [ -z "$(comm -23 <(sort -u "$GM_PRODUCED") <(gm_consumed "$@" | sort -u))" ]
}

gm_wait_consumed_all()
{
    gr_wait_until "$GM_WAIT_S" "$(wc -l <"$GM_PRODUCED") produced records consumed by $*" gm_consumed_all "$@"
}

# Fails if a record was consumed twice by the members.
gm_check_no_duplicates()
{
    local dups
    dups=$(gm_consumed "$@" | sort | uniq -d)
    [ -z "$dups" ] || gr_fail "records consumed twice by $*: $(head -n 5 <<<"$dups" | tr '\n' ';')"
}

gm_positions()
{
    local name
    for name in "$@"; do awk '$1 == "committed" { print $2, $3, $4 }' "$GR_TMP/$name.out"; done |
        sort -k1,1 -k2,2n -k3,3n | awk '{ last[$1 " " $2] = $3 } END { for (k in last) print k, last[k] }' | sort
}

# True when the members' last commits are the ends of the produced records.
gm_committed_ends() { [ "$(gm_positions "$@")" = "$(gm_produced_ends)" ]; }

gm_wait_committed_ends()
{
    gr_wait_until "$GM_WAIT_S" "commits by $* up to every partition's end" gm_committed_ends "$@"
}

gm_assignment_is() { [ "$(gm_assignment "$1")" = "$2" ]; }

# The log end offsets of the produced records: "TOPIC PARTITION END".
gm_produced_ends()
{
    sort -k1,1 -k2,2n -k3,3n "$GM_PRODUCED" | awk '{ last[$1 " " $2] = $3 + 1 } END { for (k in last) print k, last[k] }' | sort
}
