/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The embedded metadata store of single-node mode: the store.h model as an
 * in-memory tree, kept on disk as a snapshot of the whole tree plus a journal
 * of the changes saved since (store_local_journal.c).
 *
 * On disk, under the store's directory:
 *   metadata          the snapshot: the tree of persistent nodes (format below)
 *   metadata.journal  the changes since that snapshot, one group per save
 *   metadata.tmp      the next snapshot being written; only ever renamed over
 *                     metadata once complete and fsynced, so it is garbage
 *                     whenever it is found at open (a crash mid-write) and removed
 *   lock              flock()ed while open, so two brokers cannot share the store
 *
 * A save appends the changes of its batch to the journal and fdatasyncs it,
 * until the journal has grown to the snapshot's size (at least JOURNAL_MIN):
 * then the save writes a new snapshot instead (metadata.tmp, fsync, rename
 * over metadata, fsync of the directory: metadata is always either the old
 * or the new tree, never a mix) and empties the journal. So a save costs what
 * changed, amortised, and a restart reads at most twice the tree. The
 * snapshot is text with binary payloads counted in bytes:
 *
 *   gregor-metadata-store 1
 *   zxid <last transaction id>
 *   nodes <count>
 *   <node record> ... (count node records, store_local_int.h; parents before
 *                      children, "/" first)
 *   crc <crc32 of all bytes above, 8 hex digits>
 *
 * A file that fails any check makes gr_store_local_open() fail with -EIO
 * rather than start with lost metadata.
 *
 * Operations. Each call validates and applies its change to the tree. The
 * changes of one loop turn are saved together, once (a burst of thousands
 * costs one journal append), before their watch events and then their
 * completions are queued, in order, on a FIFO drained by an ev_async
 * callback; anything else queued, and every read, first waits for that
 * save. If the save fails every change in it is undone and completes with
 * GR_STORE_IO. Ephemeral nodes are not saved, but their
 * creation and deletion still save the tree so that zxids and cversions stay
 * monotonic across restarts (sequence suffixes are never reused).
 *
 * Every completion item is allocated before the change is applied, and a
 * registered watch is itself the queue item it becomes when it fires, so a
 * change once applied always gets its notifications delivered.
 *
 * Sessions report GR_STORE_SESSION_CONNECTED once, through the queue, and
 * nothing else: nothing here can disconnect or expire.
 *
 * Runs on: the loop thread only. Saves (a write and an fdatasync, or a
 * snapshot's write and two fsyncs) block it; metadata changes come in
 * bursts that one save covers.
 */
#include "metadata/store.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>
#include <zlib.h>

#include "core/file_read.h"
#include "metadata/store_local_int.h"

#define STORE_FILE     "metadata"
#define STORE_TMP_FILE "metadata.tmp"
#define STORE_LOCK     "lock"
#define STORE_MAGIC    "gregor-metadata-store 1"

/* Largest tree file accepted at load (the metadata of a big cluster is far smaller). */
#define STORE_FILE_MAX (1024L * 1024 * 1024)
/* The journal may grow to the snapshot's size, and at least this, before a snapshot replaces it. */
#define JOURNAL_MIN ((size_t)4 * 1024 * 1024)

typedef struct item item_t;
typedef struct local_store local_store_t;
typedef struct local_session local_session_t;
typedef struct change change_t;

typedef enum item_kind {
    ITEM_DATA,     /* get */
    ITEM_STAT,     /* set, exists */
    ITEM_CREATE,   /* create */
    ITEM_DONE,     /* delete */
    ITEM_CHILDREN, /* children */
    ITEM_WATCH,    /* a watch: registered, or fired and queued */
    ITEM_STATE,    /* the session's CONNECTED report */
} item_kind_t;

typedef enum watch_kind {
    WATCH_DATA,
    WATCH_CHILDREN,
} watch_kind_t;

/* A queued completion, or a watch (registered in ls->watches, or fired and queued). */
struct item {
    item_t *next;
    local_session_t *session;
    item_kind_t kind;
    int rc;
    union {
        gr_store_data_fn *data;
        gr_store_stat_fn *stat;
        gr_store_create_fn *create;
        gr_store_done_fn *done;
        gr_store_children_fn *children;
        gr_store_watch_fn *watch;
        gr_store_session_fn *state;
    } fn;
    void *opaque;
    gr_store_stat_t stat;
    char *path; /* created path, or the watched path */
    void *data; /* get's data copy */
    size_t len;
    char **names; /* children's names copy, one allocation */
    size_t count;
    watch_kind_t watch_kind;
    gr_store_event_t event;
    bool mutation; /* an ITEM_STAT of a set (not of an exists) */
};

typedef enum change_kind {
    CHANGE_CREATE,
    CHANGE_SET,
    CHANGE_DELETE,
    CHANGE_RESULT, /* no change: a completion queued behind unsaved ones, in order */
} change_kind_t;

/*
 * A change applied to the tree and not yet saved: what undoes it if the save
 * fails, and the watches and completion it releases once saved.
 */
struct change {
    change_t *next;
    change_kind_t kind;
    item_t *item; /* its completion; NULL for a session's ephemeral going */
    sl_node_t *node;
    char *path;
    gr_store_stat_t old_stat; /* the node's (set) or its parent's (create, delete) */
    void *old_data;           /* set: the data it replaced */
    size_t old_len;
    int64_t old_zxid;
};

struct local_session {
    gr_store_session_t base;
    local_store_t *ls;
    int64_t id;
    bool closing;
    local_session_t *next;
};

struct local_store {
    gr_store_t base;
    struct ev_loop *loop;
    ev_async wake;
    const gr_logger_t *log;
    char *dir;
    int dir_fd, lock_fd;
    sl_node_t *root;
    int64_t zxid;
    int64_t next_session_id;
    local_session_t *sessions;
    item_t *head, **tail; /* completion FIFO */
    size_t queued;
    item_t *watches;                   /* registered watches */
    change_t *changes, **changes_tail; /* applied, not yet saved (see commit()) */
    sl_journal_t journal;
    size_t snapshot_size; /* bytes of the last snapshot written or loaded */
    bool draining, closed;
};

static const gr_store_ops_t local_ops;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- saving and loading ----------------------------------------------------- */

static void stat_of(const sl_node_t *n, gr_store_stat_t *out)
{
    *out = n->stat;
    out->data_length = (int32_t)n->len;
    out->num_children = (int32_t)n->nchildren;
}

static size_t count_persistent(const sl_node_t *n)
{
    size_t c = 1;

    for (size_t i = 0; i < n->nchildren; i++)
        if (n->children[i]->stat.ephemeral_owner == 0)
            c += count_persistent(n->children[i]);
    return c;
}

static void write_node(FILE *f, const sl_node_t *n)
{
    char path[GR_STORE_PATH_MAX + 1];

    sl_path_of(n, path);
    sl_record_write(f, path, n);
    for (size_t i = 0; i < n->nchildren; i++)
        if (n->children[i]->stat.ephemeral_owner == 0)
            write_node(f, n->children[i]);
}

/*
 * Writes the whole tree as the snapshot (see the file comment), then empties
 * the journal it now covers. Returns 0 once metadata holds the current tree,
 * or -errno with metadata untouched. A failed directory fsync after the
 * rename is logged, not returned: the file already holds the new tree, and
 * undoing the change in memory would leave memory and disk apart. A journal
 * that cannot be emptied is only stale (its groups are older than the
 * snapshot's zxid), and the next save is a snapshot again.
 */
static int save_snapshot(local_store_t *ls)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int fd = -1, rc;

    if (f == NULL)
        return -ENOMEM;
    fprintf(f, "%s\nzxid %" PRId64 "\nnodes %zu\n", STORE_MAGIC, ls->zxid,
            count_persistent(ls->root));
    write_node(f, ls->root);
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return -ENOMEM;
    }
    fclose(f);
    char trailer[32];
    int tn = snprintf(trailer, sizeof(trailer), "crc %08lx\n",
                      crc32(crc32(0L, Z_NULL, 0), (const Bytef *)buf, (uInt)len));

    fd = openat(ls->dir_fd, STORE_TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
        goto fail;
    }
    rc = sl_write_all(fd, buf, len);
    if (rc == 0)
        rc = sl_write_all(fd, trailer, (size_t)tn);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    fd = -1;
    if (rc == 0 && renameat(ls->dir_fd, STORE_TMP_FILE, ls->dir_fd, STORE_FILE) < 0)
        rc = -errno;
    if (rc < 0)
        goto fail;
    if (fsync(ls->dir_fd) < 0)
        gr_logf(ls->log, GR_LOG_ERROR, "store", "fsync of %s failed: %s", ls->dir, strerror(errno));
    free(buf);
    ls->snapshot_size = len + (size_t)tn;
    if (ls->journal.fd >= 0 && sl_journal_reset(&ls->journal) < 0)
        gr_logf(ls->log, GR_LOG_ERROR, "store", "emptying the journal in %s failed: %s", ls->dir,
                strerror(errno));
    return 0;
fail:
    gr_logf(ls->log, GR_LOG_ERROR, "store", "saving metadata in %s failed: %s", ls->dir,
            strerror(-rc));
    unlinkat(ls->dir_fd, STORE_TMP_FILE, 0);
    free(buf);
    return rc;
}

/*
 * Writes path's state after the batch to f: its record if it is there and
 * persistent, a deletion if it is gone, nothing for an ephemeral node.
 */
static void journal_entry(local_store_t *ls, FILE *f, const char *path)
{
    const sl_node_t *n = sl_lookup(ls->root, path);

    if (n == NULL) {
        fprintf(f, "%c %zu\n%s\n", SL_JOURNAL_DELETE, strlen(path), path);
    } else if (n->stat.ephemeral_owner == 0) {
        fprintf(f, "%c ", SL_JOURNAL_PUT);
        sl_record_write(f, path, n);
    }
}

/*
 * Appends the batch to the journal as one group: for each change in order,
 * the state after the batch of the node it touched and, for a creation or a
 * deletion, of its parent (whose cversion and pzxid moved). Returns 0 or
 * -errno (the journal then as before).
 */
static int save_journal(local_store_t *ls, const change_t *batch)
{
    char *buf = NULL, ppath[GR_STORE_PATH_MAX + 1];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        return -ENOMEM;
    for (const change_t *c = batch; c != NULL; c = c->next) {
        if (c->kind == CHANGE_RESULT)
            continue;
        journal_entry(ls, f, c->path);
        if (c->kind != CHANGE_SET) {
            sl_parent_path(c->path, ppath);
            journal_entry(ls, f, ppath);
        }
    }
    int rc = ferror(f) ? -ENOMEM : 0;
    fclose(f);
    if (rc == 0 && len > 0)
        rc = sl_journal_append(&ls->journal, ls->zxid, buf, len);
    free(buf);
    if (rc < 0)
        gr_logf(ls->log, GR_LOG_ERROR, "store", "saving metadata changes in %s failed: %s", ls->dir,
                strerror(-rc));
    return rc;
}

/*
 * Saves the batch: appended to the journal while the journal is smaller
 * than the snapshot (so a save costs what changed, and replaying at open
 * stays within twice the snapshot), else as a new snapshot.
 */
static int save(local_store_t *ls, const change_t *batch)
{
    size_t limit = ls->snapshot_size > JOURNAL_MIN ? ls->snapshot_size : JOURNAL_MIN;

    if (batch != NULL && ls->journal.fd >= 0 && !ls->journal.broken && ls->journal.size < limit)
        return save_journal(ls, batch);
    return save_snapshot(ls);
}

/* Reads one '\n'-terminated line starting at *pos into a bounded buffer. */
static bool read_line(const char *buf, size_t len, size_t *pos, char *line, size_t size)
{
    const char *nl = memchr(buf + *pos, '\n', len - *pos);

    if (nl == NULL || (size_t)(nl - (buf + *pos)) >= size)
        return false;
    size_t n = (size_t)(nl - (buf + *pos));
    memcpy(line, buf + *pos, n);
    line[n] = '\0';
    *pos += n + 1;
    return true;
}

/* Parses a saved tree into ls->root and ls->zxid. Returns 0 or -EIO / -ENOMEM. */
static int parse_tree(local_store_t *ls, const char *buf, size_t len)
{
    char line[256];
    size_t pos = 0, count;
    int64_t zxid;
    const char *why = "bad header";

    /* The trailer first ("crc xxxxxxxx\n"): nothing is trusted before the checksum matches. */
    const size_t trailer_len = 13;
    if (len < trailer_len || memcmp(buf + len - trailer_len, "crc ", 4) != 0 ||
        buf[len - 1] != '\n') {
        why = "missing checksum";
        goto corrupt;
    }
    const char *crc_line = buf + len - trailer_len;
    size_t body = (size_t)(crc_line - buf);
    unsigned long want;
    if (sscanf(crc_line, "crc %8lx\n", &want) != 1 ||
        crc32(crc32(0L, Z_NULL, 0), (const Bytef *)buf, (uInt)body) != want) {
        why = "checksum mismatch";
        goto corrupt;
    }
    if (!read_line(buf, body, &pos, line, sizeof(line)) || strcmp(line, STORE_MAGIC) != 0)
        goto corrupt;
    if (!read_line(buf, body, &pos, line, sizeof(line)) ||
        sscanf(line, "zxid %" SCNd64, &zxid) != 1)
        goto corrupt;
    if (!read_line(buf, body, &pos, line, sizeof(line)) || sscanf(line, "nodes %zu", &count) != 1 ||
        count == 0)
        goto corrupt;
    why = "bad node record";
    for (size_t k = 0; k < count; k++) {
        sl_record_t r;
        if (sl_record_read(buf, body, &pos, &r) < 0 || (k == 0) != (strcmp(r.path, "/") == 0))
            goto corrupt;
        int rc = sl_tree_put(ls->root, &r, true);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0)
            goto corrupt;
    }
    if (pos != body) {
        why = "trailing bytes";
        goto corrupt;
    }
    ls->zxid = zxid;
    ls->snapshot_size = len;
    return 0;
corrupt:
    gr_logf(ls->log, GR_LOG_ERROR, "store", "%s/%s is corrupt (%s); refusing to start", ls->dir,
            STORE_FILE, why);
    return -EIO;
}

/* Loads metadata if present. Returns 0 (also when absent), -EIO, -ENOMEM, -errno. */
static int load(local_store_t *ls, bool *found)
{
    char *buf = NULL;
    size_t used = 0;
    int fd = openat(ls->dir_fd, STORE_FILE, O_RDONLY | O_CLOEXEC);

    *found = false;
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    *found = true;
    int rc = gr_file_read_all(fd, STORE_FILE_MAX, &buf, &used);
    close(fd);
    if (rc == -EFBIG) {
        gr_logf(ls->log, GR_LOG_ERROR, "store", "%s/%s is larger than %ld bytes; refusing to start",
                ls->dir, STORE_FILE, STORE_FILE_MAX);
        return -EIO;
    }
    if (rc)
        return rc;
    rc = used == 0 ? -EIO : parse_tree(ls, buf, used);
    if (used == 0)
        gr_logf(ls->log, GR_LOG_ERROR, "store", "%s/%s is empty; refusing to start", ls->dir,
                STORE_FILE);
    free(buf);
    return rc;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char *p = strdup(dir);
    int rc = 0;

    if (p == NULL)
        return -ENOMEM;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            rc = -errno;
            break;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* ---- completion queue and watches ----------------------------------------- */

/* A new item; the caller sets the callback member of it->fn that matches kind. */
static item_t *item_new(local_session_t *s, item_kind_t kind, void *opaque)
{
    item_t *it = calloc(1, sizeof(*it));

    if (it == NULL)
        return NULL;
    it->session = s;
    it->kind = kind;
    it->opaque = opaque;
    return it;
}

static void item_free(item_t *it)
{
    free(it->path);
    free(it->data);
    free(it->names);
    free(it);
}

static void commit(local_store_t *ls);
static change_t *change_add(local_store_t *ls, change_kind_t kind, item_t *it, sl_node_t *n,
                            const char *path, const gr_store_stat_t *old_stat, int64_t old_zxid);

/*
 * Queues a completion or fired watch. Behind changes not yet saved it waits
 * in their batch (a failed create in a burst of creates does not force a
 * save of its own): everything queued after a change is delivered after it.
 */
static void enqueue(local_store_t *ls, item_t *it)
{
    static const gr_store_stat_t no_stat;
    if (ls->changes != NULL && change_add(ls, CHANGE_RESULT, it, NULL, "", &no_stat, ls->zxid))
        return;
    commit(ls);
    it->next = NULL;
    *ls->tail = it;
    ls->tail = &it->next;
    ls->queued++;
    if (!ev_is_active(&ls->wake))
        ev_async_start(ls->loop, &ls->wake);
    ev_async_send(ls->loop, &ls->wake);
}

static item_t *dequeue(local_store_t *ls)
{
    item_t *it = ls->head;

    if (it == NULL)
        return NULL;
    ls->head = it->next;
    if (ls->head == NULL)
        ls->tail = &ls->head;
    ls->queued--;
    return it;
}

static void deliver(item_t *it, int rc)
{
    const gr_store_stat_t *st = rc == GR_STORE_OK ? &it->stat : NULL;

    switch (it->kind) {
    case ITEM_DATA:
        if (it->fn.data)
            it->fn.data(it->opaque, rc, rc == GR_STORE_OK ? it->data : NULL,
                        rc == GR_STORE_OK ? it->len : 0, st);
        break;
    case ITEM_STAT:
        if (it->fn.stat)
            it->fn.stat(it->opaque, rc, st);
        break;
    case ITEM_CREATE:
        if (it->fn.create)
            it->fn.create(it->opaque, rc, rc == GR_STORE_OK ? it->path : NULL);
        break;
    case ITEM_DONE:
        if (it->fn.done)
            it->fn.done(it->opaque, rc);
        break;
    case ITEM_CHILDREN:
        if (it->fn.children)
            it->fn.children(it->opaque, rc,
                            rc == GR_STORE_OK ? (const char *const *)it->names : NULL,
                            rc == GR_STORE_OK ? it->count : 0, st);
        break;
    case ITEM_WATCH:
        it->fn.watch(it->opaque, it->event, it->path);
        break;
    case ITEM_STATE:
        it->fn.state(it->opaque, GR_STORE_SESSION_CONNECTED);
        break;
    }
}

static void on_wake(struct ev_loop *loop, ev_async *w, int revents)
{
    local_store_t *ls = w->data;
    commit(ls);
    size_t n = ls->queued; /* items queued by these callbacks wait for the next round */

    (void)revents;
    ls->draining = true;
    while (n-- > 0 && !ls->closed) {
        item_t *it = dequeue(ls);
        if (it == NULL)
            break;
        deliver(it, it->rc);
        item_free(it);
    }
    ls->draining = false;
    if (ls->closed) {
        free(ls); /* gr_store_close() ran inside a callback and left us the struct */
        return;
    }
    if (ls->head != NULL || ls->changes != NULL)
        ev_async_send(loop, w);
    else
        ev_async_stop(loop, w);
}

/*
 * Registers a watch unless the same (session, function, opaque) already
 * watches this path for this kind. Returns 0 or -ENOMEM.
 */
static int watch_add(local_session_t *s, const char *path, watch_kind_t kind, gr_store_watch_fn *fn,
                     void *opaque)
{
    local_store_t *ls = s->ls;

    for (item_t *w = ls->watches; w != NULL; w = w->next)
        if (w->session == s && w->fn.watch == fn && w->opaque == opaque && w->watch_kind == kind &&
            strcmp(w->path, path) == 0)
            return 0;
    item_t *w = item_new(s, ITEM_WATCH, opaque);
    if (w == NULL)
        return -ENOMEM;
    w->fn.watch = fn;
    w->path = strdup(path);
    if (w->path == NULL) {
        item_free(w);
        return -ENOMEM;
    }
    w->watch_kind = kind;
    w->next = ls->watches;
    ls->watches = w;
    return 0;
}

/* Moves the watches on path of this kind to the queue with event. */
static void watch_fire(local_store_t *ls, const char *path, watch_kind_t kind,
                       gr_store_event_t event)
{
    item_t **pp = &ls->watches;
    item_t *fired = NULL, **fired_tail = &fired;

    while (*pp != NULL) {
        item_t *w = *pp;
        if (w->watch_kind == kind && strcmp(w->path, path) == 0) {
            *pp = w->next;
            w->event = event;
            w->next = NULL;
            *fired_tail = w;
            fired_tail = &w->next;
        } else {
            pp = &w->next;
        }
    }
    /* The list is newest first; deliver oldest registrations first. */
    item_t *rev = NULL;
    while (fired != NULL) {
        item_t *next = fired->next;
        fired->next = rev;
        rev = fired;
        fired = next;
    }
    while (rev != NULL) {
        item_t *next = rev->next;
        enqueue(ls, rev);
        rev = next;
    }
}

/* ---- mutations ---------------------------------------------------------------- */

/*
 * Records an applied change; it is saved with the others of this loop turn
 * (commit()), and its watches fire and its completion (it, may be NULL) is
 * queued only then. Returns the record, or NULL without memory (nothing
 * recorded: the caller undoes the change).
 */
static change_t *change_add(local_store_t *ls, change_kind_t kind, item_t *it, sl_node_t *n,
                            const char *path, const gr_store_stat_t *old_stat, int64_t old_zxid)
{
    change_t *c = calloc(1, sizeof *c);
    if (c == NULL || (c->path = strdup(path)) == NULL) {
        free(c);
        return NULL;
    }
    c->kind = kind;
    c->item = it;
    c->node = n;
    c->old_stat = *old_stat;
    c->old_zxid = old_zxid;
    *ls->changes_tail = c;
    ls->changes_tail = &c->next;
    if (!ev_is_active(&ls->wake))
        ev_async_start(ls->loop, &ls->wake);
    ev_async_send(ls->loop, &ls->wake);
    return c;
}

/* Puts a change back: the reverse of applying it. */
static void change_undo(local_store_t *ls, change_t *c)
{
    if (c->kind == CHANGE_RESULT)
        return;
    ls->zxid = c->old_zxid;
    if (c->kind == CHANGE_CREATE) {
        c->node->parent->stat = c->old_stat;
        sl_child_remove(c->node->parent, c->node);
        sl_node_free(c->node);
    } else if (c->kind == CHANGE_SET) {
        free(c->node->data);
        c->node->data = c->old_data;
        c->node->len = c->old_len;
        c->node->stat = c->old_stat;
        c->old_data = NULL;
    } else {
        c->node->parent->stat = c->old_stat;
        int irc =
            sl_child_insert(c->node->parent, c->node); /* room is there: arrays never shrink */
        assert(irc == 0);
        (void)irc;
    }
}

/* A saved change: its watches fire, then its completion is queued. */
static void change_done(local_store_t *ls, change_t *c)
{
    char ppath[GR_STORE_PATH_MAX + 1];
    if (c->kind == CHANGE_RESULT)
        return;
    sl_parent_path(c->path, ppath);
    if (c->kind == CHANGE_CREATE) {
        watch_fire(ls, c->path, WATCH_DATA, GR_STORE_EVENT_CREATED);
        watch_fire(ls, ppath, WATCH_CHILDREN, GR_STORE_EVENT_CHILD);
    } else if (c->kind == CHANGE_SET) {
        free(c->old_data);
        watch_fire(ls, c->path, WATCH_DATA, GR_STORE_EVENT_CHANGED);
    } else if (c->kind == CHANGE_DELETE) {
        sl_node_free(c->node);
        watch_fire(ls, c->path, WATCH_DATA, GR_STORE_EVENT_DELETED);
        watch_fire(ls, c->path, WATCH_CHILDREN, GR_STORE_EVENT_DELETED);
        watch_fire(ls, ppath, WATCH_CHILDREN, GR_STORE_EVENT_CHILD);
    }
}

/* Whether the item completes a create, set or delete (not a read, watch or state). */
static bool is_mutation(const item_t *it)
{
    return it->kind == ITEM_CREATE || it->kind == ITEM_DONE ||
           (it->kind == ITEM_STAT && it->mutation);
}

/*
 * Saves every change applied since the last save, once: a burst of changes
 * (the controller writing thousands of partition states) costs one write of
 * the tree, not one each. On success their watches fire and completions go
 * out in the order the changes were made; if the save fails every one of
 * them is undone, newest first, and completes with GR_STORE_IO.
 */
static void commit(local_store_t *ls)
{
    change_t *batch = ls->changes;
    if (batch == NULL)
        return;
    ls->changes = NULL; /* what commit queues below must not commit again */
    ls->changes_tail = &ls->changes;
    bool saved = save(ls, batch) == 0;
    if (!saved) {
        change_t *rev = NULL;
        for (change_t *c = batch, *next; c != NULL; c = next) {
            next = c->next;
            c->next = rev;
            rev = c;
        }
        for (change_t *c = rev; c != NULL; c = c->next)
            change_undo(ls, c);
        batch = NULL;
        for (change_t *c = rev, *next; c != NULL; c = next) {
            next = c->next;
            c->next = batch;
            batch = c;
        }
    }
    for (change_t *c = batch, *next; c != NULL; c = next) {
        next = c->next;
        if (saved)
            change_done(ls, c);
        if (c->item != NULL) {
            /* A result reached against unsaved changes is void with them. */
            if (c->kind != CHANGE_RESULT)
                c->item->rc = saved ? GR_STORE_OK : GR_STORE_IO;
            else if (!saved && is_mutation(c->item))
                c->item->rc = GR_STORE_IO;
            enqueue(ls, c->item);
        }
        free(c->path);
        free(c);
    }
}

/* Unlinks a childless node and records the change (its completion it, may be NULL). */
static int remove_node(local_store_t *ls, sl_node_t *n, item_t *it)
{
    char path[GR_STORE_PATH_MAX + 1];
    sl_node_t *parent = n->parent;
    gr_store_stat_t old_parent = parent->stat;
    int64_t old_zxid = ls->zxid;

    assert(n->nchildren == 0);
    sl_path_of(n, path);
    sl_child_remove(parent, n);
    ls->zxid++;
    parent->stat.cversion++;
    parent->stat.pzxid = ls->zxid;
    if (change_add(ls, CHANGE_DELETE, it, n, path, &old_parent, old_zxid) == NULL) {
        ls->zxid = old_zxid;
        parent->stat = old_parent;
        int irc = sl_child_insert(parent, n);
        assert(irc == 0);
        (void)irc;
        return -ENOMEM;
    }
    return 0;
}

/* Deletes every ephemeral node of session id (they are leaves). */
static void remove_ephemerals(local_store_t *ls, sl_node_t *n, int64_t id)
{
    for (size_t i = n->nchildren; i > 0; i--) {
        sl_node_t *c = n->children[i - 1];
        if (c->stat.ephemeral_owner == id)
            (void)remove_node(ls, c, NULL); /* out of memory: it stays until the restart */
        else
            remove_ephemerals(ls, c, id);
    }
}

/* ---- operations ---------------------------------------------------------------- */

static local_session_t *session_of(gr_store_session_t *base)
{
    return (local_session_t *)base;
}

static int local_create(gr_store_session_t *base, const char *path, const void *data, size_t len,
                        int flags, gr_store_create_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    local_store_t *ls = s->ls;
    char ppath[GR_STORE_PATH_MAX + 1];
    size_t plen;
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    if ((flags & ~(GR_STORE_EPHEMERAL | GR_STORE_SEQUENTIAL)) != 0 || (len > 0 && data == NULL) ||
        len > INT32_MAX || path == NULL)
        return GR_STORE_BADARGUMENTS;
    plen = strlen(path);
    if (plen + GR_STORE_SEQUENCE_DIGITS > GR_STORE_PATH_MAX)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_CREATE, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.create = cb;
    it->path = malloc(plen + GR_STORE_SEQUENCE_DIGITS + 1);
    if (it->path == NULL) {
        item_free(it);
        return GR_STORE_NOMEM;
    }
    /* Check the path as it will be named: a sequential "/x/" becomes "/x/0000000000". */
    memcpy(it->path, path, plen + 1);
    if (flags & GR_STORE_SEQUENTIAL) {
        memset(it->path + plen, '0', GR_STORE_SEQUENCE_DIGITS);
        it->path[plen + GR_STORE_SEQUENCE_DIGITS] = '\0';
    }
    if (gr_store_path_check(it->path) < 0) {
        item_free(it);
        return GR_STORE_BADARGUMENTS;
    }
    if (strcmp(it->path, "/") == 0) {
        it->rc = GR_STORE_NODEEXISTS;
        enqueue(ls, it);
        return GR_STORE_OK;
    }

    sl_parent_path(it->path, ppath);
    sl_node_t *parent = sl_lookup(ls->root, ppath);
    if (parent == NULL) {
        it->rc = GR_STORE_NONODE;
    } else if (parent->stat.ephemeral_owner != 0) {
        it->rc = GR_STORE_NOCHILDRENFOREPHEMERALS;
    } else {
        if (flags & GR_STORE_SEQUENTIAL)
            snprintf(it->path + plen, GR_STORE_SEQUENCE_DIGITS + 1, "%010" PRId32,
                     parent->stat.cversion);
        const char *name = strrchr(it->path, '/') + 1;
        bool found;
        sl_child_index(parent, name, strlen(name), &found);
        if (found) {
            it->rc = GR_STORE_NODEEXISTS;
        } else {
            sl_node_t *n = sl_node_new(name, strlen(name));
            if (n != NULL && len > 0) {
                n->data = malloc(len);
                if (n->data != NULL)
                    memcpy(n->data, data, len);
                n->len = len;
            }
            if (n == NULL || (len > 0 && n->data == NULL) || sl_child_insert(parent, n) < 0) {
                sl_node_free(n);
                item_free(it);
                return GR_STORE_NOMEM;
            }
            gr_store_stat_t old_parent = parent->stat;
            int64_t t = now_ms();
            ls->zxid++;
            n->stat.czxid = n->stat.mzxid = n->stat.pzxid = ls->zxid;
            n->stat.ctime = n->stat.mtime = t;
            n->stat.ephemeral_owner = (flags & GR_STORE_EPHEMERAL) ? s->id : 0;
            parent->stat.cversion++;
            parent->stat.pzxid = ls->zxid;
            if (change_add(ls, CHANGE_CREATE, it, n, it->path, &old_parent, ls->zxid - 1) == NULL) {
                ls->zxid--;
                parent->stat = old_parent;
                sl_child_remove(parent, n);
                sl_node_free(n);
                item_free(it);
                return GR_STORE_NOMEM;
            }
            return GR_STORE_OK; /* completed by commit() */
        }
    }
    enqueue(ls, it);
    return GR_STORE_OK;
}

static int local_get(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                     void *watch_opaque, gr_store_data_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    commit(s->ls); /* a read sees only saved changes, and watches only later ones */
    if (gr_store_path_check(path) < 0)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_DATA, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.data = cb;
    sl_node_t *n = sl_lookup(s->ls->root, path);
    if (n == NULL) {
        it->rc = GR_STORE_NONODE;
    } else {
        it->data = malloc(n->len ? n->len : 1);
        if (it->data == NULL ||
            (watch != NULL && watch_add(s, path, WATCH_DATA, watch, watch_opaque) < 0)) {
            item_free(it);
            return GR_STORE_NOMEM;
        }
        memcpy(it->data, n->data ? n->data : "", n->len);
        it->len = n->len;
        stat_of(n, &it->stat);
    }
    enqueue(s->ls, it);
    return GR_STORE_OK;
}

static int local_set(gr_store_session_t *base, const char *path, const void *data, size_t len,
                     int32_t version, gr_store_stat_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    local_store_t *ls = s->ls;
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    if (gr_store_path_check(path) < 0 || (len > 0 && data == NULL) || len > INT32_MAX ||
        version < -1)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_STAT, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.stat = cb;
    it->mutation = true;
    sl_node_t *n = sl_lookup(ls->root, path);
    if (n == NULL) {
        it->rc = GR_STORE_NONODE;
    } else if (version != GR_STORE_ANY_VERSION && version != n->stat.version) {
        it->rc = GR_STORE_BADVERSION;
    } else {
        void *copy = malloc(len ? len : 1);
        if (copy == NULL) {
            item_free(it);
            return GR_STORE_NOMEM;
        }
        memcpy(copy, data ? data : "", len);
        void *old_data = n->data;
        size_t old_len = n->len;
        gr_store_stat_t old_stat = n->stat;
        ls->zxid++;
        n->data = copy;
        n->len = len;
        n->stat.version++;
        n->stat.mzxid = ls->zxid;
        n->stat.mtime = now_ms();
        change_t *c = change_add(ls, CHANGE_SET, it, n, path, &old_stat, ls->zxid - 1);
        if (c == NULL) {
            ls->zxid--;
            n->data = old_data;
            n->len = old_len;
            n->stat = old_stat;
            free(copy);
            item_free(it);
            return GR_STORE_NOMEM;
        }
        c->old_data = old_data;
        c->old_len = old_len;
        stat_of(n, &it->stat);
        return GR_STORE_OK; /* completed by commit() */
    }
    enqueue(ls, it);
    return GR_STORE_OK;
}

static int local_delete(gr_store_session_t *base, const char *path, int32_t version,
                        gr_store_done_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    local_store_t *ls = s->ls;
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    if (gr_store_path_check(path) < 0 || strcmp(path, "/") == 0 || version < -1)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_DONE, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.done = cb;
    sl_node_t *n = sl_lookup(ls->root, path);
    if (n == NULL)
        it->rc = GR_STORE_NONODE;
    else if (version != GR_STORE_ANY_VERSION && version != n->stat.version)
        it->rc = GR_STORE_BADVERSION;
    else if (n->nchildren > 0)
        it->rc = GR_STORE_NOTEMPTY;
    else if (remove_node(ls, n, it) < 0) {
        item_free(it);
        return GR_STORE_NOMEM;
    } else
        return GR_STORE_OK; /* completed by commit() */
    enqueue(ls, it);
    return GR_STORE_OK;
}

static int local_exists(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                        void *watch_opaque, gr_store_stat_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    commit(s->ls); /* a read sees only saved changes, and watches only later ones */
    if (gr_store_path_check(path) < 0)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_STAT, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.stat = cb;
    if (watch != NULL && watch_add(s, path, WATCH_DATA, watch, watch_opaque) < 0) {
        item_free(it);
        return GR_STORE_NOMEM;
    }
    sl_node_t *n = sl_lookup(s->ls->root, path);
    if (n == NULL) {
        it->rc = GR_STORE_NONODE;
    } else {
        stat_of(n, &it->stat);
        it->rc = GR_STORE_OK;
    }
    enqueue(s->ls, it);
    return GR_STORE_OK;
}

static int local_children(gr_store_session_t *base, const char *path, gr_store_watch_fn *watch,
                          void *watch_opaque, gr_store_children_fn *cb, void *opaque)
{
    local_session_t *s = session_of(base);
    item_t *it;

    if (s->closing)
        return GR_STORE_CLOSING;
    commit(s->ls); /* a read sees only saved changes, and watches only later ones */
    if (gr_store_path_check(path) < 0)
        return GR_STORE_BADARGUMENTS;
    it = item_new(s, ITEM_CHILDREN, opaque);
    if (it == NULL)
        return GR_STORE_NOMEM;
    it->fn.children = cb;
    sl_node_t *n = sl_lookup(s->ls->root, path);
    if (n == NULL) {
        it->rc = GR_STORE_NONODE;
    } else {
        /* One allocation: the pointer array, then the names. */
        size_t bytes = (n->nchildren + 1) * sizeof(char *);
        for (size_t i = 0; i < n->nchildren; i++)
            bytes += strlen(n->children[i]->name) + 1;
        it->names = malloc(bytes);
        if (it->names == NULL ||
            (watch != NULL && watch_add(s, path, WATCH_CHILDREN, watch, watch_opaque) < 0)) {
            item_free(it);
            return GR_STORE_NOMEM;
        }
        char *p = (char *)(it->names + n->nchildren + 1);
        for (size_t i = 0; i < n->nchildren; i++) {
            size_t l = strlen(n->children[i]->name) + 1;
            memcpy(p, n->children[i]->name, l);
            it->names[i] = p;
            p += l;
        }
        it->names[n->nchildren] = NULL;
        it->count = n->nchildren;
        stat_of(n, &it->stat);
        it->rc = GR_STORE_OK;
    }
    enqueue(s->ls, it);
    return GR_STORE_OK;
}

/* ---- sessions and the store ------------------------------------------------------ */

static int local_session_open(gr_store_t *store, gr_store_session_fn *on_state, void *opaque,
                              gr_store_session_t **out)
{
    local_store_t *ls = (local_store_t *)store;
    local_session_t *s;

    if (ls->closed)
        return GR_STORE_CLOSING;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return GR_STORE_NOMEM;
    s->base.store = store;
    s->ls = ls;
    /* The local store is connected from the start and never loses it: report that once. */
    if (on_state != NULL) {
        item_t *it = item_new(s, ITEM_STATE, opaque);
        if (it == NULL) {
            free(s);
            return GR_STORE_NOMEM;
        }
        it->fn.state = on_state;
        enqueue(ls, it);
    }
    s->id = ls->next_session_id++;
    s->next = ls->sessions;
    ls->sessions = s;
    *out = &s->base;
    return GR_STORE_OK;
}

static void local_session_close(gr_store_session_t *base)
{
    local_session_t *s = session_of(base);
    local_store_t *ls = s->ls;
    item_t *pending = NULL, **ptail = &pending;

    if (s->closing)
        return; /* closed again from one of its own CLOSING callbacks */
    s->closing = true;
    commit(ls);

    /* Its watches go silently. */
    for (item_t **pp = &ls->watches; *pp != NULL;) {
        item_t *w = *pp;
        if (w->session == s) {
            *pp = w->next;
            item_free(w);
        } else {
            pp = &w->next;
        }
    }
    /* Its ephemerals go, which other sessions may be watching. */
    remove_ephemerals(ls, ls->root, s->id);
    commit(ls);

    /* Its queued completions are taken out and told CLOSING; its fired watches dropped. */
    item_t *all = ls->head;
    ls->head = NULL;
    ls->tail = &ls->head;
    for (item_t *it = all, *next; it != NULL; it = next) {
        next = it->next;
        it->next = NULL;
        if (it->session != s) {
            *ls->tail = it;
            ls->tail = &it->next;
        } else {
            ls->queued--;
            if (it->kind == ITEM_WATCH || it->kind == ITEM_STATE) {
                item_free(it);
            } else {
                *ptail = it;
                ptail = &it->next;
            }
        }
    }
    while (pending != NULL) {
        item_t *next = pending->next;
        deliver(pending, GR_STORE_CLOSING); /* deliver() skips NULL callbacks */
        item_free(pending);
        pending = next;
    }

    for (local_session_t **pp = &ls->sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    free(s);
}

static int64_t local_session_id(const gr_store_session_t *base)
{
    return ((const local_session_t *)base)->id;
}

static void local_close(gr_store_t *store)
{
    local_store_t *ls = (local_store_t *)store;

    while (ls->sessions != NULL)
        local_session_close(&ls->sessions->base);
    /* Sessions are gone, so only their items could have been queued. */
    while (ls->head != NULL)
        item_free(dequeue(ls));
    while (ls->watches != NULL) {
        item_t *w = ls->watches;
        ls->watches = w->next;
        item_free(w);
    }
    if (ev_is_active(&ls->wake))
        ev_async_stop(ls->loop, &ls->wake);
    /* A clean close leaves one file to read at the next open, with no changes to replay. */
    if (ls->journal.fd >= 0 && ls->journal.size > 0 && ls->changes == NULL)
        (void)save_snapshot(ls); /* logged; the journal still holds everything */
    sl_journal_close(&ls->journal);
    sl_node_free(ls->root);
    ls->root = NULL;
    if (ls->lock_fd >= 0)
        close(ls->lock_fd); /* releases the flock */
    if (ls->dir_fd >= 0)
        close(ls->dir_fd);
    free(ls->dir);
    ls->closed = true;
    if (!ls->draining)
        free(ls);
}

static const gr_store_ops_t local_ops = {
    .name = "local",
    .session_open = local_session_open,
    .session_close = local_session_close,
    .session_id = local_session_id,
    .create = local_create,
    .get = local_get,
    .set = local_set,
    .del = local_delete,
    .exists = local_exists,
    .children = local_children,
    .close = local_close,
};

int gr_store_local_open(struct ev_loop *loop, const char *dir, const gr_logger_t *log,
                        gr_store_t **out)
{
    local_store_t *ls = calloc(1, sizeof(*ls));
    bool found;
    int rc;

    if (ls == NULL)
        return -ENOMEM;
    ls->base.ops = &local_ops;
    ls->loop = loop;
    ls->log = log;
    ls->dir_fd = ls->lock_fd = ls->journal.fd = -1;
    ls->tail = &ls->head;
    ls->changes_tail = &ls->changes;
    ev_async_init(&ls->wake, on_wake);
    ls->wake.data = ls;
    /* Session ids from the clock, so ids of a previous run are not reused. */
    ls->next_session_id = now_ms() << 12 | 1;
    ls->dir = strdup(dir);
    ls->root = sl_node_new("", 0);
    if (ls->dir == NULL || ls->root == NULL) {
        rc = -ENOMEM;
        goto fail;
    }
    rc = make_dirs(dir);
    if (rc < 0) {
        gr_logf(log, GR_LOG_ERROR, "store", "cannot create %s: %s", dir, strerror(-rc));
        goto fail;
    }
    ls->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ls->dir_fd < 0) {
        rc = -errno;
        gr_logf(log, GR_LOG_ERROR, "store", "cannot open %s: %s", dir, strerror(-rc));
        goto fail;
    }
    ls->lock_fd = openat(ls->dir_fd, STORE_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (ls->lock_fd < 0 || flock(ls->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
        gr_logf(log, GR_LOG_ERROR, "store", "cannot lock %s/%s: %s", dir, STORE_LOCK,
                rc == -EBUSY ? "another process uses this metadata store" : strerror(-rc));
        goto fail;
    }
    /* A leftover temporary file is an unfinished save: the real file is intact. */
    if (unlinkat(ls->dir_fd, STORE_TMP_FILE, 0) == 0)
        gr_logf(log, GR_LOG_WARN, "store", "removed unfinished save %s/%s", dir, STORE_TMP_FILE);
    rc = load(ls, &found);
    if (rc == 0)
        rc =
            sl_journal_open(&ls->journal, ls->dir_fd, dir, log, found ? ls->root : NULL, &ls->zxid);
    if (rc < 0)
        goto fail;
    if (!found) {
        /* Fail now rather than at the first change if the directory is not writable. */
        rc = save(ls, NULL);
        if (rc < 0)
            goto fail;
    }
    gr_logf(log, GR_LOG_INFO, "store", "metadata store %s opened (%s, zxid %" PRId64 ")", dir,
            found ? "loaded" : "new", ls->zxid);
    *out = &ls->base;
    return 0;
fail:
    local_close(&ls->base);
    return rc;
}
