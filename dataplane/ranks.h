/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranks: the processes of one run started by MPI (`mpirun -np R syncemu run ...`).
 *
 * Each rank builds the whole graph and runs a share of its partitions (parallel.h); what crosses
 * between ranks goes through the few collectives below, called by every rank in the same order
 * from the lcore that runs the windows (MPI_THREAD_FUNNELED).  Without MPI at build time, or when
 * the process was not started by mpirun, there is one rank and every call below is a no-op that
 * says so.  Byte counts are size_t; one message above INT_MAX bytes is refused (-E2BIG), for
 * MPI's counts are int.
 */
#ifndef DP_RANKS_H
#define DP_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** True if this process was started by an MPI launcher (its environment says so). */
bool dp_ranks_launched(void);

/**
 * MPI_Init, if launched (dp_ranks_launched()).  0 (also when not launched: one rank), -ENOTSUP if
 * this build has no MPI, -EIO if MPI_Init failed.
 */
int dp_ranks_init(void);

/** MPI_Finalize if dp_ranks_init() started MPI. */
void dp_ranks_fini(void);

/**
 * End every rank of the run with @p code (MPI_Abort), for a failure the others may never learn
 * of (a rank that stopped answering: MPI_Finalize would wait for it).  Returns only without MPI.
 */
void dp_ranks_abort(int code);

/** This process's rank (0 with one) and the number of ranks (1 without MPI). */
int dp_ranks_rank(void);
int dp_ranks_size(void);

/**
 * Every rank gives @p len bytes at @p mine; every rank gets them all, rank by rank, in @p *all
 * (a buffer it owns, grown as needed: *cap its size) with @p lens[r] the bytes of rank r.
 * 0 or -errno.
 */
int dp_ranks_allgatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens);

/**
 * Rank 0 gets every rank's @p len bytes at @p mine, rank by rank, in @p *all (@p lens as above);
 * the other ranks get nothing.  0 or -errno.
 */
int dp_ranks_gatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens);

/**
 * Every rank sends @p slen[r] bytes to rank r (from @p send, rank after rank) and gets
 * @p rlen[r] bytes from rank r in @p *recv (grown as needed).  0 or -errno.
 */
int dp_ranks_alltoallv(const uint8_t *send, const size_t *slen, uint8_t **recv, size_t *cap,
		       size_t *rlen);

/**
 * Every rank's @p v, agreed: the first that is not 0 in rank order (0 if none); @p v with one
 * rank.  For an exit status that must be the same everywhere (a refused output on rank 0 ends
 * every rank, not only the one that saw it).
 */
int dp_ranks_first(int v);

/*
 * A split real-time run's control (rt.c): the ranks' clocks compared, small messages posted
 * while the engines run, and a sum agreed without stopping them.  Called from the thread that
 * started MPI.
 */

/** Every rank waits until every rank has called it.  0 or -errno. */
int dp_ranks_barrier(void);

/** Broadcast @p len bytes at @p buf from rank 0 to every rank.  0 or -errno. */
int dp_ranks_bcast(void *buf, size_t len);

/**
 * Each rank's clock against rank 0's: rank r > 0 sends rank 0 @p n pings in turn, rank 0
 * answers each with @p clock(@p arg); of the round trips, the shortest gives @p *offset (rank
 * 0's clock minus this rank's, at the round trip's middle) and @p *rtt.  Rank 0 gets 0, 0.
 * Every rank calls it.  0 or -errno.
 */
int dp_ranks_offset(uint64_t (*clock)(void *), void *arg, int n, int64_t *offset,
		    uint64_t *rtt);

/** Send (@p a, @p b) to every other rank, not waiting for them to take it.  0 or -errno. */
int dp_ranks_post(uint64_t a, uint64_t b);

/** A pair another rank posted, if one has come: 1 with it in @p a, @p b; 0: none; -errno. */
int dp_ranks_take(uint64_t *a, uint64_t *b);

/**
 * Begin summing @p n (at most 4) words over the ranks (MPI_Iallreduce); dp_ranks_sum_done()
 * until it returns 1 with the sums in @p sum.  One sum at a time.  0 or -errno.
 */
int dp_ranks_sum_start(const uint64_t *v, uint32_t n);
int dp_ranks_sum_done(uint64_t *sum);

#endif /* DP_RANKS_H */
