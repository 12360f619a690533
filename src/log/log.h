/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partition log: Gregor's storage engine, with Kafka's on-disk layout.
 *
 *   <log.dir>/<topic>-<partition>/
 *     00000000000000000000.log        record batches exactly as on the wire,
 *                                     with their assigned offsets
 *     00000000000000000000.index      sparse offset index: 8-byte entries
 *                                     (int32 relative offset, int32 position)
 *     00000000000000000000.timeindex  12-byte entries (int64 timestamp,
 *                                     int32 relative offset)
 *     00000000000000000000.txnindex   the aborted transactions whose ABORT
 *                                     marker is in the segment (34-byte
 *                                     entries, see log_int.h)
 *     00000000000000000000.snapshot   producer state as of that offset
 *     partition.metadata              "version: 0\ntopic_id: <base64url>\n"
 *     leader-epoch-checkpoint         "0\n<count>\n<epoch> <startOffset>\n..."
 *
 * A log is a list of segments named by their 20-digit base offset; only the
 * last (active) one is appended to. The .log file is the truth; indexes are
 * rebuilt from it whenever they are missing, damaged, or newer than the
 * recovery point after an unclean shutdown.
 *
 * Offsets: log start offset <= high watermark <= log end offset (the next
 * offset to assign). The recovery point is the offset below which all data
 * is known to be fsynced; the caller stores it in the log dir's checkpoint
 * files (log_dir.h) and hands it back at the next gr_log_open.
 *
 * Errors are 0/-errno; gr_kerr_from_errno() maps them for responses
 * (-ERANGE is OFFSET_OUT_OF_RANGE, -EIO/-ENOSPC KAFKA_STORAGE_ERROR).
 *
 * Runs on: the broker's loop thread. Nothing here locks; a log, its segments
 * and the fd cache belong to one thread.
 */
#ifndef GR_LOG_LOG_H
#define GR_LOG_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/flush_set.h"
#include "log/io.h"
#include "log/producer_state.h"
#include "protocol/records.h"
#include "protocol/types.h"

/* Kafka's topic-level defaults. */
#define GR_LOG_DEFAULT_SEGMENT_BYTES        1073741824
#define GR_LOG_DEFAULT_SEGMENT_MS           604800000LL
#define GR_LOG_DEFAULT_SEGMENT_INDEX_BYTES  10485760
#define GR_LOG_DEFAULT_INDEX_INTERVAL_BYTES 4096
#define GR_LOG_DEFAULT_RETENTION_MS         604800000LL
#define GR_LOG_DEFAULT_RETENTION_BYTES      (-1LL)
#define GR_LOG_DEFAULT_FLUSH_MESSAGES       INT64_MAX
#define GR_LOG_DEFAULT_FLUSH_MS             INT64_MAX
#define GR_LOG_DEFAULT_FILE_DELETE_DELAY_MS 60000LL
#define GR_LOG_DEFAULT_DELETE_RETENTION_MS  86400000LL
#define GR_LOG_DEFAULT_MIN_CLEANABLE_RATIO  0.5

/* ListOffsets' special timestamps (Kafka's ListOffsetsRequest constants). */
#define GR_LOG_TIMESTAMP_LATEST   (-1LL)
#define GR_LOG_TIMESTAMP_EARLIEST (-2LL)
#define GR_LOG_TIMESTAMP_MAX      (-3LL)

#define GR_LOG_NO_EPOCH     (-1)
#define GR_LOG_NO_TIMESTAMP (-1LL)

/* On-disk entry sizes. */
#define GR_OFFSET_INDEX_ENTRY_SIZE 8
#define GR_TIME_INDEX_ENTRY_SIZE   12

typedef struct gr_log_config {
    int64_t segment_bytes;        /* segment.bytes */
    int64_t segment_ms;           /* segment.ms */
    int64_t segment_index_bytes;  /* segment.index.bytes: max .index size */
    int64_t index_interval_bytes; /* index.interval.bytes */
    int64_t retention_ms;         /* retention.ms; -1 = infinite */
    int64_t retention_bytes;      /* retention.bytes; -1 = infinite */
    int64_t flush_messages;       /* flush.messages; INT64_MAX = never */
    int64_t flush_ms;             /* flush.ms; INT64_MAX = never */
    int64_t file_delete_delay_ms; /* file.delete.delay.ms */
    bool cleanup_delete;          /* cleanup.policy contains "delete" */
    bool cleanup_compact;         /* cleanup.policy contains "compact" (log/cleaner.h) */

    /* Compaction: delete.retention.ms, min/max.compaction.lag.ms, min.cleanable.dirty.ratio. */
    int64_t delete_retention_ms;
    int64_t min_compaction_lag_ms;
    int64_t max_compaction_lag_ms;
    double min_cleanable_dirty_ratio;
} gr_log_config_t;

/* Fills cfg with Kafka's defaults (cleanup.policy=delete). */
void gr_log_config_init(gr_log_config_t *cfg);

/*
 * The shared cache of open segment fds, an LRU capped at max_open (a soft
 * cap: an fd whose segment has outstanding references, such as a pending
 * sendfile, is never closed, so the count may exceed the cap while those are
 * held). Owned by the caller (the broker context); must outlive every log
 * and segment reference using it.
 */
typedef struct gr_fd_cache gr_fd_cache_t;

/* Returns a new cache or NULL (-ENOMEM). max_open >= 1. */
gr_fd_cache_t *gr_fd_cache_new(int max_open);
/* Precondition: no segment uses the cache any more. NULL is a no-op. */
void gr_fd_cache_free(gr_fd_cache_t *cache);
/* Number of segment fds currently open through the cache. */
int gr_fd_cache_open_count(const gr_fd_cache_t *cache);

/* A segment (opaque); readers hold references on it while sending its bytes. */
typedef struct gr_segment gr_segment_t;

/* Takes a reference. */
void gr_segment_get(gr_segment_t *seg);
/*
 * Drops a reference. The last one closes the fd and frees the segment (the
 * segment may already have been deleted from disk and from its log).
 */
void gr_segment_put(gr_segment_t *seg);
/* void * versions, to plug into gr_chain_file_ops_t. */
void gr_segment_get_opaque(void *seg);
void gr_segment_put_opaque(void *seg);
/* The segment's .log fd, opened through the fd cache if needed: fd or -errno. */
int gr_segment_fd(gr_segment_t *seg);

typedef struct gr_log gr_log_t;

/*
 * What the caller knows from the log dir when opening a partition's log.
 * io and fds are kept by pointer, not copied: both (and io's ctx) must stay
 * valid until the log is closed and every segment reference taken from it
 * has been put, since the last put closes the segment's fd through them.
 */
typedef struct gr_log_open_args {
    const gr_io_ops_t *io;         /* NULL: gr_io_default(); kept (see above) */
    gr_fd_cache_t *fds;            /* required; kept (see above) */
    bool clean_shutdown;           /* the dir's clean-shutdown marker was present */
    int64_t recovery_point;        /* from recovery-point-offset-checkpoint; -1 unknown */
    int64_t log_start_offset;      /* from log-start-offset-checkpoint; -1 unknown */
    int64_t high_watermark;        /* from replication-offset-checkpoint; -1: log end offset
                                      (the single-node choice) */
    int64_t now_ms;                /* wall clock, for segment.ms and flush.ms */
    gr_log_flush_set_t *flush_set; /* NULL: none (flush.ms is then checked at appends
                                      only); kept: must outlive the log (flush_set.h) */
} gr_log_open_args_t;

/* What gr_log_open did (recovery is observable through these). */
typedef struct gr_log_open_stats {
    int segments;            /* segments in the log after opening */
    int segments_recovered;  /* segments scanned batch by batch with CRC checks */
    int indexes_rebuilt;     /* segments whose indexes were rebuilt */
    int64_t bytes_scanned;   /* bytes read by recovery scans */
    int64_t bytes_read_tail; /* bytes of the active segment's tail read to find its end */
    int64_t bytes_truncated; /* bytes cut from torn or corrupt tails */
    int segments_deleted;    /* segments after a corrupt one, dropped */
} gr_log_open_stats_t;

/*
 * Opens (creating if needed) the log in dir, named "<topic>-<partition>".
 * After a clean shutdown, indexes are trusted after a size sanity check and
 * nothing is rescanned but the tail of the active segment past its last
 * index entry. After an unclean one, every segment from the one holding the
 * recovery point on is scanned with CRC checks, a torn or corrupt tail is
 * truncated (and later segments deleted), and its indexes are rebuilt.
 * cfg is copied. stats may be NULL.
 * Returns 0 and *out, -EINVAL (bad dir name or args), -ENOMEM, or -errno.
 */
int gr_log_open(const gr_log_config_t *cfg, const char *dir, const gr_log_open_args_t *args,
                gr_log_t **out, gr_log_open_stats_t *stats);

/*
 * Flushes (fsync of data and indexes, recovery point := log end offset),
 * trims index files to their entries, closes the log's fds and frees it.
 * Segment references still held by readers stay valid. Returns 0 or the
 * first -errno met (the log is freed regardless). NULL is a no-op.
 */
int gr_log_close(gr_log_t *log);

/*
 * Closes the log and removes its directory: renames it to
 * "<topic>-<partition>.<uuid>-delete" (as Kafka does), then removes its
 * files. Outstanding segment references keep their fds readable.
 * Returns 0 or -errno (the log is freed regardless).
 */
int gr_log_delete(gr_log_t *log);

/* Replaces the config (e.g. after AlterConfigs). */
void gr_log_set_config(gr_log_t *log, const gr_log_config_t *cfg);
const gr_log_config_t *gr_log_config(const gr_log_t *log);

const char *gr_log_dir(const gr_log_t *log);
const char *gr_log_topic(const gr_log_t *log);
int32_t gr_log_partition(const gr_log_t *log);

typedef struct gr_log_append_info {
    int64_t first_offset;     /* base offset of the first batch */
    int64_t last_offset;      /* last offset of the last batch */
    int64_t log_append_time;  /* LogAppendTime batches' maxTimestamp, else -1 */
    int64_t log_start_offset; /* after the append */
    int64_t max_timestamp;    /* largest batch max timestamp appended */
    int32_t records;          /* number of records appended */
    bool flushed;             /* the flush policy fsynced during this append */
} gr_log_append_info_t;

/*
 * Appends len bytes of whole, validated v2 record batches whose headers'
 * timestamps the caller set from their records (gr_batch_timestamps_validate:
 * the time index trusts maxTimestamp). Assigns offsets from the
 * log end offset, rewriting each baseOffset in place, and stamps
 * partitionLeaderEpoch = leader_epoch (neither is CRC-covered); records a new
 * epoch in the leader-epoch cache. Rolls a new segment first when the batch
 * would not fit (segment.bytes), segment.ms has passed, or an index is full;
 * adds sparse index entries every index.interval.bytes; applies flush.messages
 * and flush.ms (a log with nothing unflushed before starts its flush.ms period
 * at this append; data left unflushed puts the log in its flush set, whose
 * tick flushes it once flush.ms has passed). append_time is the broker's
 * "now" in ms.
 * On a write failure the segment is cut back to its previous end, so no part
 * of the batches is visible or indexed. If the write succeeds but the flush
 * policy's fsync fails, the batches ARE appended (out is filled, offsets
 * moved) and the fsync's -errno is returned: treat the log dir as failed, as
 * Kafka does with a KafkaStorageException.
 * Does not move the high watermark: the caller does (single node: set it to
 * the log end offset after each append).
 * Returns 0, -EINVAL (malformed batches), -EMSGSIZE (a batch larger than
 * segment.bytes: Kafka's RECORD_LIST_TOO_LARGE), -ENOMEM, or an I/O -errno.
 */
int gr_log_append(gr_log_t *log, uint8_t *batches, size_t len, int32_t leader_epoch,
                  int64_t append_time, gr_log_append_info_t *out);

/*
 * Appends batches that already carry offsets and leader epochs (follower
 * replication): the first base offset must be >= the log end offset and
 * offsets must increase. Same rolling, indexing and flushing as
 * gr_log_append. Returns 0, -EINVAL (out-of-order offsets), or as above.
 */
int gr_log_append_as_follower(gr_log_t *log, uint8_t *batches, size_t len, int64_t now_ms,
                              gr_log_append_info_t *out);

typedef struct gr_log_read_result {
    gr_segment_t *segment; /* reference held, put it when sent; NULL if len == 0 */
    int fd;                /* segment's fd, open while the reference is held */
    int64_t file_pos;      /* position of the first batch in the file */
    int32_t len;           /* bytes of whole batches (0: nothing to read) */
    int64_t first_offset;  /* base offset of the first batch (-1 if none) */
    int64_t next_offset;   /* offset after the last batch (-1 if none) */
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t high_watermark;
} gr_log_read_result_t;

/*
 * Finds the batches starting at the one containing offset: at most
 * max_bytes of whole batches, but at least one whole batch, even larger
 * than max_bytes, when min_one_batch (KIP-74). Only batches whose base offset
 * is below max_offset (the high watermark for consumers, the log end offset
 * for followers) are returned. A read never spans segments.
 * Returns 0 (out->len may be 0 at the end of the log), -ERANGE (offset below
 * the log start offset or above the log end offset), or -errno.
 */
int gr_log_read(gr_log_t *log, int64_t offset, int32_t max_bytes, bool min_one_batch,
                int64_t max_offset, gr_log_read_result_t *out);

/* A batch header, as a read or scan walks past it. */
typedef void (*gr_log_batch_fn)(void *arg, const gr_batch_header_t *h);

/*
 * gr_log_read, handing fn the header of each batch in out's range, in
 * order, as the read walks them (their file positions follow from
 * out->file_pos and gr_batch_size): a caller that needs the headers reads
 * none back. fn may have been called when the read then fails.
 */
int gr_log_read_batches(gr_log_t *log, int64_t offset, int32_t max_bytes, bool min_one_batch,
                        int64_t max_offset, gr_log_batch_fn fn, void *arg,
                        gr_log_read_result_t *out);

int64_t gr_log_start_offset(const gr_log_t *log);
int64_t gr_log_end_offset(const gr_log_t *log);
int64_t gr_log_high_watermark(const gr_log_t *log);
/* Clamped to [log start offset, log end offset]. */
void gr_log_set_high_watermark(gr_log_t *log, int64_t hw);
int64_t gr_log_recovery_point(const gr_log_t *log);

/*
 * The last stable offset (KIP-98): the high watermark, or the first offset
 * of the oldest transaction that is open or whose marker is not yet below
 * the high watermark, when that is lower (never below the log start
 * offset). read_committed consumers read only below it. Leaders and
 * followers alike (both append markers).
 */
int64_t gr_log_last_stable_offset(const gr_log_t *log);

/*
 * The aborted transactions overlapping a fetch of [from, upper): those
 * whose last offset (ABORT marker) is >= from and first offset < upper,
 * from the transaction indexes of the segment holding from and the later
 * ones until an entry's last stable offset reaches upper (Kafka's
 * collectAbortedTransactions). *out is malloc'd (the caller frees it; NULL
 * when *out_count is 0). Returns 0, -ENOMEM or -errno.
 */
int gr_log_collect_aborted(gr_log_t *log, int64_t from, int64_t upper, gr_aborted_txn_t **out,
                           size_t *out_count);
/* Total bytes of the log's segments. */
int64_t gr_log_size(const gr_log_t *log);
int gr_log_segment_count(const gr_log_t *log);

typedef struct gr_log_offset_ts {
    int64_t offset;       /* -1 if no record qualifies */
    int64_t timestamp;    /* the record's timestamp, -1 if none */
    int32_t leader_epoch; /* the batch's partition leader epoch, -1 if none */
} gr_log_offset_ts_t;

/*
 * ListOffsets by timestamp: the first record with timestamp >= ts (Kafka's
 * semantics: the time index finds the segment and position, then a scan
 * finds the first batch whose max timestamp >= ts and, in an uncompressed
 * batch, the first such record; a compressed batch answers its base offset).
 * ts may also be GR_LOG_TIMESTAMP_LATEST (log end offset, epoch of the last
 * batch), _EARLIEST (log start offset) or _MAX (the record with the largest
 * timestamp). Returns 0 (offset -1 if none qualifies) or -errno.
 */
int gr_log_offset_for_timestamp(gr_log_t *log, int64_t ts, gr_log_offset_ts_t *out);

/*
 * OffsetForLeaderEpoch: the end offset of the requested epoch (the start
 * offset of the next higher epoch, or the log end offset for the latest
 * epoch) and the largest epoch <= requested. Unknown (above the latest):
 * epoch -1, offset -1.
 */
void gr_log_end_offset_for_epoch(const gr_log_t *log, int32_t epoch, int32_t *out_epoch,
                                 int64_t *out_end_offset);
/* The latest epoch in the cache, or -1. */
int32_t gr_log_latest_epoch(const gr_log_t *log);

/*
 * Deletes whole segments whose largest timestamp is older than retention.ms
 * before now_ms, then the oldest while the log stays over retention.bytes,
 * and segments wholly below the log start offset; never the active segment,
 * and only segments wholly below the high watermark (as Kafka).
 * Deleted files are renamed "*.deleted" and unlinked after
 * file.delete.delay.ms (on a later call) or at close. Advances the log start
 * offset. Returns the number of segments deleted, or -errno.
 */
int gr_log_enforce_retention(gr_log_t *log, int64_t now_ms);

/*
 * DeleteRecords: moves the log start offset to offset (never backwards) and
 * deletes segments now wholly below it. Returns 0, -ERANGE (offset above the
 * high watermark), or -errno. out_low_watermark may be NULL.
 */
int gr_log_delete_records_before(gr_log_t *log, int64_t offset, int64_t *out_low_watermark);

/*
 * Removes everything at and after offset (follower truncation): whole
 * segments above it are deleted, the segment holding it is cut at the batch
 * boundary, indexes and the leader-epoch cache follow. No-op when offset >=
 * the log end offset. Returns 0 or -errno.
 */
int gr_log_truncate_to(gr_log_t *log, int64_t offset);

/*
 * Drops every segment and starts the log over, empty, at offset (a follower
 * so far behind that its leader no longer has what it needs). The epoch
 * cache and producer state are emptied. Returns 0 or -errno.
 */
int gr_log_reset_to(gr_log_t *log, int64_t offset);

/*
 * Writes the index entries and fsyncs data and indexes of all segments with
 * unflushed data; recovery point := log end offset. Returns 0 or -errno.
 * Note: runs synchronously on the calling thread.
 */
int gr_log_flush(gr_log_t *log);

/*
 * Applies flush.ms without an append (gr_log_flush_set_run calls this for
 * the logs of its set). Returns 1 if it flushed,
 * 0 if not needed, or -errno.
 */
int gr_log_maybe_flush(gr_log_t *log, int64_t now_ms);

/*
 * The topic id in partition.metadata. gr_log_topic_id returns false when the
 * file is absent or unreadable. gr_log_set_topic_id replaces it atomically
 * but without fsync (a crash may lose it: check and rewrite at each open).
 * 0 or -errno.
 */
bool gr_log_topic_id(const gr_log_t *log, gr_uuid_t *out);
int gr_log_set_topic_id(gr_log_t *log, gr_uuid_t id);

/*
 * The idempotent producers' state as of the log end offset (see
 * producer_state.h): updated by every append, snapshotted at roll and close
 * ("<offset>.snapshot"), rebuilt at open. Produce checks batches against it
 * before gr_log_append.
 */
const gr_producer_state_t *gr_log_producer_state(const gr_log_t *log);
/* Forgets producers idle for expiration_ms (producer.id.expiration.ms). Returns the count. */
size_t gr_log_expire_producers(gr_log_t *log, int64_t now_ms, int64_t expiration_ms);

#endif
