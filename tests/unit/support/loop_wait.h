/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unit tests' one way to wait: run the loop until a condition holds,
 * under a deadline, never sleeping. A test fails (cmocka's fail_msg) when
 * the deadline passes first, naming what it waited for.
 */
#ifndef GR_TEST_LOOP_WAIT_H
#define GR_TEST_LOOP_WAIT_H

#include <stdbool.h>

#include <ev.h>

/* Generous: these machines are shared and noisy, and nothing here asserts time. */
#define GR_TEST_WAIT_DEADLINE_S 20.0

typedef bool gr_test_cond_fn(void *arg);

/* Runs loop until cond(arg) or the deadline; returns whether cond held. */
bool gr_test_run_until(struct ev_loop *loop, gr_test_cond_fn *cond, void *arg, double deadline_s);

/* As above, and fails the test with "what" when the deadline passes first. */
void gr_test_wait(struct ev_loop *loop, gr_test_cond_fn *cond, void *arg, const char *what);

/* A gr_test_cond_fn: whether the bool at flag is true. */
bool gr_test_flag_is_set(void *flag);

/* gr_test_wait for *flag to become true. */
void gr_test_wait_flag(struct ev_loop *loop, const bool *flag, const char *what);

#endif
