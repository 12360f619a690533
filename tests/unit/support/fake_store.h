/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fault-injecting wrapper around a broker's metadata store session, for
 * controller unit tests: what the controller sees when ZooKeeper refuses a
 * write or is slow to answer. Installed on a running broker, it points the
 * session's store at a gr_store_t of its own whose ops forward to the real
 * backend (the local store keeps its own state in its session, so the
 * forwarded calls work unchanged), except that:
 *  - faults: the next count operations of the kinds in ops under a path
 *    prefix fail with rc, either refused by the call itself (REFUSE, as a
 *    closed session's would be) or answered later through the completion,
 *    unapplied (ANSWER, as ZooKeeper answers CONNLOSS or BADVERSION);
 *  - holds: completions of matching operations (applied by the backend)
 *    wait until the test releases them, so a test can look at the caller
 *    while its write is "in flight";
 *  - counts: every operation issued under a prefix is counted.
 * Only create, set and delete are faulted and held; reads pass straight
 * through. An ANSWER fault's completion comes from a zero timer, so it may
 * overtake completions of operations issued before it.
 *
 * Remove it (gr_fake_store_remove) before the broker stops: that releases
 * what is held and answers the faults queued.
 *
 * Runs on: the test's loop thread.
 */
#ifndef GR_TEST_FAKE_STORE_H
#define GR_TEST_FAKE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <ev.h>

#include "broker/broker.h"
#include "metadata/store.h"

/* Operation kinds, combinable. */
#define GR_FAKE_OP_CREATE 0x1
#define GR_FAKE_OP_SET    0x2
#define GR_FAKE_OP_DELETE 0x4
#define GR_FAKE_OP_WRITES (GR_FAKE_OP_CREATE | GR_FAKE_OP_SET | GR_FAKE_OP_DELETE)

typedef enum gr_fake_how {
    GR_FAKE_REFUSE, /* the call returns rc; no completion */
    GR_FAKE_ANSWER, /* the call returns OK; the completion brings rc; nothing applied */
} gr_fake_how_t;

#define GR_FAKE_RULES_MAX 8

typedef struct gr_fake_rule {
    int ops;
    char prefix[GR_STORE_PATH_MAX + 1];
    int count; /* faults left; holds: -1 (until cleared) */
    int rc;
    gr_fake_how_t how;
} gr_fake_rule_t;

typedef struct gr_fake_completion gr_fake_completion_t;

typedef struct gr_fake_store {
    gr_store_t base; /* the session's store while installed */
    gr_store_ops_t ops;
    gr_store_t *real;
    gr_store_session_t *session;
    struct ev_loop *loop;
    gr_fake_rule_t faults[GR_FAKE_RULES_MAX];
    int fault_count;
    gr_fake_rule_t holds[GR_FAKE_RULES_MAX];
    int hold_count;
    gr_fake_completion_t *held;    /* completions held, oldest first */
    gr_fake_completion_t *answers; /* ANSWER faults waiting for answer_timer */
    ev_timer answer_timer;
    int failed; /* faults applied so far */
} gr_fake_store_t;

/* Wraps b's store session. */
void gr_fake_store_install(gr_fake_store_t *fs, gr_broker_t *b);
/* Releases held completions, answers queued faults, unwraps the session. */
void gr_fake_store_remove(gr_fake_store_t *fs);

/* The next count operations of ops under prefix fail with rc, as how says. */
void gr_fake_store_fail(gr_fake_store_t *fs, int ops, const char *prefix, int count, int rc,
                        gr_fake_how_t how);
/* Completions of ops under prefix wait for gr_fake_store_release. */
void gr_fake_store_hold(gr_fake_store_t *fs, int ops, const char *prefix);
/* Stops holding (what is held stays held) and runs every held completion, oldest first. */
void gr_fake_store_release(gr_fake_store_t *fs);
/* Completions held now. */
size_t gr_fake_store_held(const gr_fake_store_t *fs);

#endif
