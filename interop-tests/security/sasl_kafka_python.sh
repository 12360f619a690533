#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafka-python (python3-kafka) over every secured listener of one broker:
# SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, SSL (a test CA
# made with the openssl tool) and SASL_SSL with each mechanism. The right
# login produces and consumes records (py/sasl_kafka_python.py); a wrong
# password cannot start a producer and the broker logs the failed login.
# kafka-python 2.0.x logs in with SaslHandshake v0 and bare tokens (the
# script prints the SASL requests it saw); the SaslAuthenticate path is
# kafkajs' (sasl_kafkajs.sh). After the refusals the broker still serves.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "skipped: python3-kafka missing for $GR_PYTHON"; exit 77; }
gr_sasl_tls_start_broker
gr_sasl_add_scram_user bob bob-secret

gr_sasl_client_matrix py SCRAM-SHA-512 "$GR_PYTHON" "$GR_INTEROP_DIR/py/sasl_kafka_python.py"
gr_pass
