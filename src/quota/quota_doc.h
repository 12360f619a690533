/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON of a quota entity's znode, as ZooKeeper-mode Kafka writes it:
 *
 *   {"version":1,"config":{"producer_byte_rate":"1048576","request_percentage":"25.0"}}
 *
 * Values are strings: byte rates as whole numbers (Kafka's LONG type),
 * request_percentage as a double ("25.0"). The same map holds other keys of
 * the entity (a user's SCRAM credentials): a rewrite keeps them.
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_QUOTA_QUOTA_DOC_H
#define GR_QUOTA_QUOTA_DOC_H

#include <stddef.h>

#include "quota/quotas.h"

#define GR_QUOTA_VALUE_TEXT_MAX 64

/*
 * The quota values in text (len bytes; NULL or empty: none). Unknown keys
 * are skipped; a quota value that is not a number is skipped too.
 * Returns 0 or -EINVAL (not a config document) / -ENOMEM.
 */
int gr_quota_doc_parse(const char *text, size_t len, gr_quota_values_t *out /* out */);

/*
 * The znode text after a change: the old one's keys (old may be NULL or
 * malformed: then none), with each type in remove dropped and each in
 * set->has set. Returns 0 with *out (malloc'd, NUL-terminated) and *out_len,
 * or -ENOMEM.
 */
int gr_quota_doc_build(const char *old, size_t old_len, const gr_quota_values_t *set,
                       const bool remove[GR_QUOTA_TYPE_COUNT], char **out /* out */,
                       size_t *out_len /* out */);

/* Formats a quota value as Kafka stores it ("1024" or "25.0"). */
void gr_quota_value_format(gr_quota_type_t type, double value, char *out, size_t out_len);

#endif
