/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metadata store: a ZooKeeper-shaped tree that the controller logic runs
 * over, with two backends behind one vtable: store_local.c (single-node mode,
 * an in-memory tree persisted under the first log dir) and store_zk.c (cluster
 * mode, over the threaded ZooKeeper C client).
 *
 * Model (ZooKeeper's, so the same controller code and Kafka's znode layout
 * work on both):
 *  - Nodes are named by absolute paths ("/brokers/ids/0"): a leading '/', no
 *    trailing '/', no empty, "." or ".." components. "/" always exists.
 *  - Each node has data (bytes, possibly empty) and a gr_store_stat_t. Its data
 *    version starts at 0 and grows by one on every set; its children version
 *    (cversion) grows by one on every child create or delete.
 *  - create needs the parent to exist (else GR_STORE_NONODE) and the node not
 *    to (else GR_STORE_NODEEXISTS). GR_STORE_SEQUENTIAL appends the parent's
 *    cversion as a 10-digit zero-padded decimal ("/x/item-0000000007"). (After
 *    a child deletion ZooKeeper 3.8 may use a smaller number than the cversion
 *    its stat shows; numbers still only grow and are never reused.)
 *    GR_STORE_EPHEMERAL ties the node to the creating session: it is deleted
 *    when the session closes or expires, and cannot have children.
 *  - set and delete take an expected version; -1 matches any, anything else
 *    that differs from the node's version gives GR_STORE_BADVERSION. delete of
 *    a node with children gives GR_STORE_NOTEMPTY.
 *  - Watches are one-shot and per session. A data watch (set by get or exists)
 *    fires once on the next create (exists on a missing node only), set or
 *    delete of that path; a children watch (set by children) fires once on the
 *    next child create/delete or on deletion of the node itself. get/children
 *    on a missing node set no watch; exists on a missing node does. The same
 *    (function, opaque) pair registered twice on one path and kind fires once.
 *    A watch fires after the change is applied and before the completion of
 *    the operation that caused it.
 *
 * Sessions. A gr_store_t is the store as a whole (the ensemble); a
 * gr_store_session_t is one client of it (for ZooKeeper: one connection and
 * session; for the local store: an id inside the one tree). Operations,
 * ephemeral nodes and watches belong to a session.
 *
 * Asynchrony. Every operation returns at once and reports its result through a
 * completion callback, invoked on the loop thread, never from inside the call
 * that started it. Each operation function returns:
 *   GR_STORE_OK             request accepted; the callback (if any) will be
 *                           called exactly once, later, on the loop thread;
 *   GR_STORE_BADARGUMENTS   invalid path or flags; the callback is never called;
 *   GR_STORE_NOMEM          could not queue the request; never called;
 *   GR_STORE_CLOSING / GR_STORE_SESSIONEXPIRED
 *                           the session is closed or expired; never called.
 * Results that depend on the tree (NONODE, BADVERSION, ...) always come
 * through the callback. Completions of one session run in the order the
 * operations were issued. Data, paths, names and stats handed to callbacks
 * are valid only during the call; copy what you keep.
 *
 * Closing. gr_store_session_close() calls the callback of every operation of
 * that session still pending with GR_STORE_CLOSING before it returns (so
 * callers can release per-request state), drops its watches without calling
 * them, and deletes its ephemeral nodes (which fires other sessions' watches).
 *
 * Runs on: the loop thread. No function here is thread-safe.
 */
#ifndef GR_METADATA_STORE_H
#define GR_METADATA_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/logging.h"

struct ev_loop;

/* Results, named and spelled after ZooKeeper's return codes. */
typedef enum gr_store_rc {
    GR_STORE_OK = 0,
    GR_STORE_NONODE,                  /* the node (or for create, its parent) does not exist */
    GR_STORE_NODEEXISTS,              /* create of a path that exists */
    GR_STORE_BADVERSION,              /* expected version differs from the node's */
    GR_STORE_NOTEMPTY,                /* delete of a node that has children */
    GR_STORE_NOCHILDRENFOREPHEMERALS, /* create under an ephemeral node */
    GR_STORE_BADARGUMENTS,            /* malformed path, flags or version */
    GR_STORE_CONNLOSS,       /* connection lost; the operation may or may not have happened */
    GR_STORE_SESSIONEXPIRED, /* the session is gone with its ephemerals and watches */
    GR_STORE_OPERATIONTIMEOUT,
    GR_STORE_CLOSING, /* the session or store was closed before completion */
    GR_STORE_IO,      /* the local store could not persist the change (not applied) */
    GR_STORE_NOMEM,
    GR_STORE_SYSTEMERROR, /* anything else the backend reports */
} gr_store_rc_t;

/* gr_store_create() flags, combinable. */
#define GR_STORE_PERSISTENT 0x0
#define GR_STORE_EPHEMERAL  0x1
#define GR_STORE_SEQUENTIAL 0x2

/* Width of the sequential suffix, as ZooKeeper prints it ("%010d"). */
#define GR_STORE_SEQUENCE_DIGITS 10

/* Version argument of set/delete matching any version. */
#define GR_STORE_ANY_VERSION (-1)

/* Longest accepted path, in bytes, without the terminating NUL. */
#define GR_STORE_PATH_MAX 1024

/* Node metadata, ZooKeeper's Stat. */
typedef struct gr_store_stat {
    int64_t czxid;           /* transaction id that created the node */
    int64_t mzxid;           /* transaction id of the last set (czxid if none) */
    int64_t pzxid;           /* transaction id of the last child create/delete */
    int64_t ctime;           /* creation time, ms since the epoch */
    int64_t mtime;           /* last modification time, ms since the epoch */
    int32_t version;         /* data version */
    int32_t cversion;        /* children version */
    int64_t ephemeral_owner; /* owning session id, 0 for persistent nodes */
    int32_t data_length;
    int32_t num_children;
} gr_store_stat_t;

/* What a watch reports. */
typedef enum gr_store_event {
    GR_STORE_EVENT_CREATED = 1,  /* data watch (from exists): the node was created */
    GR_STORE_EVENT_DELETED,      /* data or children watch: the node was deleted */
    GR_STORE_EVENT_CHANGED,      /* data watch: the node's data was set */
    GR_STORE_EVENT_CHILD,        /* children watch: a child was created or deleted */
    GR_STORE_EVENT_NOT_WATCHING, /* the watch was dropped without a change (session
                                    expired); re-read and watch again */
} gr_store_event_t;

/* Session states reported to the session callback. */
typedef enum gr_store_session_state {
    GR_STORE_SESSION_CONNECTED = 1, /* (re)connected; the session and its ephemerals live */
    GR_STORE_SESSION_DISCONNECTED,  /* connection lost, the session may still come back */
    GR_STORE_SESSION_EXPIRED,       /* the session is gone: open a new one */
} gr_store_session_state_t;

typedef struct gr_store gr_store_t;
typedef struct gr_store_session gr_store_session_t;
typedef struct gr_store_ops gr_store_ops_t;

/* Completion of gr_store_get(): data (data_len bytes) and stat when rc is GR_STORE_OK. */
typedef void gr_store_data_fn(void *opaque, int rc, const void *data, size_t data_len,
                              const gr_store_stat_t *stat);
/* Completion of gr_store_set() and gr_store_exists(): stat when rc is GR_STORE_OK. */
typedef void gr_store_stat_fn(void *opaque, int rc, const gr_store_stat_t *stat);
/* Completion of gr_store_create(): the created path (with its sequence suffix) when OK. */
typedef void gr_store_create_fn(void *opaque, int rc, const char *path);
/* Completion of gr_store_delete(). */
typedef void gr_store_done_fn(void *opaque, int rc);
/* Completion of gr_store_children(): child names (not paths), sorted bytewise, when OK. */
typedef void gr_store_children_fn(void *opaque, int rc, const char *const *names, size_t count,
                                  const gr_store_stat_t *stat);
/* A watch firing: path is the watched path. */
typedef void gr_store_watch_fn(void *opaque, gr_store_event_t event, const char *path);
/* Session state change. */
typedef void gr_store_session_fn(void *opaque, gr_store_session_state_t state);

/* The backend vtable; see the gr_store_* wrappers below for each entry's contract. */
struct gr_store_ops {
    const char *name; /* "local", "zookeeper" */
    int (*session_open)(gr_store_t *store, gr_store_session_fn *on_state, void *opaque,
                        gr_store_session_t **out);
    void (*session_close)(gr_store_session_t *s);
    int64_t (*session_id)(const gr_store_session_t *s);
    int (*create)(gr_store_session_t *s, const char *path, const void *data, size_t len, int flags,
                  gr_store_create_fn *cb, void *opaque);
    int (*get)(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
               void *watch_opaque, gr_store_data_fn *cb, void *opaque);
    int (*set)(gr_store_session_t *s, const char *path, const void *data, size_t len,
               int32_t version, gr_store_stat_fn *cb, void *opaque);
    int (*del)(gr_store_session_t *s, const char *path, int32_t version, gr_store_done_fn *cb,
               void *opaque);
    int (*exists)(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                  void *watch_opaque, gr_store_stat_fn *cb, void *opaque);
    int (*children)(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                    void *watch_opaque, gr_store_children_fn *cb, void *opaque);
    void (*close)(gr_store_t *store);
};

/* Backends embed these as their first member. */
struct gr_store {
    const gr_store_ops_t *ops;
};

struct gr_store_session {
    gr_store_t *store;
};

/*
 * Opens the embedded store kept in directory dir (created, with missing
 * parents, if absent), loading the tree saved there. Completions are deferred
 * to loop through an ev_async that is active only while completions are
 * queued, so an otherwise idle loop still returns from ev_run(loop, 0).
 * Every change is written to a temporary file, fsynced, renamed over the tree
 * file and the directory fsynced before its completion is queued: a completion
 * with GR_STORE_OK means the change is durable. These writes happen on the
 * calling (loop) thread; metadata changes are rare in single-node mode.
 * log may be NULL. Returns 0 and *out, -EIO (with a logged reason) when the
 * saved tree is corrupt, -ENOMEM, or another -errno from the file system.
 */
int gr_store_local_open(struct ev_loop *loop, const char *dir, const gr_logger_t *log,
                        gr_store_t **out /* out: close with gr_store_close() */);

/* Closes the store; closes any session still open first (see above). */
static inline void gr_store_close(gr_store_t *store)
{
    store->ops->close(store);
}

/*
 * Opens a session. on_state (may be NULL) hears of connection and expiry,
 * on the loop thread, never from inside this call; every backend reports
 * GR_STORE_SESSION_CONNECTED once the session is usable (the local store at
 * once, and never anything else). Operations may be issued before that.
 * Returns GR_STORE_OK and *out, or GR_STORE_NOMEM / GR_STORE_CLOSING.
 */
static inline int gr_store_session_open(gr_store_t *store, gr_store_session_fn *on_state,
                                        void *opaque, gr_store_session_t **out /* out */)
{
    return store->ops->session_open(store, on_state, opaque, out);
}

/* Closes a session: pending completions get GR_STORE_CLOSING, ephemerals go. */
static inline void gr_store_session_close(gr_store_session_t *s)
{
    s->store->ops->session_close(s);
}

/*
 * The session's id, the ephemeral_owner of its ephemeral nodes. The local
 * store assigns it at open; ZooKeeper only once the session has connected, so
 * it is 0 until then (any completed operation implies a connection).
 */
static inline int64_t gr_store_session_id(const gr_store_session_t *s)
{
    return s->store->ops->session_id(s);
}

/*
 * Creates path with data (len bytes, data may be NULL when len is 0) and flags
 * (GR_STORE_EPHEMERAL | GR_STORE_SEQUENTIAL). cb (may be NULL) gets the created
 * path, or NONODE (no parent), NODEEXISTS, NOCHILDRENFOREPHEMERALS.
 */
static inline int gr_store_create(gr_store_session_t *s, const char *path, const void *data,
                                  size_t len, int flags, gr_store_create_fn *cb, void *opaque)
{
    return s->store->ops->create(s, path, data, len, flags, cb, opaque);
}

/* Reads path's data and stat; watch (may be NULL) is a one-shot data watch. NONODE. */
static inline int gr_store_get(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                               void *watch_opaque, gr_store_data_fn *cb, void *opaque)
{
    return s->store->ops->get(s, path, watch, watch_opaque, cb, opaque);
}

/* Replaces path's data if its version is version (or version is -1). NONODE, BADVERSION. */
static inline int gr_store_set(gr_store_session_t *s, const char *path, const void *data,
                               size_t len, int32_t version, gr_store_stat_fn *cb, void *opaque)
{
    return s->store->ops->set(s, path, data, len, version, cb, opaque);
}

/* Deletes path if its version is version (or -1). NONODE, BADVERSION, NOTEMPTY. */
static inline int gr_store_delete(gr_store_session_t *s, const char *path, int32_t version,
                                  gr_store_done_fn *cb, void *opaque)
{
    return s->store->ops->del(s, path, version, cb, opaque);
}

/* Stat of path or NONODE; watch (may be NULL) is set even when the node is missing. */
static inline int gr_store_exists(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                                  void *watch_opaque, gr_store_stat_fn *cb, void *opaque)
{
    return s->store->ops->exists(s, path, watch, watch_opaque, cb, opaque);
}

/* Sorted child names of path; watch (may be NULL) is a one-shot children watch. NONODE. */
static inline int gr_store_children(gr_store_session_t *s, const char *path,
                                    gr_store_watch_fn *watch, void *watch_opaque,
                                    gr_store_children_fn *cb, void *opaque)
{
    return s->store->ops->children(s, path, watch, watch_opaque, cb, opaque);
}

/* Settings of the ZooKeeper store, named after Kafka's broker properties. */
typedef struct gr_store_zk_config {
    const char *connect;           /* zookeeper.connect: host:port[,host:port...][/chroot] */
    int32_t session_timeout_ms;    /* zookeeper.session.timeout.ms */
    int32_t connection_timeout_ms; /* zookeeper.connection.timeout.ms */
} gr_store_zk_config_t;

/*
 * Opens the ZooKeeper store (store_zk.c). Blocks, up to
 * connection_timeout_ms, to check that the ensemble answers and to create the
 * chroot path if it is missing (as Kafka does at start-up); nothing after this
 * call blocks on ZooKeeper except closing. Each session is then its own
 * ZooKeeper connection and session, with cfg's session timeout; completions
 * and watches come back from the client's threads to loop through an
 * ev_async, which keeps the loop alive only while operations are outstanding.
 * Sessions report CONNECTED on every (re)connection, DISCONNECTED when the
 * connection is lost (the client reconnects by itself; the session, its
 * ephemerals and watches survive if it is back within the session timeout)
 * and EXPIRED when the server ended the session: then its pending operations
 * complete with GR_STORE_SESSIONEXPIRED, its watches fire
 * GR_STORE_EVENT_NOT_WATCHING, new operations return GR_STORE_SESSIONEXPIRED,
 * and the caller closes it and opens another. (A server restarted with its
 * data gives every session a fresh timeout: an outage of the server itself,
 * however long, expires no session whose client is back in time after it.)
 * Operations that were in flight when a connection was lost complete with
 * GR_STORE_CONNLOSS, or GR_STORE_OPERATIONTIMEOUT when the client gave up
 * waiting for a server (either way they may or may not have been applied). Closing a session waits
 * for the server's answer to the close request (bounded by the client: about 4.5 s when it never
 * comes). The ZooKeeper client library's own log level is process-wide: it is set from log's (WARN
 * unless log is at DEBUG or more, ERROR when log is NULL). Returns 0 and *out; -EINVAL for a
 * malformed connect string or timeouts <= 0; -ETIMEDOUT if ZooKeeper did not answer in time; -EIO
 * if the chroot could not be created; -ENOMEM. Failures are logged.
 */
int gr_store_zk_open(struct ev_loop *loop, const gr_store_zk_config_t *cfg, const gr_logger_t *log,
                     gr_store_t **out /* out: gr_store_close() */);

/* Length of a ZooKeeper session password. */
#define GR_STORE_ZK_PASSWD_LEN 16

/*
 * The ZooKeeper session id and password of s (a session of a store opened by
 * gr_store_zk_open), as the server assigned them once connected: another
 * client given them takes the session over. Tests use it to expire a session
 * the way ZooKeeper's own tests do. Returns 0, or -ENOTCONN before the session
 * first connected, -EINVAL if s is not a ZooKeeper session.
 */
int gr_store_zk_session_credentials(const gr_store_session_t *s, int64_t *id /* out */,
                                    char passwd[GR_STORE_ZK_PASSWD_LEN] /* out */);

/* The code's name ("NONODE"), for log lines; "?" for unknown values. */
const char *gr_store_rc_name(int rc);

/*
 * Checks that path is a valid absolute node path (see above). Returns 0 or
 * -EINVAL. Backends share it so that both reject the same paths.
 */
int gr_store_path_check(const char *path);

#endif
