/* SPDX-License-Identifier: Apache-2.0 */
/* Kafka's replica placement; see replica_assignment.h. */
#include "controller/replica_assignment.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t racked(const gr_replica_broker_t *brokers, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        n += brokers[i].rack != NULL;
    return n;
}

gr_kerr_t gr_replica_assign_check(const gr_replica_broker_t *brokers, size_t count, int32_t factor,
                                  gr_rack_mode_t mode, char *msg, size_t len)
{
    if (factor <= 0) {
        snprintf(msg, len, "Replication factor must be larger than 0.");
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    if ((size_t)factor > count) {
        snprintf(msg, len, "Replication factor: %d larger than available brokers: %zu.", factor,
                 count);
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    size_t with_rack = racked(brokers, count);
    if (mode == GR_RACK_MODE_ENFORCED && with_rack > 0 && with_rack < count) {
        snprintf(msg, len,
                 "Not all brokers have rack information for replica rack aware "
                 "assignment.");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    return GR_KERR_NONE;
}

gr_replica_seed_t gr_replica_seed_continue(const gr_replica_broker_t *brokers, size_t count,
                                           int32_t leader0, int32_t existing)
{
    int32_t start = 0;
    for (size_t i = 0; i < count; i++) {
        if (brokers[i].id >= leader0) {
            start = (int32_t)i;
            break;
        }
    }
    return (gr_replica_seed_t){start, start, existing};
}

/* Kafka's replicaIndex: the j-th follower's position, never the leader's own. */
static size_t follower_index(size_t first, size_t shift, size_t j, size_t n)
{
    return (first + 1 + (shift + j) % (n - 1)) % n;
}

static int by_rack_then_id(const void *a, const void *b)
{
    const gr_replica_broker_t *x = a, *y = b;
    int c = strcmp(x->rack, y->rack);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/*
 * Kafka's getRackAlternatedBrokerList: the first broker of each rack (racks
 * by name), then the second of each, ... into out (count entries).
 * Returns how many racks there are, or -ENOMEM.
 */
static int alternate_racks(const gr_replica_broker_t *brokers, size_t count,
                           gr_replica_broker_t *out)
{
    gr_replica_broker_t *sorted = malloc(count * sizeof *sorted);
    size_t *rack_start = malloc((count + 1) * sizeof *rack_start);
    if (!sorted || !rack_start) {
        free(sorted);
        free(rack_start);
        return -ENOMEM;
    }
    memcpy(sorted, brokers, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, by_rack_then_id);
    size_t racks = 0;
    for (size_t i = 0; i < count; i++)
        if (i == 0 || strcmp(sorted[i - 1].rack, sorted[i].rack) != 0)
            rack_start[racks++] = i;
    rack_start[racks] = count;
    size_t n = 0;
    for (size_t round = 0; n < count; round++)
        for (size_t r = 0; r < racks; r++)
            if (rack_start[r] + round < rack_start[r + 1])
                out[n++] = sorted[rack_start[r] + round];
    free(sorted);
    free(rack_start);
    return (int)racks;
}

/* Whether rack already holds one of partition's first placed replicas. */
static bool rack_used(const gr_replica_broker_t *list, const size_t *chosen, size_t placed,
                      const char *rack)
{
    for (size_t i = 0; i < placed; i++)
        if (strcmp(list[chosen[i]].rack, rack) == 0)
            return true;
    return false;
}

static bool broker_used(const size_t *chosen, size_t placed, size_t index)
{
    for (size_t i = 0; i < placed; i++)
        if (chosen[i] == index)
            return true;
    return false;
}

/*
 * One partition's followers on the rack-alternated list: Kafka's walk with
 * its two skip rules (see the header), into chosen (factor list indexes).
 */
static void place_racked(const gr_replica_broker_t *list, size_t n, size_t racks, size_t first,
                         size_t shift, size_t factor, size_t *chosen)
{
    size_t racks_used = 1, placed = 1, k = 0;
    chosen[0] = first;
    while (placed < factor) {
        size_t i = follower_index(first, shift * racks, k++, n);
        bool new_rack = !rack_used(list, chosen, placed, list[i].rack);
        if ((new_rack || racks_used == racks) && (!broker_used(chosen, placed, i) || placed == n)) {
            chosen[placed++] = i;
            racks_used += new_rack;
        }
    }
}

int gr_replica_assign(const gr_replica_broker_t *brokers, size_t count, int32_t partitions,
                      int32_t factor, const gr_replica_seed_t *seed, int32_t *out)
{
    if (partitions <= 0 || factor <= 0 || (size_t)factor > count)
        return -EINVAL;
    bool aware = racked(brokers, count) == count;
    gr_replica_broker_t *list = malloc(count * sizeof *list);
    size_t *chosen = malloc((size_t)factor * sizeof *chosen);
    int racks = list && chosen ? 1 : -ENOMEM;
    if (list && aware)
        racks = alternate_racks(brokers, count, list);
    else if (list)
        memcpy(list, brokers, count * sizeof *list);
    if (racks < 0)
        goto fail;
    size_t start = (size_t)seed->start_index % count;
    size_t shift = (size_t)seed->replica_shift;
    for (int32_t p = 0; p < partitions; p++) {
        size_t id = (size_t)seed->first_partition + (size_t)p;
        if (id > 0 && id % count == 0)
            shift++; /* a new round of leaders: move the followers */
        size_t first = (id + start) % count;
        if (aware) {
            place_racked(list, count, (size_t)racks, first, shift, (size_t)factor, chosen);
        } else {
            chosen[0] = first;
            for (size_t j = 1; j < (size_t)factor; j++)
                chosen[j] = follower_index(first, shift, j - 1, count);
        }
        for (int32_t r = 0; r < factor; r++)
            out[(size_t)p * (size_t)factor + (size_t)r] = list[chosen[r]].id;
    }
    free(list);
    free(chosen);
    return 0;
fail:
    free(list);
    free(chosen);
    return -ENOMEM;
}
