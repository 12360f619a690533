/* SPDX-License-Identifier: Apache-2.0 */
/* Steps shared by the gregor-admin commands (common.c). */
#ifndef GR_ADMIN_COMMON_H
#define GR_ADMIN_COMMON_H

#include "admin/admin.h"

/*
 * gr_admin_begin without connecting, for commands that check their input
 * first: --help, the subcommand word (subcommands NULL: the command takes
 * none) and --bootstrap-server. Returns -1 to go on, or the exit code.
 */
int gr_admin_check(gr_admin_t *a, const char *help, const char *const *subcommands);
/* Connects to --bootstrap-server. Returns -1 to go on, or GR_ADMIN_EXIT_TRANSPORT. */
int gr_admin_open(gr_admin_t *a);
/*
 * Handles --help (help to stdout), checks the subcommand word against the
 * NULL-terminated list and connects. Returns -1 to go on, or the exit code.
 */
int gr_admin_begin(gr_admin_t *a, const char *help, const char *const *subcommands);
/* Whether the subcommand is sub. */
bool gr_admin_is(const gr_admin_t *a, const char *sub);
/* The value of a required option, or NULL (message printed). */
const char *gr_admin_need(const gr_admin_t *a, const char *name);

#endif
