/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ZooKeeper store's hand-off from the client library's threads to the
 * loop thread (see store_zk_int.h): the completion and watcher functions given
 * to the C client, which copy their arguments (the client frees them when
 * they return) into items, and the mutex-protected ready queue the loop
 * drains.
 *
 * Runs on: the client's completion thread (the zk_on_* functions and the
 * watchers; also the loop thread, inside zookeeper_close()), and the loop
 * thread (pop, take). Only zk_store_t.head/tail are shared, under its lock;
 * an operation item's result fields are written here before the item is
 * queued and read by the loop thread only after it is popped.
 */
#include "metadata/store_zk_int.h"
#include "metadata/store.h"

#include <stdlib.h>
#include <string.h>

void zk_queue_push(zk_store_t *zs, zk_item_t *it)
{
    it->next = NULL;
    pthread_mutex_lock(&zs->lock);
    *zs->tail = it;
    zs->tail = &it->next;
    pthread_mutex_unlock(&zs->lock);
    ev_async_send(zs->loop, &zs->wake);
}

zk_item_t *zk_queue_pop(zk_store_t *zs)
{
    pthread_mutex_lock(&zs->lock);
    zk_item_t *it = zs->head;
    if (it != NULL) {
        zs->head = it->next;
        if (zs->head == NULL)
            zs->tail = &zs->head;
        it->next = NULL;
    }
    pthread_mutex_unlock(&zs->lock);
    return it;
}

zk_item_t *zk_queue_take_session(zk_store_t *zs, const zk_session_t *s)
{
    zk_item_t *taken = NULL, **taken_tail = &taken;

    pthread_mutex_lock(&zs->lock);
    zk_item_t **pp = &zs->head;
    while (*pp != NULL) {
        zk_item_t *it = *pp;
        if (it->session == s) {
            *pp = it->next;
            it->next = NULL;
            *taken_tail = it;
            taken_tail = &it->next;
        } else {
            pp = &it->next;
        }
    }
    zs->tail = pp;
    pthread_mutex_unlock(&zs->lock);
    return taken;
}

void zk_item_free(zk_item_t *it)
{
    if (it == NULL)
        return;
    free(it->watch);
    free(it->path);
    free(it->data);
    free(it->names);
    free(it);
}

int zk_rc(int zrc)
{
    switch (zrc) {
    case ZOK:
        return GR_STORE_OK;
    case ZNONODE:
        return GR_STORE_NONODE;
    case ZNODEEXISTS:
        return GR_STORE_NODEEXISTS;
    case ZBADVERSION:
        return GR_STORE_BADVERSION;
    case ZNOTEMPTY:
        return GR_STORE_NOTEMPTY;
    case ZNOCHILDRENFOREPHEMERALS:
        return GR_STORE_NOCHILDRENFOREPHEMERALS;
    case ZBADARGUMENTS:
        return GR_STORE_BADARGUMENTS;
    case ZCONNECTIONLOSS:
        return GR_STORE_CONNLOSS;
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE: /* the handle is expired (we never use authentication) */
        return GR_STORE_SESSIONEXPIRED;
    case ZOPERATIONTIMEOUT:
        return GR_STORE_OPERATIONTIMEOUT;
    case ZCLOSING:
        return GR_STORE_CLOSING;
    default:
        return GR_STORE_SYSTEMERROR;
    }
}

static void stat_from_zk(const struct Stat *in, gr_store_stat_t *out)
{
    out->czxid = in->czxid;
    out->mzxid = in->mzxid;
    out->pzxid = in->pzxid;
    out->ctime = in->ctime;
    out->mtime = in->mtime;
    out->version = in->version;
    out->cversion = in->cversion;
    out->ephemeral_owner = in->ephemeralOwner;
    out->data_length = in->dataLength;
    out->num_children = in->numChildren;
}

/* The client hands our item back as const void *; it is ours to fill. */
static zk_item_t *item_of(const void *data)
{
    return (zk_item_t *)data;
}

void zk_on_data(int rc, const char *value, int value_len, const struct Stat *stat, const void *data)
{
    zk_item_t *it = item_of(data);

    it->rc = zk_rc(rc);
    if (rc == ZOK) {
        size_t len = value_len > 0 ? (size_t)value_len : 0; /* -1: a node without data */
        it->data = malloc(len > 0 ? len : 1);
        if (it->data == NULL) {
            it->rc = GR_STORE_NOMEM;
        } else {
            if (len > 0)
                memcpy(it->data, value, len);
            it->len = len;
            stat_from_zk(stat, &it->stat);
        }
    }
    zk_queue_push(it->session->store, it);
}

void zk_on_stat(int rc, const struct Stat *stat, const void *data)
{
    zk_item_t *it = item_of(data);

    it->rc = zk_rc(rc);
    if (rc == ZOK)
        stat_from_zk(stat, &it->stat);
    zk_queue_push(it->session->store, it);
}

void zk_on_create(int rc, const char *value, const void *data)
{
    zk_item_t *it = item_of(data);

    it->rc = zk_rc(rc);
    if (rc == ZOK) {
        it->path = strdup(value); /* the client has already taken the chroot off */
        if (it->path == NULL)
            it->rc = GR_STORE_NOMEM;
    }
    zk_queue_push(it->session->store, it);
}

void zk_on_done(int rc, const void *data)
{
    zk_item_t *it = item_of(data);

    it->rc = zk_rc(rc);
    zk_queue_push(it->session->store, it);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b); /* bytewise */
}

/* Copies names into one allocation (pointers, then the strings), sorted. */
static char **names_copy(const struct String_vector *v, size_t *count)
{
    size_t n = v != NULL && v->count > 0 ? (size_t)v->count : 0;
    size_t bytes = (n + 1) * sizeof(char *);

    for (size_t i = 0; i < n; i++)
        bytes += strlen(v->data[i]) + 1;
    char **names = malloc(bytes);
    if (names == NULL)
        return NULL;
    char *p = (char *)(names + n + 1);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(v->data[i]) + 1;
        memcpy(p, v->data[i], l);
        names[i] = p;
        p += l;
    }
    names[n] = NULL;
    /* ZooKeeper lists children in no particular order; the contract sorts them. */
    qsort(names, n, sizeof(char *), compare_names);
    *count = n;
    return names;
}

void zk_on_children(int rc, const struct String_vector *strings, const struct Stat *stat,
                    const void *data)
{
    zk_item_t *it = item_of(data);

    it->rc = zk_rc(rc);
    if (rc == ZOK) {
        it->names = names_copy(strings, &it->count);
        if (it->names == NULL)
            it->rc = GR_STORE_NOMEM;
        else
            stat_from_zk(stat, &it->stat);
    }
    zk_queue_push(it->session->store, it);
}

void zk_node_watcher(zhandle_t *zh, int type, int state, const char *path, void *context)
{
    zk_session_t *s = context;
    (void)zh;
    (void)state;

    /* Session events reach every watcher too; the session watcher handles them. */
    if (type != ZOO_CREATED_EVENT && type != ZOO_DELETED_EVENT && type != ZOO_CHANGED_EVENT &&
        type != ZOO_CHILD_EVENT)
        return;
    zk_item_t *it = calloc(1, sizeof(*it));
    if (it == NULL || (it->path = strdup(path)) == NULL) {
        free(it);
        gr_logf(s->store->log, GR_LOG_ERROR, "zookeeper", "out of memory: watch event on %s lost",
                path);
        return;
    }
    it->session = s;
    it->kind = ZK_ITEM_EVENT;
    it->zk_type = type;
    zk_queue_push(s->store, it);
}

void zk_session_watcher(zhandle_t *zh, int type, int state, const char *path, void *context)
{
    zk_session_t *s = context;
    (void)path;

    if (type != ZOO_SESSION_EVENT)
        return;
    zk_item_t *it = calloc(1, sizeof(*it));
    if (it == NULL) {
        gr_logf(s->store->log, GR_LOG_ERROR, "zookeeper", "out of memory: session state %d lost",
                state);
        return;
    }
    it->session = s;
    it->kind = ZK_ITEM_STATE;
    it->zk_state = state;
    if (state == ZOO_CONNECTED_STATE) {
        const clientid_t *id = zoo_client_id(zh);
        it->session_id = id->client_id;
        memcpy(it->passwd, id->passwd, sizeof(it->passwd));
    }
    zk_queue_push(s->store, it);
}
