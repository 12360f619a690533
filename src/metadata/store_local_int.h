/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the single-node store (store_local.c, store_local_tree.c,
 * store_local_journal.c): the in-memory tree, the node record both files
 * on disk are made of, and the journal of changes since the last snapshot.
 *
 * A node record, in the snapshot and in the journal alike:
 *   <path-len> <data-len> <czxid> <mzxid> <pzxid> <ctime> <mtime> <version> <cversion>\n
 *   <path bytes><data bytes>\n
 *
 * Runs on: the loop thread only.
 */
#ifndef GR_METADATA_STORE_LOCAL_INT_H
#define GR_METADATA_STORE_LOCAL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/logging.h"
#include "metadata/store.h"

typedef struct sl_node sl_node_t;

struct sl_node {
    char *name; /* last path component; "" for the root */
    sl_node_t *parent;
    sl_node_t **children; /* sorted by name (strcmp) */
    size_t nchildren, cap;
    void *data;
    size_t len;
    gr_store_stat_t stat; /* data_length and num_children are filled on output */
};

/* ---- tree (store_local_tree.c) ---- */

sl_node_t *sl_node_new(const char *name, size_t name_len);
/* Frees n and everything under it. */
void sl_node_free(sl_node_t *n);
/* Index of the child called name[0..len), or where it would be inserted (*found false). */
size_t sl_child_index(const sl_node_t *n, const char *name, size_t len, bool *found);
/* The node at path[0..len) (a checked path) under root, or NULL. */
sl_node_t *sl_lookup_n(sl_node_t *root, const char *path, size_t len);
sl_node_t *sl_lookup(sl_node_t *root, const char *path);
/* Inserts a child not yet there. Returns 0 or -ENOMEM. */
int sl_child_insert(sl_node_t *parent, sl_node_t *child);
void sl_child_remove(sl_node_t *parent, sl_node_t *child);
/* Writes n's absolute path into buf (GR_STORE_PATH_MAX + 1 bytes). */
void sl_path_of(const sl_node_t *n, char *buf);
/* Parent path of a checked path into buf ("/" for top-level nodes). */
void sl_parent_path(const char *path, char *buf);

/* A node record as read: path and data point into the buffer read. */
typedef struct sl_record {
    char path[GR_STORE_PATH_MAX + 1];
    const char *data;
    size_t len;
    gr_store_stat_t stat;
} sl_record_t;

/* Writes n's record (n persistent, path its path) to f. */
void sl_record_write(FILE *f, const char *path, const sl_node_t *n);
/* Reads the record at buf[*pos..len) and moves *pos past it. Returns 0, or -EIO if malformed. */
int sl_record_read(const char *buf, size_t len, size_t *pos, sl_record_t *out);
/*
 * Makes the tree hold r: its node created under its existing parent, or its
 * data and stat replaced (children kept). must_be_new refuses an existing
 * node (the snapshot lists each once). Returns 0, -EIO (no parent, or there
 * already) or -ENOMEM.
 */
int sl_tree_put(sl_node_t *root, const sl_record_t *r, bool must_be_new);
/* Removes the node at path and everything under it, if there. */
void sl_tree_drop(sl_node_t *root, const char *path);

/* Writes all of buf to fd (retrying short writes). Returns 0 or -errno. */
int sl_write_all(int fd, const char *buf, size_t len);

/* ---- journal (store_local_journal.c) ---- */

typedef struct sl_journal {
    int fd;      /* -1 when closed */
    size_t size; /* bytes of whole groups in the file */
    bool broken; /* a failed append left bytes it could not take back: snapshot next */
} sl_journal_t;

/*
 * Opens (creating) the journal in dir_fd and replays onto root the groups
 * newer than *zxid (older ones are already in the snapshot), raising *zxid;
 * root NULL (no snapshot yet) wants an empty journal.
 * A torn last group (a crash mid-append: never acknowledged) is cut off; a
 * damaged group with more after it is corruption. Returns 0, -EIO, -ENOMEM
 * or -errno.
 */
int sl_journal_open(sl_journal_t *j, int dir_fd, const char *dir, const gr_logger_t *log,
                    sl_node_t *root, int64_t *zxid);
/*
 * Appends one group (payload: records and deletions, see the .c file)
 * reaching zxid, and syncs it. Returns 0 once durable, or -errno with the
 * file as before (or j->broken set when it could not be put back).
 */
int sl_journal_append(sl_journal_t *j, int64_t zxid, const char *payload, size_t len);
/* Empties the journal once a snapshot holds everything. Returns 0 or -errno (then broken). */
int sl_journal_reset(sl_journal_t *j);
void sl_journal_close(sl_journal_t *j);

/* A deletion in a journal group: "D <path-len>\n<path>\n". */
#define SL_JOURNAL_DELETE 'D'
/* A node record in a journal group: "P " then the node record. */
#define SL_JOURNAL_PUT 'P'

#endif
