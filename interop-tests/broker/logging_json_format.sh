#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor.log.format=json: every line the broker writes to stderr, from the
# first start-up line to the last shutdown one, is one JSON object that
# python3's json module reads, with time (ISO-8601 UTC, milliseconds),
# level, logger, message and the broker id. A log directory whose name
# holds a quote, a backslash, a tab and a byte that is not UTF-8 comes back
# whole from the lines that quote it (the byte as U+FFFD); net=DEBUG from
# gregor.log.levels shows DEBUG [net] lines and no other logger's DEBUG.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v "$GR_PYTHON" >/dev/null || { gr_note "no python3"; exit 77; }

weird="$GR_TMP/we\"ird\\dir"$'\t'$'\xff'"é"
gr_start_broker broker.id=7 gregor.log.format=json gregor.log.levels=net=DEBUG "log.dirs=$weird"
gr_wait_broker_started
printf 'a\nb\nc\n' | gr_kcat -P -t json_logs || gr_fail "produce"
gr_kcat -C -t json_logs -o beginning -c 3 -e >/dev/null || gr_fail "consume"
gr_stop_broker
gr_check_log || gr_fail "broker log has errors"

WEIRD="$weird" "$GR_PYTHON" - "$GR_LOG" <<'PY' || gr_fail "the broker's stderr is not all JSON lines"
import json, os, re, sys

weird = os.fsencode(os.environ["WEIRD"]).decode("utf-8", "replace")
stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
levels = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"}
lines, quoted, net_debug = 0, 0, 0
with open(sys.argv[1], "rb") as f:
    for raw in f:
        if raw.startswith(b"=== gr_interop:"):
            continue  # the test library's own marker
        lines += 1
        try:
            line = json.loads(raw.decode("utf-8"))  # strict: the line itself is valid UTF-8
        except ValueError as e:
            sys.exit("not a JSON line (%s): %r" % (e, raw[:200]))
        if list(line) != ["time", "level", "logger", "broker", "message"]:
            sys.exit("fields %s: %r" % (list(line), raw[:200]))
        if not stamp.match(line["time"]) or line["level"] not in levels or line["broker"] != 7:
            sys.exit("bad time, level or broker: %r" % raw[:200])
        if line["level"] == "DEBUG" and line["logger"] != "net":
            sys.exit("a DEBUG line of %s with only net at DEBUG: %r" % (line["logger"], raw[:200]))
        net_debug += line["level"] == "DEBUG"
        quoted += weird in line["message"]
if lines < 10 or quoted == 0 or net_debug == 0:
    sys.exit("%d lines, %d quoting the log dir, %d DEBUG [net]" % (lines, quoted, net_debug))
print("%d JSON lines, %d quoting the log dir, %d DEBUG [net]" % (lines, quoted, net_debug))
PY
gr_pass
