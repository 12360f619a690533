/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metadata store of cluster mode (store.h) over ZooKeeper's threaded C
 * client. One gr_store_session_t is one zhandle_t: one connection and one
 * ZooKeeper session. The tree, versions, sequence suffixes, ephemerals and
 * ordering are ZooKeeper's own; this file adds what the store contract asks
 * beyond them:
 *
 *  - Completions and watches run on the loop thread, never inside the call:
 *    the client's threads queue them (store_zk_queue.c) and on_wake()
 *    dispatches them in arrival order, which is ZooKeeper's per-session order
 *    (a watch event before the reply of the operation that triggered it).
 *  - Watches: every read that sets a watch passes the client one watcher and
 *    the session as its context, so the client keeps one watch per path and
 *    kind; which (function, opaque) pairs it stands for is kept here in the
 *    session's registry, filled when the read completes successfully (that is
 *    when ZooKeeper set it). A firing takes the matching entries out and calls
 *    each once, oldest first; the same pair registered twice is one entry.
 *  - Session states: NEW -> CONNECTED <-> DISCONNECTED, any -> EXPIRED
 *    (on_session_state() does each transition; CONNECTED and DISCONNECTED are
 *    reported on change only). EXPIRED is final (session_expire()): pending
 *    operations complete with SESSIONEXPIRED, registered watches fire
 *    NOT_WATCHING, new operations are refused with SESSIONEXPIRED.
 *  - Closing a session answers its pending operations with CLOSING first, drops
 *    its watches, then zookeeper_close() (which ends the session, deleting its
 *    ephemerals, and joins the client's threads), then takes the session's
 *    leftovers out of the ready queue and frees the operations the client never
 *    gave back. Only then is the memory the client knew about freed.
 *
 * Callbacks may close their own session or the whole store: sessions count
 * the loop-thread frames using them (refs) and the store its own (busy); the
 * last frame out frees.
 *
 * Runs on: the loop thread, except store_zk_queue.c's functions.
 */
#include "metadata/store_zk_int.h"
#include "metadata/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Items dispatched per wake-up before yielding to the loop's other watchers. */
#define DRAIN_BATCH 64

static const gr_store_ops_t zk_ops;

static zk_session_t *session_of(gr_store_session_t *base)
{
    return (zk_session_t *)base;
}

/* ---- lifetimes --------------------------------------------------------------- */

static void store_free(zk_store_t *zs)
{
    if (ev_is_active(&zs->wake)) {
        if (zs->outstanding == 0)
            ev_ref(zs->loop); /* undo on_open's ev_unref before stopping */
        ev_async_stop(zs->loop, &zs->wake);
    }
    /* Every session is closed and took its items back; nothing can be left. */
    for (zk_item_t *it; (it = zk_queue_pop(zs)) != NULL;)
        zk_item_free(it);
    pthread_mutex_destroy(&zs->lock);
    zk_log_stream_close(zs->log_stream);
    free(zs->connect);
    free(zs);
}

static void store_put(zk_store_t *zs)
{
    if (--zs->busy == 0 && zs->closed)
        store_free(zs);
}

static void session_put(zk_session_t *s)
{
    if (--s->refs == 0 && s->closed)
        free(s);
}

/* An operation was handed to the client: keep the loop alive until answered. */
static void op_outstanding(zk_store_t *zs)
{
    if (zs->outstanding++ == 0)
        ev_ref(zs->loop);
}

static void op_answered(zk_store_t *zs)
{
    if (--zs->outstanding == 0)
        ev_unref(zs->loop);
}

static void pending_append(zk_session_t *s, zk_item_t *it)
{
    it->pending_next = NULL;
    it->pending_prev = s->pending_tail;
    if (s->pending_tail != NULL)
        s->pending_tail->pending_next = it;
    else
        s->pending_head = it;
    s->pending_tail = it;
}

static void pending_unlink(zk_session_t *s, zk_item_t *it)
{
    if (it->pending_prev != NULL)
        it->pending_prev->pending_next = it->pending_next;
    else
        s->pending_head = it->pending_next;
    if (it->pending_next != NULL)
        it->pending_next->pending_prev = it->pending_prev;
    else
        s->pending_tail = it->pending_prev;
    it->pending_next = it->pending_prev = NULL;
}

/* ---- delivering ---------------------------------------------------------------- */

/* Calls the operation's completion with rc (its results only when rc is OK). */
static void deliver(zk_item_t *it, int rc)
{
    const bool ok = rc == GR_STORE_OK;
    const gr_store_stat_t *st = ok ? &it->stat : NULL;

    switch (it->kind) {
    case ZK_ITEM_DATA:
        if (it->fn.data != NULL)
            it->fn.data(it->opaque, rc, ok ? it->data : NULL, ok ? it->len : 0, st);
        break;
    case ZK_ITEM_STAT:
        if (it->fn.stat != NULL)
            it->fn.stat(it->opaque, rc, st);
        break;
    case ZK_ITEM_CREATE:
        if (it->fn.create != NULL)
            it->fn.create(it->opaque, rc, ok ? it->path : NULL);
        break;
    case ZK_ITEM_DONE:
        if (it->fn.done != NULL)
            it->fn.done(it->opaque, rc);
        break;
    case ZK_ITEM_CHILDREN:
        if (it->fn.children != NULL)
            it->fn.children(it->opaque, rc, ok ? (const char *const *)it->names : NULL,
                            ok ? it->count : 0, st);
        break;
    case ZK_ITEM_EVENT:
    case ZK_ITEM_STATE:
        break; /* not operations */
    }
}

/*
 * Answers every operation of s not yet answered with rc, in issue order. The
 * items stay pending until the client gives them back. Stops early if a
 * callback closes s (the close answers the rest).
 */
static void answer_pending(zk_session_t *s, int rc)
{
    for (zk_item_t *it = s->pending_head, *next; it != NULL; it = next) {
        if (!it->cancelled) {
            it->cancelled = true;
            op_answered(s->store);
            deliver(it, rc);
            if (s->closed && rc != GR_STORE_CLOSING)
                return;
        }
        next = it->pending_next;
    }
}

/* Whether the read that completed as it left a ZooKeeper watch behind. */
static bool watch_was_set(const zk_item_t *it)
{
    if (it->kind == ZK_ITEM_STAT) /* exists: also watches a missing node */
        return it->rc == GR_STORE_OK || it->rc == GR_STORE_NONODE;
    return it->rc == GR_STORE_OK;
}

/* Adds it's watch to the registry unless the same pair already watches there. */
static void watch_register(zk_session_t *s, zk_item_t *it)
{
    zk_watch_t *w = it->watch;

    it->watch = NULL;
    for (zk_watch_t *o = s->watches; o != NULL; o = o->next) {
        if (o->kind == w->kind && o->fn == w->fn && o->opaque == w->opaque &&
            strcmp(o->path, w->path) == 0) {
            free(w);
            return;
        }
    }
    w->next = NULL;
    *s->watches_tail = w;
    s->watches_tail = &w->next;
}

/*
 * Takes out of s's registry the watches matching (path, kinds) (all of them
 * when path is NULL) and returns them in registration order.
 */
static zk_watch_t *watches_take(zk_session_t *s, const char *path, bool data, bool children)
{
    zk_watch_t *taken = NULL, **taken_tail = &taken, **pp = &s->watches;

    while (*pp != NULL) {
        zk_watch_t *w = *pp;
        bool kind = w->kind == ZK_WATCH_DATA ? data : children;
        if (path == NULL || (kind && strcmp(w->path, path) == 0)) {
            *pp = w->next;
            w->next = NULL;
            *taken_tail = w;
            taken_tail = &w->next;
        } else {
            pp = &w->next;
        }
    }
    s->watches_tail = pp;
    return taken;
}

static void watches_free(zk_watch_t *list)
{
    while (list != NULL) {
        zk_watch_t *w = list;
        list = w->next;
        free(w);
    }
}

/*
 * Calls each watch of list with event, unless s gets closed meanwhile; frees
 * them. The caller holds a reference on s (dispatch()).
 */
static void watches_fire(zk_session_t *s, zk_watch_t *list, gr_store_event_t event)
{
    while (list != NULL) {
        zk_watch_t *w = list;
        list = w->next;
        if (!s->closed)
            w->fn(w->opaque, event, w->path);
        free(w);
    }
}

static void on_node_event(zk_session_t *s, const zk_item_t *it)
{
    gr_store_event_t event;
    bool data = false, children = false;

    if (s->state == ZK_SESSION_EXPIRED)
        return;
    if (it->zk_type == ZOO_CREATED_EVENT) {
        event = GR_STORE_EVENT_CREATED;
        data = true;
    } else if (it->zk_type == ZOO_CHANGED_EVENT) {
        event = GR_STORE_EVENT_CHANGED;
        data = true;
    } else if (it->zk_type == ZOO_DELETED_EVENT) {
        event = GR_STORE_EVENT_DELETED;
        data = children = true;
    } else if (it->zk_type == ZOO_CHILD_EVENT) {
        event = GR_STORE_EVENT_CHILD;
        children = true;
    } else {
        return;
    }
    watches_fire(s, watches_take(s, it->path, data, children), event);
}

static void notify_state(zk_session_t *s, gr_store_session_state_t state)
{
    if (s->on_state != NULL && !s->closed)
        s->on_state(s->state_opaque, state);
}

/*
 * The server ended the session: everything it held is gone (see the file
 * comment). The caller holds a reference on s (dispatch()).
 */
static void session_expire(zk_session_t *s)
{
    gr_logf(s->store->log, GR_LOG_WARN, "zookeeper", "session 0x%" PRIx64 " expired",
            (uint64_t)s->id);
    s->state = ZK_SESSION_EXPIRED;
    answer_pending(s, GR_STORE_SESSIONEXPIRED);
    if (!s->closed)
        watches_fire(s, watches_take(s, NULL, true, true), GR_STORE_EVENT_NOT_WATCHING);
    notify_state(s, GR_STORE_SESSION_EXPIRED);
}

static void on_session_state(zk_session_t *s, const zk_item_t *it)
{
    const gr_logger_t *log = s->store->log;

    if (s->state == ZK_SESSION_EXPIRED)
        return;
    if (it->zk_state == ZOO_CONNECTED_STATE) {
        s->id = it->session_id;
        memcpy(s->passwd, it->passwd, sizeof(s->passwd));
        if (s->state == ZK_SESSION_CONNECTED)
            return;
        gr_logf(log, GR_LOG_INFO, "zookeeper", "session 0x%" PRIx64 " %s", (uint64_t)s->id,
                s->state == ZK_SESSION_NEW ? "established" : "reconnected");
        s->state = ZK_SESSION_CONNECTED;
        notify_state(s, GR_STORE_SESSION_CONNECTED);
    } else if (it->zk_state == ZOO_CONNECTING_STATE) {
        if (s->state != ZK_SESSION_CONNECTED)
            return;
        gr_logf(log, GR_LOG_WARN, "zookeeper", "session 0x%" PRIx64 " disconnected; reconnecting",
                (uint64_t)s->id);
        s->state = ZK_SESSION_DISCONNECTED;
        notify_state(s, GR_STORE_SESSION_DISCONNECTED);
    } else if (it->zk_state == ZOO_EXPIRED_SESSION_STATE || it->zk_state == ZOO_AUTH_FAILED_STATE) {
        /* Either way the handle is dead for good; only a new session helps. */
        if (it->zk_state == ZOO_AUTH_FAILED_STATE)
            gr_logf(log, GR_LOG_ERROR, "zookeeper", "session 0x%" PRIx64 ": authentication failed",
                    (uint64_t)s->id);
        session_expire(s);
    }
}

/* Dispatches one popped item, then frees it. */
static void dispatch(zk_item_t *it)
{
    zk_session_t *s = it->session;

    s->refs++;
    if (it->kind == ZK_ITEM_EVENT) {
        on_node_event(s, it);
    } else if (it->kind == ZK_ITEM_STATE) {
        on_session_state(s, it);
    } else {
        pending_unlink(s, it);
        if (!it->cancelled) {
            op_answered(s->store);
            if (it->watch != NULL && watch_was_set(it))
                watch_register(s, it);
            deliver(it, it->rc);
        }
    }
    session_put(s);
    zk_item_free(it);
}

static void on_wake(struct ev_loop *loop, ev_async *w, int revents)
{
    zk_store_t *zs = w->data;
    zk_item_t *it = NULL;
    (void)revents;

    zs->busy++;
    for (int n = 0; n < DRAIN_BATCH && !zs->closed; n++) {
        it = zk_queue_pop(zs);
        if (it == NULL)
            break;
        dispatch(it);
    }
    if (it != NULL && !zs->closed)
        ev_async_send(loop, w); /* more may be queued: come back after other watchers */
    store_put(zs);
}

/* ---- operations ------------------------------------------------------------------ */

/* Checks that s takes operations and path is valid. Returns GR_STORE_OK or the refusal. */
static int op_check(zk_session_t *s, const char *path)
{
    if (s->closed || s->store->closed)
        return GR_STORE_CLOSING;
    if (s->state == ZK_SESSION_EXPIRED)
        return GR_STORE_SESSIONEXPIRED;
    if (gr_store_path_check(path) < 0)
        return GR_STORE_BADARGUMENTS;
    return GR_STORE_OK;
}

static zk_item_t *op_new(zk_session_t *s, zk_item_kind_t kind, void *opaque)
{
    zk_item_t *it = calloc(1, sizeof(*it));

    if (it == NULL)
        return NULL;
    it->session = s;
    it->kind = kind;
    it->opaque = opaque;
    return it;
}

/* Prepares the registry entry for a read's watch (fn may be NULL: no watch). */
static int op_watch(zk_item_t *it, const char *path, zk_watch_kind_t kind, gr_store_watch_fn *fn,
                    void *opaque)
{
    if (fn == NULL)
        return 0;
    size_t len = strlen(path) + 1;
    it->watch = malloc(sizeof(*it->watch) + len);
    if (it->watch == NULL)
        return -ENOMEM;
    it->watch->next = NULL;
    it->watch->kind = kind;
    it->watch->fn = fn;
    it->watch->opaque = opaque;
    memcpy(it->watch->path, path, len);
    return 0;
}

/* Finishes issuing: zrc is what the client's call returned. */
static int op_issued(zk_session_t *s, zk_item_t *it, int zrc)
{
    if (zrc == ZMARSHALLINGERROR) {
        /* The client could not build the request, maybe after registering the
         * completion: keep the item, answered, until it comes back or the
         * session closes. */
        it->cancelled = true;
        pending_append(s, it);
        return GR_STORE_NOMEM;
    }
    if (zrc != ZOK) {
        zk_item_free(it);
        return zk_rc(zrc);
    }
    pending_append(s, it);
    op_outstanding(s->store);
    return GR_STORE_OK;
}

static int zk_create(gr_store_session_t *base, const char *path, const void *data, size_t len,
                     int flags, gr_store_create_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);
    char named[GR_STORE_PATH_MAX + 1];

    if ((flags & ~(GR_STORE_EPHEMERAL | GR_STORE_SEQUENTIAL)) != 0 || (len > 0 && data == NULL) ||
        len > INT32_MAX || path == NULL)
        return GR_STORE_BADARGUMENTS;
    size_t plen = strlen(path);
    if (plen + GR_STORE_SEQUENCE_DIGITS > GR_STORE_PATH_MAX)
        return GR_STORE_BADARGUMENTS;
    /* Check the path as it will be named: a sequential "/x/" becomes "/x/0000000000". */
    memcpy(named, path, plen + 1);
    if (flags & GR_STORE_SEQUENTIAL) {
        memset(named + plen, '0', GR_STORE_SEQUENCE_DIGITS);
        named[plen + GR_STORE_SEQUENCE_DIGITS] = '\0';
    }
    int rc = op_check(s, named);
    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_CREATE, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.create = cb;
    int mode = ZOO_PERSISTENT;
    if (flags == (GR_STORE_EPHEMERAL | GR_STORE_SEQUENTIAL))
        mode = ZOO_EPHEMERAL_SEQUENTIAL;
    else if (flags == GR_STORE_EPHEMERAL)
        mode = ZOO_EPHEMERAL;
    else if (flags == GR_STORE_SEQUENTIAL)
        mode = ZOO_PERSISTENT_SEQUENTIAL;
    /* "" rather than NULL: a node with empty data, not one without data. */
    return op_issued(s, it,
                     zoo_acreate(s->zh, path, len > 0 ? data : "", (int)len, &ZOO_OPEN_ACL_UNSAFE,
                                 mode, zk_on_create, it));
}

static int zk_get(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                  void *watch_opaque, gr_store_data_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);
    int rc = op_check(s, path);

    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_DATA, opaque);
    if (it == NULL || op_watch(it, path, ZK_WATCH_DATA, watch, watch_opaque) < 0) {
        zk_item_free(it);
        return GR_STORE_NOMEM;
    }
    it->fn.data = cb;
    return op_issued(s, it,
                     zoo_awget(s->zh, path, watch ? zk_node_watcher : NULL, s, zk_on_data, it));
}

static int zk_set(gr_store_session_t *base, const char *path, const void *data, size_t len,
                  int32_t version, gr_store_stat_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);

    if ((len > 0 && data == NULL) || len > INT32_MAX || version < GR_STORE_ANY_VERSION)
        return GR_STORE_BADARGUMENTS;
    int rc = op_check(s, path);
    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_STAT, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.stat = cb;
    return op_issued(s, it,
                     zoo_aset(s->zh, path, len > 0 ? data : "", (int)len, version, zk_on_stat, it));
}

static int zk_delete(gr_store_session_t *base, const char *path, int32_t version,
                     gr_store_done_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);

    if (version < GR_STORE_ANY_VERSION || (path != NULL && strcmp(path, "/") == 0))
        return GR_STORE_BADARGUMENTS;
    int rc = op_check(s, path);
    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_DONE, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.done = cb;
    return op_issued(s, it, zoo_adelete(s->zh, path, version, zk_on_done, it));
}

static int zk_exists(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                     void *watch_opaque, gr_store_stat_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);
    int rc = op_check(s, path);

    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_STAT, opaque);
    if (it == NULL || op_watch(it, path, ZK_WATCH_DATA, watch, watch_opaque) < 0) {
        zk_item_free(it);
        return GR_STORE_NOMEM;
    }
    it->fn.stat = cb;
    return op_issued(s, it,
                     zoo_awexists(s->zh, path, watch ? zk_node_watcher : NULL, s, zk_on_stat, it));
}

static int zk_children(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                       void *watch_opaque, gr_store_children_fn *cb, void *opaque)
{
    zk_session_t *s = session_of(base);
    int rc = op_check(s, path);

    if (rc != GR_STORE_OK)
        return rc;
    zk_item_t *it = op_new(s, ZK_ITEM_CHILDREN, opaque);
    if (it == NULL || op_watch(it, path, ZK_WATCH_CHILDREN, watch, watch_opaque) < 0) {
        zk_item_free(it);
        return GR_STORE_NOMEM;
    }
    it->fn.children = cb;
    return op_issued(
        s, it,
        zoo_awget_children2(s->zh, path, watch ? zk_node_watcher : NULL, s, zk_on_children, it));
}

/* ---- sessions and the store --------------------------------------------------------- */

static int zk_session_open(gr_store_t *base, gr_store_session_fn *on_state, void *opaque,
                           gr_store_session_t **out)
{
    zk_store_t *zs = (zk_store_t *)base;

    if (zs->closed)
        return GR_STORE_CLOSING;
    zk_session_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return GR_STORE_NOMEM;
    s->base.store = base;
    s->store = zs;
    s->on_state = on_state;
    s->state_opaque = opaque;
    s->watches_tail = &s->watches;
    /* The client's threads start inside zookeeper_init: s must be complete before. */
    s->zh = zookeeper_init(zs->connect, zk_session_watcher, zs->session_timeout_ms, NULL, s, 0);
    if (s->zh == NULL) {
        int err = errno;
        gr_logf(zs->log, GR_LOG_ERROR, "zookeeper", "cannot start a session with %s: %s",
                zs->connect, strerror(err));
        free(s);
        return err == ENOMEM ? GR_STORE_NOMEM : GR_STORE_SYSTEMERROR;
    }
    s->next = zs->sessions;
    zs->sessions = s;
    *out = &s->base;
    return GR_STORE_OK;
}

static void session_unlink(zk_store_t *zs, zk_session_t *s)
{
    for (zk_session_t **pp = &zs->sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            return;
        }
    }
}

static void zk_session_close(gr_store_session_t *base)
{
    zk_session_t *s = session_of(base);
    zk_store_t *zs = s->store;

    if (s->closed)
        return; /* again, from one of its own CLOSING callbacks */
    s->closed = true;
    s->refs++;
    zs->busy++;

    answer_pending(s, GR_STORE_CLOSING);
    watches_free(watches_take(s, NULL, true, true));
    /* Ends the session (when connected) and joins the client's threads; some
     * completions may still run, into the queue, before this returns. */
    zookeeper_close(s->zh);
    s->zh = NULL;
    for (zk_item_t *it = zk_queue_take_session(zs, s), *next; it != NULL; it = next) {
        next = it->next;
        if (it->kind != ZK_ITEM_EVENT && it->kind != ZK_ITEM_STATE)
            pending_unlink(s, it);
        zk_item_free(it);
    }
    /* What the client never gave back: the threaded client drops the completions
     * still queued when it closes (and leaks its own records of them). Its threads
     * are joined and the handle is gone, so nothing can call these any more. */
    while (s->pending_head != NULL) {
        zk_item_t *it = s->pending_head;
        pending_unlink(s, it);
        zk_item_free(it);
    }
    session_unlink(zs, s);
    session_put(s);
    store_put(zs);
}

static int64_t zk_session_id(const gr_store_session_t *base)
{
    return ((const zk_session_t *)base)->id;
}

static zk_session_t *first_open_session(zk_store_t *zs)
{
    for (zk_session_t *s = zs->sessions; s != NULL; s = s->next)
        if (!s->closed)
            return s;
    return NULL;
}

static void zk_close(gr_store_t *base)
{
    zk_store_t *zs = (zk_store_t *)base;
    zk_session_t *s;

    if (zs->closed)
        return;
    zs->closed = true;
    zs->busy++;
    while ((s = first_open_session(zs)) != NULL)
        zk_session_close(&s->base);
    store_put(zs);
}

static const gr_store_ops_t zk_ops = {
    .name = "zookeeper",
    .session_open = zk_session_open,
    .session_close = zk_session_close,
    .session_id = zk_session_id,
    .create = zk_create,
    .get = zk_get,
    .set = zk_set,
    .del = zk_delete,
    .exists = zk_exists,
    .children = zk_children,
    .close = zk_close,
};

/*
 * LeakSanitizer's hook (read only in sanitizer builds): libzookeeper_mt leaks
 * its own records of requests still outstanding when a handle is closed (its
 * completion thread exits without processing them, and nothing else frees
 * them); the store frees its side of them. Every program using this store
 * would otherwise fail its leak check at exit, so the suppression lives here.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libzookeeper_mt.so\n";
}

int gr_store_zk_session_credentials(const gr_store_session_t *base, int64_t *id,
                                    char passwd[GR_STORE_ZK_PASSWD_LEN])
{
    const zk_session_t *s = (const zk_session_t *)base;

    if (base->store->ops != &zk_ops)
        return -EINVAL;
    if (s->id == 0)
        return -ENOTCONN;
    *id = s->id;
    memcpy(passwd, s->passwd, GR_STORE_ZK_PASSWD_LEN);
    return 0;
}

/* The client library's log level is process-wide; follow the broker's, one step quieter. */
static void client_log_level(const gr_logger_t *log)
{
    if (log == NULL)
        zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    else if (gr_log_enabled_for(log, GR_LOG_TRACE, "zookeeper"))
        zoo_set_debug_level(ZOO_LOG_LEVEL_DEBUG);
    else if (gr_log_enabled_for(log, GR_LOG_DEBUG, "zookeeper"))
        zoo_set_debug_level(ZOO_LOG_LEVEL_INFO);
    else
        zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
}

int gr_store_zk_open(struct ev_loop *loop, const gr_store_zk_config_t *cfg, const gr_logger_t *log,
                     gr_store_t **out)
{
    size_t chroot_at;
    int rc;

    if (cfg == NULL || zk_connect_parse(cfg->connect, &chroot_at) < 0 ||
        cfg->session_timeout_ms <= 0 || cfg->connection_timeout_ms <= 0) {
        gr_logf(log, GR_LOG_ERROR, "zookeeper", "invalid zookeeper.connect \"%s\" or timeouts",
                cfg != NULL && cfg->connect != NULL ? cfg->connect : "");
        return -EINVAL;
    }
    client_log_level(log);
    FILE *log_stream = zk_log_stream_open(log);
    rc = zk_connect_bootstrap(cfg, chroot_at, log);
    if (rc < 0) {
        zk_log_stream_close(log_stream);
        return rc;
    }

    zk_store_t *zs = calloc(1, sizeof(*zs));
    if (zs == NULL) {
        zk_log_stream_close(log_stream);
        return -ENOMEM;
    }
    zs->log_stream = log_stream;
    zs->connect = strdup(cfg->connect);
    if (zs->connect == NULL || pthread_mutex_init(&zs->lock, NULL) != 0) {
        zk_log_stream_close(log_stream);
        free(zs->connect);
        free(zs);
        return -ENOMEM;
    }
    zs->base.ops = &zk_ops;
    zs->loop = loop;
    zs->log = log;
    zs->session_timeout_ms = cfg->session_timeout_ms;
    zs->tail = &zs->head;
    ev_async_init(&zs->wake, on_wake);
    zs->wake.data = zs;
    ev_async_start(loop, &zs->wake);
    /* Watches and state changes may come at any time, but only outstanding
     * operations keep the loop running (op_outstanding). */
    ev_unref(loop);
    gr_logf(log, GR_LOG_INFO, "zookeeper", "metadata store on ZooKeeper %s", cfg->connect);
    *out = &zs->base;
    return 0;
}
