/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The worker side of a cleaning (gr_clean_job_run): map the dirty range's
 * keys, then rewrite the cleanable segments into ".cleaned" files. Reads
 * only the job (clean_job.h), its private fds and the files; never the log.
 *
 * Throttling (log.cleaner.io.max.bytes.per.second) counts bytes read and
 * written since the job started and sleeps whenever they run ahead of the
 * rate, in short slices so a cancel (broker shutdown) is seen promptly.
 *
 * Runs on: a cleaner worker thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log/clean_batch.h"
#include "log/clean_job.h"
#include "protocol/control_batch.h"

#define JOB_READ_CHUNK_MIN (64 * 1024)
#define JOB_PACE_SLICE_NS  50000000L /* longest sleep between cancel checks */
#define NS_PER_SEC         1000000000.0

void gr_clean_file(const char *dir, int64_t base, const char *ext, const char *suffix, char *buf,
                   size_t size)
{
    snprintf(buf, size, "%s/%020" PRId64 "%s%s", dir, base, ext, suffix);
}

/*
 * The whole batch at *pos of the source: 1 with *batch, *h and *pos moved
 * past it; 0 at the end; -EBADMSG for a batch that cannot be there (the data
 * below the high watermark was validated on append), or -errno.
 */
static int reader_next(gr_segment_reader_t *r, int64_t *pos, const uint8_t **batch,
                       gr_batch_header_t *h)
{
    if (*pos >= r->size)
        return 0;
    const uint8_t *p;
    int rc = gr_segment_reader_get(r, *pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
    if (rc < 0)
        return rc == -ENODATA ? -EBADMSG : rc;
    if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, h) < 0 ||
        h->magic != GR_RECORD_BATCH_MAGIC_V2)
        return -EBADMSG;
    rc = gr_segment_reader_get(r, *pos, (size_t)gr_batch_size(h), batch);
    if (rc < 0)
        return rc == -ENODATA ? -EBADMSG : rc;
    *pos += gr_batch_size(h);
    return 1;
}

/* The sources' read size: log.cleaner.io.buffer.size, at least JOB_READ_CHUNK_MIN. */
static size_t read_chunk(const gr_clean_job_t *job)
{
    return job->params.io_buffer_size > JOB_READ_CHUNK_MIN ? job->params.io_buffer_size
                                                           : JOB_READ_CHUNK_MIN;
}

/* A reader over source src's private fd, up to the size it had when the job began. */
static void reader_init(gr_segment_reader_t *r, const gr_clean_job_t *job,
                        const gr_clean_source_t *src)
{
    gr_segment_reader_init_fd(r, job->io, src->fd, src->size, read_chunk(job));
}

static double monotonic_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_SEC;
}

typedef struct job_pacer {
    const gr_clean_params_t *params;
    double start;
    double bytes;
    int64_t waits; /* sleeps while ahead of the rate */
} job_pacer_t;

/* Accounts bytes of I/O; sleeps while ahead of the rate. 0 or -ECANCELED. */
static int pace(job_pacer_t *p, int64_t bytes)
{
    p->bytes += (double)bytes;
    for (;;) {
        if (p->params->cancel && atomic_load(p->params->cancel))
            return -ECANCELED;
        if (p->params->max_bytes_per_sec <= 0)
            return 0;
        double ahead = p->start + p->bytes / p->params->max_bytes_per_sec - monotonic_sec();
        if (ahead <= 0)
            return 0;
        struct timespec ts = {0, JOB_PACE_SLICE_NS};
        if (ahead < (double)JOB_PACE_SLICE_NS / NS_PER_SEC)
            ts.tv_nsec = (long)(ahead * NS_PER_SEC);
        p->waits++;
        nanosleep(&ts, NULL);
    }
}

/*
 * Producer id → last offset of its last batch seen in the sources, so that
 * batch is kept (emptied if need be) and the producer's state survives.
 * Open addressing, grown at half load.
 */
typedef struct producer_table {
    int64_t *ids; /* -1: empty */
    int64_t *last;
    size_t cap, count;
} producer_table_t;

static size_t producer_slot(const producer_table_t *t, int64_t id)
{
    size_t i = (size_t)((uint64_t)id * 0x9e3779b97f4a7c15ULL) % t->cap;
    while (t->ids[i] != -1 && t->ids[i] != id)
        i = (i + 1) % t->cap;
    return i;
}

static int producer_put(producer_table_t *t, int64_t id, int64_t last)
{
    if (2 * (t->count + 1) > t->cap) {
        producer_table_t n = {NULL, NULL, t->cap ? t->cap * 2 : 64, 0};
        n.ids = malloc(n.cap * sizeof *n.ids);
        n.last = malloc(n.cap * sizeof *n.last);
        if (!n.ids || !n.last) {
            free(n.ids);
            free(n.last);
            return -ENOMEM;
        }
        memset(n.ids, 0xff, n.cap * sizeof *n.ids); /* all -1 */
        for (size_t i = 0; i < t->cap; i++)
            if (t->ids[i] != -1)
                producer_put(&n, t->ids[i], t->last[i]);
        free(t->ids);
        free(t->last);
        *t = n;
    }
    size_t i = producer_slot(t, id);
    if (t->ids[i] == -1)
        t->count++;
    t->ids[i] = id;
    t->last[i] = last;
    return 0;
}

static int64_t producer_last(const producer_table_t *t, int64_t id)
{
    if (t->cap == 0)
        return -1;
    size_t i = producer_slot(t, id);
    return t->ids[i] == id ? t->last[i] : -1;
}

/*
 * Tells txns about the batch: 1 when it is to be discarded (a batch of an
 * aborted transaction, or a discardable marker), 0 when not, -ENOMEM. For
 * a kept ABORT marker, *index says its .txnindex entry (*entry) is kept.
 */
static int job_txn_verdict(gr_clean_txns_t *txns, const uint8_t *batch, const gr_batch_header_t *h,
                           bool *index, gr_aborted_txn_t *entry)
{
    *index = false;
    if (!gr_clean_batch_keeps_whole(h))
        return gr_clean_txns_on_batch(txns, h);
    gr_control_marker_t marker;
    bool readable = h->records_count > 0 &&
                    gr_control_batch_parse(batch, (size_t)gr_batch_size(h), h, &marker) == 0;
    return gr_clean_txns_on_marker(txns, h, readable ? &marker : NULL, index, entry);
}

/*
 * Maps the dirty range [first_dirty, ...) into map until it is full; sets
 * job->end_offset to where the mapped range ends; notes each producer's last
 * batch on the way (clean segments included). Batches of aborted
 * transactions are not mapped. 0, -ENOBUFS (not even one batch fits the
 * map), or -errno.
 */
static int job_build_map(gr_clean_job_t *job, gr_offset_map_t *map, producer_table_t *producers,
                         job_pacer_t *pacer)
{
    job->end_offset = job->sources[job->nsources - 1].next_base;
    bool mapped_any = false;
    int rc = 0;
    gr_clean_txns_t txns;
    gr_clean_txns_init(&txns, job->aborted, job->naborted);
    for (size_t i = 0; i < job->nsources && rc == 0; i++) {
        const gr_clean_source_t *src = &job->sources[i];
        gr_segment_reader_t r;
        reader_init(&r, job, src);
        int64_t pos = 0;
        const uint8_t *batch;
        gr_batch_header_t h;
        while ((rc = reader_next(&r, &pos, &batch, &h)) == 1) {
            if (h.producer_id >= 0 &&
                (rc = producer_put(producers, h.producer_id, h.base_offset + h.last_offset_delta)))
                break;
            bool index;
            gr_aborted_txn_t entry;
            int discard = job_txn_verdict(&txns, batch, &h, &index, &entry);
            if (discard < 0) {
                rc = discard;
                break;
            }
            if (h.base_offset + h.last_offset_delta < job->first_dirty || discard ||
                gr_clean_batch_keeps_whole(&h))
                continue;
            if (h.records_count < 0 || !gr_offset_map_room(map, (size_t)h.records_count)) {
                job->end_offset =
                    h.base_offset > job->first_dirty ? h.base_offset : job->first_dirty;
                rc = mapped_any ? 0 : -ENOBUFS;
                gr_segment_reader_fini(&r);
                gr_clean_txns_fini(&txns);
                return rc;
            }
            rc = gr_clean_batch_map(batch, (size_t)gr_batch_size(&h), job->first_dirty, map);
            if (rc < 0)
                break;
            mapped_any = true;
            rc = pace(pacer, gr_batch_size(&h));
            if (rc < 0)
                break;
        }
        gr_segment_reader_fini(&r);
    }
    gr_clean_txns_fini(&txns);
    return rc < 0 ? rc : 0;
}

/* The index entries of one output, built as its batches are written. */
typedef struct job_index {
    uint8_t *oidx, *tidx, *xidx; /* on-disk encoding; xidx: .txnindex */
    size_t olen, ocap, tlen, tcap, xlen, xcap;
    int64_t last_tidx_ts;
    int64_t bytes_since_index;
} job_index_t;

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap * 2 : 1024;
    while (cap2 < need)
        cap2 *= 2;
    uint8_t *nb = realloc(*buf, cap2);
    if (!nb)
        return -ENOMEM;
    *buf = nb;
    *cap = cap2;
    return 0;
}

/* A time index entry when ts grows (as segment.c does on append). */
static int index_time(job_index_t *ix, const gr_clean_output_t *out)
{
    if (out->max_timestamp < 0 || out->max_timestamp <= ix->last_tidx_ts)
        return 0;
    if (grow(&ix->tidx, &ix->tcap, ix->tlen + GR_TIME_INDEX_ENTRY_SIZE) < 0)
        return -ENOMEM;
    gr_be64_put(ix->tidx + ix->tlen, (uint64_t)out->max_timestamp);
    gr_be32_put(ix->tidx + ix->tlen + 8, (uint32_t)(out->offset_of_max_timestamp - out->base));
    ix->tlen += GR_TIME_INDEX_ENTRY_SIZE;
    ix->last_tidx_ts = out->max_timestamp;
    return 0;
}

/* Accounts the batch just written at pos (header h) in out and its indexes. */
static int index_batch(job_index_t *ix, gr_clean_output_t *out, const gr_batch_header_t *h,
                       int64_t pos, int64_t interval)
{
    int64_t last = h->base_offset + h->last_offset_delta;
    if (h->max_timestamp > out->max_timestamp) {
        out->max_timestamp = h->max_timestamp;
        out->offset_of_max_timestamp = last;
    }
    if (ix->bytes_since_index > interval) {
        if (grow(&ix->oidx, &ix->ocap, ix->olen + GR_OFFSET_INDEX_ENTRY_SIZE) < 0)
            return -ENOMEM;
        gr_be32_put(ix->oidx + ix->olen, (uint32_t)(last - out->base));
        gr_be32_put(ix->oidx + ix->olen + 4, (uint32_t)pos);
        ix->olen += GR_OFFSET_INDEX_ENTRY_SIZE;
        if (index_time(ix, out) < 0)
            return -ENOMEM;
        ix->bytes_since_index = 0;
    }
    ix->bytes_since_index += gr_batch_size(h);
    out->next_offset = last + 1;
    return 0;
}

/* Creates (truncating) and fills one ".cleaned" file, fsynced. 0 or -errno. */
static int write_file(const gr_clean_job_t *job, int64_t base, const char *ext, const uint8_t *data,
                      size_t len)
{
    char path[GR_PATH_MAX];
    gr_clean_file(job->dir, base, ext, GR_CLEANED_SUFFIX, path, sizeof path);
    int fd = job->io->open(job->io->ctx, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int rc = len ? gr_io_pwrite_all(job->io, fd, data, len, 0) : 0;
    if (rc == 0)
        rc = job->io->fsync(job->io->ctx, fd);
    job->io->close(job->io->ctx, fd);
    return rc;
}

/* What a pass reads while rewriting: the key map and the producers' last batches. */
typedef struct job_maps {
    gr_offset_map_t keys;
    producer_table_t producers;
    gr_clean_txns_t txns; /* the rewrite pass's own, fed every batch in order */
} job_maps_t;

/* A kept ABORT marker's .txnindex entry, for the output's index. */
static int index_txn(job_index_t *ix, const gr_aborted_txn_t *entry)
{
    if (grow(&ix->xidx, &ix->xcap, ix->xlen + GR_TXN_INDEX_ENTRY_SIZE) < 0)
        return -ENOMEM;
    gr_txn_index_encode(ix->xidx + ix->xlen, entry);
    ix->xlen += GR_TXN_INDEX_ENTRY_SIZE;
    return 0;
}

/*
 * Writes to w what survives of the batch at (header h): a discardable
 * marker is stamped with its delete horizon, or dropped past it; a batch of
 * an aborted transaction is dropped; anything else is compacted.
 */
static int clean_one(gr_clean_job_t *job, job_maps_t *maps, const uint8_t *batch,
                     const gr_batch_header_t *h, job_index_t *ix, gr_writer_t *w,
                     gr_clean_batch_result_t *res)
{
    bool index;
    gr_aborted_txn_t entry;
    size_t size = (size_t)gr_batch_size(h);
    int discard = job_txn_verdict(&maps->txns, batch, h, &index, &entry);
    if (discard < 0)
        return discard;
    if (index && index_txn(ix, &entry) < 0)
        return -ENOMEM;
    if (discard && gr_clean_batch_keeps_whole(h)) {
        bool stamped = (h->attributes & GR_BATCH_ATTR_DELETE_HORIZON) != 0;
        if (stamped && h->base_timestamp <= job->params.now_ms) {
            memset(res, 0, sizeof *res);
            res->records_in = h->records_count;
            return 0; /* past its horizon: gone */
        }
        if (!stamped) {
            int64_t now = job->params.now_ms, r = job->delete_retention_ms;
            return gr_clean_batch_stamp_horizon(batch, size,
                                                r > INT64_MAX - now ? INT64_MAX : now + r, w, res);
        }
    } else if (discard) {
        memset(res, 0, sizeof *res);
        res->records_in = h->records_count;
        return 0; /* an aborted transaction's batch */
    }
    return gr_clean_batch(batch, size, &maps->keys, job->params.now_ms, job->delete_retention_ms, w,
                          res);
}

/* Appends what survives of source src to the output open on fd. */
static int clean_source(gr_clean_job_t *job, const gr_clean_source_t *src, job_maps_t *maps, int fd,
                        gr_clean_output_t *out, job_index_t *ix, job_pacer_t *pacer)
{
    gr_segment_reader_t r;
    reader_init(&r, job, src);
    gr_writer_t w;
    gr_writer_init(&w);
    int64_t pos = 0;
    const uint8_t *batch;
    gr_batch_header_t h;
    int rc;
    while ((rc = reader_next(&r, &pos, &batch, &h)) == 1) {
        gr_clean_batch_result_t res;
        gr_writer_reset(&w);
        rc = clean_one(job, maps, batch, &h, ix, &w, &res);
        if (rc == 0 && w.len == 0 && h.producer_id >= 0 &&
            producer_last(&maps->producers, h.producer_id) == h.base_offset + h.last_offset_delta)
            rc = gr_clean_batch_write_empty(batch, (size_t)gr_batch_size(&h), &w);
        if (rc < 0)
            break;
        job->stats.records_in += res.records_in;
        job->stats.records_kept += res.records_kept;
        if (w.len > 0) {
            gr_batch_header_t nh;
            gr_batch_header_parse(w.buf, w.len, &nh);
            rc = gr_io_pwrite_all(job->io, fd, w.buf, w.len, out->size);
            if (rc == 0)
                rc = index_batch(ix, out, &nh, out->size, job->index_interval_bytes);
            if (rc < 0)
                break;
            out->size += (int64_t)w.len;
            if (res.delete_horizon_ms >= 0 && res.delete_horizon_ms < out->delete_horizon_ms)
                out->delete_horizon_ms = res.delete_horizon_ms;
        }
        rc = pace(pacer, gr_batch_size(&h) + (int64_t)w.len);
        if (rc < 0)
            break;
    }
    gr_writer_fini(&w);
    gr_segment_reader_fini(&r);
    return rc < 0 ? rc : 0;
}

/* Writes output out (its sources already set) as ".cleaned" files. */
static int clean_group(gr_clean_job_t *job, job_maps_t *maps, gr_clean_output_t *out,
                       job_pacer_t *pacer)
{
    job_index_t ix;
    memset(&ix, 0, sizeof ix);
    ix.last_tidx_ts = GR_LOG_NO_TIMESTAMP;
    out->size = 0;
    out->next_offset = out->base;
    out->max_timestamp = GR_LOG_NO_TIMESTAMP;
    out->offset_of_max_timestamp = -1;
    out->delete_horizon_ms = INT64_MAX;
    char path[GR_PATH_MAX];
    gr_clean_file(job->dir, out->base, ".log", GR_CLEANED_SUFFIX, path, sizeof path);
    int fd = job->io->open(job->io->ctx, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int rc = 0;
    for (size_t i = out->first; i < out->first + out->count && rc == 0; i++)
        rc = clean_source(job, &job->sources[i], maps, fd, out, &ix, pacer);
    if (rc == 0)
        rc = job->io->fsync(job->io->ctx, fd);
    job->io->close(job->io->ctx, fd);
    /* The final time index entry a sealed segment gets. */
    if (rc == 0)
        rc = index_time(&ix, out);
    if (rc == 0)
        rc = write_file(job, out->base, ".index", ix.oidx, ix.olen);
    if (rc == 0)
        rc = write_file(job, out->base, ".timeindex", ix.tidx, ix.tlen);
    if (rc == 0)
        rc = write_file(job, out->base, GR_TXN_INDEX_SUFFIX, ix.xidx, ix.xlen);
    free(ix.oidx);
    free(ix.tidx);
    free(ix.xidx);
    return rc;
}

/*
 * Splits the sources below end_offset into outputs: consecutive sources
 * while their total size fits segment.bytes and their offsets stay within
 * an index's int32 relative range.
 */
static int job_plan_outputs(gr_clean_job_t *job)
{
    size_t n = 0;
    while (n < job->nsources && job->sources[n].base < job->end_offset)
        n++;
    job->outputs = calloc(n ? n : 1, sizeof *job->outputs);
    if (!job->outputs)
        return -ENOMEM;
    for (size_t i = 0; i < n;) {
        gr_clean_output_t *out = &job->outputs[job->noutputs++];
        int64_t size = job->sources[i].size;
        size_t j = i + 1;
        while (j < n && size + job->sources[j].size <= job->segment_bytes &&
               job->sources[j].next_base - 1 - job->sources[i].base <= INT32_MAX) {
            size += job->sources[j].size;
            j++;
        }
        out->base = job->sources[i].base;
        out->first = i;
        out->count = j - i;
        i = j;
    }
    return 0;
}

int gr_clean_job_run(void *arg)
{
    gr_clean_job_t *job = arg;
    job_maps_t maps;
    memset(&maps, 0, sizeof maps);
    job_pacer_t pacer = {&job->params, monotonic_sec(), 0, 0};
    int rc = gr_offset_map_init(&maps.keys, job->params.map_bytes, job->params.map_load_factor);
    if (rc < 0)
        return rc;
    rc = job_build_map(job, &maps.keys, &maps.producers, &pacer);
    if (rc == 0)
        rc = job_plan_outputs(job);
    gr_clean_txns_init(&maps.txns, job->aborted, job->naborted);
    job->stats.first_dirty = job->first_dirty;
    job->stats.end_offset = job->end_offset;
    job->stats.keys_mapped = maps.keys.entries;
    for (size_t i = 0; i < job->noutputs && rc == 0; i++) {
        gr_clean_output_t *out = &job->outputs[i];
        rc = clean_group(job, &maps, out, &pacer);
        job->stats.segments_in += (int)out->count;
        job->stats.segments_out++;
        job->stats.bytes_out += out->size;
        for (size_t k = out->first; k < out->first + out->count; k++)
            job->stats.bytes_in += job->sources[k].size;
    }
    job->stats.run_ms = (int64_t)((monotonic_sec() - pacer.start) * 1000);
    job->stats.pace_waits = pacer.waits;
    job->stats.read_chunk = read_chunk(job);
    gr_offset_map_fini(&maps.keys);
    gr_clean_txns_fini(&maps.txns);
    free(maps.producers.ids);
    free(maps.producers.last);
    return rc;
}
