/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A log directory as a whole: lock, clean-shutdown marker, meta.properties,
 * the three offset checkpoint files, partition directory enumeration. See
 * log_dir.h for the files and the lifecycle.
 *
 * Checkpoint format (Kafka's OffsetCheckpointFile): a version line "0", a
 * count line, then "<topic> <partition> <offset>" lines. Files are replaced
 * atomically (tmp, fsync, rename, fsync dir), so a crash leaves the old or
 * the new file, never a torn one.
 *
 * Runs on: the loop thread (or start-up before the loop runs).
 */
#include "log/log_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECKPOINT_VERSION 0
#define CHECKPOINT_MAX     (256 * 1024 * 1024)
#define META_MAX           (64 * 1024)
#define DIR_PATH_MAX       4096

struct gr_log_dir {
    char *path;
    const gr_io_ops_t *io;
    int lock_fd;
    bool was_clean;
};

static void dir_file(const gr_log_dir_t *d, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", d->path, name);
}

int gr_log_dir_open(const char *path, const gr_io_ops_t *io, gr_log_dir_t **out)
{
    char file[DIR_PATH_MAX];
    if (!io)
        io = gr_io_default();
    int rc = io->mkdir(io->ctx, path, 0755);
    if (rc < 0 && rc != -EEXIST)
        return rc;
    gr_log_dir_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->io = io;
    d->lock_fd = -1;
    d->path = strdup(path);
    if (!d->path) {
        rc = -ENOMEM;
        goto fail;
    }
    dir_file(d, GR_LOG_DIR_LOCK_FILE, file, sizeof file);
    rc = io->open(io->ctx, file, O_RDWR | O_CREAT, 0644);
    if (rc < 0)
        goto fail;
    d->lock_fd = rc;
    /* flock locks belong to the open file description: a second open of
     * the same dir, even in this process, is refused too. */
    if (flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        rc = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
        goto fail;
    }
    dir_file(d, GR_LOG_DIR_CLEAN_SHUTDOWN_FILE, file, sizeof file);
    d->was_clean = io->stat(io->ctx, file, NULL, NULL) == 0;
    *out = d;
    return 0;
fail:
    gr_log_dir_close(d);
    return rc;
}

void gr_log_dir_close(gr_log_dir_t *d)
{
    if (!d)
        return;
    if (d->lock_fd >= 0)
        d->io->close(d->io->ctx, d->lock_fd); /* releases the flock */
    free(d->path);
    free(d);
}

const char *gr_log_dir_path(const gr_log_dir_t *d)
{
    return d->path;
}

bool gr_log_dir_was_clean(const gr_log_dir_t *d)
{
    return d->was_clean;
}

int gr_log_dir_mark_dirty(gr_log_dir_t *d)
{
    char file[DIR_PATH_MAX];
    dir_file(d, GR_LOG_DIR_CLEAN_SHUTDOWN_FILE, file, sizeof file);
    int rc = d->io->unlink(d->io->ctx, file);
    if (rc < 0 && rc != -ENOENT)
        return rc;
    return gr_io_fsync_dir(d->io, d->path);
}

int gr_log_dir_mark_clean(gr_log_dir_t *d)
{
    char file[DIR_PATH_MAX];
    dir_file(d, GR_LOG_DIR_CLEAN_SHUTDOWN_FILE, file, sizeof file);
    return gr_io_write_file_atomic(d->io, file, "", 0);
}

/* ---- meta.properties -------------------------------------------------- */

/* Trims spaces in place at both ends. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

int gr_log_dir_read_meta(gr_log_dir_t *d, gr_meta_properties_t *out)
{
    char file[DIR_PATH_MAX], *data = NULL;
    dir_file(d, GR_LOG_DIR_META_FILE, file, sizeof file);
    int rc = gr_io_read_file(d->io, file, META_MAX, &data, NULL);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof *out);
    out->version = -1;
    out->broker_id = -1;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line = trim(line);
        if (*line == '#' || *line == '!' || *line == '\0')
            continue;
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char *key = trim(line), *val = trim(eq + 1), *end;
        if (strcmp(key, "version") == 0) {
            long v = strtol(val, &end, 10);
            out->version = *end || end == val ? -1 : (int)v;
        } else if (strcmp(key, "broker.id") == 0) {
            long v = strtol(val, &end, 10);
            if (*end || end == val || v < 0 || v > INT32_MAX)
                rc = -EINVAL;
            out->broker_id = (int32_t)v;
        } else if (strcmp(key, "cluster.id") == 0) {
            snprintf(out->cluster_id, sizeof out->cluster_id, "%s", val);
        }
    }
    free(data);
    if (rc == 0 && out->version != 0)
        rc = -EINVAL;
    return rc;
}

int gr_log_dir_write_meta(gr_log_dir_t *d, const gr_meta_properties_t *meta)
{
    char file[DIR_PATH_MAX], text[256];
    int len = snprintf(text, sizeof text,
                       "#\n#Written by Gregor\nversion=%d\nbroker.id=%" PRId32 "\n%s%s%s",
                       meta->version, meta->broker_id, meta->cluster_id[0] ? "cluster.id=" : "",
                       meta->cluster_id, meta->cluster_id[0] ? "\n" : "");
    dir_file(d, GR_LOG_DIR_META_FILE, file, sizeof file);
    return gr_io_write_file_atomic(d->io, file, text, (size_t)len);
}

/* ---- checkpoints ------------------------------------------------------ */

int gr_log_dir_read_checkpoint(gr_log_dir_t *d, const char *name,
                               gr_checkpoint_entry_t **out_entries, size_t *out_count)
{
    char file[DIR_PATH_MAX], *data = NULL;
    gr_checkpoint_entry_t *entries = NULL;
    *out_entries = NULL;
    *out_count = 0;
    dir_file(d, name, file, sizeof file);
    int rc = gr_io_read_file(d->io, file, CHECKPOINT_MAX, &data, NULL);
    if (rc == -ENOENT)
        return 0;
    if (rc < 0)
        return rc;
    rc = -EINVAL;
    char *p = data, *end;
    long version = strtol(p, &end, 10);
    if (end == p || *end != '\n' || version != CHECKPOINT_VERSION)
        goto fail;
    p = end + 1;
    long count = strtol(p, &end, 10);
    if (end == p || *end != '\n' || count < 0 || count > CHECKPOINT_MAX / 6)
        goto fail;
    p = end + 1;
    entries = calloc(count ? (size_t)count : 1, sizeof *entries);
    if (!entries) {
        rc = -ENOMEM;
        goto fail;
    }
    for (long i = 0; i < count; i++) {
        /* "<topic> <partition> <offset>\n"; topics have no spaces. */
        char *sp = strchr(p, ' ');
        if (!sp || sp == p || sp - p > GR_TOPIC_NAME_MAX)
            goto fail;
        memcpy(entries[i].topic, p, (size_t)(sp - p));
        entries[i].topic[sp - p] = '\0';
        p = sp + 1;
        long part = strtol(p, &end, 10);
        if (end == p || *end != ' ' || part < 0 || part > INT32_MAX)
            goto fail;
        p = end + 1;
        long long off = strtoll(p, &end, 10);
        if (end == p || (*end != '\n' && *end != '\0'))
            goto fail;
        p = *end ? end + 1 : end;
        entries[i].partition = (int32_t)part;
        entries[i].offset = off;
    }
    free(data);
    *out_entries = entries;
    *out_count = (size_t)count;
    return 0;
fail:
    free(entries);
    free(data);
    return rc;
}

int gr_log_dir_write_checkpoint(gr_log_dir_t *d, const char *name,
                                const gr_checkpoint_entry_t *entries, size_t count)
{
    char file[DIR_PATH_MAX];
    size_t cap = 32 + count * (GR_TOPIC_NAME_MAX + 48);
    char *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    size_t len = (size_t)snprintf(buf, cap, "%d\n%zu\n", CHECKPOINT_VERSION, count);
    for (size_t i = 0; i < count; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s %" PRId32 " %" PRId64 "\n",
                                entries[i].topic, entries[i].partition, entries[i].offset);
    dir_file(d, name, file, sizeof file);
    int rc = gr_io_write_file_atomic(d->io, file, buf, len);
    free(buf);
    return rc;
}

/* Room before the lines for "<version>\n<count>\n", filled in at the write. */
#define CHECKPOINT_HEADER_ROOM 32
/* FNV-1a, 64 bits: tells an unchanged checkpoint from a changed one. */
#define FNV_OFFSET_BASIS 14695981039346656037ULL
#define FNV_PRIME        1099511628211ULL

void gr_checkpoint_text_add(gr_checkpoint_text_t *t, const char *topic, int32_t partition,
                            int64_t offset)
{
    size_t need = strlen(topic) + 2 * 24 + 1; /* two numbers, separators, newline, NUL */
    if (t->err)
        return;
    size_t used = t->len ? t->len : CHECKPOINT_HEADER_ROOM;
    if (t->cap < used + need) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < used + need)
            cap *= 2;
        char *buf = realloc(t->buf, cap);
        if (!buf) {
            t->err = -ENOMEM;
            return;
        }
        t->buf = buf;
        t->cap = cap;
        t->len = used;
    }
    t->len += (size_t)snprintf(t->buf + t->len, t->cap - t->len, "%s %" PRId32 " %" PRId64 "\n",
                               topic, partition, offset);
    t->count++;
}

void gr_checkpoint_text_fini(gr_checkpoint_text_t *t)
{
    free(t->buf);
    memset(t, 0, sizeof *t);
}

int gr_log_dir_write_checkpoint_text(gr_log_dir_t *d, const char *name, gr_checkpoint_text_t *t,
                                     uint64_t *last_hash)
{
    char header[CHECKPOINT_HEADER_ROOM], file[DIR_PATH_MAX];
    if (t->err) {
        *last_hash = 0;
        return t->err;
    }
    if (!t->buf) {
        t->buf = malloc(CHECKPOINT_HEADER_ROOM);
        if (!t->buf)
            return -ENOMEM;
        t->len = t->cap = CHECKPOINT_HEADER_ROOM;
    }
    size_t hlen =
        (size_t)snprintf(header, sizeof header, "%d\n%zu\n", CHECKPOINT_VERSION, t->count);
    char *start = t->buf + CHECKPOINT_HEADER_ROOM - hlen;
    memcpy(start, header, hlen);
    size_t len = t->len - CHECKPOINT_HEADER_ROOM + hlen;
    uint64_t hash = FNV_OFFSET_BASIS;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ (uint8_t)start[i]) * FNV_PRIME;
    if (hash == *last_hash)
        return 0;
    dir_file(d, name, file, sizeof file);
    int rc = gr_io_write_file_atomic(d->io, file, start, len);
    *last_hash = rc < 0 ? 0 : hash;
    return rc < 0 ? rc : 1;
}

int64_t gr_checkpoint_find(const gr_checkpoint_entry_t *entries, size_t count, const char *topic,
                           int32_t partition, int64_t dflt)
{
    for (size_t i = 0; i < count; i++)
        if (entries[i].partition == partition && strcmp(entries[i].topic, topic) == 0)
            return entries[i].offset;
    return dflt;
}

/* ---- partition directories -------------------------------------------- */

static bool topic_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

int gr_log_dir_parse_name(const char *name, char *topic, int32_t *partition)
{
    const char *dash = strrchr(name, '-');
    if (!dash || dash == name || dash - name > GR_TOPIC_NAME_MAX || !dash[1])
        return -EINVAL;
    int64_t p = 0;
    for (const char *c = dash + 1; *c; c++) {
        if (*c < '0' || *c > '9' || p > INT32_MAX / 10)
            return -EINVAL;
        p = p * 10 + (*c - '0');
    }
    if (p > INT32_MAX)
        return -EINVAL;
    for (const char *c = name; c < dash; c++)
        if (!topic_char_ok(*c))
            return -EINVAL;
    memcpy(topic, name, (size_t)(dash - name));
    topic[dash - name] = '\0';
    *partition = (int32_t)p;
    return 0;
}

int gr_log_dir_remove_tree(const gr_io_ops_t *io, const char *path)
{
    if (!io)
        io = gr_io_default();
    DIR *dir = opendir(path);
    if (!dir)
        return errno == ENOTDIR ? io->unlink(io->ctx, path) : -errno;
    int rc = 0;
    char child[DIR_PATH_MAX];
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        int r =
            e->d_type == DT_DIR ? gr_log_dir_remove_tree(io, child) : io->unlink(io->ctx, child);
        if (r == -EISDIR || r == -EPERM)
            r = gr_log_dir_remove_tree(io, child);
        if (r < 0 && rc == 0)
            rc = r;
    }
    closedir(dir);
    int r = io->rmdir(io->ctx, path);
    return rc < 0 ? rc : r;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int gr_log_dir_list_partitions(gr_log_dir_t *d, gr_log_dir_partition_t **out, size_t *out_count)
{
    DIR *dir = opendir(d->path);
    if (!dir)
        return -errno;
    gr_log_dir_partition_t *parts = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    char child[DIR_PATH_MAX];
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.')
            continue;
        snprintf(child, sizeof child, "%s/%s", d->path, name);
        struct stat st;
        if (stat(child, &st) < 0 || !S_ISDIR(st.st_mode))
            continue;
        if (has_suffix(name, "-delete")) {
            gr_log_dir_remove_tree(d->io, child); /* an interrupted deletion */
            continue;
        }
        if (has_suffix(name, "-future") || has_suffix(name, "-stray"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            gr_log_dir_partition_t *np = realloc(parts, cap * sizeof *np);
            if (!np) {
                rc = -ENOMEM;
                goto fail;
            }
            parts = np;
        }
        if (strlen(name) >= sizeof parts[n].name ||
            gr_log_dir_parse_name(name, parts[n].topic, &parts[n].partition) < 0)
            continue;
        snprintf(parts[n].name, sizeof parts[n].name, "%s", name);
        n++;
    }
    closedir(dir);
    *out = parts;
    *out_count = n;
    return 0;
fail:
    closedir(dir);
    free(parts);
    return rc;
}
