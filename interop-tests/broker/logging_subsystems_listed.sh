#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every subsystem word a log line of the source names (gr_logf's third
# argument, a coordinator's log_tag) is a logger the broker lists under
# BROKER_LOGGER, so an operator can turn each one up: a new word must be
# added to core/log_levels.c's table (else its lines silently follow root).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
SRC=$GR_INTEROP_DIR/../src
[ -d "$SRC/core" ] || { gr_note "no source tree at $SRC"; exit 77; }
command -v perl >/dev/null || { gr_note "no perl"; exit 77; }

words=$(find "$SRC" -name '*.[ch]' -print0 | xargs -0 perl -0ne '
    while (/gr_log[fv]\s*\(\s*[^,]+,\s*[^,]+,\s*"([A-Za-z0-9_.-]+)"/g) { print "$1\n" }
    while (/log_tag\s*=\s*"([A-Za-z0-9_.-]+)"/g) { print "$1\n" }
    while (/#define\s+\w*LOG_TAG\s+"([A-Za-z0-9_.-]+)"/g) { print "$1\n" }' | sort -u)
[ "$(wc -l <<<"$words")" -ge 10 ] || gr_fail "found too few subsystem words in $SRC: '$words'"

gr_start_broker broker.id=1
listed=$("$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" configs describe --broker-logger 1 |
    awk 'NR > 1 { print $1 }' | sort -u) || gr_fail "describe broker-loggers"
missing=$(comm -23 <(printf '%s\n' "$words") <(printf '%s\n' "$listed"))
[ -z "$missing" ] || gr_fail "subsystems the code logs under but BROKER_LOGGER does not list" \
    "(add them to src/core/log_levels.c): $(echo $missing)"
gr_stop_broker
gr_pass
