/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin under Kafka's tool names: when the program is called
 * kafka-topics, kafka-configs, kafka-consumer-groups, kafka-acls,
 * kafka-leader-election, kafka-reassign-partitions, kafka-transactions,
 * kafka-get-offsets or kafka-delete-records (with or without ".sh"), the
 * command line is that tool's and is rewritten into gregor-admin's (the
 * command word, and the tool's action option, or its one fixed action, made
 * the subcommand word). Each tool lists the options it takes here; any
 * other option is refused with a message and exit 2, because a script
 * that passes an option expects its effect and must not get silence.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/kafka_tools.h"

#define SH_SUFFIX ".sh"

/* Options every tool takes. */
static const char *const common_options[] = {"bootstrap-server", "command-config", "help", NULL};

static const char *const topics_actions[] = {"create", "list", "describe", "delete", "alter", NULL};
static const char *const topics_options[] = {
    "topic",
    "partitions",
    "replication-factor",
    "config",
    "if-exists",
    "if-not-exists",
    "under-replicated-partitions",
    "unavailable-partitions",
    "under-min-isr-partitions",
    "at-min-isr-partitions",
    "topics-with-overrides",
    "exclude-internal",
    NULL,
};

static const char *const configs_options[] = {
    "describe",
    "alter",
    "entity-type",
    "entity-name",
    "entity-default",
    "topic",
    "group",
    "broker",
    "broker-logger",
    "user",
    "client",
    "user-defaults",
    "client-defaults",
    "add-config",
    "add-config-file",
    "delete-config",
    "all",
    NULL,
};

static const char *const groups_actions[] = {"list",          "describe",       "delete",
                                             "reset-offsets", "delete-offsets", NULL};
static const char *const groups_options[] = {
    "group",   "topic",       "all-topics", "members",   "state",       "verbose",  "offsets",
    "type",    "to-earliest", "to-latest",  "to-offset", "to-datetime", "shift-by", "dry-run",
    "execute", "by-duration", "to-current", "export",    "all-groups",  NULL,
};

static const char *const acls_options[] = {
    "add",
    "list",
    "remove",
    "topic",
    "group",
    "cluster",
    "transactional-id",
    "resource-pattern-type",
    "allow-principal",
    "allow-host",
    "deny-principal",
    "deny-host",
    "operation",
    "producer",
    "consumer",
    "idempotent",
    "force",
    NULL,
};

static const char *const election_options[] = {
    "election-type", "topic", "partition", "all-topic-partitions", "path-to-json-file", NULL,
};

static const char *const reassign_options[] = {
    "generate",
    "execute",
    "verify",
    "cancel",
    "list",
    "reassignment-json-file",
    "topics-to-move-json-file",
    "broker-list",
    "disable-rack-aware",
    NULL,
};

static const char *const transactions_options[] = {
    "transactional-id", "producer-id", "producer-epoch", "coordinator-epoch",
    "start-offset",     "topic",       "partition",      NULL,
};

static const char *const get_offsets_options[] = {
    "topic", "partitions", "topic-partitions", "time", "exclude-internal-topics", NULL,
};

static const char *const delete_records_options[] = {"offset-json-file", NULL};

static const gr_admin_kafka_tool_t tools[] = {
    {"kafka-topics", "topics", topics_actions, topics_options, NULL},
    {"kafka-configs", "configs", NULL, configs_options, NULL},
    {"kafka-consumer-groups", "groups", groups_actions, groups_options, NULL},
    {"kafka-acls", "acls", NULL, acls_options, NULL},
    {"kafka-leader-election", "leader-election", NULL, election_options, NULL},
    {"kafka-reassign-partitions", "reassign-partitions", NULL, reassign_options, NULL},
    {"kafka-transactions", "transactions", NULL, transactions_options, NULL},
    {"kafka-get-offsets", "get-offsets", NULL, get_offsets_options, NULL},
    {"kafka-delete-records", "records", NULL, delete_records_options, "delete"},
};

/* Options of Kafka's tools that mean nothing to Gregor, and why. */
typedef struct refused {
    const char *name;
    const char *why;
} refused_t;

static const refused_t refused[] = {
    {"zookeeper", "Gregor's tools talk to a broker, not to ZooKeeper: use --bootstrap-server"},
    {"authorizer-properties",
     "Gregor's ACLs are changed through a broker, not the authorizer's store: use "
     "--bootstrap-server"},
    {"authorizer", "Gregor's ACLs are changed through a broker: use --bootstrap-server"},
    {"bootstrap-controller", "Gregor runs in ZooKeeper mode, it has no KRaft controller to talk "
                             "to: use --bootstrap-server"},
};

static bool in_list(const char *const *names, const char *name, size_t len)
{
    for (int i = 0; names && names[i]; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return true;
    return false;
}

const gr_admin_kafka_tool_t *gr_admin_kafka_tool_find(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    size_t len = strlen(base);
    size_t sh = strlen(SH_SUFFIX);
    if (len > sh && strcmp(base + len - sh, SH_SUFFIX) == 0)
        len -= sh;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (strlen(tools[i].name) == len && strncmp(tools[i].name, base, len) == 0)
            return &tools[i];
    return NULL;
}

/* Refuses an option the tool does not take here. 0, or -1 (printed). */
static int check_option(const gr_admin_kafka_tool_t *t, const char *arg)
{
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (in_list(common_options, name, len) || in_list(t->actions, name, len) ||
        in_list(t->options, name, len))
        return 0;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (strlen(refused[i].name) == len && strncmp(refused[i].name, name, len) == 0) {
            fprintf(stderr, "error: %s: --%s is not supported: %s\n", t->name, refused[i].name,
                    refused[i].why);
            return -1;
        }
    fprintf(stderr,
            "error: %s: option --%.*s is not supported by Gregor (see 'Kafka's tool "
            "commands' in docs/operations.md)\n",
            t->name, (int)len, name);
    return -1;
}

int gr_admin_kafka_tool_argv(const gr_admin_kafka_tool_t *t, int argc, char **argv, char **out,
                             int *out_count)
{
    int n = 0, actions = 0;
    bool help = false;
    out[n++] = (char *)t->command;
    if (t->actions)
        out[n++] = NULL; /* the action's word, filled below */
    else if (t->subcommand)
        out[n++] = (char *)t->subcommand;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            out[n++] = argv[i];
            continue;
        }
        if (check_option(t, arg) < 0)
            return -1;
        help |= strcmp(arg, "--help") == 0;
        if (in_list(t->actions, arg + 2, strlen(arg + 2))) {
            actions++;
            out[1] = argv[i] + 2;
            continue;
        }
        out[n++] = argv[i];
    }
    if (t->actions && actions != 1 && !help) {
        fprintf(stderr, "error: %s: exactly one of", t->name);
        for (int i = 0; t->actions[i]; i++)
            fprintf(stderr, " --%s", t->actions[i]);
        fprintf(stderr, " is needed\n");
        return -1;
    }
    if (t->actions && !out[1]) { /* --help alone: the command's help */
        memmove(out + 1, out + 2, (size_t)(n - 2) * sizeof *out);
        n--;
    }
    *out_count = n;
    return 0;
}
