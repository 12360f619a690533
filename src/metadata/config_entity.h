/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Altering one config entity znode, /config/<type>/<name> ("users/alice",
 * "clients/app", "users/u/clients/c"), as Kafka's ZooKeeper mode does: read
 * it, write the new text the caller builds from the old (a version-checked
 * set, or a create), then a /config/changes/config_change_N notification
 * naming the entity path so that every broker reads it again. The broker's
 * store_pending counts the writes in flight, so a stopping broker waits.
 *
 * The SCRAM credentials and the quotas of a user share one znode: each
 * caller keeps the other's keys in build.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_CONFIG_ENTITY_H
#define GR_METADATA_CONFIG_ENTITY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/context.h"
#include "protocol/kerr.h"

typedef struct gr_config_entity_update {
    const char *log_tag; /* the subsystem of the WARN lines: "quota", "sasl" */
    /*
     * The new text from the current one (NULL, 0: no znode yet), malloc'd
     * into *text. Any error code ends the update with it (nothing written).
     */
    gr_kerr_t (*build)(void *arg, const char *current, size_t len, char **text, size_t *text_len);
    /* The znode holds text now: the caller applies it to its cache. May be NULL. */
    void (*applied)(void *arg, const char *text, size_t len);
    /*
     * The update is over: GR_KERR_NONE once written (a lost notification
     * only delays the other brokers, and is logged), build's error, or
     * UNKNOWN_SERVER_ERROR when the store failed (logged).
     */
    void (*done)(void *arg, gr_kerr_t err);
    void *arg;
} gr_config_entity_update_t;

/*
 * Kafka's Sanitizer: the name of an entity as one path component. Letters,
 * digits, '.', '-' and '_' stay; every other byte (of UTF-8) becomes %XX,
 * so any name fits one component and never collides with "<default>".
 * len bytes of name (need not be NUL-terminated) into out, NUL-terminated.
 * Returns 0, or -ENAMETOOLONG when out (out_size bytes) is too small.
 */
int gr_config_entity_sanitize(const char *name, size_t len, char *out, size_t out_size);

/*
 * The reverse (URL-decoding, '+' read as ' ' as Kafka's desanitize does):
 * len bytes of text into out, NUL-terminated, the decoded length in
 * *out_len (may be NULL). Returns 0, -EINVAL (a bad %XX) or -ENAMETOOLONG.
 */
int gr_config_entity_desanitize(const char *text, size_t len, char *out, size_t out_size,
                                size_t *out_len /* out */);

/* Whether /config/<entity_path> fits the store's path limit. */
bool gr_config_entity_path_fits(const char *entity_path);

/*
 * Starts the update of /config/<entity_path>. Returns 0 (u->done runs
 * later, never inside this call), or -EIO (no store session, the store
 * refused), -EINVAL (no "<type>/" in entity_path), -ENOMEM or
 * -ENAMETOOLONG, and then u->done never runs.
 */
int gr_config_entity_update(gr_broker_t *b, const char *entity_path,
                            const gr_config_entity_update_t *u);

#endif
