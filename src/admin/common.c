/* SPDX-License-Identifier: Apache-2.0 */
/* Steps every gregor-admin command shares: help, the subcommand word, connecting. */
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"

int gr_admin_check(gr_admin_t *a, const char *help, const char *const *subcommands)
{
    const gr_admin_options_t *o = a->opts;
    if (gr_admin_flag(o, "help")) {
        fputs(help, stdout);
        return GR_ADMIN_EXIT_OK;
    }
    bool known = !subcommands && o->word_count == 1;
    for (int i = 0; subcommands && subcommands[i] && o->word_count >= 2; i++)
        known |= strcmp(subcommands[i], o->words[1]) == 0;
    if (!known || o->word_count > 2) {
        fputs(help, stderr);
        return GR_ADMIN_EXIT_USAGE;
    }
    if (!gr_admin_opt(o, "bootstrap-server")) {
        fprintf(stderr, "error: --bootstrap-server HOST:PORT is required\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    return -1;
}

int gr_admin_open(gr_admin_t *a)
{
    if (gr_admin_security_setup(a) < 0)
        return GR_ADMIN_EXIT_USAGE;
    return gr_admin_connect(a, gr_admin_opt(a->opts, "bootstrap-server")) ? GR_ADMIN_EXIT_TRANSPORT
                                                                          : -1;
}

int gr_admin_begin(gr_admin_t *a, const char *help, const char *const *subcommands)
{
    int rc = gr_admin_check(a, help, subcommands);
    return rc >= 0 ? rc : gr_admin_open(a);
}

bool gr_admin_is(const gr_admin_t *a, const char *sub)
{
    return strcmp(a->opts->words[1], sub) == 0;
}

const char *gr_admin_need(const gr_admin_t *a, const char *name)
{
    const char *v = gr_admin_opt(a->opts, name);
    if (!v)
        fprintf(stderr, "error: --%s is required\n", name);
    return v;
}
