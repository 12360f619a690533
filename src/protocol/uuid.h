/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's string form of a uuid (Uuid.toString()): the 16 bytes in URL-safe
 * base64 without padding, 22 characters. Topic ids take this form in
 * ZooKeeper documents and in partition.metadata files.
 */
#ifndef GR_PROTOCOL_UUID_H
#define GR_PROTOCOL_UUID_H

#include <stddef.h>

#include "protocol/types.h"

#define GR_UUID_STRING_CHARS 22

/* Writes id's string form and a NUL into out. */
void gr_uuid_format(gr_uuid_t id, char out[GR_UUID_STRING_CHARS + 1]);

/*
 * Parses exactly len (must be 22) characters of a uuid's string form, in its
 * canonical spelling (the 4 bits past the 16 bytes zero). 0, or -EINVAL
 * (out untouched).
 */
int gr_uuid_parse(const char *s, size_t len, gr_uuid_t *out /* out */);

#endif
