/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP listener's pages: see http_endpoints.h. Runs on: loop thread. */
#include "observe/http_endpoints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/zk_member.h"
#include "metadata/cluster_view.h"
#include "net/server.h"
#include "observe/metrics.h"

#define CONTENT_TYPE_TEXT    "text/plain; charset=utf-8"
#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

const char *gr_http_readiness(const gr_broker_t *b)
{
    if (b->stopping)
        return "stopping";
    if (!b->started)
        return "starting";
    /* Single node: held until this broker's own controller's metadata is applied. */
    if (b->server->held)
        return "waiting for the controller's metadata";
    if (!b->cluster->zk_mode)
        return NULL;
    switch (gr_zk_member_state(b)) {
    case GR_ZK_MEMBER_UNREGISTERED:
        return "not registered in ZooKeeper";
    case GR_ZK_MEMBER_REGISTERED:
        return "registered; waiting for the controller's metadata";
    case GR_ZK_MEMBER_INFORMED:
        break;
    }
    /* INFORMED opens the gate at its next check, before the loop blocks. */
    return b->start_gate ? "the start gate is closed" : NULL;
}

/* A text page of one line. */
static int text_page(gr_http_page_t *out, unsigned status, const char *line)
{
    size_t len = strlen(line);
    out->status = status;
    out->content_type = CONTENT_TYPE_TEXT;
    out->body = malloc(len + 2);
    if (!out->body)
        return -ENOMEM;
    memcpy(out->body, line, len);
    out->body[len] = '\n';
    out->body[len + 1] = '\0';
    out->len = len + 1;
    return 0;
}

static int metrics_page(gr_broker_t *b, gr_http_page_t *out)
{
    gr_writer_t w;
    gr_writer_init(&w);
    gr_metrics_render(b, &w);
    if (w.err) {
        gr_writer_fini(&w);
        return text_page(out, GR_HTTP_INTERNAL_ERROR, "out of memory");
    }
    out->status = GR_HTTP_OK;
    out->content_type = CONTENT_TYPE_METRICS;
    out->len = w.len;
    out->body = (char *)w.buf; /* the writer's malloc'ed buffer, handed over */
    w.buf = NULL;
    gr_writer_fini(&w);
    if (!out->body)
        return text_page(out, GR_HTTP_OK, "");
    return 0;
}

int gr_http_endpoint_serve(gr_broker_t *b, const char *path, gr_http_page_t *out)
{
    memset(out, 0, sizeof(*out));
    if (strcmp(path, "/metrics") == 0)
        return metrics_page(b, out);
    if (strcmp(path, "/healthz") == 0)
        return text_page(out, GR_HTTP_OK, "ok");
    if (strcmp(path, "/readyz") == 0) {
        const char *why = gr_http_readiness(b);
        return why ? text_page(out, GR_HTTP_SERVICE_UNAVAILABLE, why)
                   : text_page(out, GR_HTTP_OK, "ready");
    }
    return text_page(out, GR_HTTP_NOT_FOUND, "not found");
}
