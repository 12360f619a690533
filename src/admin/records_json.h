/* SPDX-License-Identifier: Apache-2.0 */
/* kafka-delete-records.sh's offset JSON file (records_json.c). */
#ifndef GR_ADMIN_RECORDS_JSON_H
#define GR_ADMIN_RECORDS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/arena.h"

/* One partition's records to delete: those below offset (-1: the high watermark). */
typedef struct gr_admin_records_target {
    const char *topic; /* NUL-terminated, in the arena */
    int32_t partition;
    int64_t offset;
} gr_admin_records_target_t;

/*
 * Parses the file's text: {"partitions":[{"topic":T,"partition":P,
 * "offset":O}...],"version":1} ("version" optional). On success 0 with
 * *out (arena memory) holding *count targets in the order Kafka's tool
 * prints its results. On a document Kafka's tool refuses (not JSON, a
 * missing or mistyped field, another version, a partition listed twice)
 * -EINVAL with Kafka's message in err; -ENOMEM.
 */
int gr_admin_records_json_parse(const char *text, size_t len, gr_arena_t *arena,
                                gr_admin_records_target_t **out /* out */, int *count /* out */,
                                char *err, size_t errlen);

/*
 * Sorts n targets into the order in which Kafka's tool iterates its Java
 * HashMap keyed by them (bucket of the TopicPartition hash in a table sized
 * for n, then insertion order), so results print in the tool's order.
 */
void gr_admin_records_java_order(gr_admin_records_target_t *targets, int n);

#endif
