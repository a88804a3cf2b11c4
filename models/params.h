/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parameters of the analytic model of "Training Transit, Simulated".
 *
 * One plain struct holds every number the closed forms use.  Defaults reproduce the deck: 2 DC x 4
 * H100 workers, InfiniBand NDR inside a data centre, the 100 GbE preset between data centres, the
 * deck-04 TinyStories job (P = 15,833,472), and the photonic module with 8 bit planes.  Every field
 * can be overridden from a scenario file (control/scenario.c holds the table of keys).
 *
 * Units are SI throughout: bytes, seconds, bytes per second, FLOP, FLOP per second, watts, joules.
 * Status of each value (stated in a source, stated by the deck, or fitted to the deck's numbers) is
 * given beside its default in presets.c and in ../README.md.
 */
#ifndef SM_PARAMS_H
#define SM_PARAMS_H

#include <stdbool.h>

/** The six variants of the deck (section "Six Variants and Their Wire Bytes"). */
enum sm_variant {
	SM_VAR_A,	/**< AdamW, dense BF16 gradient, all-reduce */
	SM_VAR_B,	/**< top-k (k16), values and indices, all-gather */
	SM_VAR_C,	/**< exact fixed band computed on the GPU, all-gather */
	SM_VAR_E,	/**< band through the optical module in the worker's port ("pluggable") */
	SM_VAR_CP,	/**< C': band summed in the network (all-reduce of the band) */
	SM_VAR_EP,	/**< E': dense gradient through a module in the network, band summed */
	SM_VAR_COUNT
};

/** The module's compute budget settings of the deck. */
enum sm_budget {
	SM_BUDGET_LOW,	/**< transform charged at the low budget (10 GFLOP/s) */
	SM_BUDGET_HIGH,	/**< transform charged at the high budget (99 GFLOP/s) */
	SM_BUDGET_FREE,	/**< transform not charged */
	SM_BUDGET_COUNT
};

/** Operation types of the link kernel (deck: "The Module as a Link Kernel"). */
enum sm_op {
	SM_OP_FFT,	/**< transform butterflies, counted as FLOP */
	SM_OP_ADD,
	SM_OP_MUL,
	SM_OP_MAC,
	SM_OP_FPMAC,	/**< floating-point multiply-accumulate */
	SM_OP_MOD,	/**< modular arithmetic */
	SM_OP_GATHER,
	SM_OP_COUNT
};

/** Where a module sits. */
enum sm_placement {
	SM_PLACE_PORT,		/**< in the worker's port (a QSFP56 pluggable): variant E */
	SM_PLACE_NETWORK,	/**< in the network path, dense bytes cross a link to it: variant E' */
};

/** How the data centres' WAN links connect them. */
enum sm_wan_shape {
	SM_WAN_RING,	/**< a link from each DC to the next; farther DCs are reached around it */
	SM_WAN_MESH,	/**< a link for each ordered pair of DCs */
	SM_WAN_STAR,	/**< a link each way between each DC and a core switch; each half of the
			 *   WAN latency, so a path across DCs keeps it */
	SM_WAN_SHAPE_COUNT
};

/** The algorithm of the job's collectives. */
enum sm_algo {
	SM_ALGO_AUTO,	/**< hierarchical when D > 1 and N > 1, else a flat ring: the deck's */
	SM_ALGO_RING,	/**< a flat ring over all D x N workers */
	SM_ALGO_HIER,	/**< a ring inside each DC, then rings of DC peers across DCs */
	SM_ALGO_DIRECT,	/**< a ring inside each DC, then each shard straight to each DC peer */
	SM_ALGO_TREE,	/**< all-reduce as a double binary tree over all D x N workers */
	SM_ALGO_COUNT
};

/** How a direct collective sends a DC's shards to the D - 1 other DCs. */
enum sm_direct {
	SM_DIRECT_AUTO,		/**< concurrent on a mesh WAN (a link per DC pair), else rounds */
	SM_DIRECT_CONCURRENT,	/**< to every DC peer at once, as a library posts its sends */
	SM_DIRECT_ROUNDS,	/**< D - 1 rounds, round k to the peer k DCs on */
	SM_DIRECT_COUNT
};

/** What variant A (the dense job) runs on its gradient of B bytes. */
enum sm_opkind {
	SM_OPK_ALLREDUCE,	/**< B in, B out: the deck's */
	SM_OPK_ALLGATHER,	/**< B / W in from each worker, B out */
	SM_OPK_REDUCESCATTER,	/**< B in, B / W of the sum out */
	SM_OPK_ALLTOALL,	/**< B in, B / W to each worker: pairwise exchange */
	SM_OPK_COUNT
};

/** Whose implementation of the collective the job runs. */
enum sm_library {
	SM_LIB_IDEAL,	/**< the plan's ideal collective (job.collective): the deck's */
	SM_LIB_OPENMPI,	/**< Open MPI 4.1 coll_tuned's fixed decision and its algorithms */
	SM_LIB_GLOO,	/**< gloo's ring all-reduce with its chunks and ready messages */
	SM_LIB_COUNT
};

/** A link preset (disagg-sim hardware.py LINKS). */
struct sm_link {
	double bw;		/**< bytes per second, one direction */
	double lat;		/**< seconds per traversal */
	double pj_per_bit;	/**< transfer energy */
};

/** The worker's accelerator (disagg-sim H100_SXM). */
struct sm_gpu {
	double peak_flops;	/**< dense BF16 FLOP/s */
	double mfu;		/**< model FLOP utilisation */
	double static_w;	/**< static (idle) power, W, charged for the whole step */
	double pj_per_flop;	/**< dynamic energy per FLOP */
};

/** The training job of deck 04 (tinystories-gpu). */
struct sm_job {
	double params;		/**< P, parameters */
	double tokens;		/**< tokens per worker per step */
	double flops_per_param_token; /**< 6 (forward + backward) */
	double value_bytes;	/**< bytes per transmitted value (BF16: 2) */
	double index_bytes;	/**< bytes per top-k index */
	double keep;		/**< fraction of values kept by top-k and the band (1/16) */
	double topk_kept;	/**< values top-k keeps per worker; 0 = keep x P.  The
				 *   experiment's per-chunk selection kept 989,490 */
	double band_chunk;	/**< points of the band's 1-D transform (256) */
	double topk_chunk;	/**< points of top-k's 2-D chunk (64 x 64 = 4096) */
	double bytes;		/**< the dense gradient's bytes; 0 = value_bytes x P */
	enum sm_algo collective;	/**< every variant's all-reduce and all-gather */
	enum sm_direct direct;		/**< how job.collective = direct crosses the WAN */
	enum sm_opkind operation;	/**< what variant A runs */
	enum sm_library library;	/**< whose algorithm variant A's collective runs */
	double compute;		/**< compute time per step, s; 0 = the FLOP model's */
	double first_bucket;	/**< gloo: DDP's first bucket closes at this; 0 = none */
	double bucket_cap;	/**< gloo: DDP's later buckets close at this; 0 = no cap */
	double tensor_bytes;	/**< gloo: the tensors DDP buckets whole; 0 = any byte */
	unsigned int threads;	/**< gloo: buckets' all-reduces run at once (ProcessGroupGloo) */
	double first_lead;	/**< gloo: share of the compute after DDP's first bucket is ready */
};

/** The module as a link kernel with four pipelined stages. */
struct sm_module {
	double ops_per_byte[SM_OP_COUNT]; /**< work per input byte, by type */
	unsigned int compute_ops;	/**< ops charged to the compute budget (1u << op); the
					 *   others run on the FPGA stage */
	double lanes;			/**< optical lanes (4) */
	double lane_rate;		/**< bit/s per lane (14e9 NRZ) */
	double planes;			/**< bit planes = optical passes per value (8) */
	double budget[SM_BUDGET_COUNT];	/**< FLOP/s; [free] is not charged */
	double fpga_rate;		/**< ops/s of the FPGA stage (illustrative) */
	double port_bw;			/**< module port, B/s (QSFP56: 25e9) */
	double host_port_bw;		/**< host port it sits in, B/s (50e9) */
	double latency_port;		/**< latency of a pluggable, s (0: fitted) */
	double latency_network;		/**< latency of a module in the network, s (10 us: fitted) */
	double static_w;		/**< static power, W (9.7) */
	double laser_w;			/**< laser power, W (2, illustrative) */
	double pj_per_bit;		/**< dynamic energy over bytes processed (2.76) */
};

#define SM_TABLE_MAX 8

/** A measured step function: steps to target against a knob (ENOB, bit planes). */
struct sm_steps_table {
	unsigned int n;
	double key[SM_TABLE_MAX];	/**< knob value, ascending */
	double steps[SM_TABLE_MAX];	/**< steps to target; 0 = never reaches it */
};

/** Topology: D data centres of N workers; one worker per H100. */
struct sm_topology {
	unsigned int n_dc;		/**< data centres */
	unsigned int per_dc;		/**< workers per data centre */
	enum sm_wan_shape wan;		/**< how the WAN links connect the DCs */
};

/** Everything the closed forms need. */
struct sm_params {
	struct sm_topology topo;
	struct sm_link intra;		/**< link inside a data centre (ib-ndr) */
	struct sm_link wan;		/**< link between data centres (the WAN preset) */
	struct sm_gpu gpu;
	struct sm_job job;
	struct sm_module mod;
	double steps[SM_VAR_COUNT];	/**< steps to target loss, per variant */
	double steps_c_mean;		/**< C's unrounded 3-seed mean (2,666.7) */
	struct sm_steps_table enob;	/**< E's steps against ENOB (8 planes) */
	struct sm_steps_table planes;	/**< E's steps against bit planes (ENOB 8) */
	double enob_used;		/**< the ENOB the run assumes (8) */
	double target_loss;		/**< the loss the steps refer to (3.158) */
	double be_bw_lo, be_bw_hi;	/**< break-even search range, B/s */
	double be_budget_lo, be_budget_hi; /**< FLOP/s */
	double be_rtol;			/**< bisection relative tolerance (1e-4) */
};

/** Fill @p p with the deck's defaults (2 DC x 4, 100 GbE WAN). */
void sm_params_default(struct sm_params *p);

/**
 * Check every field for range and consistency.
 *
 * @param p      the parameters
 * @param err    buffer for a message that names the field, or NULL
 * @param errlen its size
 * @return 0, or -EINVAL with a message
 */
int sm_params_check(const struct sm_params *p, char *err, unsigned long errlen);

/** Workers in the topology. */
static inline unsigned int
sm_workers(const struct sm_params *p)
{
	return p->topo.n_dc * p->topo.per_dc;
}

#endif /* SM_PARAMS_H */
