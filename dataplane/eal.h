/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting DPDK's EAL and the mbuf pool.
 */
#ifndef DP_EAL_H
#define DP_EAL_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

/** The EAL flags used unless the user gives their own: no hugepages, no PCI, one lcore, virtual
 *  addresses as IO addresses (no page-map lookups while the pool is built), and only errors
 *  logged (the EAL's informational lines would mix with the report). */
#define DP_EAL_DEFAULT "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error"

/**
 * Initialise the EAL once per process.
 *
 * @param args    EAL arguments separated by blanks; NULL for DP_EAL_DEFAULT
 * @param mem_mb  memory to ask for with -m when @p args is NULL (0: DPDK's default)
 * @return 0, -EALREADY if it is already up, or -errno with a message (the EAL's own log goes to
 *         stderr)
 */
int dp_eal_init(const char *args, uint32_t mem_mb, char *err, size_t errlen);

/** Release the EAL (at exit). */
void dp_eal_fini(void);

/**
 * An mbuf pool of @p n mbufs that hold frames of up to @p frame_max bytes, with the private area
 * the data plane keeps per frame.
 */
struct rte_mempool *dp_pool_create(const char *name, uint32_t n, uint32_t frame_max, char *err,
				   size_t errlen);

/** Memory in MB that a pool of @p n mbufs of @p frame_max bytes needs, with the EAL's own. */
uint32_t dp_pool_mem_mb(uint32_t n, uint32_t frame_max);

#endif /* DP_EAL_H */
