#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafka-python (python3-kafka, run by /usr/bin/python3): a KafkaProducer sends
# 100 messages, a group-less KafkaConsumer reads them back (py/kafka_python_smoke.py).
. "$(dirname "$0")/../lib/lib.sh"

"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "skipped: python3-kafka missing for $GR_PYTHON"; exit 77; }
gr_start_broker
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/kafka_python_smoke.py" "$GR_BOOTSTRAP" kafka_python ||
    gr_fail "kafka-python round trip failed"
gr_pass
