/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting DPDK's EAL and the mbuf pool.
 */
#ifndef DP_EAL_H
#define DP_EAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

/** The EAL flags used unless the user gives their own: no hugepages, no PCI, virtual addresses
 *  as IO addresses (no page-map lookups while the pool is built), and only errors logged (the
 *  EAL's informational lines would mix with the report); then the lcores (dp_eal_default()). */
#define DP_EAL_DEFAULT_NO_L "--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error"
/** The defaults as --help shows them. */
#define DP_EAL_DEFAULT DP_EAL_DEFAULT_NO_L " --lcores 0@(CPUS), CPUS those the process may run on"

/**
 * The CPUs this process may run on (sched_getaffinity(): taskset, a cgroup's cpuset, mpirun's
 * binding) as a DPDK CPU list, "0-3,6", in @p buf; their number in *@p n.  0, or -E2BIG (the
 * list does not fit) or -errno.
 */
int dp_eal_cpus(char *buf, size_t len, uint32_t *n);

/**
 * The default EAL flags for @p lcores lcores (0: one) in @p buf: DP_EAL_DEFAULT_NO_L, then each
 * lcore free to run on any of the process's CPUs ("--lcores 0@(S),1@(S),..."), so that a run
 * started under taskset stays on its CPUs and runs started side by side are spread by the kernel,
 * not all pinned to CPU 0; then "-m @p mem_mb" if not 0.  0, or -E2BIG (@p len is too short)
 * or -errno.
 */
int dp_eal_default(char *buf, size_t len, uint32_t lcores, uint32_t mem_mb);

/**
 * Initialise the EAL once per process.
 *
 * @param args    EAL arguments separated by blanks; NULL for dp_eal_default() of one lcore
 * @param mem_mb  memory to ask for with -m when @p args is NULL (0: DPDK's default)
 * @return 0, -EALREADY if it is already up, or -errno with a message (the EAL's own log goes to
 *         stderr)
 */
int dp_eal_init(const char *args, uint32_t mem_mb, char *err, size_t errlen);

/**
 * dp_eal_init() for a process that serves telemetry: unless @p args has a --file-prefix, the EAL
 * gets a prefix of its own, "syncemu-PID", so that its runtime directory and telemetry socket
 * are apart from every other DPDK process's (two of one prefix share one socket, served by the
 * first); dp_eal_fini() then removes that directory, which DPDK leaves behind.
 */
int dp_eal_init_apart(const char *args, uint32_t mem_mb, char *err, size_t errlen);

/**
 * Where the telemetry of this process answers: the socket's path and the EAL's file prefix
 * (what dpdk-telemetry.py -f takes).
 *
 * @return 0, -ENOENT if the socket is not there (--no-telemetry, or it could not be made), or
 *         -ENODEV before dp_eal_init()
 */
int dp_eal_telemetry(char *path, size_t plen, char *prefix, size_t xlen);

/** Release the EAL (at exit), and remove the runtime directory of an own prefix. */
void dp_eal_fini(void);

/**
 * Say that dp_eal_fini() comes next: the pools in the EAL's memory (the frames', the ports'
 * receive pools) are then left to it rather than freed one by one.  DPDK zeroes what it frees,
 * so freeing a pool writes its whole memory, faulting in every page never used (1.9 GB for the
 * frames of an 8-DC real-time run: seconds at exit); dp_eal_fini() releases the memory as it is.
 */
void dp_eal_ending(void);

/** True between dp_eal_ending() and dp_eal_fini(). */
bool dp_eal_is_ending(void);

/**
 * Wait (up to @p ms) until the EAL's interrupt thread has returned from what it was doing when
 * this was called: a callback of ours, which that thread runs after the callbacks of its current
 * batch (and their pending unregistrations), has run.  A memif port's link goes down inside the
 * handler of its peer's disconnection, before the handler is done with the port.  (Not an EAL
 * alarm: DPDK 22.11 frees the alarms' handle at rte_eal_cleanup() under the interrupt thread.)
 */
void dp_eal_intr_settle(int ms);

/**
 * Remove the own prefix's telemetry socket and runtime directory now, for a signal handler that
 * is about to end the process.  Async-signal-safe.
 */
void dp_eal_signal_cleanup(void);

/**
 * An mbuf pool of @p n mbufs that hold frames of up to @p frame_max bytes, with the private area
 * the data plane keeps per frame.
 */
struct rte_mempool *dp_pool_create(const char *name, uint32_t n, uint32_t frame_max, char *err,
				   size_t errlen);

/** Memory in MB that a pool of @p n mbufs of @p frame_max bytes needs, with the EAL's own. */
uint32_t dp_pool_mem_mb(uint32_t n, uint32_t frame_max);

#endif /* DP_EAL_H */
