/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One SASL exchange: see sasl_server.h. PLAIN is one step; SCRAM is two
 * (client-first -> server-first, client-final -> server-final), driven by
 * gr_scram_server_step. Runs on: loop thread.
 */
#include "security/sasl_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gr_sasl_server {
    gr_sasl_mechanism_t mechanism;
    const gr_sasl_listener_t *listener;
    gr_scram_server_t *scram; /* SCRAM mechanisms */
    bool over;                /* done or failed: no more steps */
    char user[GR_SASL_USER_MAX];
    char failure[128];
};

gr_sasl_server_t *gr_sasl_server_new(gr_sasl_mechanism_t m, const gr_sasl_listener_t *l,
                                     const gr_scram_users_t *users)
{
    gr_sasl_server_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->mechanism = m;
    s->listener = l;
    snprintf(s->failure, sizeof s->failure,
             "Authentication failed during authentication due to invalid credentials with SASL "
             "mechanism %s",
             gr_sasl_mechanism_name(m));
    if (gr_sasl_mechanism_is_scram(m) && !(s->scram = gr_scram_server_new(m, users, NULL))) {
        free(s);
        return NULL;
    }
    return s;
}

gr_kerr_t gr_sasl_server_step(gr_sasl_server_t *s, const uint8_t *in, size_t len,
                              gr_sasl_reply_t *reply)
{
    memset(reply, 0, sizeof *reply);
    if (s->over)
        return GR_KERR_ILLEGAL_SASL_STATE;
    gr_kerr_t err;
    if (s->scram) {
        err = gr_scram_server_step(s->scram, in, len, reply);
        snprintf(s->user, sizeof s->user, "%s", gr_scram_server_user(s->scram));
    } else {
        static const gr_jaas_t none = {0};
        const gr_jaas_t *jaas = s->listener ? &s->listener->plain_jaas : &none;
        err = gr_sasl_plain_check(jaas, in, len, s->user, sizeof s->user);
        reply->done = err == GR_KERR_NONE;
    }
    s->over = err != GR_KERR_NONE || reply->done;
    return err;
}

const char *gr_sasl_server_user(const gr_sasl_server_t *s)
{
    return s->user;
}

const char *gr_sasl_server_failure(const gr_sasl_server_t *s)
{
    return s->failure;
}

void gr_sasl_server_free(void *p)
{
    gr_sasl_server_t *s = p;
    if (!s)
        return;
    gr_scram_server_free(s->scram);
    free(s);
}
