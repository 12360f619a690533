/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replaying a log batch by batch, a slice at a time: how the coordinators
 * rebuild their state from their internal topics' partitions without
 * stalling the loop on a large one.
 *
 * Runs on: loop thread.
 */
#ifndef GR_LOG_LOG_REPLAY_H
#define GR_LOG_LOG_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "log/log.h"
#include "protocol/records.h"

/* One whole batch (size bytes at batch, header h parsed). */
typedef void gr_log_replay_fn(void *arg, const uint8_t *batch, size_t size,
                              const gr_batch_header_t *h);

/*
 * Reads the batches from *offset (whole batches, at least one, at most
 * slice bytes otherwise) up to the log end offset, calls fn for each one
 * ending at or after *offset, and moves *offset past them. An offset below
 * the log start (retention moved it) restarts at the log start.
 * The log end, not the high watermark: a new leader's high watermark lags
 * what its log holds (the ISR had it), and a leader never truncates.
 * Returns 1 at the end of the log, 0 when there is more, or -errno.
 */
int gr_log_replay_slice(gr_log_t *log, int64_t *offset, int32_t slice, gr_log_replay_fn *fn,
                        void *arg);

#endif
