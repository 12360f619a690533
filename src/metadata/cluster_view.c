/* SPDX-License-Identifier: Apache-2.0 */
#include "metadata/cluster_view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gr_cluster_view_init(gr_cluster_view_t *v, bool zk_mode)
{
    memset(v, 0, sizeof *v);
    v->zk_mode = zk_mode;
    v->controller_id = GR_NO_BROKER;
    v->controller_epoch = -1;
    v->metadata_broker_epoch = -1;
}

static void free_nodes(gr_cluster_node_t *nodes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(nodes[i].rack);
    free(nodes);
}

void gr_cluster_view_fini(gr_cluster_view_t *v)
{
    free_nodes(v->nodes, v->node_count);
    v->nodes = NULL;
    v->node_count = 0;
}

const gr_cluster_node_t *gr_cluster_view_node(const gr_cluster_view_t *v, int32_t id)
{
    size_t lo = 0, hi = v->node_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->nodes[mid].id == id)
            return &v->nodes[mid];
        if (v->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const gr_listener_spec_t *gr_cluster_node_endpoint(const gr_cluster_node_t *n, const char *listener)
{
    return gr_listener_spec_find(n->endpoints, n->endpoint_count, listener);
}

void gr_cluster_node_use_listener(gr_cluster_node_t *n, const char *listener)
{
    const gr_listener_spec_t *e = gr_cluster_node_endpoint(n, listener);
    if (!e && n->endpoint_count > 0)
        e = &n->endpoints[0];
    if (!e)
        return;
    snprintf(n->host, sizeof n->host, "%s", e->host);
    n->port = e->port;
}

static int by_id(const void *a, const void *b)
{
    int32_t x = ((const gr_cluster_node_t *)a)->id, y = ((const gr_cluster_node_t *)b)->id;
    return (x > y) - (x < y);
}

int gr_cluster_view_set_nodes(gr_cluster_view_t *v, const gr_cluster_node_t *nodes, size_t count)
{
    gr_cluster_node_t *copy = calloc(count ? count : 1, sizeof *copy);
    if (!copy)
        return -ENOMEM;
    for (size_t i = 0; i < count; i++) {
        copy[i] = nodes[i];
        copy[i].rack = NULL;
        if (nodes[i].rack && !(copy[i].rack = strdup(nodes[i].rack))) {
            free_nodes(copy, i);
            return -ENOMEM;
        }
    }
    qsort(copy, count, sizeof *copy, by_id);
    free_nodes(v->nodes, v->node_count);
    v->nodes = copy;
    v->node_count = count;
    return 0;
}
