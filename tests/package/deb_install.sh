#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package, end to end: builds the .deb from debian/ with
# ci/package.sh (dpkg-buildpackage, lintian), packaging the gregor and
# gregor-admin this build already compiled (GR_PREBUILT in debian/rules;
# `make package` compiles everything), checks its files, conffile and man
# pages, runs the extracted programs' --version, starts the broker on the
# installed config under a fake NOTIFY_SOCKET (READY=1, STOPPING=1),
# verifies the unit with systemd-analyze, then installs it for real, checks the gregor user owns /var/lib/gregor, purges it and checks
# nothing is left. The real install is skipped (said so) when not root or
# when a gregor package is already installed: the operator's is left alone.
#
# usage: deb_install.sh SOURCE_DIR BUILD_DIR     exit 77: tools missing (skip)
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)

for tool in dpkg-buildpackage dh help2man systemd-analyze fakeroot lintian; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool missing (bash ci/install-deps.sh --package installs it)"
        exit 77
    fi
done

tmp=$(mktemp -d)
created_user=no
installed=no
cleanup() {
    if [ "$installed" = yes ]; then dpkg --purge gregor >/dev/null 2>&1 || true; fi
    if [ "$created_user" = yes ] && id gregor >/dev/null 2>&1; then
        deluser --quiet --system gregor >/dev/null 2>&1 || true
        delgroup --quiet --system --only-if-empty gregor >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# The .deb, lintian-checked, from a copy of the tree (ci/package.sh).
version=$(cd "$src" && dpkg-parsechangelog -S Version)
GR_PREBUILT="$build" bash "$src/ci/package.sh" "$tmp/out" || fail "ci/package.sh"
deb=$(ls "$tmp"/out/gregor_"$version"_*.deb)

echo "== contents of $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{print $1, $2, $6}' >"$tmp/contents"
for f in ./usr/bin/gregor ./usr/bin/gregor-admin ./etc/gregor/server.properties \
    ./lib/systemd/system/gregor.service ./usr/share/man/man1/gregor.1.gz \
    ./usr/share/man/man1/gregor-admin.1.gz ./usr/share/doc/gregor/copyright; do
    grep -q " $f\$" "$tmp/contents" || fail "$f not in the package"
done
# Files in a package belong to root; the gregor user owns only what postinst makes.
if awk '$2 != "root/root"' "$tmp/contents" | grep -q .; then fail "files not owned by root"; fi
dpkg-deb -f "$deb" Package | grep -qx gregor || fail "package name"
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles | grep -qx /etc/gregor/server.properties ||
    fail "/etc/gregor/server.properties is not a conffile"

echo "== extracted: --version, config, man pages"
dpkg -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/gregor" --version | grep -qx "gregor $version" || fail "gregor --version"
"$tmp/root/usr/bin/gregor-admin" --version | grep -qx "gregor-admin $version" ||
    fail "gregor-admin --version"
conf="$tmp/root/etc/gregor/server.properties"
grep -qx 'log.dirs=/var/lib/gregor/logs' "$conf" || fail "log.dirs in $conf"
grep -qx 'gregor.http.listener=http://127.0.0.1:9644' "$conf" || fail "http listener in $conf"
zcat "$tmp/root/usr/share/man/man1/gregor.1.gz" | grep -q 'override' || fail "gregor.1"
zcat "$tmp/root/usr/share/man/man1/gregor-admin.1.gz" | grep -q 'bootstrap' ||
    fail "gregor-admin.1"
unit="$tmp/root/lib/systemd/system/gregor.service"
for key in Type=notify User=gregor Restart=on-failure ProtectSystem=strict \
    ReadWritePaths=/var/lib/gregor NoNewPrivileges=yes MemoryDenyWriteExecute=yes \
    SystemCallFilter=@system-service CapabilityBoundingSet=; do
    grep -qx "$key" "$unit" || fail "$key not in the unit"
done
# The installed config starts the broker (its log dir and ports swapped for
# scratch ones), which tells systemd READY=1 and STOPPING=1 (broker/sd_notify.c).
python3 "$(dirname "$0")/notify_check.py" "$tmp/root/usr/bin/gregor" "$conf" \
    --override log.dirs="$tmp/logs" --override listeners=PLAINTEXT://127.0.0.1:0 \
    --override gregor.http.listener=http://127.0.0.1:0 >"$tmp/notify.log" 2>&1 ||
    { tail -30 "$tmp/notify.log"; fail "the installed config and systemd notifications"; }
grep notification: "$tmp/notify.log"

echo "== systemd-analyze verify"
# Not with --root: a scratch root lacks the targets the unit is ordered
# after. The unit's copy names the extracted program; its man pages are
# checked after the real install.
sed "s|^ExecStart=/usr/bin/gregor |ExecStart=$tmp/root/usr/bin/gregor |" "$unit" >"$tmp/gregor.service"
grep -q "^ExecStart=$tmp/root/usr/bin/gregor " "$tmp/gregor.service" || fail "ExecStart"
systemd-analyze verify --man=no "$tmp/gregor.service" >"$tmp/verify.log" 2>&1 ||
    { cat "$tmp/verify.log"; fail "systemd-analyze verify"; }
if grep -q . "$tmp/verify.log"; then
    cat "$tmp/verify.log"
    fail "systemd-analyze verify printed warnings"
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "real install skipped: not root"
    exit 0
fi
if dpkg-query -W gregor >/dev/null 2>&1; then
    echo "real install skipped: a gregor package is installed here already"
    exit 0
fi
echo "== dpkg -i, owners, purge"
id gregor >/dev/null 2>&1 || created_user=yes
installed=yes
dpkg -i "$deb" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dpkg -i"; }
/usr/bin/gregor --version | grep -qx "gregor $version" || fail "installed gregor --version"
id gregor >/dev/null || fail "no gregor user"
[ "$(stat -c %U:%G /var/lib/gregor)" = gregor:gregor ] || fail "/var/lib/gregor owner"
[ "$(stat -c %U:%G /var/lib/gregor/logs)" = gregor:gregor ] || fail "/var/lib/gregor/logs owner"
systemd-analyze verify /lib/systemd/system/gregor.service >"$tmp/verify.log" 2>&1 ||
    { cat "$tmp/verify.log"; fail "systemd-analyze verify (installed)"; }
if grep -q . "$tmp/verify.log"; then
    cat "$tmp/verify.log"
    fail "systemd-analyze verify (installed) printed warnings"
fi
dpkg --purge gregor >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "dpkg --purge"; }
installed=no
for f in /usr/bin/gregor /usr/bin/gregor-admin /etc/gregor /var/lib/gregor \
    /lib/systemd/system/gregor.service /etc/systemd/system/multi-user.target.wants/gregor.service; do
    [ ! -e "$f" ] || fail "$f left after purge"
done
echo "PASS"
