/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topics' overrides from the store: reads /config/topics/<name>, parses
 * the document and applies it to the topic table (to topics still in it
 * when each read completes). Used when the controller first names a topic
 * to this broker and when a /config/changes notification names one.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_TOPIC_CONFIG_FETCH_H
#define GR_METADATA_TOPIC_CONFIG_FETCH_H

#include <stddef.h>

#include "protocol/types.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_topic_configs_fetch gr_topic_configs_fetch_t;
typedef void gr_topic_configs_done_fn(void *opaque);

/*
 * Starts reading the configs of count topics. Returns 0 and *out (done(opaque)
 * will be called once, on the loop, when every read completed, unless
 * cancelled), 1 when no read could be issued (done is not called), or
 * -ENOMEM.
 * done may be NULL (fire and forget; *out may then be ignored).
 */
int gr_topic_configs_fetch(gr_broker_t *b, const gr_str_t *names, size_t count,
                           gr_topic_configs_done_fn *done, void *opaque,
                           gr_topic_configs_fetch_t **out /* out, may be NULL */);

/* Forgets done: the reads still complete and apply, but done is not called. */
void gr_topic_configs_fetch_cancel(gr_topic_configs_fetch_t *f);

#endif
