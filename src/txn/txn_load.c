/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator's record handler (H of
 * coordinator/runtime.h): the runtime replays an elected
 * __transaction_state partition a slice
 * (transaction.state.log.load.buffer.size) per loop iteration and hands
 * each record here; control batches are skipped (nothing transactional is
 * written to this topic). The last record of an id wins; a tombstone
 * removes it. Once a partition is loaded, the transactions it left in
 * PrepareCommit or PrepareAbort get their markers written again (the
 * previous coordinator may have died before writing them all), with this
 * coordinator's epoch.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "txn/txn_int.h"

static int replay(void *owner, const gr_coordinator_record_origin_t *origin, gr_bytes_t key,
                  gr_bytes_t value)
{
    return gr_txn_apply_record(owner, origin->partition, key, value);
}

/* The partition is loaded: its unfinished commits and aborts go on. */
static void loaded(void *owner, int32_t partition)
{
    gr_txn_coordinator_t *co = owner;
    size_t ids = 0, resumed = 0;
    for (gr_txn_t *t = gr_txn_first(co); t; t = gr_txn_next(co, t)) {
        if (t->key.partition != partition)
            continue;
        ids++;
        if (gr_txn_state_preparing(t->cur.state)) {
            gr_txn_markers_start(co, t);
            resumed++;
        }
    }
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG,
            "loaded %zu transactional id(s) from %s-%d (coordinator epoch %d), %zu to complete",
            ids, GR_TRANSACTION_STATE_TOPIC, partition, gr_txn_coordinator_epoch(co, partition),
            resumed);
}

const gr_coordinator_handler_t gr_txn_handler = {
    .replay = replay,
    .replay_marker = NULL, /* control batches are skipped */
    .loaded = loaded,
    .unload = gr_txn_unload,
};
