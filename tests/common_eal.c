/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cmocka tests' EAL (common.h): one per test binary, started by its group setup.
 */
#include <stdio.h>

#include <rte_mempool.h>

#include "common.h"
#include "eal.h"

struct rte_mempool *
tc_eal_pool(const char *name, uint32_t n, uint32_t frame)
{
	struct rte_mempool *pool;
	char err[256];
	int rc = dp_eal_init(NULL, dp_pool_mem_mb(n, frame) + 64, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "EAL: %s\n", err);
		return NULL;
	}
	pool = dp_pool_create(name, n, frame, err, sizeof(err));
	if (pool == NULL)
		fprintf(stderr, "pool: %s\n", err);
	return pool;
}

void
tc_eal_fini(struct rte_mempool *pool)
{
	rte_mempool_free(pool);
	dp_eal_fini();
}
