/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the element graph inside (topology.h): what topology.c and topo_part.c share.
 */
#ifndef DP_TOPO_IMPL_H
#define DP_TOPO_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

/* @n zeroed elements of @size bytes, on a cache line of their own each (topology.c). */
void *dp_topo_zalloc_lines(size_t n, size_t size);

/* topo_part.c: the partitions (see each function's comment there). */
uint32_t dp_topo_assign(struct dp_topo *t, uint32_t np, bool in_net);
int dp_topo_partitions_make(struct dp_topo *t, const struct dp_topo_params *p, uint32_t np);
int dp_topo_barriers_make(struct dp_topo *t);
int dp_topo_all_make(struct dp_topo *t);

#endif /* DP_TOPO_IMPL_H */
