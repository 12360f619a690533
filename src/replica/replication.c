/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's replication machinery; see replication.h. */
#include "replica/replication.h"

#include <errno.h>
#include <stdlib.h>

#include "core/context.h"
#include "replica/alter_partition.h"
#include "replica/fetcher.h"
#include "replica/leader.h"

int gr_replication_start(gr_broker_t *b)
{
    b->replication = calloc(1, sizeof *b->replication);
    if (!b->replication)
        return -ENOMEM;
    b->replication->controller_id = -1;
    gr_replica_leader_start(b);
    return 0;
}

void gr_replication_stop(gr_broker_t *b)
{
    if (!b->replication)
        return;
    gr_replica_fetchers_stop(b);
    gr_replica_leader_stop(b);
    gr_replica_alter_partition_stop(b);
    free(b->replication);
    b->replication = NULL;
}
