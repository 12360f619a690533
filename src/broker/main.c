/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor [server.properties] [--override key=value]... | --help | --version
 *
 * Loads the config (Kafka's keys and defaults), starts the broker and runs
 * its event loop until SIGTERM/SIGINT, then shuts down cleanly (exit 0).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker.h"

#define GR_ERR_MAX 512

static const char usage_text[] =
    "usage: gregor [server.properties] [--override key=value]...\n"
    "\n"
    "Runs a Kafka-compatible broker (Kafka 3.8's protocol, ZooKeeper mode).\n"
    "server.properties takes Kafka's broker keys; anything left out keeps\n"
    "Kafka's default. Stops cleanly on SIGTERM or SIGINT.\n"
    "\n"
    "options:\n"
    "  --override key=value  set one config key, over the file (repeatable)\n"
    "  --help                print this help and exit\n"
    "  --version             print the version and exit\n"
    "\n"
    "Under systemd (Type=notify) it reports READY=1 once it accepts clients.\n";

static void usage(void)
{
    fputs(usage_text, stderr);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("gregor %s\n", GR_VERSION);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    const char *path = NULL;
    const char **overrides = calloc((size_t)argc, sizeof(*overrides));
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--override") == 0 && i + 1 < argc) {
            overrides[n++] = argv[++i];
        } else if (strncmp(argv[i], "--override=", 11) == 0) {
            overrides[n++] = argv[i] + 11;
        } else if (argv[i][0] == '-' || path) {
            usage();
            return 2;
        } else {
            path = argv[i];
        }
    }
    gr_logger_t boot_log;
    gr_logger_init(&boot_log, stderr, GR_LOG_INFO);
    gr_config_t config;
    char err[GR_ERR_MAX] = "";
    /*
     * A silent first load finds gregor.log.format, so that the second one's
     * warnings (and its error) come out in the format the operator chose.
     */
    gr_logger_t silent;
    gr_logger_init(&silent, NULL, GR_LOG_ERROR);
    if (gr_config_load(&config, path, overrides, n, &silent, err, sizeof err) == 0) {
        gr_logger_configure(&boot_log, &config);
        gr_config_fini(&config);
    }
    if (gr_config_load(&config, path, overrides, n, &boot_log, err, sizeof err) != 0) {
        gr_logf(&boot_log, GR_LOG_ERROR, "config", "%s", err);
        free(overrides);
        return 1;
    }
    free(overrides);
    /* sendfile to a reset socket raises SIGPIPE; errors are handled instead. */
    signal(SIGPIPE, SIG_IGN);
    struct ev_loop *loop = ev_default_loop(0);
    gr_broker_t *b = calloc(1, sizeof(*b));
    if (!b || gr_broker_init(b, loop, &config) != 0)
        return 1;
    int rc = gr_broker_start(b);
    if (rc == 0)
        ev_run(loop, 0);
    int fini_rc = gr_broker_fini(b);
    free(b);
    ev_loop_destroy(loop);
    return rc == 0 && fini_rc == 0 ? 0 : 1;
}
