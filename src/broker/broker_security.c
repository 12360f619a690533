/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's security pieces: see broker_security.h. Runs on: loop thread. */
#include "broker/broker_security.h"

#include <errno.h>

#include "quota/quota_store.h"
#include "security/sasl.h"
#include "security/scram_store.h"
#include "security/scram_users.h"

#define MS_PER_SEC 1000

/* Client quotas: only the built-in callback (Kafka's default) exists here. */
static int quotas_init(gr_broker_t *b)
{
    if (b->config.client_quota_callback_class) {
        gr_logf(&b->log, GR_LOG_ERROR, "config",
                "client.quota.callback.class is not supported (leave it unset)");
        return -EINVAL;
    }
    b->quotas = gr_quotas_new(b->config.quota_window_num,
                              (int64_t)b->config.quota_window_size_seconds * MS_PER_SEC);
    if (!b->quotas)
        return -ENOMEM;
    b->on_quota_changed = gr_quota_store_reload;
    return 0;
}

int gr_broker_security_init(gr_broker_t *b)
{
    char err[512];
    int rc = gr_sasl_new(&b->config, &b->sasl, err, sizeof err);
    if (rc == -EINVAL)
        gr_logf(&b->log, GR_LOG_ERROR, "config", "%s", err);
    if (rc)
        return rc;
    b->scram_users = gr_scram_users_new();
    if (!b->scram_users)
        return -ENOMEM;
    b->on_user_changed = gr_scram_store_reload;
    return quotas_init(b);
}

void gr_broker_security_start(gr_broker_t *b)
{
    gr_scram_store_load(b);
    gr_quota_store_load(b);
}

void gr_broker_security_fini(gr_broker_t *b)
{
    gr_sasl_free(b->sasl);
    b->sasl = NULL;
    gr_scram_users_free(b->scram_users);
    b->scram_users = NULL;
    gr_quotas_free(b->quotas);
    b->quotas = NULL;
}
