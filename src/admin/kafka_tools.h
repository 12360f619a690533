/* SPDX-License-Identifier: Apache-2.0 */
/* gregor-admin under Kafka's tool names (kafka_tools.c): the tools and their command lines. */
#ifndef GR_ADMIN_KAFKA_TOOLS_H
#define GR_ADMIN_KAFKA_TOOLS_H

/* One of Kafka's tools as gregor-admin plays it. */
typedef struct gr_admin_kafka_tool {
    const char *name;           /* "kafka-topics" (called with or without ".sh") */
    const char *command;        /* gregor-admin's command word */
    const char *const *actions; /* action options made the subcommand word, or NULL */
    const char *const *options; /* every other option the tool takes */
    const char *subcommand;     /* a fixed subcommand word (kafka-delete-records), or NULL */
} gr_admin_kafka_tool_t;

/* The tool argv0 (a path; ".sh" optional) names, or NULL: plain gregor-admin. */
const gr_admin_kafka_tool_t *gr_admin_kafka_tool_find(const char *argv0);

/*
 * Rewrites the tool's command line (argv[1..argc)) as gregor-admin's,
 * without the program name, into out (room for argc + 1). Refuses options
 * the tool does not take here and a missing or repeated action.
 * 0 with *out_count set, or -1 (message printed: a usage error).
 */
int gr_admin_kafka_tool_argv(const gr_admin_kafka_tool_t *t, int argc, char **argv, char **out,
                             int *out_count);

#endif
