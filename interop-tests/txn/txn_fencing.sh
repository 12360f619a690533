#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A second producer with the same transactional id fences the first.
# In one process (txn_producer -F): producer A writes a transaction of 20
# records and leaves it open; producer B initialises the same
# transactional id, which bumps the epoch and aborts A's transaction; A then
# writes 20 records more and commits, and must fail with a fatal fencing
# error (librdkafka's _FENCED, from PRODUCER_FENCED or INVALID_PRODUCER_EPOCH)
# with none of those 20 records written. B commits two transactions of its
# own. Across processes: a producer holding an open transaction is fenced
# by a new process's InitProducerId; released, its commit fails fatally
# (txn_producer exits 1 with "failed ... _FENCED") and its transaction was
# aborted. read_committed sees exactly B's and the new process's
# transactions; read_uncommitted also the fenced ones' first records.
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/txnlib.sh"
gr_require_gregor
topic=txn_fence

gr_start_broker
tx_topic $topic 2

tx_produce inproc -t $topic -i fence-app -n 20 -r 3 -F -e commit
grep -Eq '^fenced fence-app 0 (_FENCED|PRODUCER_FENCED|INVALID_PRODUCER_EPOCH)$' "$GR_TMP/inproc.out" ||
    gr_fail "producer A was not fenced: $(tr '\n' ';' <"$GR_TMP/inproc.out")"

tx_start old -t $topic -i fence-app2 -n 10 -H -e commit
tx_wait_line old '^holding '
tx_produce new -t $topic -i fence-app2 -l fence-app2-new -n 10 -r 2 -e commit
tx_signal old USR1
tx_wait_exit old 1
grep -Eq '^failed fence-app2 0 10 (_FENCED|PRODUCER_FENCED|INVALID_PRODUCER_EPOCH)$' "$GR_TMP/old.out" ||
    gr_fail "the old process's commit did not fail with a fencing error: $(tr '\n' ';' <"$GR_TMP/old.out")"
# The coordinator aborted it when the new process initialised: say so for
# txn_verify (its last line, "failed", would allow all or nothing).
echo "aborted fence-app2 0 10" >>"$GR_TMP/old.out"

tx_verify read_committed $topic -f 0
tx_verify read_uncommitted $topic -f 0
gr_pass
