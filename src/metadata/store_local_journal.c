/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The single-node store's journal: the changes saved since the last
 * snapshot, so that a save costs what changed rather than the whole tree
 * (creating 1,000 partitions in a store of 100,000 wrote 28 MB three times
 * before it). store_local.c decides when a snapshot replaces it.
 *
 * File "metadata.journal", beside "metadata": a sequence of groups, one per
 * save (the changes of one loop turn), each
 *   group <zxid> <payload-len> <crc32 of payload, 8 hex digits>\n<payload>
 * and the payload a sequence of entries in the order of the changes:
 *   P <node record>          the node as it is after the group (created or replaced)
 *   D <path-len>\n<path>\n   the node and everything under it gone
 * Replaying a group in order rebuilds the tree after it; groups whose zxid
 * the snapshot already reached (a crash between a snapshot and the
 * journal's reset) are skipped.
 *
 * Runs on: the loop thread only. An append writes and fdatasyncs (it blocks
 * the loop, as the snapshot's fsyncs do).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "core/file_read.h"
#include "metadata/store_local_int.h"

#define JOURNAL_FILE "metadata.journal"
/* Largest journal accepted at open: a snapshot replaces it long before. */
#define JOURNAL_FILE_MAX (1024L * 1024 * 1024)
#define GROUP_LINE_MAX   96

static unsigned long payload_crc(const char *p, size_t len)
{
    return crc32(crc32(0L, Z_NULL, 0), (const Bytef *)p, (uInt)len);
}

/* Applies one group's entries to root. Returns 0, -EIO or -ENOMEM. */
static int replay_group(sl_node_t *root, const char *p, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        char kind = p[pos];
        if (pos + 2 > len || p[pos + 1] != ' ')
            return -EIO;
        pos += 2;
        if (kind == SL_JOURNAL_PUT) {
            sl_record_t r;
            int rc = sl_record_read(p, len, &pos, &r);
            if (rc == 0)
                rc = sl_tree_put(root, &r, false);
            if (rc < 0)
                return rc;
        } else if (kind == SL_JOURNAL_DELETE) {
            char *end;
            unsigned long plen = strtoul(p + pos, &end, 10);
            if (end == p + pos || *end != '\n' || plen == 0 || plen > GR_STORE_PATH_MAX ||
                plen + 1 > len - (size_t)(end + 1 - p))
                return -EIO;
            char path[GR_STORE_PATH_MAX + 1];
            memcpy(path, end + 1, plen);
            path[plen] = '\0';
            if (strlen(path) != plen || gr_store_path_check(path) < 0 || end[1 + plen] != '\n')
                return -EIO;
            sl_tree_drop(root, path);
            pos = (size_t)(end + 1 - p) + plen + 1;
        } else {
            return -EIO;
        }
    }
    return 0;
}

/*
 * Reads the group header at buf[pos..len). Returns 1 with *zxid, *body (its
 * payload's offset) and *plen, *crc; 0 when the header or payload runs past
 * the end (torn); -EIO when the header is not one.
 */
static int group_header(const char *buf, size_t len, size_t pos, int64_t *zxid, size_t *body,
                        size_t *plen, unsigned long *crc)
{
    char line[GROUP_LINE_MAX];
    const char *nl = memchr(buf + pos, '\n', len - pos);
    if (nl == NULL)
        return len - pos < sizeof(line) ? 0 : -EIO;
    size_t n = (size_t)(nl - (buf + pos));
    if (n >= sizeof(line))
        return -EIO;
    memcpy(line, buf + pos, n);
    line[n] = '\0';
    if (sscanf(line, "group %" SCNd64 " %zu %8lx", zxid, plen, crc) != 3)
        return -EIO;
    *body = pos + n + 1;
    return *plen > len - *body ? 0 : 1;
}

/* Replays buf; sets *good to the bytes of whole, valid groups. */
static int replay(const char *buf, size_t len, sl_node_t *root, int64_t *zxid, size_t *good,
                  const char **why)
{
    size_t pos = 0;

    while (pos < len) {
        int64_t gz;
        size_t body, plen;
        unsigned long crc;
        int h = group_header(buf, len, pos, &gz, &body, &plen, &crc);
        if (h < 0) {
            *why = "bad group header";
            return -EIO;
        }
        if (h == 0 || payload_crc(buf + body, plen) != crc) {
            if (h == 1 && body + plen < len) {
                *why = "checksum mismatch before the last group";
                return -EIO;
            }
            break; /* a torn last group: never acknowledged */
        }
        if (gz > *zxid) {
            int rc = replay_group(root, buf + body, plen);
            if (rc < 0) {
                *why = "bad entry";
                return rc;
            }
            *zxid = gz;
        }
        pos = body + plen;
    }
    *good = pos;
    return 0;
}

int sl_journal_open(sl_journal_t *j, int dir_fd, const char *dir, const gr_logger_t *log,
                    sl_node_t *root, int64_t *zxid)
{
    char *buf = NULL;
    size_t used = 0, good = 0;
    const char *why = NULL;

    j->size = 0;
    j->broken = false;
    j->fd = openat(dir_fd, JOURNAL_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (j->fd < 0)
        return -errno;
    if (fsync(dir_fd) < 0) { /* the file's name must outlive a crash like its groups */
        sl_journal_close(j);
        return -errno;
    }
    int rc = gr_file_read_all(j->fd, JOURNAL_FILE_MAX, &buf, &used);
    if (rc == 0 && root == NULL && used > 0) {
        why = "changes without the snapshot they follow";
        rc = -EIO;
    } else if (rc == 0) {
        rc = replay(buf, used, root, zxid, &good, &why);
    }
    free(buf);
    if (rc == -EIO || rc == -EFBIG) {
        gr_logf(log, GR_LOG_ERROR, "store", "%s/%s is corrupt (%s); refusing to start", dir,
                JOURNAL_FILE, why ? why : "too large");
        rc = -EIO;
    }
    if (rc == 0 && good < used) {
        gr_logf(log, GR_LOG_WARN, "store", "%s/%s: cut %zu bytes of an unfinished save", dir,
                JOURNAL_FILE, used - good);
        if (ftruncate(j->fd, (off_t)good) < 0 || fdatasync(j->fd) < 0)
            rc = -errno;
    }
    if (rc == 0 && lseek(j->fd, (off_t)good, SEEK_SET) < 0)
        rc = -errno;
    if (rc < 0) {
        sl_journal_close(j);
        return rc;
    }
    j->size = good;
    return 0;
}

/* Puts the file back to j->size after a failed append, or marks it broken. */
static void take_back(sl_journal_t *j)
{
    if (ftruncate(j->fd, (off_t)j->size) < 0 || fdatasync(j->fd) < 0 ||
        lseek(j->fd, (off_t)j->size, SEEK_SET) < 0)
        j->broken = true;
}

int sl_journal_append(sl_journal_t *j, int64_t zxid, const char *payload, size_t len)
{
    char head[GROUP_LINE_MAX];
    int hn = snprintf(head, sizeof(head), "group %" PRId64 " %zu %08lx\n", zxid, len,
                      payload_crc(payload, len));

    if (j->fd < 0 || j->broken)
        return -EIO;
    int rc = sl_write_all(j->fd, head, (size_t)hn);
    if (rc == 0)
        rc = sl_write_all(j->fd, payload, len);
    if (rc == 0 && fdatasync(j->fd) < 0)
        rc = -errno;
    if (rc < 0) {
        take_back(j);
        return rc;
    }
    j->size += (size_t)hn + len;
    return 0;
}

int sl_journal_reset(sl_journal_t *j)
{
    if (j->fd < 0)
        return -EBADF;
    j->size = 0;
    j->broken = false;
    take_back(j);
    return j->broken ? -EIO : 0;
}

void sl_journal_close(sl_journal_t *j)
{
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
}
