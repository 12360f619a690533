/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A log directory (one entry of log.dirs) as a whole: its lock, its
 * clean-shutdown marker, meta.properties, the offset checkpoint files shared
 * by all its partitions, and the enumeration of partition directories.
 *
 *   <dir>/.lock                              flock'ed while a broker owns the dir
 *   <dir>/.kafka_cleanshutdown               present only after a clean shutdown
 *   <dir>/meta.properties                    version=0, broker.id, cluster.id
 *   <dir>/recovery-point-offset-checkpoint   "0\n<count>\n<topic> <partition> <offset>\n..."
 *   <dir>/log-start-offset-checkpoint        (same format)
 *   <dir>/replication-offset-checkpoint      (same format)
 *   <dir>/<topic>-<partition>/               one partition log (log.h)
 *
 * Lifecycle: gr_log_dir_open (lock; note and keep the marker) → load the
 * partitions with gr_log_open(clean_shutdown = gr_log_dir_was_clean()) →
 * gr_log_dir_mark_dirty (removes the marker before the first append) → ... →
 * at shutdown: flush logs, write checkpoints, close logs,
 * gr_log_dir_mark_clean → gr_log_dir_close (unlock).
 *
 * Runs on: the loop thread (or start-up before the loop runs).
 */
#ifndef GR_LOG_LOG_DIR_H
#define GR_LOG_LOG_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/io.h"

#define GR_LOG_DIR_LOCK_FILE           ".lock"
#define GR_LOG_DIR_CLEAN_SHUTDOWN_FILE ".kafka_cleanshutdown"
#define GR_LOG_DIR_META_FILE           "meta.properties"
#define GR_CHECKPOINT_RECOVERY_POINT   "recovery-point-offset-checkpoint"
#define GR_CHECKPOINT_LOG_START        "log-start-offset-checkpoint"
#define GR_CHECKPOINT_REPLICATION      "replication-offset-checkpoint"

/* Kafka's topic name limit. */
#define GR_TOPIC_NAME_MAX 249

typedef struct gr_log_dir gr_log_dir_t;

/*
 * Opens the log dir at path, creating it if needed, and takes its lock
 * (flock on .lock, as Kafka does). io may be NULL (default).
 * Returns 0 and *out, -EWOULDBLOCK if another process (or another open in
 * this process) holds the lock, or -errno.
 */
int gr_log_dir_open(const char *path, const gr_io_ops_t *io, gr_log_dir_t **out);
/* Releases the lock and frees. NULL is a no-op. */
void gr_log_dir_close(gr_log_dir_t *d);

const char *gr_log_dir_path(const gr_log_dir_t *d);

/* True when the clean-shutdown marker was present at open. */
bool gr_log_dir_was_clean(const gr_log_dir_t *d);
/* Removes the marker (fsyncing the dir). 0 or -errno. */
int gr_log_dir_mark_dirty(gr_log_dir_t *d);
/* Writes the marker (fsyncing it and the dir). 0 or -errno. */
int gr_log_dir_mark_clean(gr_log_dir_t *d);

/* meta.properties (ZooKeeper-mode keys). */
typedef struct gr_meta_properties {
    int version; /* 0 */
    int32_t broker_id;
    char cluster_id[64]; /* "" if absent */
} gr_meta_properties_t;

/* Returns 0, -ENOENT (no file), -EINVAL (unparsable), or -errno. */
int gr_log_dir_read_meta(gr_log_dir_t *d, gr_meta_properties_t *out);
/* Writes atomically. 0 or -errno. */
int gr_log_dir_write_meta(gr_log_dir_t *d, const gr_meta_properties_t *meta);

/* One line of an offset checkpoint file. */
typedef struct gr_checkpoint_entry {
    char topic[GR_TOPIC_NAME_MAX + 1];
    int32_t partition;
    int64_t offset;
} gr_checkpoint_entry_t;

/*
 * Reads checkpoint file name (e.g. GR_CHECKPOINT_RECOVERY_POINT) into a
 * malloc'd array the caller frees. A missing file is 0 entries (out NULL).
 * Returns 0, -EINVAL (malformed or unknown version), or -errno.
 */
int gr_log_dir_read_checkpoint(gr_log_dir_t *d, const char *name,
                               gr_checkpoint_entry_t **out_entries, size_t *out_count);
/* Writes it atomically (tmp, fsync, rename, fsync dir). 0 or -errno. */
int gr_log_dir_write_checkpoint(gr_log_dir_t *d, const char *name,
                                const gr_checkpoint_entry_t *entries, size_t count);
/*
 * A checkpoint file built line by line, as text: what a line costs is its
 * ~20 bytes, not a gr_checkpoint_entry_t (264), so writing the checkpoints
 * of 100,000 partitions needs a few MB, not hundreds. Zero-initialise;
 * gr_checkpoint_text_fini frees it.
 */
typedef struct gr_checkpoint_text {
    char *buf; /* room for the header, then the lines */
    size_t len, cap;
    size_t count; /* lines */
    int err;      /* the first -ENOMEM met; the text is then unusable */
} gr_checkpoint_text_t;

/* Adds the line "<topic> <partition> <offset>". */
void gr_checkpoint_text_add(gr_checkpoint_text_t *t, const char *topic, int32_t partition,
                            int64_t offset);
void gr_checkpoint_text_fini(gr_checkpoint_text_t *t);

/*
 * Writes t as checkpoint file name, like gr_log_dir_write_checkpoint, unless
 * its content hashes to *last_hash (that content is already the file's):
 * then nothing is written. On a write, *last_hash becomes the new content's
 * hash; on a failure it is reset (the next call writes). Returns 1 written,
 * 0 unchanged, or -errno (t->err included).
 */
int gr_log_dir_write_checkpoint_text(gr_log_dir_t *d, const char *name, gr_checkpoint_text_t *t,
                                     uint64_t *last_hash);

/* Finds topic/partition in entries; returns its offset or dflt. */
int64_t gr_checkpoint_find(const gr_checkpoint_entry_t *entries, size_t count, const char *topic,
                           int32_t partition, int64_t dflt);

/* A partition directory found in the log dir. */
typedef struct gr_log_dir_partition {
    char name[GR_TOPIC_NAME_MAX + 16]; /* "<topic>-<partition>" */
    char topic[GR_TOPIC_NAME_MAX + 1];
    int32_t partition;
} gr_log_dir_partition_t;

/*
 * Lists the partition directories ("<topic>-<partition>", split at the last
 * '-'), skipping files, hidden entries, and "-delete"/"-future"/"-stray"
 * directories. Removes leftover "*-delete" directories (a deletion
 * interrupted by a crash). Returns 0 and a malloc'd array (caller frees), or
 * -errno.
 */
int gr_log_dir_list_partitions(gr_log_dir_t *d, gr_log_dir_partition_t **out, size_t *out_count);

/*
 * Splits "<topic>-<partition>" at the last '-'. Returns 0, or -EINVAL when
 * the name has no '-', an empty or too long topic, or a non-numeric partition.
 */
int gr_log_dir_parse_name(const char *name, char *topic /* out: GR_TOPIC_NAME_MAX + 1 */,
                          int32_t *partition);

/* Removes a directory tree (used for "-delete" dirs). 0 or -errno. */
int gr_log_dir_remove_tree(const gr_io_ops_t *io, const char *path);

#endif
