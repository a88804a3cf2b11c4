/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open MPI 4.1's all-reduce as coll_tuned's fixed decision picks it and coll_base runs it
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, ompi/mca/coll/base/coll_base_allreduce.c).
 *
 * A gradient sum is commutative, so of the six algorithms the rules pick ring, segmented ring,
 * recursive doubling and Rabenseifner.  The fixed decision passes a segment size of 0, under which
 * the segmented ring runs the plain ring (its count is below ranks x segment count).  With W a
 * power of two, recursive doubling is log2 W exchanges of B with rank XOR 2^k (k from 0), and
 * Rabenseifner a reduce-scatter by recursive halving (B / 2, B / 4, ... B / W with rank XOR 2^k,
 * k from 0) then an all-gather by recursive doubling (B / W ... B / 2, k from log2 W - 1 down):
 * an exchange with rank XOR 2^k is a ring of 2 ranks 2^k apart.  Their non-power-of-two first and
 * last steps (the extra ranks fold into their neighbours, one way) have no ring round.
 *
 * gloo's ring all-reduce (gloo/allreduce.cc, ring()): B in S = W x ceil(max(ceil(B / 1 MiB),
 * 2 W) / W) segments of ceil(B / S) bytes, a reduce-scatter and an all-gather of (W - 1) S / W
 * segments each, two segments in flight.  Its TCP pair sends a segment only once the receiver
 * has posted the receive and said so (a 48-byte NOTIFY_RECV_READY preamble), so each pair of
 * segments is a round of ready messages back around the ring, then a round of the two segments.
 *
 * PyTorch's DistributedDataParallel all-reduces the gradient in buckets (torch/nn/parallel/
 * distributed.py, reducer.cpp): whole tensors in reverse order of the parameters, the first bucket
 * closed at 1 MiB (dist._DEFAULT_FIRST_BUCKET_BYTES), the others at bucket_cap_mb (25 MiB);
 * ProcessGroupGloo runs each bucket as a gloo all-reduce of its own, on one of its threads.  The
 * plan holds the buckets' rings one after another, each phase naming its bucket (sm_phase.bucket):
 * over TCP the worker runs up to job.threads of them at once (dataplane/worker_lanes.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "library.h"
#include "variant.h"

enum sm_ompi_allreduce
sm_ompi_allreduce_pick(unsigned int ranks, uint64_t bytes, bool commutative)
{
	uint64_t b = bytes;
	unsigned int n = ranks;

	if (!commutative) {
		if (n < 4)
			return b < 131072 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_BASIC_LINEAR;
		if (n < 8)
			return SM_OMPI_AR_RECURSIVE_DOUBLING;
		if (n < 16)
			return b < 1048576 ? SM_OMPI_AR_RECURSIVE_DOUBLING :
					     SM_OMPI_AR_NONOVERLAPPING;
		if (n < 128)
			return SM_OMPI_AR_RECURSIVE_DOUBLING;
		if (n < 256)
			return b < 131072 ? SM_OMPI_AR_NONOVERLAPPING :
			       b < 524288 ? SM_OMPI_AR_RECURSIVE_DOUBLING :
					    SM_OMPI_AR_NONOVERLAPPING;
		if (n < 512)
			return b < 4096 ? SM_OMPI_AR_NONOVERLAPPING :
			       b < 524288 ? SM_OMPI_AR_RECURSIVE_DOUBLING :
					    SM_OMPI_AR_NONOVERLAPPING;
		return b < 2048 ? SM_OMPI_AR_NONOVERLAPPING : SM_OMPI_AR_RECURSIVE_DOUBLING;
	}
	if (n < 4)
		return b < 8 ? SM_OMPI_AR_RING :
		       b < 4096 ? SM_OMPI_AR_RECURSIVE_DOUBLING :
		       b < 8192 ? SM_OMPI_AR_RING :
		       b < 16384 ? SM_OMPI_AR_RECURSIVE_DOUBLING :
		       b < 65536 ? SM_OMPI_AR_RING :
		       b < 262144 ? SM_OMPI_AR_SEGMENTED_RING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 8)
		return b < 16 ? SM_OMPI_AR_RING :
		       b < 8192 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 16)
		return b < 8192 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 32)
		return b < 64 ? SM_OMPI_AR_SEGMENTED_RING :
		       b < 4096 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 64)
		return b < 128 ? SM_OMPI_AR_SEGMENTED_RING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 128)
		return b < 262144 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 256)
		return b < 131072 ? SM_OMPI_AR_NONOVERLAPPING :
		       b < 262144 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 512)
		return b < 4096 ? SM_OMPI_AR_NONOVERLAPPING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 2048)
		return b < 2048 ? SM_OMPI_AR_NONOVERLAPPING :
		       b < 16384 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	if (n < 4096)
		return b < 2048 ? SM_OMPI_AR_NONOVERLAPPING :
		       b < 4096 ? SM_OMPI_AR_SEGMENTED_RING :
		       b < 16384 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
	return b < 2048 ? SM_OMPI_AR_NONOVERLAPPING :
	       b < 16384 ? SM_OMPI_AR_SEGMENTED_RING :
	       b < 32768 ? SM_OMPI_AR_RECURSIVE_DOUBLING : SM_OMPI_AR_RABENSEIFNER;
}

const char *
sm_ompi_allreduce_name(enum sm_ompi_allreduce a)
{
	static const char *const names[] = {
		[SM_OMPI_AR_BASIC_LINEAR] = "basic_linear",
		[SM_OMPI_AR_NONOVERLAPPING] = "nonoverlapping",
		[SM_OMPI_AR_RECURSIVE_DOUBLING] = "recursive_doubling",
		[SM_OMPI_AR_RING] = "ring",
		[SM_OMPI_AR_SEGMENTED_RING] = "segmented_ring",
		[SM_OMPI_AR_RABENSEIFNER] = "rabenseifner",
	};

	if ((unsigned int)a >= sizeof(names) / sizeof(names[0]) || names[a] == NULL)
		return "?";
	return names[a];
}

const char *
sm_library_name(enum sm_library l)
{
	switch (l) {
	case SM_LIB_IDEAL:
		return "ideal";
	case SM_LIB_OPENMPI:
		return "openmpi";
	case SM_LIB_GLOO:
		return "gloo";
	default:
		return "?";
	}
}

/* The all-reduce's bytes as the library counts them: variant A's dense gradient. */
static uint64_t
ar_bytes(const struct sm_params *p)
{
	double b = sm_payload(p, SM_VAR_A);

	return b >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(b + 0.5);
}

/* gloo: the segments' bound (AllreduceOptions::kMaxSegmentSize) and a ready message. */
#define GLOO_SEGMENT_MAX (1u << 20)
#define GLOO_READY_BYTES 48u

/* gloo's segments: @nseg of @seg bytes, @per to each rank. */
static void
gloo_segments(uint64_t b, unsigned int w, uint64_t *nseg, uint64_t *seg, uint64_t *per)
{
	uint64_t s = (b + GLOO_SEGMENT_MAX - 1) / GLOO_SEGMENT_MAX;

	if (s < 2ull * w)
		s = 2ull * w;
	s = (s + w - 1) / w * w;
	*nseg = s;
	*seg = (b + s - 1) / s;
	*per = s / w;
}

/* Phases of gloo's ring of one bucket: 2 per pair of segments, in each half. */
static uint64_t
gloo_phases_one(uint64_t b, unsigned int w)
{
	uint64_t nseg, seg, per;

	gloo_segments(b, w, &nseg, &seg, &per);
	return 2 * 2 * (((w - 1) * per + 1) / 2);
}

/*
 * The next bucket of the @rest bytes not yet bucketed, as DDP fills it: tensors of @tensor bytes
 * (0: any byte), the gradient's remainder (rest mod tensor) being the first tensor taken, until
 * the bucket holds @cap bytes (0: no cap).
 */
static uint64_t
ddp_bucket(uint64_t rest, uint64_t cap, uint64_t tensor)
{
	uint64_t first, n;

	if (cap == 0 || cap >= rest)
		return rest;
	if (tensor == 0)
		return cap;
	first = rest % tensor;
	if (first >= cap)
		return first;
	n = (cap - first + tensor - 1) / tensor;
	return first + n * tensor < rest ? first + n * tensor : rest;
}

unsigned int
sm_ddp_buckets(const struct sm_job *j, uint64_t b, uint64_t *sizes, unsigned int max)
{
	unsigned int n = 0;
	uint64_t rest = b, t, cap;

	while (rest > 0 && n <= max) {
		cap = n == 0 && j->first_bucket > 0 ? (uint64_t)j->first_bucket :
						      (uint64_t)j->bucket_cap;
		t = ddp_bucket(rest, cap, (uint64_t)j->tensor_bytes);
		if (sizes != NULL && n < max)
			sizes[n] = t;
		n++;
		rest -= t;
	}
	return n;
}

/* Phases of gloo's rings over DDP's buckets, one bucket after another (UINT64_MAX: too many). */
static uint64_t
gloo_phases(const struct sm_params *p, uint64_t b, unsigned int w)
{
	uint64_t sz[SM_PHASES_MAX], ph = 0;
	unsigned int n = sm_ddp_buckets(&p->job, b, sz, SM_PHASES_MAX), i;

	if (n > SM_PHASES_MAX)
		return UINT64_MAX;
	for (i = 0; i < n; i++)
		ph += gloo_phases_one(sz[i], w);
	return ph;
}

static enum sm_ompi_allreduce
ompi_pick(const struct sm_params *p)
{
	return sm_ompi_allreduce_pick(sm_workers(p), ar_bytes(p), true);
}

const char *
sm_library_algo(const struct sm_params *p)
{
	if (p->job.library == SM_LIB_OPENMPI && p->job.operation == SM_OPK_ALLREDUCE)
		return sm_ompi_allreduce_name(ompi_pick(p));
	if (p->job.library == SM_LIB_GLOO && p->job.operation == SM_OPK_ALLREDUCE)
		return "ring (segmented, ready messages)";
	if (p->job.library == SM_LIB_IDEAL || p->job.operation != SM_OPK_ALLREDUCE)
		return sm_algo_name(sm_plan_algo(p));
	return "?";
}

static unsigned int
log2_exact(unsigned int w)
{
	unsigned int k = 0;

	while ((1u << k) < w)
		k++;
	return (1u << k) == w ? k : UINT32_MAX;
}

int
sm_library_check(const struct sm_params *p, char *err, unsigned long errlen)
{
	unsigned int w = sm_workers(p), k = log2_exact(w), nb;
	enum sm_ompi_allreduce a;

	if (p->job.library == SM_LIB_IDEAL)
		return 0;
	if (p->job.operation != SM_OPK_ALLREDUCE) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "job.library: %s is modelled for job.operation = "
				 "allreduce only, not %s", sm_library_name(p->job.library),
				 sm_opkind_name(p->job.operation));
		return -ENOTSUP;
	}
	if (p->job.library == SM_LIB_GLOO) {
		if (w < 2 || gloo_phases(p, ar_bytes(p), w) <= SM_PHASES_MAX)
			return 0;
		nb = sm_ddp_buckets(&p->job, ar_bytes(p), NULL, SM_PHASES_MAX);
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "job.library: gloo's rings over %u ranks send %llu B "
				 "in %s%u bucket%s (job.first_bucket, job.bucket_cap) and more "
				 "than %u rounds of ready messages and segments; syncemu runs up "
				 "to %u",
				 w, (unsigned long long)ar_bytes(p),
				 nb > SM_PHASES_MAX ? "more than " : "",
				 nb > SM_PHASES_MAX ? SM_PHASES_MAX : nb, nb == 1 ? "" : "s",
				 SM_PHASES_MAX, SM_PHASES_MAX);
		return -ENOTSUP;
	}
	a = ompi_pick(p);
	if (a == SM_OMPI_AR_RING || a == SM_OMPI_AR_SEGMENTED_RING || w < 2)
		return 0;
	if ((a == SM_OMPI_AR_RECURSIVE_DOUBLING && k <= SM_PHASES_MAX) ||
	    (a == SM_OMPI_AR_RABENSEIFNER && 2 * k <= SM_PHASES_MAX))
		return 0;
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "job.library: openmpi picks %s for %u ranks and %llu bytes; "
			 "syncemu runs it for a power-of-two number of ranks only",
			 sm_ompi_allreduce_name(a), w, (unsigned long long)ar_bytes(p));
	return -ENOTSUP;
}

/* One half of gloo's ring: @n segments of @seg bytes, two at a time, each pair after its ready
 * messages. */
static void
gloo_half(struct sm_plan *plan, enum sm_hop hop, unsigned int w, uint64_t n, double seg,
	  enum sm_xfer xfer, const char *what)
{
	struct sm_phase *ph;
	uint64_t i, k;

	for (i = 0; i < n; i += k) {
		k = n - i < 2 ? n - i : 2;
		ph = sm_plan_add(plan, "gloo ready messages", hop, SM_XFER_GATHER, 1,
				 (double)(k * GLOO_READY_BYTES), w, 1);
		if (ph != NULL)
			ph->back = true;
		sm_plan_add(plan, what, hop, xfer, 1, (double)k * seg, w, 1);
	}
}

static void
gloo_ring(const struct sm_params *p, double b, enum sm_hop hop, struct sm_plan *plan)
{
	unsigned int w = sm_workers(p);
	uint64_t nseg, seg, per;

	if (w < 2)
		return;
	gloo_segments((uint64_t)ceil(b), w, &nseg, &seg, &per);
	gloo_half(plan, hop, w, (w - 1) * per, (double)seg, SM_XFER_REDUCE,
		  "gloo ring reduce-scatter");
	gloo_half(plan, hop, w, (w - 1) * per, (double)seg, SM_XFER_GATHER,
		  "gloo ring all-gather");
}

void
sm_library_allreduce(const struct sm_params *p, double b, struct sm_plan *plan)
{
	unsigned int w = sm_workers(p), k, n = log2_exact(w);
	enum sm_hop hop = p->topo.n_dc > 1 ? SM_HOP_WAN : SM_HOP_INTRA;
	double part;

	if (sm_library_check(p, NULL, 0) != 0)
		return;
	if (p->job.library == SM_LIB_GLOO) {
		uint64_t sz[SM_PHASES_MAX];
		unsigned int nb = sm_ddp_buckets(&p->job, (uint64_t)ceil(b), sz, SM_PHASES_MAX), i;

		for (i = 0; i < nb && i < SM_PHASES_MAX; i++) {
			unsigned int from = plan->n, j;

			gloo_ring(p, (double)sz[i], hop, plan);
			for (j = from; j < plan->n; j++)
				plan->ph[j].bucket = (uint8_t)i;
		}
		return;
	}
	switch (ompi_pick(p)) {
	case SM_OMPI_AR_RECURSIVE_DOUBLING:
		for (k = 0; k < n; k++)
			sm_plan_add(plan, "recursive doubling exchange", hop, SM_XFER_REDUCE, 1, b,
				    2, 1u << k);
		break;
	case SM_OMPI_AR_RABENSEIFNER:
		for (k = 0, part = b / 2; k < n; k++, part /= 2)
			sm_plan_add(plan, "rabenseifner reduce-scatter (halving)", hop,
				    SM_XFER_REDUCE, 1, part, 2, 1u << k);
		for (k = n, part = b / w; k-- > 0; part *= 2)
			sm_plan_add(plan, "rabenseifner all-gather (doubling)", hop,
				    SM_XFER_GATHER, 1, part, 2, 1u << k);
		break;
	default:	/* ring; the segmented ring with the fixed decision's segment size 0 */
		sm_plan_add(plan, "ring reduce-scatter", hop, SM_XFER_REDUCE, w - 1, b / w, w, 1);
		sm_plan_add(plan, "ring all-gather", hop, SM_XFER_GATHER, w - 1, b / w, w, 1);
		break;
	}
}
