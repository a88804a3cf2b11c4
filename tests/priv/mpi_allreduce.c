/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A training loop's sync, for the tests of `syncemu validate` on real captures: STEPS times,
 * compute for COMPUTE_US (a sleep: the host's cores are few), then MPI_Allreduce of BYTES of
 * floats, timed around the call on every rank with CLOCK_REALTIME (the clock tcpdump stamps
 * packets with).  Rank 0 gathers the times and writes CSV (step,start_ns,end_ns: the earliest
 * start and the latest end over the ranks), the common output of a training loop's timers.  It
 * also checks the sum: every element must be the sum of the ranks' values.
 * OP (default allreduce) is allgather (BYTES gathered, BYTES / ranks from each) or reducescatter
 * (BYTES reduced, BYTES / ranks to each); VARY 1 makes step i's buffer (2 + i mod 3) / 4 of BYTES
 * (sizes that change each step).
 * Usage: mpi_allreduce STEPS BYTES COMPUTE_US OUT.csv [OP [VARY]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	int rank, size, steps, i, r, bad = 0, op = 0, vary = 0;
	long long bytes, n, j, m, per;
	int64_t *t, *all = NULL;
	float *buf, *out;
	FILE *f;
	struct timespec compute;
	int64_t prev_end = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc >= 6)
		op = strcmp(argv[5], "allgather") == 0 ? 1 :
		     strcmp(argv[5], "reducescatter") == 0 ? 2 :
		     strcmp(argv[5], "allreduce") == 0 ? 0 : -1;
	if (argc >= 7)
		vary = atoi(argv[6]);
	if (argc < 5 || argc > 7 || op < 0) {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_allreduce STEPS BYTES COMPUTE_US OUT.csv "
				"[allreduce|allgather|reducescatter [VARY]]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	steps = atoi(argv[1]);
	bytes = atoll(argv[2]);
	compute.tv_sec = atol(argv[3]) / 1000000;
	compute.tv_nsec = atol(argv[3]) % 1000000 * 1000;
	n = bytes / (long long)sizeof(float);
	buf = malloc((size_t)n * sizeof(float));
	out = malloc((size_t)n * sizeof(float));
	t = malloc(2 * (size_t)steps * sizeof(*t));
	if (rank == 0)
		all = malloc(2 * (size_t)steps * (size_t)size * sizeof(*all));
	if (buf == NULL || out == NULL || t == NULL || (rank == 0 && all == NULL))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < steps; i++) {
		m = vary ? n * (2 + i % 3) / 4 : n;
		per = m / size;
		for (j = 0; j < m; j++)
			buf[j] = (float)(rank + 1);
		nanosleep(&compute, NULL);
		t[2 * i] = now_ns();
		if (op == 0)
			MPI_Allreduce(MPI_IN_PLACE, buf, (int)m, MPI_FLOAT, MPI_SUM,
				      MPI_COMM_WORLD);
		else if (op == 1)
			MPI_Allgather(buf, (int)per, MPI_FLOAT, out, (int)per, MPI_FLOAT,
				      MPI_COMM_WORLD);
		else
			MPI_Reduce_scatter_block(buf, out, (int)per, MPI_FLOAT, MPI_SUM,
						 MPI_COMM_WORLD);
		t[2 * i + 1] = now_ns();
		for (j = 0; op == 0 && j < m; j += 4097)
			bad += buf[j] != (float)(size * (size + 1) / 2);
		for (j = 0; op == 1 && j < per * size; j += 4097)
			bad += out[j] != (float)(j / per + 1);
		for (j = 0; op == 2 && j < per; j += 4097)
			bad += out[j] != (float)(size * (size + 1) / 2);
	}
	MPI_Gather(t, 2 * steps, MPI_INT64_T, all, 2 * steps, MPI_INT64_T, 0, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		f = fopen(argv[4], "w");
		if (f == NULL) {
			perror(argv[4]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fprintf(f, "step,start_ns,end_ns");
		for (r = 0; r < size; r++)
			fprintf(f, ",rank%d_start_ns,rank%d_end_ns", r, r);
		fprintf(f, "\n");
		for (i = 0; i < steps; i++) {
			int64_t s = all[2 * i], e = all[2 * i + 1];

			for (r = 1; r < size; r++) {
				int64_t rs = all[(size_t)r * 2 * steps + 2 * i];
				int64_t re = all[(size_t)r * 2 * steps + 2 * i + 1];

				s = rs < s ? rs : s;
				e = re > e ? re : e;
			}
			s = s > prev_end ? s : prev_end;
			prev_end = e;
			fprintf(f, "%d,%" PRId64 ",%" PRId64, i, s, e);
			for (r = 0; r < size; r++)
				fprintf(f, ",%" PRId64 ",%" PRId64, all[(size_t)r * 2 * steps + 2 * i],
					all[(size_t)r * 2 * steps + 2 * i + 1]);
			fprintf(f, "\n");
		}
		if (fclose(f) != 0) {
			perror(argv[4]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (bad)
			fprintf(stderr, "mpi_allreduce: %d wrong sums\n", bad);
	}
	free(buf);
	free(out);
	free(t);
	free(all);
	MPI_Finalize();
	return bad ? 1 : 0;
}
