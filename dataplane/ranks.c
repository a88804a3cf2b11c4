/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranks over MPI (ranks.h).  Open MPI from Debian (libopenmpi-dev); a build without it has one
 * rank.  MPI is started only for a process an MPI launcher started: a plain `syncemu run` never
 * touches it (no daemon, no singleton start-up).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

#ifdef SYNCEMU_MPI
#include <mpi.h>
#endif

static bool started;
static int my_rank, n_ranks = 1;

bool
dp_ranks_launched(void)
{
	/* Open MPI's mpirun, and PMI/PMIx launchers (MPICH's hydra, Slurm's srun) */
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]) != NULL)
			return true;
	return false;
}

int
dp_ranks_rank(void)
{
	return my_rank;
}

int
dp_ranks_size(void)
{
	return n_ranks;
}

/* Room for @n bytes in the caller's buffer. */
static int
room(uint8_t **b, size_t *cap, size_t n)
{
	uint8_t *nb;

	if (n <= *cap && *b != NULL)
		return 0;
	nb = realloc(*b, n ? n : 1);
	if (nb == NULL)
		return -ENOMEM;
	*b = nb;
	*cap = n ? n : 1;
	return 0;
}

#ifdef SYNCEMU_MPI

/* [n_ranks]: byte counts sent and received as MPI sends them, and as MPI's ints and offsets */
static unsigned long *n_sl, *n_rl;
static int *c_s, *o_s, *c_r, *o_r;

int
dp_ranks_init(void)
{
	int provided;

	if (started || !dp_ranks_launched())
		return 0;
	/* only the lcore running the windows calls MPI */
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
	/* errors come back as codes (a failed collective is a failed run, not an abort) */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	started = true;
	/* the collectives' per-rank counts, once for the process */
	n_sl = calloc((size_t)n_ranks, sizeof(*n_sl));
	n_rl = calloc((size_t)n_ranks, sizeof(*n_rl));
	c_s = calloc((size_t)n_ranks, sizeof(*c_s));
	o_s = calloc((size_t)n_ranks, sizeof(*o_s));
	c_r = calloc((size_t)n_ranks, sizeof(*c_r));
	o_r = calloc((size_t)n_ranks, sizeof(*o_r));
	if (n_sl == NULL || n_rl == NULL || c_s == NULL || o_s == NULL || c_r == NULL ||
	    o_r == NULL) {
		dp_ranks_fini();
		return -ENOMEM;
	}
	return 0;
}

void
dp_ranks_fini(void)
{
	if (started)
		MPI_Finalize();
	started = false;
	free(n_sl);
	free(n_rl);
	free(c_s);
	free(o_s);
	free(c_r);
	free(o_r);
	n_sl = n_rl = NULL;
	c_s = o_s = c_r = o_r = NULL;
}

/* The counts and offsets of @lens[] as MPI's ints; -E2BIG if one does not fit. */
static int
counts_of(const size_t *lens, int *cnt, int *off, size_t *total)
{
	size_t sum = 0;

	for (int r = 0; r < n_ranks; r++) {
		if (lens[r] > INT_MAX || sum > INT_MAX)
			return -E2BIG;
		cnt[r] = (int)lens[r];
		off[r] = (int)sum;
		sum += lens[r];
	}
	*total = sum;
	return sum > INT_MAX ? -E2BIG : 0;
}

static int
gatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens, bool to_all)
{
	unsigned long l = len;
	size_t total = 0;
	int rc = 0;

	if (len > INT_MAX)
		return -E2BIG;
	if (to_all ? MPI_Allgather(&l, 1, MPI_UNSIGNED_LONG, n_rl, 1, MPI_UNSIGNED_LONG,
				   MPI_COMM_WORLD) != MPI_SUCCESS
		   : MPI_Gather(&l, 1, MPI_UNSIGNED_LONG, n_rl, 1, MPI_UNSIGNED_LONG, 0,
				MPI_COMM_WORLD) != MPI_SUCCESS)
		return -EIO;
	if (to_all || my_rank == 0) {
		for (int r = 0; r < n_ranks; r++)
			lens[r] = n_rl[r];
		rc = counts_of(lens, c_r, o_r, &total);
		if (rc == 0)
			rc = room(all, cap, total);
	}
	/* every rank takes part even after an error of its own, or the others would wait */
	if (to_all) {
		if (MPI_Allgatherv(mine, (int)len, MPI_BYTE, rc == 0 ? *all : NULL, c_r, o_r,
				   MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS && rc == 0)
			rc = -EIO;
	} else {
		if (MPI_Gatherv(mine, (int)len, MPI_BYTE, rc == 0 ? *all : NULL, c_r, o_r, MPI_BYTE,
				0, MPI_COMM_WORLD) != MPI_SUCCESS && rc == 0)
			rc = -EIO;
	}
	return rc;
}

int
dp_ranks_allgatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens)
{
	return gatherv(mine, len, all, cap, lens, true);
}

int
dp_ranks_gatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens)
{
	return gatherv(mine, len, all, cap, lens, false);
}

int
dp_ranks_alltoallv(const uint8_t *send, const size_t *slen, uint8_t **recv, size_t *cap,
		   size_t *rlen)
{
	size_t total = 0, stotal = 0;
	int rc;

	for (int r = 0; r < n_ranks; r++)
		n_sl[r] = slen[r];
	if (MPI_Alltoall(n_sl, 1, MPI_UNSIGNED_LONG, n_rl, 1, MPI_UNSIGNED_LONG,
			 MPI_COMM_WORLD) != MPI_SUCCESS)
		return -EIO;
	for (int r = 0; r < n_ranks; r++)
		rlen[r] = n_rl[r];
	rc = counts_of(slen, c_s, o_s, &stotal);
	if (rc == 0)
		rc = counts_of(rlen, c_r, o_r, &total);
	if (rc == 0)
		rc = room(recv, cap, total);
	if (rc != 0) {
		/* send and take nothing, so that the others do not wait for ever */
		memset(c_s, 0, (size_t)n_ranks * sizeof(*c_s));
		memset(c_r, 0, (size_t)n_ranks * sizeof(*c_r));
	}
	if (MPI_Alltoallv(send, c_s, o_s, MPI_BYTE, rc == 0 ? *recv : NULL, c_r, o_r, MPI_BYTE,
			  MPI_COMM_WORLD) != MPI_SUCCESS && rc == 0)
		rc = -EIO;
	return rc;
}

int
dp_ranks_first(int v)
{
	int *all;

	if (!started || n_ranks == 1)
		return v;
	all = calloc((size_t)n_ranks, sizeof(*all));
	if (all == NULL || MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT,
					 MPI_COMM_WORLD) != MPI_SUCCESS) {
		free(all);
		MPI_Abort(MPI_COMM_WORLD, v != 0 ? v : 1);	/* cannot agree: end them all */
		return v != 0 ? v : 1;
	}
	for (int r = 0; r < n_ranks; r++)
		if (all[r] != 0) {
			v = all[r];
			break;
		}
	free(all);
	return v;
}

#else /* no MPI in this build: one rank */

int
dp_ranks_first(int v)
{
	return v;
}

int
dp_ranks_init(void)
{
	return dp_ranks_launched() ? -ENOTSUP : 0;
}

void
dp_ranks_fini(void)
{
}

static int
self(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens)
{
	int rc = room(all, cap, len);

	if (rc == 0) {
		memcpy(*all, mine, len);
		lens[0] = len;
	}
	return rc;
}

int
dp_ranks_allgatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens)
{
	return self(mine, len, all, cap, lens);
}

int
dp_ranks_gatherv(const void *mine, size_t len, uint8_t **all, size_t *cap, size_t *lens)
{
	return self(mine, len, all, cap, lens);
}

int
dp_ranks_alltoallv(const uint8_t *send, const size_t *slen, uint8_t **recv, size_t *cap,
		   size_t *rlen)
{
	return self(send, slen[0], recv, cap, rlen);
}

#endif
