/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka-configs.sh --alter --add-config-file F: the configs to set read
 * from a Java properties file (core/properties.h, the reader
 * server.properties goes through) instead of --add-config's "k=v,k2=[a,b]"
 * list, so values with commas need no brackets. Each key becomes one SET
 * change of IncrementalAlterConfigs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin/config_file.h"
#include "core/file_read.h"
#include "core/properties.h"

#define CONFIG_FILE_MAX     (1024 * 1024)
#define CONFIG_FILE_ERR_MAX 512

/* s without surrounding blanks, copied into the arena. */
static const char *trimmed(gr_admin_t *a, const char *s)
{
    size_t len = strlen(s);
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    return gr_arena_strndup(&a->arena, s, len);
}

/* Adds or replaces key's SET change. 0, or -1 (printed). */
static int set_change(gr_admin_t *a, const gr_property_t *p,
                      gr_incremental_alter_configs_request_alterable_config_t *out, int max, int *n)
{
    const char *key = trimmed(a, p->key), *value = trimmed(a, p->value);
    if (!key || !value)
        return -1;
    int at = *n;
    for (int i = 0; i < *n; i++)
        if (out[i].name.len == (int32_t)strlen(key) &&
            memcmp(out[i].name.ptr, key, strlen(key)) == 0)
            at = i;
    if (at == *n) {
        if (*n >= max) {
            fprintf(stderr, "error: --add-config-file: more than %d configs\n", max);
            return -1;
        }
        (*n)++;
    }
    gr_incremental_alter_configs_request_alterable_config_init(&out[at]);
    out[at].config_operation = GR_ALTER_CONFIG_OP_SET;
    out[at].name = gr_str(key);
    out[at].value = gr_str(value);
    return 0;
}

int gr_admin_config_file_changes(gr_admin_t *a, const char *path,
                                 gr_incremental_alter_configs_request_alterable_config_t *out,
                                 int max, int *n)
{
    char *text = NULL;
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 ? -errno : gr_file_read_all(fd, CONFIG_FILE_MAX, &text, &len);
    if (fd >= 0)
        close(fd);
    if (rc) {
        fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(-rc));
        return -1;
    }
    gr_properties_t props = {0};
    char err[CONFIG_FILE_ERR_MAX] = "";
    rc = gr_properties_read(text, len, path, &props, err, sizeof err);
    free(text);
    if (rc) {
        fprintf(stderr, "error: %s\n", rc == -EINVAL ? err : strerror(-rc));
        gr_properties_free(&props);
        return -1;
    }
    for (size_t i = 0; i < props.count && rc == 0; i++)
        rc = set_change(a, &props.items[i], out, max, n);
    gr_properties_free(&props);
    return rc;
}
