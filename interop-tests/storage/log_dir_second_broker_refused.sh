#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A second broker on a log dir already in use is refused (the dir's .lock, as
# Kafka does): it exits non-zero saying so, and the first keeps serving.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker
echo one | gr_kcat -P -t locked

second_port=$(gr_free_port)
rc=0
timeout 30 "$GR_BROKER" --override "listeners=PLAINTEXT://127.0.0.1:$second_port" \
    --override "log.dirs=$GR_TMP/logs" 2>"$GR_TMP/second.log" </dev/null || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || gr_fail "the second broker was not refused (status $rc)"
grep -q "in use by another broker" "$GR_TMP/second.log" ||
    gr_fail "the second broker did not say why: $(cat "$GR_TMP/second.log")"

[ "$(gr_kcat -C -t locked -o beginning -e -q)" = one ] || gr_fail "the first broker stopped serving"
gr_pass
