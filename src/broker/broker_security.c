/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's security pieces: see broker_security.h. Runs on: loop thread. */
#include "broker/broker_security.h"

#include <errno.h>

#include <stdlib.h>

#include "net/peer.h"
#include "quota/quota_store.h"
#include "security/sasl_config.h"
#include "security/sasl_client.h"
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

/* The peers' SASL exchanges log in with the inter-broker credentials. */
static void *inter_broker_login(void *arg)
{
    const gr_sasl_t *s = arg;
    return gr_sasl_client_new(s->inter_mechanism, s->inter_username, s->inter_password);
}

static int inter_broker_step(void *exchange, const uint8_t *in, size_t in_len, const uint8_t **out,
                             size_t *out_len)
{
    return gr_sasl_client_step(exchange, in, in_len, out, out_len);
}

static void inter_broker_end(void *exchange)
{
    gr_sasl_client_free(exchange);
}

/* b->inter_broker_sasl when the inter-broker listener is SASL_*. */
static int inter_broker_sasl_init(gr_broker_t *b)
{
    if (!b->sasl->inter_broker)
        return 0;
    gr_peer_sasl_t *ps = calloc(1, sizeof *ps);
    if (!ps)
        return -ENOMEM;
    *ps = (gr_peer_sasl_t){gr_sasl_mechanism_name(b->sasl->inter_mechanism), inter_broker_login,
                           inter_broker_step, inter_broker_end, b->sasl};
    b->inter_broker_sasl = ps;
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
    rc = inter_broker_sasl_init(b);
    return rc ? rc : quotas_init(b);
}

void gr_broker_security_start(gr_broker_t *b)
{
    gr_scram_store_load(b);
    gr_quota_store_load(b);
}

void gr_broker_security_fini(gr_broker_t *b)
{
    free(b->inter_broker_sasl);
    b->inter_broker_sasl = NULL;
    gr_sasl_free(b->sasl);
    b->sasl = NULL;
    gr_scram_users_free(b->scram_users);
    b->scram_users = NULL;
    gr_quotas_free(b->quotas);
    b->quotas = NULL;
}
