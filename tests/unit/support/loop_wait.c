/* SPDX-License-Identifier: Apache-2.0 */
#include "loop_wait.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void on_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

bool gr_test_run_until(struct ev_loop *loop, gr_test_cond_fn *cond, void *arg, double deadline_s)
{
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_deadline, deadline_s, 0.);
    deadline.data = &expired;
    ev_timer_start(loop, &deadline);
    while (!expired && !cond(arg))
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &deadline);
    return cond(arg);
}

void gr_test_wait(struct ev_loop *loop, gr_test_cond_fn *cond, void *arg, const char *what)
{
    if (!gr_test_run_until(loop, cond, arg, GR_TEST_WAIT_DEADLINE_S))
        fail_msg("%s: not within %.0f s", what, GR_TEST_WAIT_DEADLINE_S);
}

bool gr_test_flag_is_set(void *flag)
{
    return *(const bool *)flag;
}

void gr_test_wait_flag(struct ev_loop *loop, const bool *flag, const char *what)
{
    gr_test_wait(loop, gr_test_flag_is_set, (void *)flag, what);
}
