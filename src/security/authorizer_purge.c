/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expiry of ACL change notifications, as Kafka's change listener does it:
 * whenever a broker lists /kafka-acl-changes (or the extended one), it
 * deletes the notifications created more than
 * gregor.config.change.expiration.ms ago (Kafka: 15 minutes, the same
 * expiry as /config/changes). A broker away that long reads every ACL again
 * when its session is new. Brokers race to delete: NONODE is the loser's
 * answer.
 *
 * Runs on: loop thread.
 */
#include "security/authorizer_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/acl_znode.h"

typedef struct purge_op {
    gr_authorizer_t *a;
    uint64_t gen;
    char path[GR_STORE_PATH_MAX + 1];
} purge_op_t;

static bool purge_current(purge_op_t *op)
{
    bool current = !op->a->closing && op->gen == op->a->gen;
    if (!current)
        free(op);
    return current;
}

static void on_purged(void *opaque, int rc)
{
    purge_op_t *op = opaque;
    if (purge_current(op) && rc != GR_STORE_OK && rc != GR_STORE_NONODE)
        gr_logf(&op->a->b->log, GR_LOG_WARN, "acl", "deleting expired %s: %s (retried later)",
                op->path, gr_store_rc_name(rc));
    free(op);
}

static void on_stat(void *opaque, int rc, const gr_store_stat_t *stat)
{
    purge_op_t *op = opaque;
    if (!purge_current(op))
        return;
    gr_broker_t *b = op->a->b;
    bool expired = rc == GR_STORE_OK &&
                   gr_broker_now_ms(b) - stat->ctime > b->config.gregor_config_change_expiration_ms;
    if (expired && gr_store_delete(op->a->session, op->path, GR_STORE_ANY_VERSION, on_purged, op) ==
                       GR_STORE_OK)
        return;
    free(op);
}

void gr_authorizer_purge(gr_authorizer_t *a, gr_acl_pattern_t family, const char *const *names,
                         size_t count)
{
    size_t prefix = strlen(GR_ACL_ZNODE_CHANGE_PREFIX);
    for (size_t i = 0; i < count; i++) {
        if (strncmp(names[i], GR_ACL_ZNODE_CHANGE_PREFIX, prefix) != 0)
            continue; /* not a notification: not ours to delete */
        purge_op_t *op = malloc(sizeof *op);
        if (!op)
            return;
        op->a = a;
        op->gen = a->gen;
        snprintf(op->path, sizeof op->path, "%s/%s", gr_acl_znode_changes_root(family), names[i]);
        if (gr_store_exists(a->session, op->path, NULL, NULL, on_stat, op) != GR_STORE_OK)
            free(op);
    }
}
