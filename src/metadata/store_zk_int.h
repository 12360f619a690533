/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the ZooKeeper store (store_zk.c, store_zk_queue.c,
 * store_zk_connect.c).
 *
 * Threads. The threaded C client runs an I/O thread and a completion thread
 * per zhandle_t; completions and watchers run on the latter. They never call
 * the caller's functions: they copy what they were given into a zk_item_t and
 * append it to the store's ready queue (the only state they share with the
 * loop thread, under zk_store_t.lock), then ev_async_send(). The loop thread
 * pops items in order and dispatches them. Everything else here is loop-only.
 *
 * Item ownership. An operation's item is made on the loop thread, handed to
 * the client as the completion's data and linked on its session's pending
 * list; the client gives it back at most once, through the ready queue, and
 * the loop thread frees it after popping it. An item whose caller was already
 * answered (session closed or expired) is marked cancelled and freed when it
 * comes back, or, if the client never gives it back (zookeeper_close() of the
 * threaded client drops completions still queued), when its session is
 * closed: after zookeeper_close() no client thread is left to use it.
 */
#ifndef GR_METADATA_STORE_ZK_INT_H
#define GR_METADATA_STORE_ZK_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ev.h>
/* libzookeeper_mt is the threaded client; THREADED declares its synchronous
 * calls, which only start-up (store_zk_connect.c) uses. */
#ifndef THREADED
#define THREADED
#endif
#include <zookeeper/zookeeper.h>

#include "metadata/store.h"

typedef struct zk_store zk_store_t;
typedef struct zk_session zk_session_t;
typedef struct zk_item zk_item_t;
typedef struct zk_watch zk_watch_t;

typedef enum zk_item_kind {
    ZK_ITEM_DATA,     /* get */
    ZK_ITEM_STAT,     /* set, exists */
    ZK_ITEM_CREATE,   /* create */
    ZK_ITEM_DONE,     /* delete */
    ZK_ITEM_CHILDREN, /* children */
    ZK_ITEM_EVENT,    /* a node watch fired (from the client's watcher) */
    ZK_ITEM_STATE,    /* a session state change (from the session watcher) */
} zk_item_kind_t;

typedef enum zk_watch_kind {
    ZK_WATCH_DATA,     /* set by get and exists */
    ZK_WATCH_CHILDREN, /* set by children */
} zk_watch_kind_t;

struct zk_item {
    zk_item_t *next;                        /* ready queue link, under zk_store_t.lock */
    zk_item_t *pending_next, *pending_prev; /* the session's pending list; loop only */
    zk_session_t *session;
    zk_item_kind_t kind;
    bool cancelled; /* operations: the caller was already answered; loop only */

    /* The caller's completion and, for get/exists/children, the watch to register. */
    union {
        gr_store_data_fn *data;
        gr_store_stat_fn *stat;
        gr_store_create_fn *create;
        gr_store_done_fn *done;
        gr_store_children_fn *children;
    } fn;
    void *opaque;
    zk_watch_t *watch; /* made at issue, registered when the read succeeds, else freed */

    /* Results, written by the completion thread before the item is queued. */
    int rc; /* gr_store_rc_t */
    gr_store_stat_t stat;
    char *path; /* created path; event path */
    void *data;
    size_t len;
    char **names; /* sorted children, one allocation */
    size_t count;

    /* ZK_ITEM_EVENT / ZK_ITEM_STATE. */
    int zk_type, zk_state;
    int64_t session_id; /* the client id and password when the state is ZOO_CONNECTED_STATE */
    char passwd[GR_STORE_ZK_PASSWD_LEN];
};

/* A registered watch: (function, opaque) on (path, kind); loop only. */
struct zk_watch {
    zk_watch_t *next;
    zk_watch_kind_t kind;
    gr_store_watch_fn *fn;
    void *opaque;
    char path[];
};

typedef enum zk_session_state {
    ZK_SESSION_NEW, /* not connected yet */
    ZK_SESSION_CONNECTED,
    ZK_SESSION_DISCONNECTED, /* was connected; the client is reconnecting */
    ZK_SESSION_EXPIRED,      /* dead: only session_close remains */
} zk_session_state_t;

struct zk_session {
    gr_store_session_t base;
    zk_store_t *store;
    zhandle_t *zh;
    gr_store_session_fn *on_state;
    void *state_opaque;
    zk_session_state_t state;
    int64_t id; /* 0 until first connected */
    char passwd[GR_STORE_ZK_PASSWD_LEN];
    zk_item_t *pending_head, *pending_tail; /* operations the client still holds, issue order */
    zk_watch_t *watches, **watches_tail;    /* registration order */
    unsigned refs; /* frames on the loop thread's stack using this session */
    bool closed;   /* gr_store_session_close() ran; freed when refs drops to 0 */
    zk_session_t *next;
};

struct zk_store {
    gr_store_t base;
    struct ev_loop *loop;
    const gr_logger_t *log;
    char *connect; /* host:port[,...][/chroot], as given */
    int32_t session_timeout_ms;
    ev_async wake;
    size_t outstanding; /* operations not yet answered; the loop is ref'ed while > 0 */
    zk_session_t *sessions;
    unsigned busy; /* frames on the loop thread's stack using the store */
    bool closed;   /* gr_store_close() ran; freed when busy drops to 0 */

    pthread_mutex_t lock; /* guards head/tail, shared with the client's threads */
    zk_item_t *head, **tail;
    FILE *log_stream; /* the client library's lines as log lines (JSON format), or NULL */
};

/* ---- store_zk_log.c: the client library's lines ----------------------------- */

/*
 * With the JSON log format, points the client library's (process-wide) log
 * stream at a stream whose lines become log's "zookeeper" lines, and
 * returns it; NULL for the text format (the library keeps writing to
 * stderr) or when out of memory. Runs on: loop thread, no handle open.
 */
FILE *zk_log_stream_open(const gr_logger_t *log);

/* Points the library back at stderr and closes f (NULL: nothing). Runs on: loop thread. */
void zk_log_stream_close(FILE *f);

/* ---- store_zk_queue.c: the client threads' side ----------------------------- */

/* Appends it to the ready queue and wakes the loop. Runs on: any thread. */
void zk_queue_push(zk_store_t *zs, zk_item_t *it);

/* Pops the oldest ready item, or NULL. Runs on: loop thread. */
zk_item_t *zk_queue_pop(zk_store_t *zs);

/*
 * Takes every queued item of session s out of the ready queue and returns
 * them as a list (linked by next), oldest first. Call once the session's
 * zhandle is closed, so that no client thread can queue more for it.
 * Runs on: loop thread.
 */
zk_item_t *zk_queue_take_session(zk_store_t *zs, const zk_session_t *s);

/* Frees an item and everything it owns. */
void zk_item_free(zk_item_t *it);

/* Maps a ZooKeeper return code to a gr_store_rc_t. */
int zk_rc(int zrc);

/* Client completions (data is the zk_item_t) and watchers (context is the zk_session_t). */
void zk_on_data(int rc, const char *value, int value_len, const struct Stat *stat,
                const void *data);
void zk_on_stat(int rc, const struct Stat *stat, const void *data);
void zk_on_create(int rc, const char *value, const void *data);
void zk_on_done(int rc, const void *data);
void zk_on_children(int rc, const struct String_vector *strings, const struct Stat *stat,
                    const void *data);
void zk_node_watcher(zhandle_t *zh, int type, int state, const char *path, void *context);
void zk_session_watcher(zhandle_t *zh, int type, int state, const char *path, void *context);

/* ---- store_zk_connect.c: start-up --------------------------------------------- */

/*
 * Checks the connect string "host:port[,host:port...][/chroot]". Returns 0
 * and the offset of the chroot ('/', or the string's length when there is
 * none) in *chroot_at, or -EINVAL.
 */
int zk_connect_parse(const char *connect, size_t *chroot_at /* out */);

/*
 * Connects to the ensemble without the chroot, waiting up to
 * connection_timeout_ms, and creates each component of the chroot that is
 * missing. Blocks the calling thread. Returns 0, -ETIMEDOUT, -EIO or -ENOMEM
 * (each logged).
 */
int zk_connect_bootstrap(const gr_store_zk_config_t *cfg, size_t chroot_at, const gr_logger_t *log);

#endif
