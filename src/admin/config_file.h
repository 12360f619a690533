/* SPDX-License-Identifier: Apache-2.0 */
/* kafka-configs.sh --add-config-file (config_file.c). */
#ifndef GR_ADMIN_CONFIG_FILE_H
#define GR_ADMIN_CONFIG_FILE_H

#include "admin/admin.h"
#include "gen/incremental_alter_configs.h"

/*
 * Appends a SET change for every key of the Java properties file at path
 * (the last value of a key repeated, as Java's Properties keeps) to out,
 * which holds *n changes and room for max. Strings live in a->arena.
 * 0, or -1 (printed: unreadable or malformed file, too many keys).
 */
int gr_admin_config_file_changes(gr_admin_t *a, const char *path,
                                 gr_incremental_alter_configs_request_alterable_config_t *out,
                                 int max, int *n);

#endif
