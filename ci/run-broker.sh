#!/usr/bin/env bash
# Starts one broker on localhost:9092 with config/server.properties (make run),
# its metrics and health endpoints on http://127.0.0.1:9644 (docs/monitoring.md).
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
echo "Starting Gregor on localhost:9092 (data in /tmp/gregor-logs), metrics on" \
  "http://127.0.0.1:9644/metrics; Ctrl-C stops it."
exec "$build/gregor" config/server.properties --override gregor.http.listener=http://127.0.0.1:9644
