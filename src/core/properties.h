/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Java Properties text split into key/value pairs (properties.c has the
 * syntax). Used by core/config.c for server.properties; knows no keys.
 */
#ifndef GR_CORE_PROPERTIES_H
#define GR_CORE_PROPERTIES_H

#include <stddef.h>

/* One key/value pair, escapes decoded, value not yet trimmed. Both owned. */
typedef struct gr_property {
    char *key;
    char *value;
} gr_property_t;

/* Pairs in the order read; a key may appear more than once. */
typedef struct gr_properties {
    gr_property_t *items;
    size_t count;
} gr_properties_t;

/*
 * Reads Java properties text (len bytes; need not be NUL-terminated) and
 * appends its pairs to props. origin names the text in messages (a file
 * name). Returns 0, -EINVAL with err ("origin:line: malformed \uXXXX
 * escape"), or -ENOMEM; on error props may hold the pairs read before.
 */
int gr_properties_read(const char *text, size_t len, const char *origin, gr_properties_t *props,
                       char *err, size_t errlen);

/* Appends a pair, taking ownership of key and value (freed on failure). Returns 0 or -ENOMEM. */
int gr_properties_add(gr_properties_t *p, char *key, char *value);

/* Frees every pair; props is then empty and may be reused. */
void gr_properties_free(gr_properties_t *p);

#endif
