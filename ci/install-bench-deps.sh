#!/usr/bin/env bash
# Installs what `make bench` needs beyond the test packages (ci/install-deps.sh):
# gnuplot, which draws the charts. Idempotent; as root, or through sudo.
# `make test` never needs it.
set -euo pipefail

BENCH_PKGS="gnuplot-nox"

missing=""
for p in $BENCH_PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
missing=$(echo $missing)
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "ci/install-bench-deps.sh: installing: $missing"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
