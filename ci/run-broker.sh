#!/usr/bin/env bash
# Starts one broker on localhost:9092 with config/server.properties (make run).
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
echo "Starting Gregor on localhost:9092 (data in /tmp/gregor-logs); Ctrl-C stops it."
exec "$build/gregor" config/server.properties
