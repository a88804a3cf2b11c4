/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libraries' collectives: Open MPI 4.1's fixed decision for all-reduce against a table read
 * from its source, each picked algorithm's and gloo's ring's round program (whom every worker sends to and how many
 * bytes), DDP's buckets, the keys' checks, and job.compute.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "library.h"
#include "packet.h"
#include "presets.h"
#include "step.h"

/*
 * (ranks, bytes, commutative) -> algorithm, at and beside the thresholds of
 * ompi_coll_tuned_allreduce_intra_dec_fixed() (coll_tuned_decision_fixed.c, v4.1.6).
 */
static void
test_ompi_decision_table(void **state)
{
	static const struct {
		unsigned int ranks;
		uint64_t bytes;
		bool commute;
		enum sm_ompi_allreduce a;
	} t[] = {
		{ 2, 4, true, SM_OMPI_AR_RING },
		{ 2, 8, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 2, 4095, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 2, 4096, true, SM_OMPI_AR_RING },
		{ 2, 8192, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 3, 16384, true, SM_OMPI_AR_RING },
		{ 3, 65535, true, SM_OMPI_AR_RING },
		{ 2, 65536, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 2, 262143, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 2, 262144, true, SM_OMPI_AR_RABENSEIFNER },
		{ 2, 4194304, true, SM_OMPI_AR_RABENSEIFNER },
		{ 4, 15, true, SM_OMPI_AR_RING },
		{ 4, 16, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 7, 8192, true, SM_OMPI_AR_RABENSEIFNER },
		{ 8, 8191, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 15, 8192, true, SM_OMPI_AR_RABENSEIFNER },
		{ 16, 63, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 31, 64, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 16, 4096, true, SM_OMPI_AR_RABENSEIFNER },
		{ 32, 127, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 63, 128, true, SM_OMPI_AR_RABENSEIFNER },
		{ 64, 262143, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 127, 262144, true, SM_OMPI_AR_RABENSEIFNER },
		{ 128, 131071, true, SM_OMPI_AR_NONOVERLAPPING },
		{ 255, 131072, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 128, 262144, true, SM_OMPI_AR_RABENSEIFNER },
		{ 256, 4095, true, SM_OMPI_AR_NONOVERLAPPING },
		{ 511, 4096, true, SM_OMPI_AR_RABENSEIFNER },
		{ 512, 2047, true, SM_OMPI_AR_NONOVERLAPPING },
		{ 2047, 2048, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 2048, 16384, true, SM_OMPI_AR_RABENSEIFNER },
		{ 2048, 2048, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 4095, 4096, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 4096, 2048, true, SM_OMPI_AR_SEGMENTED_RING },
		{ 4096, 16384, true, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 4096, 32768, true, SM_OMPI_AR_RABENSEIFNER },
		{ 2, 131071, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 2, 4194304, false, SM_OMPI_AR_BASIC_LINEAR },
		{ 7, 4194304, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 8, 1048576, false, SM_OMPI_AR_NONOVERLAPPING },
		{ 127, 1048576, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 128, 131072, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 255, 524288, false, SM_OMPI_AR_NONOVERLAPPING },
		{ 256, 4096, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
		{ 512, 2047, false, SM_OMPI_AR_NONOVERLAPPING },
		{ 512, 2048, false, SM_OMPI_AR_RECURSIVE_DOUBLING },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum sm_ompi_allreduce a = sm_ompi_allreduce_pick(t[i].ranks, t[i].bytes,
								  t[i].commute);

		if (a != t[i].a)
			fail_msg("%u ranks, %llu B, %s: %s, the rules say %s", t[i].ranks,
				 (unsigned long long)t[i].bytes, t[i].commute ? "sum" : "non-commutative",
				 sm_ompi_allreduce_name(a), sm_ompi_allreduce_name(t[i].a));
	}
	assert_string_equal(sm_ompi_allreduce_name(SM_OMPI_AR_RABENSEIFNER), "rabenseifner");
	assert_string_equal(sm_ompi_allreduce_name((enum sm_ompi_allreduce)0), "?");
}

static void
openmpi(struct sm_params *p, unsigned int d, unsigned int n, double bytes)
{
	sm_params_default(p);
	p->topo.n_dc = d;
	p->topo.per_dc = n;
	p->job.bytes = bytes;
	p->job.library = SM_LIB_OPENMPI;
}

/*
 * Each worker's bytes in every round of the program: sent to and received from the same peer
 * (rank XOR 2^k for the exchanges, the ring's neighbours for the ring), and in all what the
 * algorithm moves: recursive doubling log2 W x B, Rabenseifner and the ring 2 (W - 1) / W x B.
 */
static void
test_ompi_programs(void **state)
{
	static const struct {
		unsigned int d, n;
		double bytes;
		const char *algo;
		unsigned int rounds;
	} t[] = {
		{ 2, 1, 4194304, "rabenseifner", 2 },
		{ 1, 2, 2000, "recursive_doubling", 1 },
		{ 2, 2, 1048576, "rabenseifner", 4 },
		{ 4, 2, 4096, "recursive_doubling", 3 },
		{ 8, 2, 1048576, "rabenseifner", 8 },
		{ 3, 1, 40000, "ring", 4 },
		{ 2, 1, 100000, "segmented_ring", 2 },
	};
	unsigned int i, k, w;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sm_program prog = { 0 };
		struct sm_params p;
		unsigned int nw;
		double sum = 0, want;

		openmpi(&p, t[i].d, t[i].n, t[i].bytes);
		nw = sm_workers(&p);
		assert_string_equal(sm_library_algo(&p), t[i].algo);
		assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
		assert_int_equal(prog.n, t[i].rounds);
		for (k = 0; k < prog.n; k++) {
			const struct sm_round *r = &prog.r[k];

			sum += (double)r->bytes;
			assert_int_equal(r->flows, nw);
			assert_int_equal(r->xfer, k < prog.n / 2 || strcmp(t[i].algo,
					 "recursive_doubling") == 0 ? SM_XFER_REDUCE :
					 SM_XFER_GATHER);
			for (w = 0; w < nw; w++) {
				uint32_t to = sm_round_peer(r, w, 1), from = sm_round_peer(r, w, -1);

				if (strstr(t[i].algo, "ring") != NULL) {
					assert_int_equal(to, (w + 1) % nw);
					assert_int_equal(from, (w + nw - 1) % nw);
				} else {
					assert_int_equal(to, w ^ r->stride);
					assert_int_equal(from, to);
				}
			}
		}
		want = strcmp(t[i].algo, "recursive_doubling") == 0 ?
		       log2(nw) * t[i].bytes : 2.0 * (nw - 1) / nw * t[i].bytes;
		if (fabs(sum - want) > prog.n)	/* a byte of rounding a round */
			fail_msg("%s over %u: %g B a worker, the algorithm moves %g", t[i].algo, nw,
				 sum, want);
		/* Rabenseifner: halving from distance 1 up, then doubling back down */
		if (strcmp(t[i].algo, "rabenseifner") == 0)
			for (k = 0; k < prog.n / 2; k++) {
				assert_int_equal(prog.r[k].stride, 1u << k);
				assert_int_equal(prog.r[prog.n - 1 - k].stride, 1u << k);
				assert_true(prog.r[k].bytes == prog.r[prog.n - 1 - k].bytes);
			}
		sm_program_free(&prog);
	}
}

/*
 * gloo's ring (gloo/allreduce.cc): segments of at most 1 MiB, at least 2 W of them, a multiple of
 * W; each pair of segments after a round of 48-byte ready messages sent back around the ring (to
 * the worker the data comes from).  Each worker sends 2 (W - 1) S / W segments.
 */
static void
test_gloo_programs(void **state)
{
	static const struct {
		unsigned int d, n;
		double bytes;
		unsigned int segs, rounds;	/* segments in all, rounds of the program */
	} t[] = {
		{ 2, 1, 4194304, 4, 4 },	/* 2 of B / 4 a half: one pair each */
		{ 2, 1, 6300000, 8, 8 },	/* 7 rounded up to 8: 4 a half, two pairs */
		{ 2, 1, 16777216, 16, 16 },	/* 1 MiB each, 8 a half */
		{ 3, 1, 40000, 6, 8 },		/* 2 W: 4 a half */
		{ 2, 2, 3000000, 8, 12 },	/* 6 a half, three pairs */
	};
	unsigned int i, k, w;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sm_program prog = { 0 };
		struct sm_params p;
		struct sm_step s;
		unsigned int nw;
		double seg = ceil(t[i].bytes / t[i].segs), data = 0, ready = 0, sum = 0;

		openmpi(&p, t[i].d, t[i].n, t[i].bytes);
		p.job.library = SM_LIB_GLOO;
		p.job.first_bucket = 0;	/* one all-reduce of B: gloo without DDP */
		p.job.bucket_cap = 0;
		nw = sm_workers(&p);
		assert_int_equal(sm_params_check(&p, NULL, 0), 0);
		assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
		assert_int_equal(prog.n, t[i].rounds);
		for (k = 0; k < prog.n; k++) {
			const struct sm_round *r = &prog.r[k];
			bool is_ready = k % 2 == 0;

			if (is_ready) {
				assert_true(r->bytes == 48 || r->bytes == 96);
				ready += (double)r->bytes;
			} else {
				assert_true(r->bytes == (uint64_t)seg || r->bytes == 2 * (uint64_t)seg);
				data += (double)r->bytes;
				/* the ready messages ask for as many segments as follow */
				assert_int_equal(prog.r[k - 1].bytes / 48, r->bytes / (uint64_t)seg);
			}
			for (w = 0; w < nw; w++) {
				uint32_t to = sm_round_peer(r, w, 1), from = sm_round_peer(r, w, -1);

				assert_int_equal(to, is_ready ? (w + nw - 1) % nw : (w + 1) % nw);
				assert_int_equal(from, is_ready ? (w + 1) % nw : (w + nw - 1) % nw);
			}
		}
		assert_true(data == 2.0 * (nw - 1) * t[i].segs / nw * seg);
		assert_true(ready == 48.0 * 2 * (nw - 1) * t[i].segs / nw);
		/* the model charges every round: one term per phase and the compute */
		assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s), 0);
		assert_int_equal(s.n, prog.plan.n + 1);
		for (k = 0; k < s.n; k++)
			sum += s.term[k].t;
		assert_true(fabs(sum - s.total) < 1e-12 * s.total);
		assert_true(s.total - s.t_compute > data / p.wan.bw);
		sm_program_free(&prog);
	}
}

/*
 * DDP's buckets (job.first_bucket, job.bucket_cap, job.tensor_bytes; DDP's defaults 1 MiB and
 * 25 MiB), each a gloo ring of its own, one after another.  The first row is tools/realjob_ddp.py's
 * 4 MiB MLP (4 layers of 512 x 512 + 512 floats, the last one narrower): PyTorch 1.13 reported
 * rebuilt_bucket_sizes=2093040, 2101248 for it.
 */
static void
test_ddp_buckets(void **state)
{
	static const struct {
		double bytes, tensor, first, cap;
		unsigned int n;
		uint64_t size[4];
	} t[] = {
		{ 4194288, 1050624, 1048576, 26214400, 2, { 2093040, 2101248 } },
		{ 4194304, 0, 1048576, 26214400, 2, { 1048576, 3145728 } },
		{ 62914560, 0, 1048576, 26214400, 4, { 1048576, 26214400, 26214400, 9437184 } },
		/* the remainder (2 MiB) alone passes the first bucket's 1 MiB */
		{ 10485760, 4194304, 1048576, 26214400, 2, { 2097152, 8388608 } },
		{ 4194304, 0, 0, 0, 1, { 4194304 } },		/* gloo without DDP */
		{ 4194304, 0, 0, 1048576, 4, { 1048576, 1048576, 1048576, 1048576 } },
	};
	struct sm_program one = { 0 }, ddp = { 0 };
	struct sm_params p;
	struct sm_step s1, s2;
	uint64_t sz[4];
	unsigned int i, k;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sm_job j = { .first_bucket = t[i].first, .bucket_cap = t[i].cap,
				    .tensor_bytes = t[i].tensor };

		assert_int_equal(sm_ddp_buckets(&j, (uint64_t)t[i].bytes, sz, 4), t[i].n);
		for (k = 0; k < t[i].n; k++)
			assert_int_equal(sz[k], t[i].size[k]);
	}

	/*
	 * The 4 MiB MLP over 2 DCs at 5 ms: DDP's 2 buckets are 2 rings of [ready][2 segments]
	 * [ready][2 segments], 8 rounds against gloo's 4 for B at once, the same data (B per
	 * worker), and 4 more phases that each wait a one-way latency at least: 20 ms more a step.
	 */
	openmpi(&p, 2, 1, 4194288);
	p.job.library = SM_LIB_GLOO;
	p.job.tensor_bytes = 1050624;
	p.wan.lat = 0.005;
	assert_int_equal(sm_params_check(&p, NULL, 0), 0);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &ddp), 0);
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s2), 0);
	p.job.first_bucket = 0;
	p.job.bucket_cap = 0;
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &one), 0);
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s1), 0);
	assert_int_equal(one.n, 4);
	assert_int_equal(ddp.n, 8);
	assert_int_equal(ddp.r[1].bytes, 2 * ((2093040 + 3) / 4));	/* bucket 1's first */
	assert_int_equal(ddp.r[5].bytes, 2 * (2101248 / 4));		/* bucket 2's */
	assert_int_equal(ddp.r[0].bytes, 96);
	assert_int_equal(ddp.r[4].bytes, 96);
	assert_true(ddp.r[1].bytes + ddp.r[3].bytes + ddp.r[5].bytes + ddp.r[7].bytes >=
		    4194288);
	assert_true(s2.total - s1.total >= 4 * 0.005 - 1e-9);
	/* each round names its bucket, which the worker's lanes run at once (job.threads) */
	for (k = 0; k < ddp.n; k++)
		assert_int_equal(ddp.plan.ph[ddp.r[k].phase].bucket, k < 4 ? 0 : 1);
	assert_int_equal(ddp.threads, 2);
	assert_int_equal(ddp.lead_ps, 0);
	assert_int_equal(one.plan.ph[one.r[3].phase].bucket, 0);
	sm_program_free(&one);
	sm_program_free(&ddp);
	/* the first bucket job.first_lead x the compute early: a quarter of 40 ms */
	p.job.first_bucket = 1048576;
	p.job.bucket_cap = 26214400;
	p.job.compute = 0.04;
	p.job.first_lead = 0.25;
	p.job.threads = 3;
	assert_int_equal(sm_params_check(&p, NULL, 0), 0);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &ddp), 0);
	assert_int_equal(ddp.lead_ps, 10000000000ull);
	assert_int_equal(ddp.threads, 3);
	sm_program_free(&ddp);
}

/* What a library cannot run is refused with a message naming the key. */
static void
test_library_refused(void **state)
{
	struct sm_params p;
	char err[256];

	openmpi(&p, 3, 1, 4194304);	/* rabenseifner over 3: a non-power-of-two step */
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.library"));
	assert_non_null(strstr(err, "rabenseifner"));
	openmpi(&p, 2, 1, 4194304);
	p.job.operation = SM_OPK_ALLGATHER;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.library"));
	openmpi(&p, 2, 1, 4194304);
	p.job.threads = 0;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.threads"));
	openmpi(&p, 2, 1, 4194304);
	p.job.first_lead = 1;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.first_lead"));
	openmpi(&p, 2, 1, 80e6);	/* gloo: 39 segments a half, 80 phases */
	p.job.library = SM_LIB_GLOO;
	p.job.first_bucket = 0;
	p.job.bucket_cap = 0;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.library: gloo"));
	p.job.bucket_cap = 1;		/* 80e6 buckets of a byte */
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.bucket_cap"));
	p.job.bucket_cap = 0.5;		/* a bucket of no whole byte */
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.bucket_cap"));
	openmpi(&p, 2, 1, 4194304);
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), 0);
}

/* job.compute replaces the FLOP model's compute time, in the model and the program alike. */
static void
test_compute_key(void **state)
{
	struct sm_program prog = { 0 };
	struct sm_params p;
	struct sm_step s0, s1;
	char err[256];

	sm_params_default(&p);
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s0), 0);
	p.job.compute = 0.025;
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s1), 0);
	assert_true(s1.t_compute == 0.025);
	assert_true(fabs(s1.total - s0.total - (0.025 - s0.t_compute)) < 1e-12);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
	assert_int_equal(prog.compute_ps, 25000000000ULL);
	sm_program_free(&prog);
	p.job.compute = -1;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job.compute"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ompi_decision_table),
		cmocka_unit_test(test_ompi_programs),
		cmocka_unit_test(test_gloo_programs),
		cmocka_unit_test(test_ddp_buckets),
		cmocka_unit_test(test_library_refused),
		cmocka_unit_test(test_compute_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
