/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topics in a unit test's single-node broker, made the way CreateTopics
 * makes them: written for the broker's own controller, which opens them
 * here through LeaderAndIsr a few loop turns later.
 */
#ifndef GR_TEST_TOPIC_WAIT_H
#define GR_TEST_TOPIC_WAIT_H

#include <stdint.h>

#include <ev.h>

#include "metadata/topics.h"

/* topic name with every partition's log open here, or NULL. */
gr_topic_t *gr_test_hosted_topic(gr_broker_t *b, const char *name);

/* Creates the topic through the controller and waits until it is hosted; fails the test else. */
gr_topic_t *gr_test_create_topic(struct ev_loop *loop, gr_broker_t *b, const char *name,
                                 int32_t partitions, const gr_topic_config_t *configs, int count);

#endif
