/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the metadata store backends (store.h): return code names
 * and the path rules, so that every backend accepts and rejects the same
 * paths.
 */
#include "metadata/store.h"

#include <errno.h>
#include <string.h>

static const char *const rc_names[] = {
    [GR_STORE_OK] = "OK",
    [GR_STORE_NONODE] = "NONODE",
    [GR_STORE_NODEEXISTS] = "NODEEXISTS",
    [GR_STORE_BADVERSION] = "BADVERSION",
    [GR_STORE_NOTEMPTY] = "NOTEMPTY",
    [GR_STORE_NOCHILDRENFOREPHEMERALS] = "NOCHILDRENFOREPHEMERALS",
    [GR_STORE_BADARGUMENTS] = "BADARGUMENTS",
    [GR_STORE_CONNLOSS] = "CONNLOSS",
    [GR_STORE_SESSIONEXPIRED] = "SESSIONEXPIRED",
    [GR_STORE_OPERATIONTIMEOUT] = "OPERATIONTIMEOUT",
    [GR_STORE_CLOSING] = "CLOSING",
    [GR_STORE_IO] = "IO",
    [GR_STORE_NOMEM] = "NOMEM",
    [GR_STORE_SYSTEMERROR] = "SYSTEMERROR",
};

const char *gr_store_rc_name(int rc)
{
    if (rc < 0 || (size_t)rc >= sizeof(rc_names) / sizeof(rc_names[0]) || rc_names[rc] == NULL)
        return "?";
    return rc_names[rc];
}

int gr_store_path_check(const char *path)
{
    size_t len;

    if (path == NULL || path[0] != '/')
        return -EINVAL;
    len = strlen(path);
    if (len > GR_STORE_PATH_MAX)
        return -EINVAL;
    if (len == 1)
        return 0; /* the root */
    if (path[len - 1] == '/')
        return -EINVAL;
    /* Walk the components after each '/'. */
    for (const char *p = path; *p != '\0';) {
        const char *start = ++p;
        while (*p != '\0' && *p != '/') {
            /* ZooKeeper refuses control characters in paths; so do we. */
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                return -EINVAL;
            p++;
        }
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.') || (n == 2 && start[0] == '.' && start[1] == '.'))
            return -EINVAL;
    }
    return 0;
}
