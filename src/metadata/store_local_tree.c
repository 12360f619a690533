/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The single-node store's in-memory tree (children kept sorted, looked up
 * by binary search) and its node record, the unit of both files on disk
 * (store_local_int.h).
 *
 * Runs on: the loop thread only.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metadata/store_local_int.h"

sl_node_t *sl_node_new(const char *name, size_t name_len)
{
    sl_node_t *n = calloc(1, sizeof(*n));

    if (n == NULL)
        return NULL;
    n->name = strndup(name, name_len);
    if (n->name == NULL) {
        free(n);
        return NULL;
    }
    return n;
}

void sl_node_free(sl_node_t *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nchildren; i++)
        sl_node_free(n->children[i]);
    free(n->children);
    free(n->data);
    free(n->name);
    free(n);
}

size_t sl_child_index(const sl_node_t *n, const char *name, size_t len, bool *found)
{
    size_t lo = 0, hi = n->nchildren;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *c = n->children[mid]->name;
        int cmp = strncmp(c, name, len);
        if (cmp == 0)
            cmp = c[len] == '\0' ? 0 : 1;
        if (cmp == 0) {
            *found = true;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

sl_node_t *sl_lookup_n(sl_node_t *root, const char *path, size_t len)
{
    sl_node_t *n = root;
    size_t i = 1;

    while (i < len && n != NULL) {
        size_t start = i;
        bool found;
        while (i < len && path[i] != '/')
            i++;
        size_t idx = sl_child_index(n, path + start, i - start, &found);
        n = found ? n->children[idx] : NULL;
        i++;
    }
    return n;
}

sl_node_t *sl_lookup(sl_node_t *root, const char *path)
{
    return sl_lookup_n(root, path, strlen(path));
}

int sl_child_insert(sl_node_t *parent, sl_node_t *child)
{
    bool found;
    size_t idx = sl_child_index(parent, child->name, strlen(child->name), &found);

    assert(!found);
    if (parent->nchildren == parent->cap) {
        size_t cap = parent->cap ? parent->cap * 2 : 4;
        sl_node_t **c = realloc(parent->children, cap * sizeof(*c));
        if (c == NULL)
            return -ENOMEM;
        parent->children = c;
        parent->cap = cap;
    }
    memmove(&parent->children[idx + 1], &parent->children[idx],
            (parent->nchildren - idx) * sizeof(sl_node_t *));
    parent->children[idx] = child;
    parent->nchildren++;
    child->parent = parent;
    return 0;
}

void sl_child_remove(sl_node_t *parent, sl_node_t *child)
{
    bool found;
    size_t idx = sl_child_index(parent, child->name, strlen(child->name), &found);

    assert(found && parent->children[idx] == child);
    memmove(&parent->children[idx], &parent->children[idx + 1],
            (parent->nchildren - idx - 1) * sizeof(sl_node_t *));
    parent->nchildren--;
}

void sl_path_of(const sl_node_t *n, char *buf)
{
    const sl_node_t *chain[GR_STORE_PATH_MAX / 2 + 1];
    size_t depth = 0, used = 0;

    for (; n->parent != NULL; n = n->parent)
        chain[depth++] = n;
    if (depth == 0) {
        strcpy(buf, "/");
        return;
    }
    while (depth > 0) {
        const sl_node_t *c = chain[--depth];
        buf[used++] = '/';
        size_t l = strlen(c->name);
        memcpy(buf + used, c->name, l);
        used += l;
    }
    buf[used] = '\0';
}

void sl_parent_path(const char *path, char *buf)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == path ? 1 : (size_t)(slash - path);

    memcpy(buf, path, n);
    buf[n] = '\0';
}

/* ---- node records ---------------------------------------------------------- */

void sl_record_write(FILE *f, const char *path, const sl_node_t *n)
{
    const gr_store_stat_t *s = &n->stat;
    size_t plen = strlen(path);

    fprintf(f,
            "%zu %zu %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId32
            " %" PRId32 "\n",
            plen, n->len, s->czxid, s->mzxid, s->pzxid, s->ctime, s->mtime, s->version,
            s->cversion);
    fwrite(path, 1, plen, f);
    if (n->len > 0)
        fwrite(n->data, 1, n->len, f);
    fputc('\n', f); /* not part of the data: keeps the file readable with less(1) */
}

/* Longest record header line: nine numbers and their separators. */
#define SL_RECORD_LINE_MAX 256

int sl_record_read(const char *buf, size_t len, size_t *pos, sl_record_t *out)
{
    char line[SL_RECORD_LINE_MAX];
    const char *nl = memchr(buf + *pos, '\n', len - *pos);
    size_t plen, dlen, p = *pos;

    if (nl == NULL || (size_t)(nl - (buf + p)) >= sizeof(line))
        return -EIO;
    memcpy(line, buf + p, (size_t)(nl - (buf + p)));
    line[nl - (buf + p)] = '\0';
    p = (size_t)(nl - buf) + 1;
    memset(&out->stat, 0, sizeof(out->stat));
    gr_store_stat_t *st = &out->stat;
    if (sscanf(line,
               "%zu %zu %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd32
               " %" SCNd32,
               &plen, &dlen, &st->czxid, &st->mzxid, &st->pzxid, &st->ctime, &st->mtime,
               &st->version, &st->cversion) != 9)
        return -EIO;
    if (plen > GR_STORE_PATH_MAX || plen > len - p || dlen > len - p - plen)
        return -EIO;
    memcpy(out->path, buf + p, plen);
    out->path[plen] = '\0';
    p += plen;
    if (strlen(out->path) != plen || gr_store_path_check(out->path) < 0)
        return -EIO;
    out->data = buf + p;
    out->len = dlen;
    p += dlen;
    if (p >= len || buf[p] != '\n')
        return -EIO;
    *pos = p + 1;
    return 0;
}

int sl_tree_put(sl_node_t *root, const sl_record_t *r, bool must_be_new)
{
    sl_node_t *n = sl_lookup(root, r->path);
    void *data = NULL;

    if (n != NULL && must_be_new && n != root)
        return -EIO;
    if (r->len > 0) {
        data = malloc(r->len);
        if (data == NULL)
            return -ENOMEM;
        memcpy(data, r->data, r->len);
    }
    if (n == NULL) {
        const char *slash = strrchr(r->path, '/');
        sl_node_t *parent =
            sl_lookup_n(root, r->path, slash == r->path ? 1 : (size_t)(slash - r->path));
        if (parent == NULL) {
            free(data);
            return -EIO;
        }
        n = sl_node_new(slash + 1, strlen(slash + 1));
        if (n == NULL || sl_child_insert(parent, n) < 0) {
            sl_node_free(n);
            free(data);
            return -ENOMEM;
        }
    }
    free(n->data);
    n->data = data;
    n->len = r->len;
    n->stat = r->stat;
    return 0;
}

void sl_tree_drop(sl_node_t *root, const char *path)
{
    sl_node_t *n = sl_lookup(root, path);

    if (n == NULL || n == root)
        return;
    sl_child_remove(n->parent, n);
    sl_node_free(n);
}

int sl_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}
