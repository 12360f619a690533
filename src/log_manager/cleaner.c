/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log cleaner: scheduling and the cleaner checkpoint (see
 * cleaner.h). A cleaning's job and its done callback both carry a
 * clean_task; the task remembers the partition's name for the log lines,
 * because the log may be gone (topic deleted) by the time it returns.
 *
 * Runs on: the loop thread; the jobs' run functions on cleaner threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/cleaner.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "log_manager/log_manager.h"
#include "metadata/topics.h"

#define GR_MS_PER_SEC_F 1000.0
#define GR_CLEANER_THREAD_NAME                                                                     \
    "gr-log-cleaner" /* as ps -L and /proc/<pid>/task/<tid>/comm show it */

typedef struct clean_task {
    gr_broker_t *b;
    gr_clean_job_t *job;
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    int32_t partition;
} clean_task_t;

typedef struct checkpoint_task {
    gr_broker_t *b;
    gr_log_dir_t *dir;
    gr_checkpoint_entry_t *entries;
    size_t count;
} checkpoint_task_t;

static bool cleaner_enabled(const gr_config_t *c)
{
    return c->log_cleaner_enable && c->log_cleaner_threads > 0;
}

/* ---- checkpoint --------------------------------------------------------- */

typedef struct entry_list {
    gr_checkpoint_entry_t *items;
    size_t count, cap;
    int err;
} entry_list_t;

static void collect_entries(gr_topic_t *topic, void *arg)
{
    entry_list_t *l = arg;
    for (int32_t i = 0; i < topic->partition_count && !l->err; i++) {
        gr_log_t *log = topic->partitions[i].log;
        if (!log || !gr_log_config(log)->cleanup_compact || gr_log_clean_checkpoint(log) < 0)
            continue;
        if (l->count == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 16;
            gr_checkpoint_entry_t *n = realloc(l->items, cap * sizeof *n);
            if (!n) {
                l->err = -ENOMEM;
                return;
            }
            l->items = n;
            l->cap = cap;
        }
        gr_checkpoint_entry_t *e = &l->items[l->count++];
        snprintf(e->topic, sizeof e->topic, "%s", topic->name);
        e->partition = i;
        e->offset = gr_log_clean_checkpoint(log);
    }
}

static int checkpoint_run(void *arg)
{
    checkpoint_task_t *t = arg;
    return gr_log_dir_write_checkpoint(t->dir, GR_CHECKPOINT_CLEANER, t->entries, t->count);
}

static void checkpoint_write(gr_broker_t *b);

static void checkpoint_done(void *arg, int result)
{
    checkpoint_task_t *t = arg;
    gr_broker_t *b = t->b;
    gr_cleaner_t *c = &b->log_manager->cleaner;
    if (result < 0 && result != -ECANCELED)
        gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "writing %s failed: %s", GR_CHECKPOINT_CLEANER,
                strerror(-result));
    free(t->entries);
    free(t);
    c->checkpoint_writing = false;
    if (c->checkpoint_dirty && c->started && !b->stopping)
        checkpoint_write(b);
}

/* Writes the checkpoint on a cleaner thread; one write at a time. */
static void checkpoint_write(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    if (c->checkpoint_writing) {
        c->checkpoint_dirty = true;
        return;
    }
    c->checkpoint_dirty = false;
    entry_list_t l = {0};
    gr_topics_foreach(b->topics, collect_entries, &l);
    checkpoint_task_t *t = calloc(1, sizeof *t);
    if (l.err || !t) {
        free(l.items);
        free(t);
        return; /* a stale checkpoint only means cleaning some segments again */
    }
    *t = (checkpoint_task_t){b, b->log_dir, l.items, l.count};
    if (gr_worker_submit(&c->worker, checkpoint_run, checkpoint_done, t) < 0) {
        free(l.items);
        free(t);
        return;
    }
    c->checkpoint_writing = true;
}

typedef struct checkpoint_apply {
    gr_checkpoint_entry_t *entries;
    size_t count;
} checkpoint_apply_t;

static void apply_checkpoint(gr_topic_t *topic, void *arg)
{
    checkpoint_apply_t *a = arg;
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_log_t *log = topic->partitions[i].log;
        int64_t off = gr_checkpoint_find(a->entries, a->count, topic->name, i, -1);
        if (log && off >= 0)
            gr_log_clean_set_checkpoint(log, off);
    }
}

/* ---- cleanings ---------------------------------------------------------- */

static int clean_run(void *arg)
{
    clean_task_t *t = arg;
    return gr_clean_job_run(t->job);
}

static void cleaner_pass(gr_broker_t *b);

static void clean_done(void *arg, int result)
{
    clean_task_t *t = arg;
    gr_broker_t *b = t->b;
    gr_cleaner_t *c = &b->log_manager->cleaner;
    gr_clean_stats_t st;
    int rc = gr_clean_job_finish(t->job, result, &st, NULL);
    c->running--;
    if (rc == 0) {
        c->stats.cleanings++;
        c->stats.bytes_in += (uint64_t)st.bytes_in;
        c->stats.bytes_out += (uint64_t)st.bytes_out;
        gr_logf(&b->log, GR_LOG_INFO, "cleaner",
                "cleaned %s-%d: offsets %" PRId64 "..%" PRId64 " mapped (%zu keys); %d segment(s) "
                "of %" PRId64 " bytes became %d of %" PRId64 " bytes; %" PRId64 " of %" PRId64
                " records kept; %" PRId64 " ms, %" PRId64 " throttle wait(s), %zu-byte reads",
                t->topic, t->partition, st.first_dirty, st.end_offset, st.keys_mapped,
                st.segments_in, st.bytes_in, st.segments_out, st.bytes_out, st.records_kept,
                st.records_in, st.run_ms, st.pace_waits, st.read_chunk);
        checkpoint_write(b);
    } else if (rc == -ESTALE || rc == -ECANCELED) {
        c->stats.discarded++;
    } else {
        c->stats.failed++;
        gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "cleaning %s-%d failed: %s", t->topic,
                t->partition, strerror(-rc));
    }
    free(t);
    if (c->started && !b->stopping)
        cleaner_pass(b);
}

typedef struct pick {
    int64_t now_ms;
    gr_log_t *log;
    gr_topic_t *topic;
    int32_t partition;
    double priority;
} pick_t;

static void pick_dirtiest(gr_topic_t *topic, void *arg)
{
    pick_t *p = arg;
    if (!topic->settings.log.cleanup_compact)
        return;
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_log_t *log = topic->partitions[i].log;
        double prio = log ? gr_log_clean_priority(log, p->now_ms) : 0;
        if (prio > p->priority) {
            *p = (pick_t){p->now_ms, log, topic, i, prio};
        }
    }
}

/* Starts cleanings of the dirtiest due logs while threads are free. */
static void cleaner_pass(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    const gr_config_t *cfg = &b->config;
    while (c->running < c->threads) {
        pick_t p = {.now_ms = gr_broker_now_ms(b)};
        gr_topics_foreach(b->topics, pick_dirtiest, &p);
        if (!p.log)
            return;
        gr_clean_params_t params = {
            .now_ms = p.now_ms,
            .map_bytes = (size_t)(cfg->log_cleaner_dedupe_buffer_size / c->threads),
            .map_load_factor = cfg->log_cleaner_io_buffer_load_factor,
            .io_buffer_size = (size_t)cfg->log_cleaner_io_buffer_size,
            .max_bytes_per_sec = cfg->log_cleaner_io_max_bytes_per_second,
            .cancel = &c->cancel,
        };
        clean_task_t *t = calloc(1, sizeof *t);
        int rc = t ? gr_log_clean_begin(p.log, &params, &t->job) : -ENOMEM;
        if (rc <= 0) {
            free(t);
            if (rc < 0)
                gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "cannot start cleaning %s-%d: %s",
                        p.topic->name, p.partition, strerror(-rc));
            return; /* retried at the next tick */
        }
        t->b = b;
        snprintf(t->topic, sizeof t->topic, "%s", p.topic->name);
        t->partition = p.partition;
        rc = gr_worker_submit(&c->worker, clean_run, clean_done, t);
        if (rc < 0) {
            gr_clean_job_finish(t->job, rc, NULL, NULL);
            free(t);
            return;
        }
        c->running++;
    }
}

/* The pause between passes, in seconds (log.cleaner.backoff.ms, at least 1 ms). */
static double backoff_sec(const gr_config_t *cfg)
{
    return (double)(cfg->log_cleaner_backoff_ms > 0 ? cfg->log_cleaner_backoff_ms : 1) /
           GR_MS_PER_SEC_F;
}

/* log.cleaner.threads clamped to what the pool runs. */
static unsigned threads_of(const gr_config_t *cfg)
{
    unsigned n = (unsigned)cfg->log_cleaner_threads;
    return n > GR_WORKER_MAX_THREADS ? GR_WORKER_MAX_THREADS : n;
}

/* Follows a live log.cleaner.threads (at least 1: checked before it is stored). */
static void resize_threads(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    unsigned n = threads_of(&b->config);
    if (n < 1 || n == c->threads || b->stopping)
        return;
    int rc = gr_worker_resize(&c->worker, n);
    if (rc < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "cannot run %u cleaner threads: %s", n,
                strerror(-rc));
        return; /* those that started run; at most the old count of cleanings at once */
    }
    gr_logf(&b->log, GR_LOG_INFO, "cleaner", "cleaner threads: %u, were %u", n, c->threads);
    c->threads = n; /* new threads take due logs from the next pass */
}

void gr_cleaner_reconfigure(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    if (!c->started)
        return;
    resize_threads(b);
    double every = backoff_sec(&b->config);
    if (c->timer.repeat == every)
        return;
    c->timer.repeat = every;
    ev_timer_again(b->loop, &c->timer); /* active, so its unref stays as it was */
}

static void on_cleaner_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    cleaner_pass(w->data);
}

void gr_cleaner_wake(gr_broker_t *b)
{
    if (b->log_manager->cleaner.started && !b->stopping)
        cleaner_pass(b);
}

int gr_cleaner_start(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    const gr_config_t *cfg = &b->config;
    if (!cleaner_enabled(cfg))
        return 0;
    double lf = cfg->log_cleaner_io_buffer_load_factor;
    if (!(lf > 0 && lf < 1) || cfg->log_cleaner_dedupe_buffer_size < 1) {
        gr_logf(&b->log, GR_LOG_ERROR, "cleaner",
                "log.cleaner.io.buffer.load.factor must be in (0, 1) and "
                "log.cleaner.dedupe.buffer.size positive: cleaner disabled");
        return -EINVAL;
    }
    gr_checkpoint_entry_t *entries = NULL;
    size_t count = 0;
    if (gr_log_dir_read_checkpoint(b->log_dir, GR_CHECKPOINT_CLEANER, &entries, &count) == 0) {
        checkpoint_apply_t a = {entries, count};
        gr_topics_foreach(b->topics, apply_checkpoint, &a);
    }
    free(entries);
    c->threads = threads_of(cfg);
    atomic_init(&c->cancel, false);
    int rc = gr_worker_init_named(&c->worker, b->loop, c->threads, GR_CLEANER_THREAD_NAME, &b->log);
    if (rc < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "cannot start cleaner threads: %s",
                strerror(-rc));
        return rc;
    }
    c->started = true;
    double every = backoff_sec(cfg);
    ev_timer_init(&c->timer, on_cleaner_timer, every, every);
    c->timer.data = b;
    ev_timer_start(b->loop, &c->timer);
    ev_unref(b->loop); /* the timer alone does not keep the loop running */
    return 0;
}

void gr_cleaner_stop(gr_broker_t *b)
{
    gr_cleaner_t *c = &b->log_manager->cleaner;
    if (!c->started)
        return;
    c->started = false;
    if (ev_is_active(&c->timer)) {
        ev_ref(b->loop);
        ev_timer_stop(b->loop, &c->timer);
    }
    atomic_store(&c->cancel, true);
    gr_worker_fini(&c->worker); /* runs every done callback: outputs discarded */
    entry_list_t l = {0};
    gr_topics_foreach(b->topics, collect_entries, &l);
    if (!l.err && b->log_dir) {
        int rc = gr_log_dir_write_checkpoint(b->log_dir, GR_CHECKPOINT_CLEANER, l.items, l.count);
        if (rc < 0)
            gr_logf(&b->log, GR_LOG_ERROR, "cleaner", "writing %s failed: %s",
                    GR_CHECKPOINT_CLEANER, strerror(-rc));
    }
    free(l.items);
    if (c->stats.cleanings || c->stats.failed)
        gr_logf(&b->log, GR_LOG_INFO, "cleaner",
                "%" PRIu64 " cleaning(s), %" PRIu64 " discarded, %" PRIu64 " failed; %" PRIu64
                " bytes rewritten into %" PRIu64,
                c->stats.cleanings, c->stats.discarded, c->stats.failed, c->stats.bytes_in,
                c->stats.bytes_out);
}
