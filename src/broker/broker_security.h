/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's security pieces, wired by the composition root: SASL
 * settings (checked before anything else starts, so a bad mechanism or
 * JAAS line stops start-up with a message) and the SCRAM credential cache
 * with its reload on /config/changes. Runs on: loop thread.
 */
#ifndef GR_BROKER_BROKER_SECURITY_H
#define GR_BROKER_BROKER_SECURITY_H

#include "core/context.h"

/* Reads the SASL settings into b->sasl, allocates b->scram_users. 0, -EINVAL (logged), -ENOMEM. */
int gr_broker_security_init(gr_broker_t *b);

/* Once the metadata store is open: loads the SCRAM credentials. */
void gr_broker_security_start(gr_broker_t *b);

void gr_broker_security_fini(gr_broker_t *b);

#endif
