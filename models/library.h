/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives as the libraries run them: which algorithm a library picks for an operation of
 * B bytes over W ranks, and that algorithm as the phases of a plan (collective.h), so that the
 * fluid form, the packet closed form and the data plane's workers all run it.
 */
#ifndef SM_LIBRARY_H
#define SM_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

#include "collective.h"
#include "params.h"

/** Open MPI 4.1 coll_tuned's all-reduce algorithms, numbered as its MCA parameter numbers them. */
enum sm_ompi_allreduce {
	SM_OMPI_AR_BASIC_LINEAR = 1,	/**< reduce to rank 0, then broadcast */
	SM_OMPI_AR_NONOVERLAPPING,	/**< reduce, then broadcast (coll base's trees) */
	SM_OMPI_AR_RECURSIVE_DOUBLING,	/**< log2 W exchanges of B with rank XOR 2^k */
	SM_OMPI_AR_RING,		/**< ring reduce-scatter and all-gather of B / W */
	SM_OMPI_AR_SEGMENTED_RING,	/**< the ring, pipelined in segments */
	SM_OMPI_AR_RABENSEIFNER,	/**< recursive halving reduce-scatter, doubling all-gather */
};

/**
 * ompi_coll_tuned_allreduce_intra_dec_fixed() of Open MPI 4.1 (v4.1.4 to v4.1.6 identical): the
 * algorithm for @p ranks ranks and @p bytes bytes in all (count x type size), for a commutative
 * operation (a sum) or not.
 */
enum sm_ompi_allreduce sm_ompi_allreduce_pick(unsigned int ranks, uint64_t bytes,
					      bool commutative);

/** Open MPI's name of the algorithm ("basic_linear", ..., "rabenseifner"). */
const char *sm_ompi_allreduce_name(enum sm_ompi_allreduce a);

/** The library's name as the key takes it ("ideal", "openmpi", "gloo"). */
const char *sm_library_name(enum sm_library l);

/**
 * The algorithm variant A's all-reduce runs under @p p's job.library, in the words of the library
 * (for the ideal collective: job.collective's, sm_algo_name()).
 */
const char *sm_library_algo(const struct sm_params *p);

/**
 * Whether @p p's job.library can run variant A's operation: 0; -ENOTSUP with a reason naming the
 * key when the library's algorithm for it has no round program (an Open MPI algorithm's
 * non-power-of-two step, an operation other than all-reduce, more phases than a plan holds).
 */
int sm_library_check(const struct sm_params *p, char *err, unsigned long errlen);

/**
 * Add the phases of the all-reduce of @p b bytes per worker that @p p's library runs to @p plan.
 * Only for a library other than ideal that sm_library_check() accepts.
 */
/**
 * DDP's gradient buckets of a gradient of @p b bytes under @p j's first_bucket, bucket_cap and
 * tensor_bytes, in the order backward fills and all-reduces them: their number, and the sizes of
 * the first @p max in @p sizes (may be NULL).  At most @p max + 1 are counted.
 */
unsigned int sm_ddp_buckets(const struct sm_job *j, uint64_t b, uint64_t *sizes, unsigned int max);

void sm_library_allreduce(const struct sm_params *p, double b, struct sm_plan *plan);

#endif /* SM_LIBRARY_H */
