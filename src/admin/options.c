/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's command line: command words ("topics list") and Kafka-tool
 * style long options ("--topic T", "--config k=v" repeatable, "--json"),
 * in any order. Options that take no value are listed in flag_names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"

static const char *const flag_names[] = {
    "json",
    "help",
    "dry-run",
    "execute",
    "to-earliest",
    "to-latest",
    "if-exists",
    "if-not-exists",
    "all-topics",
    "validate-only",
    "all-groups",
    "include-defaults",
    "all",
    "all-topic-partitions",
    "generate",
    "verify",
    "cancel",
    "list",
    "disable-rack-aware",
    "under-replicated-partitions",
    "unavailable-partitions",
    "add",
    "remove",
    "cluster",
    "force",
    "producer",
    "consumer",
    "idempotent",
    "alter", /* kafka-configs.sh's --alter / --describe (quotas) */
    "describe",
    "entity-default",
    "user-defaults",
    "client-defaults",
    "members", /* groups describe's views */
    "verbose",
    "offsets",
    "exclude-internal",         /* kafka-topics.sh --list */
    "under-min-isr-partitions", /* kafka-topics.sh --describe's filters */
    "at-min-isr-partitions",
    "topics-with-overrides",
    "to-current", /* kafka-consumer-groups.sh --reset-offsets */
    "export",
    "exclude-internal-topics", /* kafka-get-offsets.sh */
    NULL,
};

/* Options whose value is optional (kafka-consumer-groups.sh's --state:
 * a filter with --list, a view with --describe): the next word is taken
 * only when it is not an option. */
static const char *const optional_value_names[] = {"state", NULL};

static bool takes_optional_value(const char *name)
{
    for (int i = 0; optional_value_names[i]; i++)
        if (strcmp(optional_value_names[i], name) == 0)
            return true;
    return false;
}

static bool is_flag(const char *name)
{
    for (int i = 0; flag_names[i]; i++)
        if (strcmp(flag_names[i], name) == 0)
            return true;
    return false;
}

int gr_admin_options_parse(gr_admin_options_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (o->word_count >= (int)(sizeof o->words / sizeof o->words[0])) {
                fprintf(stderr, "error: unexpected argument '%s'\n", arg);
                return -1;
            }
            o->words[o->word_count++] = arg;
            continue;
        }
        if (o->count >= GR_ADMIN_OPTIONS_MAX) {
            fprintf(stderr, "error: too many options\n");
            return -1;
        }
        gr_admin_opt_t *opt = &o->items[o->count++];
        opt->name = arg + 2;
        opt->value = NULL;
        char *eq = strchr(arg + 2, '=');
        if (eq) { /* --name=value */
            *eq = '\0';
            opt->value = eq + 1;
        } else if (takes_optional_value(opt->name)) {
            if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
                opt->value = argv[++i];
        } else if (!is_flag(opt->name)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: option --%s needs a value\n", opt->name);
                return -1;
            }
            opt->value = argv[++i];
        }
    }
    return 0;
}

const char *gr_admin_opt(const gr_admin_options_t *o, const char *name)
{
    for (int i = o->count - 1; i >= 0; i--)
        if (strcmp(o->items[i].name, name) == 0)
            return o->items[i].value;
    return NULL;
}

bool gr_admin_flag(const gr_admin_options_t *o, const char *name)
{
    for (int i = 0; i < o->count; i++)
        if (strcmp(o->items[i].name, name) == 0)
            return true;
    return false;
}

int gr_admin_opt_all(const gr_admin_options_t *o, const char *name, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < o->count && n < max; i++)
        if (strcmp(o->items[i].name, name) == 0 && o->items[i].value)
            out[n++] = o->items[i].value;
    return n;
}

int gr_admin_opt_long(const gr_admin_options_t *o, const char *name, int64_t *out)
{
    const char *v = gr_admin_opt(o, name);
    if (!v)
        return 1;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end) {
        fprintf(stderr, "error: --%s wants a number, got '%s'\n", name, v);
        return -1;
    }
    *out = n;
    return 0;
}
