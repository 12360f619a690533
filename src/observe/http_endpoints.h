/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pages of the HTTP listener (http_server.h), apart from HTTP itself:
 *  - /metrics: gr_metrics_render's page, Prometheus' text format 0.0.4;
 *  - /healthz: "ok" - it is answered on the broker's loop, so an answer
 *    proves the loop turns;
 *  - /readyz: "ready" when this broker serves clients (started, not
 *    stopping, its client listeners accepting and, in cluster mode,
 *    registered in ZooKeeper with the controller's metadata applied and the
 *    start gate open), else 503 with the one-line reason.
 *
 * Runs on: loop thread.
 */
#ifndef GR_OBSERVE_HTTP_ENDPOINTS_H
#define GR_OBSERVE_HTTP_ENDPOINTS_H

#include <stddef.h>

#include "core/context.h"

#define GR_HTTP_OK                  200
#define GR_HTTP_NOT_FOUND           404
#define GR_HTTP_SERVICE_UNAVAILABLE 503
#define GR_HTTP_INTERNAL_ERROR      500

/* One page: status, its Content-Type, and a body (malloc'ed, the caller frees it). */
typedef struct gr_http_page {
    unsigned status;
    const char *content_type;
    char *body;
    size_t len;
} gr_http_page_t;

/*
 * Builds the page for path (the URL's path, no query). Unknown paths get 404.
 * Returns 0 and *out, or -ENOMEM.
 */
int gr_http_endpoint_serve(gr_broker_t *b, const char *path, gr_http_page_t *out /* out */);

/* Why this broker is not ready ("stopping", ...), or NULL when it is. */
const char *gr_http_readiness(const gr_broker_t *b);

#endif
