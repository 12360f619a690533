/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM credentials in the metadata store, as Kafka keeps them in ZooKeeper
 * mode: /config/users/<name> (scram_users.h has the format) and, for every
 * change, a /config/changes/config_change_N notification naming
 * users/<name>, on which every broker reads that user again
 * (b->on_user_changed, set by the composition root to gr_scram_store_reload).
 *
 * Any broker writes (AlterUserScramCredentials is answered by the broker
 * that receives it, as in Kafka's ZooKeeper mode). The cache
 * b->scram_users is updated from the store at start-up, on notifications,
 * and at once by the broker that wrote a change.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_SCRAM_STORE_H
#define GR_SECURITY_SCRAM_STORE_H

#include <stdbool.h>

#include "core/context.h"
#include "protocol/kerr.h"
#include "security/scram_users.h"

/* Reads every user under /config/users into b->scram_users (async, logged). */
void gr_scram_store_load(gr_broker_t *b);

/* Reads /config/users/<user> again into b->scram_users (async, logged). */
void gr_scram_store_reload(gr_broker_t *b, const char *user);

/* One change of a user's credentials. */
typedef struct gr_scram_change {
    gr_sasl_mechanism_t mechanism;
    bool remove;                /* deletion; else an upsertion of cred */
    gr_scram_credential_t cred; /* upsertions */
} gr_scram_change_t;

typedef void gr_scram_store_done_fn(void *opaque, gr_kerr_t err);

/*
 * Applies count changes to user's znode (other keys in it are kept), then
 * notifies the brokers. done gets GR_KERR_NONE, RESOURCE_NOT_FOUND (a
 * deletion of a credential the user does not have) or
 * UNKNOWN_SERVER_ERROR (the store failed; logged). changes are copied.
 * Returns 0 (done will be called, never from inside this call), -ENOMEM,
 * -ENAMETOOLONG or -EIO (no store session, or the store refused).
 */
int gr_scram_store_alter(gr_broker_t *b, const char *user, const gr_scram_change_t *changes,
                         int count, gr_scram_store_done_fn *done, void *opaque);

#endif
