/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's entry point: parses the command line, prints help, connects
 * and runs the command. See admin.h for the layout and exit codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/kafka_tools.h"

static const char usage[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT COMMAND [options] [--json]\n"
    "                    [--command-config FILE]  (client properties: security.protocol,\n"
    "                    ssl.truststore.location, ssl.keystore.location, ssl.ca.location,\n"
    "                    sasl.mechanism, sasl.jaas.config, sasl.username, sasl.password, ...)\n"
    "\n"
    "commands:\n"
    "  topics   list | describe | create | delete | alter | add-partitions\n"
    "  configs  describe | alter\n"
    "  cluster  describe\n"
    "  records  delete\n"
    "  groups   list | describe | delete | reset-offsets\n"
    "  share-groups list | describe | delete | reset-offsets | delete-offsets\n"
    "  leader-election      --election-type PREFERRED|UNCLEAN ...\n"
    "  reassign-partitions  --generate | --execute | --verify | --cancel | --list\n"
    "  transactions  list | describe | describe-producers | abort\n"
    "  get-offsets  --topic T [--partitions P,...] [--time latest|earliest|MS]\n"
    "\n"
    "Run 'gregor-admin COMMAND --help' for a command's options.\n"
    "--json prints JSON for scripts instead of tables.\n"
    "exit codes: 0 done, 1 the broker refused something, 2 bad usage,\n"
    "            3 cannot connect or the broker lacks the API\n";

typedef struct command {
    const char *name;
    int (*run)(gr_admin_t *a);
} command_t;

static const command_t commands[] = {
    {"topics", gr_admin_cmd_topics},
    {"configs", gr_admin_cmd_configs},
    {"cluster", gr_admin_cmd_cluster},
    {"records", gr_admin_cmd_records},
    {"groups", gr_admin_cmd_groups},
    {"share-groups", gr_admin_cmd_share_groups},
    {"leader-election", gr_admin_cmd_election},
    {"reassign-partitions", gr_admin_cmd_reassign},
    {"transactions", gr_admin_cmd_transactions},
    {"acls", gr_admin_cmd_acls},
    {"get-offsets", gr_admin_cmd_get_offsets},
};

/* Runs the command args (after the program name) names; the exit code. */
static int run(const gr_admin_kafka_tool_t *tool, int count, char **args)
{
    gr_admin_options_t opts;
    if (gr_admin_options_parse(&opts, count, args)) {
        fputs(usage, stderr);
        return GR_ADMIN_EXIT_USAGE;
    }
    if (opts.word_count == 0) {
        bool help = gr_admin_flag(&opts, "help");
        fputs(usage, help ? stdout : stderr);
        return help ? GR_ADMIN_EXIT_OK : GR_ADMIN_EXIT_USAGE;
    }
    const command_t *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, opts.words[0]) == 0)
            cmd = &commands[i];
    if (!cmd) {
        fprintf(stderr, "error: unknown command '%s'\n%s", opts.words[0], usage);
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_admin_t a = {.sock = -1,
                    .sasl_mechanism = -1,
                    .opts = &opts,
                    .json = gr_admin_flag(&opts, "json"),
                    .kafka_tool = tool != NULL};
    gr_arena_init(&a.arena);
    int rc = cmd->run(&a);
    gr_admin_close(&a);
    gr_admin_security_fini(&a);
    gr_arena_fini(&a.arena);
    return rc;
}

int main(int argc, char **argv)
{
    /* Kafka's tools print their version too: the same answer under every name. */
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("gregor-admin %s\n", GR_VERSION);
        return GR_ADMIN_EXIT_OK;
    }
    /* Called as one of Kafka's tools: its command line, made gregor-admin's. */
    const gr_admin_kafka_tool_t *tool = argc > 0 ? gr_admin_kafka_tool_find(argv[0]) : NULL;
    if (!tool)
        return run(NULL, argc - 1, argv + 1);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    int count = 0;
    int rc = GR_ADMIN_EXIT_USAGE;
    if (args && gr_admin_kafka_tool_argv(tool, argc, argv, args, &count) == 0)
        rc = run(tool, count, args);
    free(args);
    return rc;
}
