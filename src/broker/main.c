/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor [server.properties] [--override key=value]...
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

static void usage(void)
{
    fprintf(stderr, "usage: gregor [server.properties] [--override key=value]...\n");
}

int main(int argc, char **argv)
{
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
