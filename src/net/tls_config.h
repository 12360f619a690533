/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a listener's TLS settings from the broker configuration (see tls_config.c). */
#ifndef GR_NET_TLS_CONFIG_H
#define GR_NET_TLS_CONFIG_H

#include "core/config.h"
#include "net/tls.h"

/*
 * Fills *out from cfg's ssl.* keys for listener (its name as in listeners,
 * any case; NULL: the plain keys only). The strings point into cfg, which
 * must outlive *out.
 */
void gr_tls_config_for_listener(const gr_config_t *cfg, const char *listener,
                                gr_tls_config_t *out /* out */);

#endif
