/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The framing every coordinator record shares (Kafka's coordinator record
 * serde): a key and a value are each an int16 schema version followed by
 * that version of the coordinator's own schema (proto/consumer_offsets.gp,
 * proto/transaction_log.gp). A tombstone is a null value.
 */
#ifndef GR_COORDINATOR_RECORD_H
#define GR_COORDINATOR_RECORD_H

#include <stdint.h>

#include "protocol/reader.h"
#include "protocol/types.h"

/*
 * Reads bytes' version into a reader left on the schema's first byte.
 * Returns the version (0..max_version), or -EBADMSG for null bytes, a
 * truncated version, or a version outside 0..max_version.
 */
int gr_coordinator_record_open(gr_bytes_t bytes, int16_t max_version, gr_reader_t *r /* out */);

#endif
