/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A real single-node broker for unit tests: gr_broker_init/start on a
 * temporary log dir, on a fresh loop, listening on an ephemeral loopback
 * port, its metadata in the embedded store. A test may stop and start it
 * again on the same dir (a restart). The broker's log goes to a memory
 * stream, which gr_test_broker_logged searches; with GR_TEST_LOG=1 in the
 * environment it is also written to stderr when the broker stops.
 */
#ifndef GR_TEST_BROKER_FIXTURE_H
#define GR_TEST_BROKER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <ev.h>

#include "broker/broker.h"

#define GR_TEST_BROKER_OVERRIDES_MAX 16

typedef struct gr_test_broker {
    char dir[64];
    struct ev_loop *loop;
    gr_broker_t *b; /* NULL while stopped */
    FILE *log_file;
    char *log_text;
    size_t log_len;
} gr_test_broker_t;

/* Makes the temporary log dir, /tmp/gr-<name>-XXXXXX. 0, or -1 (errno set). */
int gr_test_broker_make_dir(gr_test_broker_t *tb, const char *name);

/*
 * Loads a config of log.dirs=<dir>, a loopback listener and then overrides
 * (count of them, "key=value"), and inits the broker on a new loop; fails the
 * test when either is refused. Returns gr_broker_start's result.
 */
int gr_test_broker_start(gr_test_broker_t *tb, const char *const *overrides, int count);

/* Stops the broker (fini) and frees it and its loop; nothing when stopped. */
void gr_test_broker_stop(gr_test_broker_t *tb);

/* Stops the broker if running and removes the dir and everything in it. */
void gr_test_broker_remove(gr_test_broker_t *tb);

/*
 * cmocka set-up and tear-down halves for tests whose state is the fixture
 * itself: a new gr_test_broker_t with its dir made (name as above) into
 * *state, 0 or -1; and its removal and free.
 */
int gr_test_broker_new(void **state, const char *name);
int gr_test_broker_free(void **state);

/* Whether the broker has logged a line containing text since it started. */
bool gr_test_broker_logged(gr_test_broker_t *tb, const char *text);

#endif
