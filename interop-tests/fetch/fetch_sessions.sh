#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch sessions (KIP-227) over raw sockets (py/fetch_sessions_raw.py), by
# topic name (Fetch v12) and by topic id (v13): epoch 0 opens a session;
# an incremental fetch naming nothing long-polls and gets only the
# partition produced to meanwhile; named partitions are answered, forgotten
# ones not; the wrong epoch, an unknown id and a v12 fetch in a v13 session
# get Kafka's errors; epoch -1 closes the session. Then
# (py/fetch_sessions_clients_raw.py) the request sequences of the Java
# client (v16) and franz-go (v18), the fetch order's fairness, a fetch
# overtaken by its session's next request, and a topic recreated under a
# new id. Last, kafka-python (sessionless, Fetch v4) over 64 partitions.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create sessions 3 1) || gr_fail "creating sessions: no answer"
[ "$out" = "sessions NO_ERROR" ] || gr_fail "creating sessions: $out"
python3 "$GR_INTEROP_DIR/py/fetch_sessions_raw.py" 127.0.0.1 "$GR_PORT" sessions ||
    gr_fail "fetch sessions are not served as Kafka serves them"
for t in fair:3 recreated:1; do
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create "${t%:*}" "${t#*:}" 1) || gr_fail "creating $t: no answer"
    [ "$out" = "${t%:*} NO_ERROR" ] || gr_fail "creating $t: $out"
done
python3 "$GR_INTEROP_DIR/py/fetch_sessions_clients_raw.py" 127.0.0.1 "$GR_PORT" sessions fair recreated ||
    gr_fail "fetch sessions driven as the Java client and franz-go drive them differ from Kafka's"
# kafka-python 2.0.2 (Debian's) keeps no sessions: Fetch v4, every partition
# in every request. A real run over many partitions.
if "$GR_PYTHON" -c 'import kafka' 2>/dev/null; then
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create many 64 1) || gr_fail "creating many: no answer"
    [ "$out" = "many NO_ERROR" ] || gr_fail "creating many: $out"
    timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/kafka_python_smoke.py" "$GR_BOOTSTRAP" many ||
        gr_fail "kafka-python over 64 partitions failed"
else
    gr_note "python3-kafka missing for $GR_PYTHON: kafka-python not run"
fi
gr_pass
