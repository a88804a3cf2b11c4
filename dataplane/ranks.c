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

/* a split real-time run's control (below) */
enum { TAG_PING = 11, TAG_PONG, TAG_POST };
#define POST_SLOTS 8

/* posted pairs: a slot's buffer is reused once its sends are done */
static uint64_t post_buf[POST_SLOTS][2];
static MPI_Request *post_req[POST_SLOTS];
static uint32_t post_next;
/* the sum under way */
static MPI_Request sum_req = MPI_REQUEST_NULL;
static uint64_t sum_in[4], sum_out[4];
static uint32_t sum_n;

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
	for (int i = 0; i < POST_SLOTS; i++) {
		if (post_req[i] != NULL && started)
			MPI_Waitall(n_ranks, post_req[i], MPI_STATUSES_IGNORE);
		free(post_req[i]);
		post_req[i] = NULL;
	}
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

void
dp_ranks_abort(int code)
{
	if (started)
		MPI_Abort(MPI_COMM_WORLD, code);
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

/* ---- a split real-time run's control ---- */


int
dp_ranks_barrier(void)
{
	return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

int
dp_ranks_bcast(void *buf, size_t len)
{
	if (len > INT_MAX)
		return -E2BIG;
	return MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

int
dp_ranks_offset(uint64_t (*clock)(void *), void *arg, int n, int64_t *offset, uint64_t *rtt)
{
	uint64_t best = UINT64_MAX, t0, t1, c;

	*offset = 0;
	*rtt = 0;
	for (int r = 1; r < n_ranks; r++) {
		for (int i = 0; i < n; i++) {
			if (my_rank == 0) {
				if (MPI_Recv(&t0, 1, MPI_UINT64_T, r, TAG_PING, MPI_COMM_WORLD,
					     MPI_STATUS_IGNORE) != MPI_SUCCESS)
					return -EIO;
				c = clock(arg);
				if (MPI_Send(&c, 1, MPI_UINT64_T, r, TAG_PONG, MPI_COMM_WORLD) !=
				    MPI_SUCCESS)
					return -EIO;
			} else if (my_rank == r) {
				t0 = clock(arg);
				if (MPI_Send(&t0, 1, MPI_UINT64_T, 0, TAG_PING, MPI_COMM_WORLD) !=
				    MPI_SUCCESS ||
				    MPI_Recv(&c, 1, MPI_UINT64_T, 0, TAG_PONG, MPI_COMM_WORLD,
					     MPI_STATUS_IGNORE) != MPI_SUCCESS)
					return -EIO;
				t1 = clock(arg);
				if (t1 - t0 < best) {
					best = t1 - t0;
					*rtt = best;
					*offset = (int64_t)c - (int64_t)(t0 + best / 2);
				}
			}
		}
	}
	return 0;
}

int
dp_ranks_post(uint64_t a, uint64_t b)
{
	uint32_t s = post_next++ % POST_SLOTS;
	int k = 0;

	if (post_req[s] == NULL) {
		post_req[s] = malloc((size_t)n_ranks * sizeof(MPI_Request));
		if (post_req[s] == NULL)
			return -ENOMEM;
		for (int r = 0; r < n_ranks; r++)
			post_req[s][r] = MPI_REQUEST_NULL;
	}
	/* the slot's last pair has long gone out (the sends are small); be sure */
	if (MPI_Waitall(n_ranks, post_req[s], MPI_STATUSES_IGNORE) != MPI_SUCCESS)
		return -EIO;
	post_buf[s][0] = a;
	post_buf[s][1] = b;
	for (int r = 0; r < n_ranks; r++)
		if (r != my_rank && MPI_Isend(post_buf[s], 2, MPI_UINT64_T, r, TAG_POST,
					      MPI_COMM_WORLD, &post_req[s][k++]) != MPI_SUCCESS)
			return -EIO;
	return 0;
}

int
dp_ranks_take(uint64_t *a, uint64_t *b)
{
	uint64_t v[2];
	int flag = 0;

	if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_POST, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return -EIO;
	if (!flag)
		return 0;
	if (MPI_Recv(v, 2, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_POST, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return -EIO;
	*a = v[0];
	*b = v[1];
	return 1;
}

int
dp_ranks_sum_start(const uint64_t *v, uint32_t n)
{
	if (n > 4 || sum_req != MPI_REQUEST_NULL)
		return -EINVAL;
	memcpy(sum_in, v, n * sizeof(*v));
	sum_n = n;
	return MPI_Iallreduce(sum_in, sum_out, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD,
			      &sum_req) == MPI_SUCCESS ? 0 : -EIO;
}

int
dp_ranks_sum_done(uint64_t *sum)
{
	int flag = 0;

	if (sum_req == MPI_REQUEST_NULL)
		return -EINVAL;
	if (MPI_Test(&sum_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return -EIO;
	if (!flag)
		return 0;
	memcpy(sum, sum_out, sum_n * sizeof(*sum));
	return 1;
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

void
dp_ranks_abort(int code)
{
	(void)code;
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

/* one rank: nothing to compare, post or sum with */
int
dp_ranks_barrier(void)
{
	return 0;
}

int
dp_ranks_bcast(void *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 0;
}

int
dp_ranks_offset(uint64_t (*clock)(void *), void *arg, int n, int64_t *offset, uint64_t *rtt)
{
	(void)clock;
	(void)arg;
	(void)n;
	*offset = 0;
	*rtt = 0;
	return 0;
}

int
dp_ranks_post(uint64_t a, uint64_t b)
{
	(void)a;
	(void)b;
	return 0;
}

int
dp_ranks_take(uint64_t *a, uint64_t *b)
{
	(void)a;
	(void)b;
	return 0;
}

static uint64_t one_sum[4];
static uint32_t one_n;

int
dp_ranks_sum_start(const uint64_t *v, uint32_t n)
{
	if (n > 4)
		return -EINVAL;
	memcpy(one_sum, v, n * sizeof(*v));
	one_n = n;
	return 0;
}

int
dp_ranks_sum_done(uint64_t *sum)
{
	memcpy(sum, one_sum, one_n * sizeof(*sum));
	return 1;
}

#endif
