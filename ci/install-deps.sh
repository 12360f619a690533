#!/usr/bin/env bash
# Installs the Debian packages Gregor needs to build and test. Idempotent: only
# missing packages are installed, and apt's lists are refreshed only when needed.
# Works as root, or through sudo for other users.
set -euo pipefail

BUILD_PKGS="build-essential cmake pkg-config python3 clang clang-format \
  libev-dev libzookeeper-mt-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libssl-dev \
  libpcre2-dev libmicrohttpd-dev"
# iproute2 and nftables: the network-partition tests (interop-tests/lib/netnslib.sh).
TEST_PKGS="librdkafka-dev kcat zookeeper libcmocka-dev python3-kafka nodejs npm openssl prometheus \
  iproute2 nftables"
# Building and checking the Debian package (make package, the package test);
# debian/control's Build-Depends are BUILD_PKGS plus debhelper and help2man.
# systemd brings systemd-analyze, which verifies the unit.
PACKAGE_PKGS="debhelper dpkg-dev fakeroot lintian help2man systemd"

# --build-only: what `make run` needs; --package: that and the packaging
# tools; no flag: everything `make test` runs, the package test included.
mode="${1:-}"
want="$BUILD_PKGS"
case "$mode" in
  --build-only) ;;
  --package) want="$want $PACKAGE_PKGS" ;;
  *) want="$want $TEST_PKGS $PACKAGE_PKGS" ;;
esac

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
if [ -z "$mode" ]; then
  bash "$(dirname "$0")/install-node-deps.sh"
fi

