/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to src/log/: segments, their in-memory indexes, the fd cache, the
 * leader-epoch cache and the partition log struct.
 *
 * Segment lifecycle (segment.c unless noted):
 *   created/loaded (gr_segment_new) → [active: appended by gr_segment_append]
 *   → inactive (gr_segment_seal, at roll) → deleted (gr_segment_mark_deleted:
 *   files renamed "*.deleted") → detached (gr_segment_detach: out of its log,
 *   also when the log closes) → freed when its last reference is put
 *   (gr_segment_put).
 * A segment's .log fd is opened lazily (gr_segment_fd) and registered in the
 * fd cache's LRU; eviction closes it, and for inactive segments also frees
 * the in-memory index copies, only when no reader holds a reference
 * (refs == 1, the log's own). The active segment's indexes stay in memory:
 * entries not yet written to disk live only there until the next flush, roll
 * or close.
 *
 * Index entries (in memory and on disk, big-endian on disk):
 *   offset index: relative offset of a batch's LAST offset, file position of
 *                 that batch; one entry after each index.interval.bytes.
 *   time index:   largest timestamp so far, relative offset of the (last
 *                 offset of the) batch that had it; appended only when the
 *                 timestamp grows, and once more when the segment is sealed.
 * Both are strictly increasing in offset (and time entries in timestamp).
 *
 * Runs on: the loop thread.
 */
#ifndef GR_LOG_LOG_INT_H
#define GR_LOG_LOG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log.h"
#include "log/producer_state.h"
#include "protocol/records.h"

#define GR_SEGMENT_NAME_DIGITS 20

/*
 * Parses a file name of Kafka's "<20-digit offset><suffix>" form (segments'
 * .log/.index/.timeindex, producer snapshots, the cleaner's .cleaned/.swap
 * files) exactly. Returns the offset, or -1 when name is not of that form.
 */
int64_t gr_segment_name_offset(const char *name, const char *suffix);
#define GR_PATH_MAX 4096

typedef struct gr_offset_entry {
    int32_t rel_offset;
    int32_t position;
} gr_offset_entry_t;

typedef struct gr_time_entry {
    int64_t timestamp;
    int32_t rel_offset;
} gr_time_entry_t;

/*
 * A segment's aborted transactions (.txnindex), in memory once loaded
 * (txn_index.c). Entries are in marker order (increasing last offset).
 */
typedef struct gr_txn_index {
    gr_aborted_txn_t *entries;
    size_t count, cap;
    bool loaded;
    bool unsynced; /* written since the last fsync */
} gr_txn_index_t;

struct gr_segment {
    gr_fd_cache_t *cache;
    const gr_io_ops_t *io;
    char *path; /* "<dir>/<20-digit base offset>", no extension */
    int64_t base_offset;
    int64_t size;        /* bytes of valid batches in .log */
    int64_t next_offset; /* offset after the last batch; base_offset if empty */
    int refs;            /* the log's own (while in a log) + readers' */
    int fd;              /* .log, -1 when closed */

    /* The flags, together: one per partition's active segment adds up. */
    bool active;
    bool detached;      /* out of its log (deleted, or the log closed): readers only,
                           off the LRU, fd closed by the last put */
    bool in_lru;        /* on the fd cache's LRU (lru_prev/lru_next) */
    bool index_loaded;  /* oidx/tidx below are in memory */
    bool oidx_unsynced; /* .index changed since its last fsync */
    bool tidx_unsynced; /* .timeindex changed since its last fsync */
    bool max_ts_known;  /* max_timestamp below is known */
    bool unflushed;     /* bytes written since the last fsync */

    gr_segment_t *lru_prev, *lru_next;

    /* In-memory indexes; loaded lazily for inactive segments. */
    gr_offset_entry_t *oidx;
    size_t oidx_count, oidx_cap, oidx_written, oidx_on_disk;
    gr_time_entry_t *tidx;
    size_t tidx_count, tidx_cap, tidx_written, tidx_on_disk;
    int64_t bytes_since_index;

    /* Largest batch max timestamp and the last offset of its batch. */
    int64_t max_timestamp;
    int64_t offset_of_max_timestamp;

    /* Rolling by segment.ms (active segment). */
    int64_t first_batch_timestamp; /* -1: none or unknown */
    int64_t created_ms;

    gr_txn_index_t txns;
};

struct gr_fd_cache {
    int max_open;
    int open;           /* fds opened through the cache and not yet closed */
    gr_segment_t *head; /* most recently used */
    gr_segment_t *tail;
};

/* fd_cache.c */
/* Moves seg to the front of the LRU (inserting it). Evicts others over the cap. */
void gr_fd_cache_touch(gr_fd_cache_t *cache, gr_segment_t *seg);
void gr_fd_cache_remove(gr_fd_cache_t *cache, gr_segment_t *seg);

/* segment.c */
/* A segment struct for base_offset in dir (files not touched). NULL on ENOMEM. */
gr_segment_t *gr_segment_new(const char *dir, int64_t base_offset, const gr_io_ops_t *io,
                             gr_fd_cache_t *cache);
/* Creates the segment's empty files (truncating any). 0 or -errno. */
int gr_segment_create_files(gr_segment_t *seg);
/* "<path><ext>" into buf. */
void gr_segment_file(const gr_segment_t *seg, const char *ext, char *buf, size_t size);
/* Closes the fd and, if inactive, drops the in-memory indexes (fd cache eviction). */
void gr_segment_release(gr_segment_t *seg);

/* Result of scanning a segment's batches. */
typedef struct gr_segment_scan {
    int64_t valid_bytes; /* length of the valid prefix */
    int64_t bytes_read;  /* bytes read from the file */
    int64_t next_offset; /* after the last valid batch */
    int32_t max_epoch;   /* largest leader epoch seen, -1 if none */
} gr_segment_scan_t;

/* Called per valid batch during a scan (epoch cache rebuild). */
typedef void (*gr_segment_batch_fn)(void *arg, const gr_batch_header_t *h);

/*
 * Rebuilds the in-memory indexes by scanning all batches from position 0
 * (verifying CRCs when verify_crc), stopping at the first invalid one.
 * Does not truncate: the caller compares out->valid_bytes with seg->size.
 * Returns 0 or -errno (read failure).
 */
int gr_segment_scan(gr_segment_t *seg, bool verify_crc, int64_t index_interval,
                    gr_segment_batch_fn fn, void *arg, gr_segment_scan_t *out);

/*
 * Header-only scan from the last offset index entry to the end (clean open
 * of the active segment): refreshes next_offset and the max timestamp.
 * Returns the valid length (< seg->size when the tail is damaged) or -errno;
 * *out_read gets the bytes read.
 */
int64_t gr_segment_scan_tail(gr_segment_t *seg, int64_t *out_read);

/* Cuts .log to size bytes and drops index entries at or past it. 0 or -errno. */
int gr_segment_truncate(gr_segment_t *seg, int64_t size, int64_t next_offset);

/*
 * Loads the index files into memory if not loaded; damaged files (bad
 * size, non-increasing entries, positions past the data) are replaced by a
 * rebuild from the .log (no CRC checks, no truncation).
 * Returns 0, 1 if rebuilt, or -errno.
 */
int gr_segment_load_indexes(gr_segment_t *seg, int64_t index_interval);
/* Size-only sanity check of the index files: true when both look usable. */
bool gr_segment_indexes_sane(gr_segment_t *seg);
/* True when the .log and both index files are empty: recovery would change nothing. */
bool gr_segment_empty(gr_segment_t *seg);

/*
 * Appends len bytes of batches (offsets already assigned) at the end of the
 * active segment and indexes them. On a write failure, cuts the file back.
 * Returns 0 or -errno.
 */
int gr_segment_append(gr_segment_t *seg, const uint8_t *batches, size_t len,
                      int64_t index_interval);

/* Writes index entries not yet on disk; fsyncs them and .log when sync. 0 or -errno. */
int gr_segment_write_indexes(gr_segment_t *seg, bool sync);
int gr_segment_flush(gr_segment_t *seg);
/* Active → inactive: final time index entry, indexes written. 0 or -errno. */
int gr_segment_seal(gr_segment_t *seg);
/* Inactive → active (after truncation): bytes_since_index, first batch ts. */
int gr_segment_activate(gr_segment_t *seg, int64_t now_ms);

/* Largest entry <= rel_offset: returns the position to scan from (0 if none). */
int32_t gr_segment_index_lookup(const gr_segment_t *seg, int64_t offset);
/* Largest time entry with timestamp <= ts: its absolute offset, or base_offset. */
int64_t gr_segment_time_lookup(const gr_segment_t *seg, int64_t ts);

/* Header of the batch at pos (reads GR_RECORD_BATCH_HEADER_SIZE bytes). */
int gr_segment_read_header(gr_segment_t *seg, int64_t pos, gr_batch_header_t *out);
/*
 * Finds the first batch at or after position from whose last offset is >=
 * offset. Returns 0 with *out_pos and *out (out_pos == seg->size if none),
 * or -errno.
 */
int gr_segment_find_batch(gr_segment_t *seg, int64_t offset, int64_t from, int64_t *out_pos,
                          gr_batch_header_t *out);
/*
 * Length of the run of whole batches from pos: at most max_bytes (but one
 * whole batch when min_one), stopping at a batch whose base offset is
 * >= max_offset. fn (NULL: none) gets the header of each batch of the run,
 * in order. Returns 0 with *out_len and *out_next_offset (the offset
 * after the run's last batch, -1 when empty), or -errno.
 */
int gr_segment_span(gr_segment_t *seg, int64_t pos, int64_t max_bytes, bool min_one,
                    int64_t max_offset, gr_segment_batch_fn fn, void *arg, int64_t *out_len,
                    int64_t *out_next_offset);
/* Calls fn for each batch header from position 0 (no CRC checks). 0 or -errno. */
int gr_segment_walk(gr_segment_t *seg, gr_segment_batch_fn fn, void *arg);
/* Largest timestamp (loading the indexes if needed); -1 if none. */
int64_t gr_segment_max_timestamp(gr_segment_t *seg, int64_t index_interval);

/* Renames the files "*.deleted" and detaches the segment. 0 or -errno. */
int gr_segment_mark_deleted(gr_segment_t *seg);
/*
 * Drops the log's own reference. If readers still hold the segment, it
 * leaves the LRU first, so its fd stays open until the last reader's put.
 */
void gr_segment_detach(gr_segment_t *seg);

/*
 * segment_reader.c: a buffered forward reader over a segment's .log, for
 * walking its batches. Over a gr_segment_t (loop thread; the fd comes from
 * the fd cache at each refill), or over a private fd (any thread: the
 * cleaner's workers). Embedded: init, then gets, then fini.
 */
typedef struct gr_segment_reader {
    const gr_io_ops_t *io;
    gr_segment_t *seg; /* NULL: read fd */
    int fd;
    int64_t size; /* readable bytes [0, size), fixed at init */
    size_t chunk; /* bytes read ahead per refill (more when one get needs more) */
    uint8_t *buf;
    size_t cap;
    int64_t buf_off; /* file position of buf[0] */
    size_t buf_len;
    int64_t bytes_read; /* total read from the file */
} gr_segment_reader_t;

/* A reader over seg's .log up to its current size. Runs on: loop thread. */
void gr_segment_reader_init(gr_segment_reader_t *r, gr_segment_t *seg, size_t chunk);
/* A reader over fd (not owned; left open by fini) up to size bytes. */
void gr_segment_reader_init_fd(gr_segment_reader_t *r, const gr_io_ops_t *io, int fd, int64_t size,
                               size_t chunk);
/* Frees the buffer; the reader may be inited again. */
void gr_segment_reader_fini(gr_segment_reader_t *r);
/*
 * Points *out at need bytes at file position pos, valid until the next get
 * or fini. Returns 0, -ENODATA when they are not all below size or the file
 * is shorter than size, -ENOMEM, or -errno (open or read failure).
 */
int gr_segment_reader_get(gr_segment_reader_t *r, int64_t pos, size_t need, const uint8_t **out);

/* epoch_cache.c: the leader-epoch cache (epoch → start offset, both increasing). */
typedef struct gr_epoch_entry {
    int32_t epoch;
    int64_t start_offset;
} gr_epoch_entry_t;

typedef struct gr_epoch_cache {
    gr_epoch_entry_t *entries;
    size_t count, cap;
} gr_epoch_cache_t;

void gr_epoch_cache_init(gr_epoch_cache_t *c);
void gr_epoch_cache_fini(gr_epoch_cache_t *c);
/* Records that epoch starts at start_offset; returns 1 if changed, 0 if not, -ENOMEM. */
int gr_epoch_cache_assign(gr_epoch_cache_t *c, int32_t epoch, int64_t start_offset);
/* Drops entries starting at or after end_offset. Returns 1 if changed. */
int gr_epoch_cache_truncate_end(gr_epoch_cache_t *c, int64_t end_offset);
/* Drops/moves entries below start_offset (the last one kept, moved up). 1 if changed. */
int gr_epoch_cache_truncate_start(gr_epoch_cache_t *c, int64_t start_offset);
int32_t gr_epoch_cache_latest(const gr_epoch_cache_t *c);
/* The epoch of the entry covering offset, or -1. */
int32_t gr_epoch_cache_epoch_for(const gr_epoch_cache_t *c, int64_t offset);
void gr_epoch_cache_end_offset_for(const gr_epoch_cache_t *c, int32_t epoch, int64_t log_end,
                                   int32_t *out_epoch, int64_t *out_offset);
/* Reads the leader-epoch-checkpoint file: 0, -ENOENT, -EINVAL (then empty), -errno. */
int gr_epoch_cache_read(gr_epoch_cache_t *c, const gr_io_ops_t *io, const char *path);
/* durable: fsync file and directory (at flush); otherwise a plain replace. */
int gr_epoch_cache_write(const gr_epoch_cache_t *c, const gr_io_ops_t *io, const char *path,
                         bool durable);

/*
 * txn_index.c: a segment's ".txnindex", Kafka's transaction index: the
 * aborted transactions whose ABORT marker is in the segment, as 34-byte
 * big-endian entries { int16 version 0, int64 producer id, int64 first
 * offset, int64 last offset, int64 last stable offset }. Gregor creates the
 * file with the segment, so a missing or damaged one means it must be
 * rebuilt from the log (gr_log_producers_load replays the batches); Kafka
 * creates it at the first entry, so a Kafka log dir is rebuilt once.
 */
#define GR_TXN_INDEX_SUFFIX     ".txnindex"
#define GR_TXN_INDEX_ENTRY_SIZE 34
#define GR_TXN_INDEX_VERSION    0

/* Reads the file if not loaded yet. 0, -ENOENT (then empty), -EINVAL (damaged: empty) or -errno. */
int gr_txn_index_load(gr_segment_t *seg);
/* Whether the file exists with a whole number of entries (the open-time check). */
bool gr_txn_index_sane(gr_segment_t *seg);
/* Room for n more entries, so appends cannot fail for memory. 0 or -ENOMEM. */
int gr_txn_index_reserve(gr_segment_t *seg, size_t n);
/* Appends an entry (memory and file). Precondition: loaded. 0 or -errno. */
int gr_txn_index_append(gr_segment_t *seg, const gr_aborted_txn_t *txn);
/* Drops the entries whose marker is at or after offset. 0 or -errno. */
int gr_txn_index_truncate(gr_segment_t *seg, int64_t offset);
/* Empties the index (memory and file, created if missing): a rebuild follows. 0 or -errno. */
int gr_txn_index_reset(gr_segment_t *seg);
/* fsyncs the file when written since the last fsync. 0 or -errno. */
int gr_txn_index_flush(gr_segment_t *seg);
/* Frees the in-memory entries. */
void gr_txn_index_free(gr_segment_t *seg);
/* Encodes one entry into p (GR_TXN_INDEX_ENTRY_SIZE bytes); the cleaner writes its own files. */
void gr_txn_index_encode(uint8_t *p, const gr_aborted_txn_t *txn);

/*
 * Kafka's collectAbortedTxns over one segment: appends to *out (malloc'd,
 * grown; *count and *cap updated) its entries with last offset >= from and
 * first offset < upper. *complete is set when an entry's last stable offset
 * is >= upper: no later segment can hold a transaction overlapping the
 * range. 0, -ENOMEM or -errno.
 */
int gr_txn_index_collect(gr_segment_t *seg, int64_t from, int64_t upper, gr_aborted_txn_t **out,
                         size_t *count, size_t *cap, bool *complete);

/* A file renamed "*.deleted", unlinked once its delay has passed. */
typedef struct gr_pending_delete {
    char *path;
    int64_t due_ms;
} gr_pending_delete_t;

struct gr_log {
    char *dir;
    char *topic;
    int32_t partition;
    gr_log_config_t config;
    const gr_io_ops_t *io;
    gr_fd_cache_t *fds;

    gr_segment_t **segs; /* by base offset; segs[nsegs - 1] is active */
    size_t nsegs, segs_cap;

    int64_t log_start_offset;
    int64_t high_watermark;
    int64_t recovery_point;

    int64_t unflushed_messages;
    int64_t last_flush_ms;
    int64_t last_now_ms; /* the latest "now" seen; log_now() folds in the flush set's */

    /* Membership of the flush set (flush_set.h), NULL when opened without one. */
    gr_log_flush_set_t *flush_set;
    gr_log_t *flush_prev, *flush_next;
    bool in_flush_set;
    bool dir_dirty;    /* segments created since the directory was last fsynced */
    bool epochs_dirty; /* leader-epoch-checkpoint written without fsync since the last flush */

    gr_epoch_cache_t epochs;
    bool topic_id_known;
    gr_uuid_t topic_id;

    gr_pending_delete_t *pending;
    size_t npending, pending_cap;

    gr_producer_state_t producers; /* as of the log end offset */

    /* Compaction (cleaner.c). */
    int64_t clean_first_dirty;     /* cleaner checkpoint; -1 until known */
    int64_t clean_horizon_ms;      /* earliest tombstone delete horizon; INT64_MAX none */
    bool clean_visited;            /* clean_horizon_ms was set up */
    bool clean_failed;             /* undecodable data met: not cleaned again until restart */
    struct gr_clean_job *cleaning; /* in flight, or NULL */
};

/* flush_set.c: joins log's flush set if it has one, a finite flush.ms and
 * unflushed data (no-op otherwise, or when already in). */
void gr_log_flush_set_join(gr_log_t *log);
/* flush_set.c: leaves it (no-op when not in). */
void gr_log_flush_set_leave(gr_log_t *log);

/* log.c: removes seg (already out of log->segs) as retention does. 0 or -errno. */
int gr_log_discard_segment(gr_log_t *log, gr_segment_t *seg, int64_t delay_ms);

/*
 * producer_snapshots.c: the producer state's snapshot files.
 * Rebuilds log->producers for the current log end offset: drops snapshots
 * past it, loads the newest readable one at or below it and replays the
 * batches after it (from the active segment's base when there is none: a
 * roll with live producers always leaves a snapshot). After a clean
 * shutdown with no snapshot at all there were no producers: nothing is read.
 * rebuild_from (INT64_MAX: none) is the base offset of the first segment
 * whose transaction index is rebuilt, with every later one's: the replay
 * then starts at or below it. Uses log->high_watermark to drop ended
 * transactions. Returns 0 or -errno (-ENOMEM; unreadable snapshots are
 * skipped).
 */
int gr_log_producers_load(gr_log_t *log, bool clean_shutdown, int64_t rebuild_from);
/*
 * Writes the state as "<offset>.snapshot" (offset = the log end offset the
 * state describes) when there are producers or earlier snapshots to
 * supersede, and removes snapshots below the first segment. 0 or -errno.
 */
int gr_log_producers_snapshot(gr_log_t *log, int64_t offset);

/* Big-endian helpers. */
static inline void gr_be32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t gr_be32_get(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void gr_be64_put(uint8_t *p, uint64_t v)
{
    gr_be32_put(p, (uint32_t)(v >> 32));
    gr_be32_put(p + 4, (uint32_t)v);
}

static inline uint64_t gr_be64_get(const uint8_t *p)
{
    return (uint64_t)gr_be32_get(p) << 32 | gr_be32_get(p + 4);
}

#endif
