/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka 3.8's version strings (see kafka_version.h): each release with the
 * number of its internal versions ("-IV0" ...), 0 for the releases before
 * internal versions existed, whose name is the whole version.
 */
#include <stdio.h>
#include <string.h>

#include "core/kafka_version.h"

/* Longest version name checked, "0.10.0-IV1" with room to spare. */
#define VERSION_NAME_MAX 32

typedef struct kafka_release {
    const char *name;
    int internal_versions;
} kafka_release_t;

static const kafka_release_t kafka_releases[] = {
    {"0.8.0", 0},  {"0.8.1", 0},  {"0.8.2", 0}, {"0.9.0", 0}, {"0.10.0", 2}, {"0.10.1", 3},
    {"0.10.2", 1}, {"0.11.0", 3}, {"1.0", 1},   {"1.1", 1},   {"2.0", 2},    {"2.1", 3},
    {"2.2", 2},    {"2.3", 2},    {"2.4", 2},   {"2.5", 1},   {"2.6", 1},    {"2.7", 3},
    {"2.8", 2},    {"3.0", 2},    {"3.1", 1},   {"3.2", 1},   {"3.3", 4},    {"3.4", 1},
    {"3.5", 3},    {"3.6", 3},    {"3.7", 5},   {"3.8", 1},
};
#define KAFKA_RELEASE_COUNT (sizeof kafka_releases / sizeof kafka_releases[0])

/* Whether key, exactly, is a release or one of its internal versions. */
static bool name_known(const char *key, size_t len)
{
    char name[VERSION_NAME_MAX];
    for (size_t i = 0; i < KAFKA_RELEASE_COUNT; i++) {
        const kafka_release_t *r = &kafka_releases[i];
        if (strlen(r->name) == len && memcmp(r->name, key, len) == 0)
            return true;
        for (int iv = 0; iv < r->internal_versions; iv++) {
            int n = snprintf(name, sizeof name, "%s-IV%d", r->name, iv);
            if ((size_t)n == len && memcmp(name, key, len) == 0)
                return true;
        }
    }
    return false;
}

bool gr_kafka_version_known(const char *v)
{
    /* Segments are split at '.', trailing empty ones not counted (as
     * Java's String.split does): "2.8." is one name, "2.8.1" is "2.8". */
    size_t len = strlen(v), counted = len;
    while (counted > 0 && v[counted - 1] == '.')
        counted--;
    int wanted = strncmp(v, "0.", 2) == 0 ? 3 : 2, segments = 1;
    size_t key_len = len;
    for (size_t i = 0; i < counted; i++) {
        if (v[i] != '.')
            continue;
        if (segments == wanted && key_len == len)
            key_len = i;
        segments++;
    }
    if (segments <= wanted)
        key_len = len;
    return name_known(v, key_len);
}
