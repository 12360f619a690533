#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Several @platformatic/kafka idempotent producers at once
# (js/platformatic/idempotent.mjs, see its header). The client's
# InitProducerId carries producer id 0, epoch 0 and no transactional id;
# as from Kafka, each producer must get its own fresh id at epoch 0, and
# every acknowledged record must be in the log once, in order, under its
# producer's id and sequence numbers.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require

gr_start_broker
out=$(pk_run idempotent 2>&1) || gr_fail "platformatic idempotent producers: $(tail -n 30 <<<"$out")"
gr_note "$out"
gr_pass
