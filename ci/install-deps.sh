#!/usr/bin/env bash
# Installs the Debian packages Gregor needs to build and test. Idempotent: only
# missing packages are installed, and apt's lists are refreshed only when needed.
# Works as root, or through sudo for other users.
set -euo pipefail

BUILD_PKGS="build-essential cmake pkg-config python3 clang clang-format \
  libev-dev libzookeeper-mt-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libssl-dev \
  libpcre2-dev libmicrohttpd-dev"
TEST_PKGS="librdkafka-dev kcat zookeeper libcmocka-dev python3-kafka nodejs npm openssl prometheus"

want="$BUILD_PKGS"
if [ "${1:-}" != "--build-only" ]; then want="$want $TEST_PKGS"; fi

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
# node may come from elsewhere than Debian (a preinstalled toolchain); accept it.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=$(echo "$missing" | tr ' ' '\n' | grep -vx -e nodejs -e npm | tr '\n' ' ')
fi
missing=$(echo $missing)
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "ci/install-deps.sh: installing: $missing"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The interop tests' Node.js client (kafkajs), pinned by interop-tests/package-lock.json.
if [ "${1:-}" != "--build-only" ]; then
  bash "$(dirname "$0")/install-node-deps.sh"
fi

