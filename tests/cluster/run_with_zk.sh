#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs one cluster test program against a fresh standalone ZooKeeper server:
#
#   tests/cluster/run_with_zk.sh PROGRAM [ARGS...]
#
# Starts ZooKeeper with ci/zookeeper.sh in a temporary directory on a free
# loopback port, runs PROGRAM with GR_ZK_CONNECT=127.0.0.1:PORT, GR_ZK_DIR,
# GR_ZK_PORT and GR_ZK_SCRIPT (ci/zookeeper.sh, so that a test can stop and
# restart the server with its data) in the environment, and always stops the
# server by its PID afterwards. Exits with PROGRAM's status, or 77 (skip) when
# Java or ZooKeeper is not installed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/ci/zookeeper.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/gr_zk_XXXXXX")

cleanup() {
    bash "$script" stop "$dir" || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(bash "$script" start "$dir")
rc=$?
if [ $rc -ne 0 ]; then
    [ $rc -eq 77 ] && echo "run_with_zk.sh: skipped: no Java or ZooKeeper"
    exit $rc
fi
export GR_ZK_CONNECT=127.0.0.1:$port GR_ZK_DIR=$dir GR_ZK_PORT=$port GR_ZK_SCRIPT=$script
"$@"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    echo "--- last lines of the ZooKeeper log ($dir/zookeeper.log) ---"
    tail -n 20 "$dir/zookeeper.log"
fi
exit $rc
