/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: the table of keys and everything that reads it.
 *
 * keys[] has one row per key: section, name, type, unit, offset, range, help.  Loading looks
 * names up in it (with suggestions for a misspelt one) and parses each value by the kind of its
 * key (scenario_values.c); sc_scenario_keys() (the --help listing) and sc_scenario_dump() walk
 * it in order.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>

#include "scenario_impl.h"
#include "../models/kernel.h"
#include "../models/presets.h"
#include "../models/variant.h"

#define NOLIM INFINITY

/** The sections, in file and dump order. */
static const struct {
	const char *name;
	const char *help;
} sections[] = {
	{ "scenario", "what this scenario is" },
	{ "topology", "D data centres of N workers, one worker per GPU" },
	{ "intra", "the link inside a data centre" },
	{ "wan", "the link between data centres" },
	{ "gpu", "the worker's accelerator" },
	{ "job", "the training job" },
	{ "transport", "TCP as job.transport = tcp runs it: one connection per pair of ranks" },
	{ "module", "the optical module as a link kernel" },
	{ "steps", "steps to the target loss, per variant, and the measured tables" },
	{ "breakeven", "search ranges of the break-even bisections" },
	{ "report", "what to report" },
	{ "run", "how the data plane runs the scenario: steps, seed and frames" },
	{ "queues", "queue limits of the data plane's links (frame bytes) and the sync's drops" },
	{ "background", "background transfers that share the WAN with the sync" },
	{ "trace", "what the data plane writes to its pcapng trace" },
	{ "ports", "real time: the data centres run here and the DPDK ports of their WAN links" },
	{ "bridge", "syncemu bridge: two ports joined through the emulated WAN" },
	{ "impair", "what links do to frames besides their rate, latency and queue: loss, "
	  "jitter, duplicates and corruption in tc-netem's words, RED and ECN marking in "
	  "tc-red's, a capacity from a Mahimahi trace" },
};
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

/* [run] frame_payload: the MTU less the IP, UDP and syncemu headers, at the largest MTU */
#define PAYLOAD_MAX (SM_MTU_MAX - SM_IP_HDR - SM_UDP_HDR - SM_SE_HDR)
/* [trace] snaplen: the largest a pcapng interface takes (TR_PCAPNG_SNAPLEN_MAX) */
#define SNAPLEN_MAX 262144

static const struct sc_key_name account_names[] = {
	{ "payload", SM_ACCOUNT_PAYLOAD },
	{ "wire", SM_ACCOUNT_WIRE },
	{ NULL, 0 },
};

static const struct sc_key_name sync_names[] = {
	{ "phase", SM_SYNC_PHASE },
	{ "step", SM_SYNC_STEP },
	{ "none", SM_SYNC_NONE },
	{ NULL, 0 },
};

static const struct sc_key_name clock_names[] = {
	{ "virtual", SC_CLOCK_VIRTUAL },
	{ "real", SC_CLOCK_REAL },
	{ NULL, 0 },
};

static const struct sc_key_name fast_forward_names[] = {
	{ "exact", SC_FF_EXACT },
	{ "off", SC_FF_OFF },
	{ "steady", SC_FF_STEADY },
	{ NULL, 0 },
};

static const struct sc_key_name time_source_names[] = {
	{ "monotonic_raw", SC_TIME_MONOTONIC_RAW },
	{ "realtime", SC_TIME_REALTIME },
	{ NULL, 0 },
};

static const struct sc_key_name yes_no_names[] = {
	{ "yes", 1 },
	{ "no", 0 },
	{ NULL, 0 },
};

static const struct sc_key_name size_names[] = {
	{ "fixed", SC_SIZES_FIXED },
	{ "exponential", SC_SIZES_EXP },
	{ "empirical", SC_SIZES_EMPIRICAL },
	{ NULL, 0 },
};

static const struct sc_key_name wan_shape_names[] = {
	{ "ring", SM_WAN_RING },
	{ "mesh", SM_WAN_MESH },
	{ "star", SM_WAN_STAR },
	{ NULL, 0 },
};

static const struct sc_key_name algo_names[] = {
	{ "auto", SM_ALGO_AUTO },
	{ "ring", SM_ALGO_RING },
	{ "hierarchical", SM_ALGO_HIER },
	{ "direct", SM_ALGO_DIRECT },
	{ "tree", SM_ALGO_TREE },
	{ NULL, 0 },
};

static const struct sc_key_name direct_names[] = {
	{ "auto", SM_DIRECT_AUTO },
	{ "concurrent", SM_DIRECT_CONCURRENT },
	{ "rounds", SM_DIRECT_ROUNDS },
	{ NULL, 0 },
};

static const struct sc_key_name transport_names[] = {
	{ "frames", SM_TRANSPORT_FRAMES },
	{ "tcp", SM_TRANSPORT_TCP },
	{ NULL, 0 },
};

static const struct sc_key_name proto_names[] = {
	{ "plain", SM_PROTO_PLAIN },
	{ "openmpi", SM_PROTO_OPENMPI },
	{ "gloo", SM_PROTO_GLOO },
	{ NULL, 0 },
};

static const struct sc_key_name cc_names[] = {
	{ "cubic", SM_CC_CUBIC },
	{ "reno", SM_CC_RENO },
	{ NULL, 0 },
};

static const struct sc_key_name opkind_names[] = {
	{ "allreduce", SM_OPK_ALLREDUCE },
	{ "allgather", SM_OPK_ALLGATHER },
	{ "reducescatter", SM_OPK_REDUCESCATTER },
	{ "alltoall", SM_OPK_ALLTOALL },
	{ NULL, 0 },
};

static const struct sc_key_name library_names[] = {
	{ "ideal", SM_LIB_IDEAL },
	{ "openmpi", SM_LIB_OPENMPI },
	{ "gloo", SM_LIB_GLOO },
	{ NULL, 0 },
};

static const struct sc_key_name bg_transport_names[] = {
	{ "open", SC_BG_OPEN },
	{ "tcp", SC_BG_TCP },
	{ NULL, 0 },
};

static const struct sc_key_name direction_names[] = {
	{ "all", SC_DIRECTIONS_ALL },
	{ "one", SC_DIRECTIONS_ONE },
	{ NULL, 0 },
};

/* The kinds of capture point of dataplane/capture.h (dp_capture_parse() reads the list). */
static const struct sc_key_name capture_names[] = {
	{ "tx", 0 },
	{ "rx", 0 },
	{ "nic", 0 },
	{ "switch", 0 },
	{ "wan", 0 },
	{ "module", 0 },
	{ "port", 0 },
	{ "bg", 0 },
	{ "eth", 0 },
	{ "all", SC_NAME_ALONE },
	{ "none", SC_NAME_ALONE },
	{ NULL, 0 },
};

#define OFF(f) offsetof(struct sc_scenario, f)
#define FSIZE(f) sizeof(((struct sc_scenario *)0)->f)
/* sizeof the field, which must be @p n bytes: the width the key's type writes. */
#define WIDTH(f, n) \
	(FSIZE(f) + 0 * sizeof(struct { char c; \
		_Static_assert(FSIZE(f) == (n), "scenario field " #f " is not " #n " bytes"); }))
#define STR(sec, key, f, fl, doc) \
	{ .section = sec, .name = key, .type = KT_STR, .unit = SC_UNIT_NUMBER, .off = OFF(f), \
	  .size = FSIZE(f), .flags = fl, .help = doc }
#define UINT(sec, key, f, unit_, lo, hi, doc) \
	{ .section = sec, .name = key, .type = KT_UINT, .unit = unit_, .off = OFF(f), \
	  .size = WIDTH(f, sizeof(uint32_t)), .min = lo, .max = hi, .help = doc }
#define UINTF(sec, key, f, unit_, lo, hi, fl, doc) \
	{ .section = sec, .name = key, .type = KT_UINT, .unit = unit_, .off = OFF(f), \
	  .size = WIDTH(f, sizeof(uint32_t)), .min = lo, .max = hi, .flags = fl, .help = doc }
#define U64(sec, key, f, doc) \
	{ .section = sec, .name = key, .type = KT_U64, .unit = SC_UNIT_COUNT, .off = OFF(f), \
	  .size = WIDTH(f, sizeof(uint64_t)), .help = doc }
#define DBLA(sec, key, alias_, f, unit_, lo, hi, fl, doc) \
	{ .section = sec, .name = key, .alias = alias_, .type = KT_DBL, .unit = unit_, \
	  .off = OFF(f), .size = WIDTH(f, sizeof(double)), .min = lo, .max = hi, .flags = fl, \
	  .help = doc }
#define DBL(sec, key, f, unit_, lo, hi, fl, doc) DBLA(sec, key, NULL, f, unit_, lo, hi, fl, doc)
#define ENUM(sec, key, f, tab, doc) \
	{ .section = sec, .name = key, .type = KT_ENUM, .unit = SC_UNIT_NUMBER, .off = OFF(f), \
	  .size = WIDTH(f, sizeof(int)), .help = doc, .names = tab }
#define ENUMF(sec, key, f, tab, fl, doc) \
	{ .section = sec, .name = key, .type = KT_ENUM, .unit = SC_UNIT_NUMBER, .off = OFF(f), \
	  .size = WIDTH(f, sizeof(int)), .flags = fl, .help = doc, .names = tab }
#define NAMES(sec, key, f, tab, doc) \
	{ .section = sec, .name = key, .type = KT_NAMES, .unit = SC_UNIT_NUMBER, .off = OFF(f), \
	  .size = FSIZE(f), .help = doc, .names = tab }
#define OTHER(sec, key, type_, f, fl, doc) \
	{ .section = sec, .name = key, .type = type_, .unit = SC_UNIT_NUMBER, .off = OFF(f), \
	  .size = FSIZE(f), .flags = fl, .help = doc }
#define LINK(sec, f) \
	OTHER(sec, "preset", KT_PRESET, f, KF_NO_DUMP, \
	      "link preset: sets bandwidth, latency and energy; explicit keys override it"), \
	DBL(sec, "bandwidth", f.bw, SC_UNIT_BYTE_RATE, 0, NOLIM, KF_MIN_OPEN, \
	    "bandwidth, one direction"), \
	DBL(sec, "latency", f.lat, SC_UNIT_TIME, 0, NOLIM, 0, "latency per traversal"), \
	DBL(sec, "energy", f.pj_per_bit, SC_UNIT_ENERGY_BIT, 0, NOLIM, 0, "transfer energy")
#define OPS(name, op) \
	DBL("module", "ops_" name, model.mod.ops_per_byte[op], SC_UNIT_NUMBER, 0, NOLIM, 0, \
	    name " ops per input byte")
#define PORT(d) \
	STR("ports", "dc" #d, ports.dc[d], KF_EMPTY_OK, \
	    "real time: the DPDK port of data centre " #d ": its WAN link's frames leave through " \
	    "it, frames for it come in through it; a vdev (net_memif0,role=server,socket=/tmp/s," \
	    "socket-abstract=no; net_af_xdp0,iface=veth0), a device given to the EAL (a PCI " \
	    "address), or ring:NAME (an in-process ring pair: the same NAME at two DCs)")
#define PLINK(i) \
	STR("ports", "link" #i, ports.link[i], KF_EMPTY_OK, \
	    "real time: a link of the topology through ports, 'LINK DEV [RXDEV]': LINK is wN.nic " \
	    "(worker N to its switch), wN.port (its pluggable module's port), dcD>wN (the switch " \
	    "to worker N) or dcD>mN (to its module on the network); " \
	    "its frames leave through DEV when they reach the link's far end and go on from where " \
	    "they come in: RXDEV (e.g. the other end of a veth pair or a cabled NIC), or, for " \
	    "DEV = ring:NAME, the ring pair's other end")
#define IMPAIR_SPEC "'none', or a loss ('loss random P', 'loss gemodel P [R [1-H [1-K]]]' or " \
	"'loss state P13 [P31 [P32 [P23 [P14]]]]', as tc-netem takes them, in percent: 1%) and a " \
	"jitter ('jitter TIME [DIST] [fifo or reorder]', DIST uniform, normal, pareto or " \
	"paretonormal, or 'distribution TABLE', a netem .dist file by path or tc's name: " \
	"experimental); a lost frame takes its time on the wire and never arrives; the jitter is " \
	"added to the latency of each frame (uniform: within +-TIME, the default; the others: mean " \
	"0, deviation TIME); fifo (the default) keeps the frames' order; 'duplicate P' delivers a " \
	"frame twice, 'corrupt P' flips one bit (syncemu's own frames are then dropped as their " \
	"receiver's checksum would, a bridge's go on); and the link's queue: 'red min SIZE max " \
	"SIZE probability P [burst N] [avpkt SIZE] [ecn] [harddrop] [gentle]' (tc-red's words: " \
	"ECN-capable frames marked CE, others dropped early) or 'mark SIZE' (DCTCP's step: an " \
	"ECN-capable frame marked when the queue holds more than SIZE); 'trace FILE' gives the " \
	"link Mahimahi's delivery opportunities (one time in ms per line, repeated; 1504 bytes " \
	"each) in place of its rate"
#define ILINK(i) \
	STR("impair", "link" #i, impair.link[i], KF_EMPTY_OK | KF_IMPAIR_LINK, \
	    "a link of the run, 'LINK SPEC': LINK as the run's elements name it (wan0>1, " \
	    "wancore>2, w3.nic, dc0>w1), SPEC as for wan; over [impair] wan for a WAN link")
#define STEPS(key, alias, v, help) \
	DBLA("steps", key, alias, model.steps[v], SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN, help)

static const struct sc_key keys[] = {
	STR("scenario", "name", name, 0, "short name, used in reports; not set: the file's name "
	    "without .ini"),
	STR("scenario", "description", desc, 0, "one line; escape ';' as '\\;'"),

	UINT("topology", "data_centres", model.topo.n_dc, SC_UNIT_COUNT, 1, 64, "data centres D"),
	UINT("topology", "workers_per_dc", model.topo.per_dc, SC_UNIT_COUNT, 1, 1024,
	     "workers per data centre N"),
	ENUM("topology", "wan", model.topo.wan, wan_shape_names,
	     "how WAN links join the data centres: ring = each to the next (farther ones around "
	     "the ring, one WAN link after another), mesh = a link for each ordered pair, star = "
	     "each to a core switch and back (half the WAN latency each way in)"),

	LINK("intra", model.intra),
	LINK("wan", model.wan),

	DBL("gpu", "peak", model.gpu.peak_flops, SC_UNIT_FLOP_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "dense BF16 peak"),
	DBL("gpu", "mfu", model.gpu.mfu, SC_UNIT_FRACTION, 0, 1, KF_MIN_OPEN,
	    "model FLOP utilisation"),
	DBL("gpu", "static_power", model.gpu.static_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "static power, charged for the whole step"),
	DBL("gpu", "energy", model.gpu.pj_per_flop, SC_UNIT_ENERGY_FLOP, 0, NOLIM, 0,
	    "dynamic energy per FLOP"),

	DBL("job", "parameters", model.job.params, SC_UNIT_NUMBER, 1, NOLIM, 0, "parameters P"),
	DBL("job", "tokens", model.job.tokens, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "tokens per worker per step"),
	DBL("job", "flops_per_param_token", model.job.flops_per_param_token, SC_UNIT_NUMBER, 0,
	    NOLIM, KF_MIN_OPEN, "FLOP per parameter per token (6: forward + backward)"),
	DBL("job", "value_bytes", model.job.value_bytes, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "bytes per transmitted value (BF16: 2 B)"),
	DBL("job", "index_bytes", model.job.index_bytes, SC_UNIT_BYTES, 0, NOLIM, 0,
	    "bytes per top-k index"),
	DBL("job", "keep", model.job.keep, SC_UNIT_FRACTION, 0, 1, KF_MIN_OPEN,
	    "fraction kept by top-k and the band"),
	DBL("job", "topk_kept", model.job.topk_kept, SC_UNIT_NUMBER, 0, NOLIM, 0,
	    "values top-k keeps per worker; 0 = keep x parameters"),
	DBL("job", "band_chunk", model.job.band_chunk, SC_UNIT_NUMBER, 2, NOLIM, 0,
	    "points of the band's 1-D transform"),
	DBL("job", "topk_chunk", model.job.topk_chunk, SC_UNIT_NUMBER, 2, NOLIM, 0,
	    "points of top-k's 2-D chunk"),
	DBL("job", "bytes", model.job.bytes, SC_UNIT_BYTES, 0, NOLIM, 0,
	    "the dense gradient's size (variant A's sync, the modules' input); 0 = value_bytes x "
	    "parameters"),
	ENUM("job", "collective", model.job.collective, algo_names,
	     "the algorithm of every variant's all-reduce and all-gather: ring = one ring over "
	     "all workers; hierarchical = rings inside each DC, then rings of DC peers across DCs "
	     "(reduce-scatter + all-gather of the shards: 2 (D - 1) WAN rounds); direct = rings "
	     "inside each DC, then each shard straight to each DC peer (D - 1 WAN rounds, one for "
	     "2 DCs); tree = all-reduces as a double binary tree over all workers (each tree "
	     "reduces half of B to its root and broadcasts it back, 2 floor(log2 W) rounds; "
	     "all-gathers and reduce-scatters, which have no tree form, as one ring); auto = "
	     "hierarchical with D > 1 and N > 1, else ring (the deck's)"),
	ENUM("job", "direct", model.job.direct, direct_names,
	     "how job.collective = direct sends a DC's shards to the D - 1 other DCs: "
	     "concurrent = to all of them at once, as a library posts its sends (one WAN round: "
	     "a worker's D - 1 flows take turns on its NIC a frame each, and each goes over its "
	     "own WAN link on a mesh, over shared links and their queues on a ring or star); "
	     "rounds = D - 1 rounds, round k to the peer k DCs on; auto = concurrent on a mesh "
	     "WAN, rounds on a ring or star (the two are the same with D = 2)"),
	ENUM("job", "operation", model.job.operation, opkind_names,
	     "what variant A runs on the dense gradient of B bytes: allreduce (the deck's), "
	     "allgather (B / W from each worker), reducescatter (each ends with B / W of the sum), "
	     "alltoall (B / W to each worker, a pairwise exchange whatever job.collective says)"),
	ENUM("job", "library", model.job.library, library_names,
	     "whose all-reduce variant A's job runs: ideal = job.collective's (the deck's); "
	     "openmpi = Open MPI 4.1 coll_tuned's fixed decision by ranks and bytes (ring, "
	     "recursive doubling, Rabenseifner; syncemu model names it); gloo = gloo's ring "
	     "of segments of at most 1 MiB, each pair after ready messages from the receivers, "
	     "one ring per DDP bucket (job.first_bucket, job.bucket_cap), over TCP up to "
	     "job.threads of them at once; both over all workers as one flat group"),
	DBL("job", "compute", model.job.compute, SC_UNIT_TIME, 0, 1e6, 0,
	    "compute time per step, replacing the FLOP model's (tokens x parameters x "
	    "flops_per_param_token at gpu.mfu x gpu.peak) in the model and the run; 0 = the FLOP "
	    "model's"),
	DBL("job", "first_bucket", model.job.first_bucket, SC_UNIT_BYTES, 0, 1e15, 0,
	    "job.library = gloo, as PyTorch's DistributedDataParallel runs it: the gradient is "
	    "all-reduced in buckets, each a gloo ring of its own, begun in the order backward "
	    "fills them (the last layers first; job.threads, job.first_lead); the first bucket "
	    "closes once it holds this many bytes (DDP's 1 MiB first bucket); 0 = no separate "
	    "first bucket"),
	DBL("job", "bucket_cap", model.job.bucket_cap, SC_UNIT_BYTES, 0, 1e15, 0,
	    "job.library = gloo: every later DDP bucket closes once it holds this many bytes "
	    "(DDP's bucket_cap_mb, 25 MiB); with job.first_bucket = 0, 0 = the whole gradient in "
	    "one all-reduce (gloo without DDP)"),
	DBL("job", "tensor_bytes", model.job.tensor_bytes, SC_UNIT_BYTES, 0, 1e15, 0,
	    "job.library = gloo: the size of the gradient tensors DDP fills its buckets with, "
	    "whole (a layer's weight and bias); the gradient's remainder is the first tensor "
	    "bucketed; 0 = any byte, buckets of exactly job.first_bucket and job.bucket_cap"),
	UINT("job", "threads", model.job.threads, SC_UNIT_COUNT, 1, 64,
	     "job.library = gloo with job.transport = tcp: the buckets' all-reduces that run at "
	     "once, each on a thread of its own over the pairs' one connection "
	     "(ProcessGroupGloo's worker threads, 2 in PyTorch); a bucket waits for a free "
	     "thread; 1 = one after another, as under run.sync = phase (a barrier between "
	     "phases) and over frames"),
	DBL("job", "first_lead", model.job.first_lead, SC_UNIT_FRACTION, 0, 1, KF_MAX_OPEN,
	    "job.library = gloo with job.transport = tcp and 2 or more DDP buckets: the share of "
	    "the compute that is backward pass still to run once the first bucket's gradients "
	    "are ready; its all-reduce starts that much before the compute ends, the others' at "
	    "its end (tools/realjob_ddp.py's 4-layer MLP: about 0.26, backward 61 % of "
	    "its compute and 3/7 of it after the first bucket); 0 = all at the end"),

	ENUM("job", "transport", run.pk.tcp.transport, transport_names,
	     "how the workers' flows travel: frames = the ideal collective's frames, every one "
	     "as fast as its first hop takes it, nothing acknowledged or resent (the deck's); tcp "
	     "= a TCP connection per pair of workers that talk ([transport]), its data and ACKs "
	     "as frames with real IPv4/TCP headers (partitions give the same trace byte for byte; "
	     "in real time also through [ports], split over processes or ranks)"),
	DBL("job", "reduce_rate", run.pk.tcp.reduce_rate, SC_UNIT_BYTE_RATE, 0, NOLIM, 0,
	    "job.transport = tcp: the rate a rank reduces (or copies) a round's input at before "
	    "its next round (a CPU's memory-bound sum: a few GB/s); 0 = no time"),
	DBL("job", "start_skew", run.pk.tcp.start_skew, SC_UNIT_TIME, 0, 10, 0,
	    "worker r starts its first step r x this later, as a launcher starts ranks one after "
	    "another (with run.sync = none it carries on: a library's rendezvous can then make "
	    "two ranks take turns); 0 = all at once"),
	DBL("job", "read_window", run.pk.tcp.read_window, SC_UNIT_TIME, 0, 10, 0,
	    "transport.protocol = openmpi: a peer's rendezvous that comes while a rank computes "
	    "or reduces, later than this after it left its progress loop, is read only once the "
	    "rank has sent its own (so both transfers run at once); one read before is answered "
	    "first (the rank's data then follows the peer's); 10 s reads every one as it comes"),
	ENUM("transport", "congestion", run.pk.tcp.cc, cc_names,
	     "congestion control: cubic (RFC 9438, Linux's default) or reno (RFC 5681)"),
	UINT("transport", "initial_window", run.pk.tcp.init_cwnd, SC_UNIT_COUNT, 1, 1000,
	     "initial congestion window, segments (RFC 6928, Linux: 10)"),
	ENUM("transport", "slow_start_after_idle", run.pk.tcp.ss_after_idle, yes_no_names,
	     "after an idle longer than the RTO the window restarts (RFC 2861 as Linux's "
	     "net.ipv4.tcp_slow_start_after_idle = 1 does it: halved per RTO idle, down to the "
	     "initial window)"),
	ENUMF("transport", "ecn", run.pk.tcp.ecn, yes_no_names, KF_QUIET,
	      "RFC 3168 as Linux's net.ipv4.tcp_ecn = 1 at both ends: data segments go ECT(0), "
	      "so a queue's RED or mark ([impair]) marks them CE instead of dropping them; the "
	      "receiver echoes each CE (ECE) in an ACK sent at once, and the sender cuts its "
	      "window as for a loss, once a window, resending nothing"),
	DBL("transport", "delayed_ack", run.pk.tcp.delack, SC_UNIT_TIME, 0, 0.5, 0,
	    "delayed ACK timeout (Linux's 40 ms minimum); every second full segment, a segment "
	    "out of order and the first 16 after idle are acknowledged at once; 0 = every "
	    "segment at once"),
	DBL("transport", "rto_min", run.pk.tcp.rto_min, SC_UNIT_TIME, 0.001, 120, 0,
	    "smallest retransmission timeout (Linux: 200 ms); RTO = srtt + max(4 rttvar, "
	    "rto_min), doubled per timeout to 120 s"),
	DBL("transport", "rto_initial", run.pk.tcp.rto_init, SC_UNIT_TIME, 0.001, 120, 0,
	    "retransmission timeout before the first RTT sample (RFC 6298: 1 s)"),
	DBL("transport", "receive_window", run.pk.tcp.rwnd, SC_UNIT_BYTES, 1, 1073741824.0,
	    KF_AUTO, "bytes a receiver advertises, fixed; auto = as Linux 6.18 tunes it: from "
	    "tcp_rmem[1] (128 KiB: a 64 KiB window), rcv_ssthresh growing by 2 segments a "
	    "segment, the buffer twice the bytes read in a round trip, up to "
	    "transport.rmem_max, a segment counted at its truesize"),
	DBL("transport", "send_buffer", run.pk.tcp.sndbuf, SC_UNIT_BYTES, 1, 1073741824.0,
	    KF_AUTO, "bytes a sender holds unacknowledged: a worker's send completes once its "
	    "bytes are within it of the acknowledged (tcp_wmem's 4 MiB); auto = Linux's "
	    "sk_sndbuf, truesize bytes: 2 x max(10, cwnd) x 4352 B up to transport.wmem_max, "
	    "2344 B a segment, which also bounds the segments in flight"),
	DBL("transport", "rmem_max", run.pk.tcp.rmem_max, SC_UNIT_BYTES, 131072, 1073741824.0,
	    0, "transport.receive_window = auto: the receive buffer's largest size, truesize "
	    "bytes (net.ipv4.tcp_rmem[2]: 32 MiB since Linux 6.10, 6 MiB before)"),
	DBL("transport", "wmem_max", run.pk.tcp.wmem_max, SC_UNIT_BYTES, 16384, 1073741824.0,
	    0, "transport.send_buffer = auto: the send buffer's largest size, truesize bytes "
	    "(net.ipv4.tcp_wmem[2]: 4 MiB)"),
	ENUM("transport", "protocol", run.pk.tcp.proto, proto_names,
	     "how the library's messages go over TCP in a ring's rounds: plain = each written "
	     "whole as its round begins; openmpi = Open MPI's ob1 rendezvous: a message past "
	     "transport.eager_limit sends transport.rndv_first, then the rest once the "
	     "receiver's ACK and PUT request (128 bytes, sent when its receive is posted and the "
	     "first part is in) come back, queued behind what that side has written before (so two ranks may take "
	     "turns); gloo = each message after the receiver's 48-byte ready notification, sent as "
	     "its receive is posted"),
	DBL("transport", "eager_limit", run.pk.tcp.eager_limit, SC_UNIT_BYTES, 0, 1073741824.0,
	    0, "transport.protocol = openmpi: the largest message sent without a rendezvous, and "
	    "the rendezvous's first fragment at most (btl_tcp_eager_limit: 64 KiB)"),
	DBL("transport", "rndv_first", run.pk.tcp.rndv_first, SC_UNIT_BYTES, 1, 1073741824.0,
	    0, "transport.protocol = openmpi: bytes of a message past transport.eager_limit that "
	    "its rendezvous fragment carries, at most transport.eager_limit: 40 B, the header "
	    "alone that ob1 sends for a contiguous buffer over the TCP BTL, which can put (as "
	    "captured); 64 KiB for ob1's send-with-data rendezvous"),
	UINT("transport", "mss", run.pk.tcp.mss, SC_UNIT_BYTES, 0, SM_MTU_MAX,
	     "segment payload, bytes; 0 = run.mtu - 52 (IPv4, TCP and its timestamps option)"),

	DBL("module", "lanes", model.mod.lanes, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "optical lanes"),
	DBL("module", "lane_rate", model.mod.lane_rate, SC_UNIT_BIT_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "rate per lane"),
	DBL("module", "planes", model.mod.planes, SC_UNIT_NUMBER, 1, NOLIM, 0,
	    "bit planes = optical passes per value"),
	DBL("module", "budget_low", model.mod.budget[SM_BUDGET_LOW], SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "compute budget, low setting"),
	DBL("module", "budget_high", model.mod.budget[SM_BUDGET_HIGH], SC_UNIT_FLOP_RATE, 0,
	    NOLIM, KF_MIN_OPEN, "compute budget, high setting"),
	DBL("module", "fpga_rate", model.mod.fpga_rate, SC_UNIT_OP_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "rate of the FPGA stage"),
	DBL("module", "port", model.mod.port_bw, SC_UNIT_BYTE_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "the module's port (QSFP56)"),
	DBL("module", "host_port", model.mod.host_port_bw, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "the host port it sits in"),
	DBL("module", "latency_pluggable", model.mod.latency_port, SC_UNIT_TIME, 0, NOLIM, 0,
	    "latency of a module in the port (E)"),
	DBL("module", "latency_network", model.mod.latency_network, SC_UNIT_TIME, 0, NOLIM, 0,
	    "latency of a module in the network (E')"),
	DBL("module", "static_power", model.mod.static_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "static power"),
	DBL("module", "laser_power", model.mod.laser_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "laser power"),
	DBL("module", "energy", model.mod.pj_per_bit, SC_UNIT_ENERGY_BIT, 0, NOLIM, 0,
	    "dynamic energy over the bytes processed"),
	OPS("fft", SM_OP_FFT),
	OPS("add", SM_OP_ADD),
	OPS("mul", SM_OP_MUL),
	OPS("mac", SM_OP_MAC),
	OPS("fpmac", SM_OP_FPMAC),
	OPS("mod", SM_OP_MOD),
	OPS("gather", SM_OP_GATHER),
	OTHER("module", "compute_ops", KT_OPS, model.mod.compute_ops, 0,
	      "ops charged to the compute budget; the others run on the FPGA stage"),
	STR("module", "kernel", kernel.file, KF_EMPTY_OK,
	    "the link kernel as an eBPF program (clang -target bpf; dataplane/kernels/), run by "
	    "rte_bpf on every frame the module streams to give its ops by type; not set: the "
	    "ops_* keys.  With a program, the ops_* keys are replaced by its ops for a full frame "
	    "over the payload (the model's ops per byte).  A relative path is taken relative to "
	    "the scenario file's directory (from --set: the current one) and stored absolute"),
	STR("module", "kernel_section", kernel.section, 0,
	    "the ELF section of the kernel program"),

	STEPS("A", NULL, SM_VAR_A, "steps to target, A"),
	STEPS("B", NULL, SM_VAR_B, "steps to target, B"),
	STEPS("C", NULL, SM_VAR_C, "steps to target, C"),
	STEPS("E", NULL, SM_VAR_E, "steps to target, E"),
	STEPS("Cp", "C'", SM_VAR_CP, "steps to target, C'"),
	STEPS("Ep", "E'", SM_VAR_EP, "steps to target, E'"),
	DBL("steps", "c_mean", model.steps_c_mean, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "C's unrounded mean"),
	OTHER("steps", "enob", KT_TABLE, model.enob, 0, "E's steps against ENOB"),
	OTHER("steps", "planes", KT_TABLE, model.planes, 0, "E's steps against bit planes"),
	DBL("steps", "enob_used", model.enob_used, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "the ENOB the run assumes"),
	DBL("steps", "target_loss", model.target_loss, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "the loss the steps refer to"),

	DBL("breakeven", "bandwidth_min", model.be_bw_lo, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "bandwidth search, low end"),
	DBL("breakeven", "bandwidth_max", model.be_bw_hi, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "bandwidth search, high end"),
	DBL("breakeven", "budget_min", model.be_budget_lo, SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "budget search, low end"),
	DBL("breakeven", "budget_max", model.be_budget_hi, SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "budget search, high end"),
	DBL("breakeven", "tolerance", model.be_rtol, SC_UNIT_NUMBER, 0, 0.1,
	    KF_MIN_OPEN | KF_MAX_OPEN, "relative tolerance of the bisection"),

	OTHER("report", "variants", KT_VARIANTS, variants, 0, "variants to report"),
	OTHER("report", "budgets", KT_BUDGETS, budgets, 0, "module budgets to report"),

	UINT("run", "steps", run.steps, SC_UNIT_COUNT, 1, 1000000, "training steps per run"),
	U64("run", "seed", run.seed, "seeds every random source; written in the trace and report"),
	UINT("run", "mtu", run.pk.mtu, SC_UNIT_BYTES, SM_MTU_MIN, SM_MTU_MAX,
	     "IP MTU of the frames (a number without a unit is bytes)"),
	UINT("run", "frame_payload", run.pk.payload, SC_UNIT_BYTES, 1, PAYLOAD_MAX,
	     "gradient bytes per full frame, at most the MTU less 76 B of IP, UDP and syncemu "
	     "headers; not set: that much when run.mtu is set, else 8192 B (a number without a "
	     "unit is bytes)"),
	ENUM("run", "accounting", run.pk.account, account_names,
	     "what a link charges for a frame: payload = gradient bytes only (the fluid model's "
	     "view), wire = Ethernet on the wire (headers, FCS, preamble, inter-frame gap)"),
	ENUM("run", "sync", run.pk.sync, sync_names,
	     "when workers wait for each other: phase = an ideal barrier between phases (the "
	     "deck's additive terms), step = only between steps, none = never"),
	UINT("run", "burst", run.pk.burst, SC_UNIT_COUNT, 1, 256,
	     "frames a worker queues ahead on its first hop"),
	UINTF("run", "partitions", run.partitions, SC_UNIT_COUNT, 1, 4096, KF_AUTO | KF_HOW,
	      "virtual time: engines the network is cut into, run side by side on the EAL's "
	      "lcores (--eal \"-l 0-3\"), with results identical to one: whole data centres "
	      "first (cut at the WAN links), then groups of workers (cut at their NIC links); "
	      "at most the workers; auto = one per lcore if a calibration on the run's first "
	      "events finds that faster than one engine, else one (the report says which and "
	      "why)"),
	UINT("run", "warmup", run.warmup, SC_UNIT_COUNT, 0, 1000000,
	     "steps left out of the steady-state statistics (the WAN queue fills up from "
	     "empty)"),
	ENUM("run", "fast_forward", run.fast_forward, fast_forward_names,
	     "virtual time: exact = once two steps in a row end in the same state (nothing in "
	     "the network, every element moved as in the step before), the steps up to the last "
	     "are replayed from the recorded one instead of emulated, with results identical to "
	     "off (the report says how many); off = every step emulated.  Runs with background, "
	     "TCP, impairments, partitions or --ctl are emulated in full.  steady = as exact, "
	     "and each link delivers in one event every frame due within run.steady_window of "
	     "it, each at its own time, while a link with at least that latency still queues "
	     "what comes in time order: with the window auto, every queue is in time order and "
	     "the results are off's (the report says so), at about 10 x fewer events under "
	     "load; a wider window queues some frames as they come (the report says how many "
	     "links).  Virtual time, one partition, no TCP"),
	DBL("run", "steady_window", run.steady_window, SC_UNIT_TIME, 1e-9, 1e-3, KF_AUTO,
	    "run.fast_forward = steady: how far past its event a link delivers the frames due "
	    "(each at its own time); a link with at least this latency still queues what comes "
	    "in time order, one with less in the order its frames come (the report counts "
	    "them); auto = the least latency of the links (at least 1 ns)"),
	ENUM("run", "clock", run.clock, clock_names,
	     "virtual = an event calendar as fast as the CPU (exact, repeatable); real = events "
	     "due against the TSC, WAN frames through the DPDK ports of [ports]"),
	DBL("run", "dilation", run.dilation, SC_UNIT_NUMBER, 1, 1e6, 0,
	    "real time: emulated time runs this many times slower than real time (every rate "
	    "divided by it on the wire, every delay multiplied; results in emulated time)"),
	DBL("run", "calibrate", run.calibrate, SC_UNIT_TIME, 0.1, 10, 0,
	    "real time: how long to measure the TSC rate against the clock of time_source"),
	ENUM("run", "time_source", run.time_source, time_source_names,
	     "real time: the clock the TSC is read as: monotonic_raw (two processes align their "
	     "clocks by ping-pong over the port before each run) or realtime (CLOCK_REALTIME, "
	     "which PTP keeps in step across hosts: ptp4l and phc2sys; the ping-pong offset is "
	     "then measured and reported, not applied)"),

	DBL("queues", "nic", queues.nic, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "queue limit of a worker's NIC, in frame bytes"),
	DBL("queues", "port", queues.port, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "queue limit of a pluggable's port cap, in frame bytes"),
	DBL("queues", "switch", queues.sw, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "queue limit of a DC switch towards a worker or a module, in frame bytes"),
	DBL("queues", "wan", queues.wan, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "queue limit of a WAN link, in frame bytes; a sync's WAN rounds queue up to a whole "
	    "round of a data centre's flows"),
	ENUM("queues", "sync_lossless", queues.sync_lossless, yes_no_names,
	     "yes: the sync's frames are never dropped, as in a lossless traffic class (PFC); "
	     "no: drop-tail for them too, and a dropped sync frame stalls the run"),

	DBL("background", "load", background.load, SC_UNIT_FRACTION, 0, 1, KF_MAX_OPEN,
	    "offered load of background transfers on each loaded WAN direction, a fraction of "
	    "the WAN rate"),
	ENUM("background", "sizes", background.sizes, size_names,
	     "transfer sizes: fixed = all of size, exponential = of mean size, empirical = "
	     "drawn from sizes_csv"),
	DBL("background", "size", background.size, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "transfer size (the deck's 1 MB transfers); the mean for exponential"),
	STR("background", "sizes_csv", background.sizes_csv, KF_EMPTY_OK,
	    "CSV of 'size[,weight]' lines for sizes = empirical (required then), e.g. "
	    "scenarios/sizes-websearch.csv; a relative path is taken relative to the scenario "
	    "file's directory (from --set: the current one) and stored resolved, as an absolute "
	    "path"),
	DBL("background", "host_rate", background.host_rate, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "the background hosts' access links"),
	ENUM("background", "directions", background.directions, direction_names,
	     "all: every WAN direction carries background; one: only data centre 0 to 1"),
	UINT("background", "bulk", background.bulk, SC_UNIT_COUNT, 0, 64,
	     "bulk TCP flows on each loaded WAN direction, always backlogged (as iperf3's), from a "
	     "host in the data centre to one in the next, at background.host_rate, with the "
	     "[transport] settings: they share the WAN queue with the sync and back off from "
	     "losses (virtual time, one partition); beside background.load's transfers or alone"),
	DBL("background", "bulk_lead", background.bulk_lead, SC_UNIT_TIME, 0, 3600, 0,
	    "how long the bulk flows run before the job's first step (an iperf3 started before "
	    "the job is past its slow start and its first losses when the job begins); 0 = "
	    "they start with the job"),
	ENUM("background", "transport", background.transport, bg_transport_names,
	     "how background.load's transfers go: open = open-loop frames as fast as the host's "
	     "link allows (they only queue); tcp = each written to a TCP connection of the host "
	     "(the [transport] settings) to the next data centre's, so they back off from losses "
	     "as the sync's TCP does; a transfer's completion time runs to its last byte "
	     "delivered (virtual time, one partition)"),
	UINT("background", "connections", background.connections, SC_UNIT_COUNT, 1, 64,
	     "background.transport = tcp: connections a host keeps open to the next data "
	     "centre's (a pool, as a client's keep-alive connections): a transfer takes an idle "
	     "one, or opens one while fewer are open, else waits behind the least loaded; with "
	     "background.bulk, the two together at most 64"),

	STR("trace", "file", trace.file, KF_EMPTY_OK,
	    "pcapng file, a FIFO or - (the standard output), written as syncemu run's --trace; "
	    "not set or none: no trace"),
	NAMES("trace", "capture", trace.capture, capture_names,
	      "capture points written to the trace; all = every kind, none = no frames"),
	UINT("trace", "snaplen", trace.snaplen, SC_UNIT_COUNT, 0, SNAPLEN_MAX,
	     "bytes kept per frame: 90 = the headers, 0 = whole frames"),
	DBL("trace", "queue_sample", trace.queue_sample, SC_UNIT_TIME, 0, NOLIM, 0,
	    "interval at which the WAN queues' occupancy is sampled; 0 s = no sampling"),
	DBL("trace", "until", trace.until, SC_UNIT_TIME, 0, NOLIM, 0,
	    "each run's frames are traced up to this emulated time from its start (its first "
	    "steps: 20 ms is about 5 steps of 4 ms); 0 s = the whole run"),

	STR("ports", "local", ports.local, 0,
	    "real time: the data centres this process runs: all, or a list (0; 4,5,6,7); with "
	    "some, another syncemu runs the others, joined by ports"),
	PORT(0), PORT(1), PORT(2), PORT(3), PORT(4), PORT(5), PORT(6), PORT(7),
	PORT(8), PORT(9), PORT(10), PORT(11), PORT(12), PORT(13), PORT(14), PORT(15),
	PLINK(0), PLINK(1), PLINK(2), PLINK(3), PLINK(4), PLINK(5), PLINK(6), PLINK(7),
	DBL("ports", "wait", ports.wait, SC_UNIT_TIME, 0.1, 3600, 0,
	    "real time: how long to wait for a link to come up, for the peer process, and for "
	    "the end of a run"),

	STR("bridge", "a", bridge.a, KF_EMPTY_OK | KF_HOW,
	    "syncemu bridge: port A, any device syncemu opens (net_af_packet0,iface=veth0; "
	    "net_af_xdp0,iface=veth0; net_memif0,role=server,socket=/tmp/s,socket-abstract=no; "
	    "a PCI address; ring:NAME); what arrives on A leaves on B after the emulated WAN"),
	STR("bridge", "b", bridge.b, KF_EMPTY_OK | KF_HOW,
	    "syncemu bridge: port B; what arrives on B leaves on A after the emulated WAN"),
	DBL("bridge", "bandwidth_ab", bridge.bandwidth_ab, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN | KF_AUTO, "the WAN's rate from A to B; auto = [wan] bandwidth"),
	DBL("bridge", "bandwidth_ba", bridge.bandwidth_ba, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN | KF_AUTO, "the WAN's rate from B to A; auto = [wan] bandwidth"),
	DBL("bridge", "latency_ab", bridge.latency_ab, SC_UNIT_TIME, 0, NOLIM, KF_AUTO,
	    "the WAN's one-way latency from A to B; auto = [wan] latency"),
	DBL("bridge", "latency_ba", bridge.latency_ba, SC_UNIT_TIME, 0, NOLIM, KF_AUTO,
	    "the WAN's one-way latency from B to A; auto = [wan] latency"),
	DBL("bridge", "port", bridge.port, SC_UNIT_BYTE_RATE, 0, NOLIM, 0,
	    "a port cap (a QSFP56 port: 25 GB/s) each way in front of the WAN queue, its queue "
	    "[queues] port; 0 B/s = none"),
	ENUM("bridge", "emit_background", bridge.emit_background, yes_no_names,
	     "yes: the background frames made inside leave by the far port too (UDP to port "
	     "47110); no: they end at the WAN's far end"),
	UINTF("bridge", "mbufs", bridge.mbufs, SC_UNIT_COUNT, 1024, 1048576, KF_AUTO | KF_HOW,
	      "frames each port can hold inside the bridge (queued and in flight on the WAN); "
	      "auto = from the queue limit and the WAN's rate x latency"),

	STR("impair", "wan", impair.wan, KF_EMPTY_OK | KF_IMPAIR,
	    "every WAN link of a run, each way, and the bridge's WAN: " IMPAIR_SPEC),
	STR("impair", "ab", impair.ab, KF_EMPTY_OK | KF_IMPAIR,
	    "syncemu bridge: the WAN from A to B (not set: [impair] wan)"),
	STR("impair", "ba", impair.ba, KF_EMPTY_OK | KF_IMPAIR,
	    "syncemu bridge: the WAN from B to A (not set: [impair] wan)"),
	ILINK(0), ILINK(1), ILINK(2), ILINK(3), ILINK(4), ILINK(5), ILINK(6), ILINK(7),
	DBL("impair", "loss", impair.loss, SC_UNIT_FRACTION, 0, 1, KF_AUTO,
	    "random loss with this probability on every link [impair] wan covers (a run's WAN "
	    "links, the bridge's both ways) in place of its loss model, 0 = none; changes "
	    "during a run (--ctl); auto = as [impair] wan, ab and ba say"),
	DBL("impair", "jitter", impair.jitter, SC_UNIT_TIME, 0, 3600, KF_AUTO,
	    "the jitter on those links, with the distribution and order [impair] wan gives "
	    "(else uniform, fifo), 0 s = none; changes during a run (--ctl); auto = as [impair] "
	    "wan, ab and ba say"),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* ------------------------------------------------------------------------------------------ */
/* Names: sections, keys, suggestions */

int
sc_section_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_SECTIONS; i++)
		if (strcmp(sections[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct sc_key *
sc_key_find(const char *sec, const char *name)
{
	unsigned int i;

	for (i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].section, sec) == 0 &&
		    (strcmp(keys[i].name, name) == 0 ||
		     (keys[i].alias != NULL && strcmp(keys[i].alias, name) == 0)))
			return &keys[i];
	return NULL;
}

static unsigned int
levenshtein(const char *a, const char *b)
{
	unsigned int row[CFG_NAME_LEN + 1], i, j, diag, up, la = strlen(a), lb = strlen(b);

	if (la > CFG_NAME_LEN || lb > CFG_NAME_LEN)
		return UINT32_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The closest of @p names to @p s if within 2 edits (and fewer edits than s has characters). */
static const char *
closest(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i, d, best_d = 3;
	const char *best = NULL;

	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		d = levenshtein(s, names[i]);
		if (d < best_d && d < strlen(s)) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

/* "; did you mean [wan]? (sections: ...)" */
void
sc_section_hint(const char *name, char *buf, size_t len)
{
	const char *names[N_SECTIONS];
	const char *near;
	size_t used;
	unsigned int i;

	for (i = 0; i < N_SECTIONS; i++)
		names[i] = sections[i].name;
	near = closest(name, names, N_SECTIONS);
	used = (size_t)snprintf(buf, len, "%s%s%s(sections:", near != NULL ? "; did you mean [" : "",
				near != NULL ? near : "", near != NULL ? "]? " : " ");
	for (i = 0; i < N_SECTIONS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? " " : ", ",
					 sections[i].name);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/* "; did you mean 'bandwidth'? (keys of [wan]: ...)" */
void
sc_key_hint(const char *sec, const char *name, char *buf, size_t len)
{
	const char *names[2 * N_KEYS];
	const char *near, *other = NULL;
	size_t used;
	unsigned int i, n = 0;

	for (i = 0; i < N_KEYS; i++) {
		if (strcmp(keys[i].section, sec) == 0) {
			names[n++] = keys[i].name;
			names[n++] = keys[i].alias;
		} else if (other == NULL && strcmp(keys[i].name, name) == 0) {
			other = keys[i].section;
		}
	}
	near = closest(name, names, n);
	used = 0;
	if (near != NULL)
		used = (size_t)snprintf(buf, len, "; did you mean '%s'?", near);
	else if (other != NULL)
		used = (size_t)snprintf(buf, len, "; '%s' is a key of [%s]", name, other);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " (keys of [%s]:", sec);
	for (i = 0, n = 0; i < N_KEYS && used < len; i++)
		if (strcmp(keys[i].section, sec) == 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n++ == 0 ? " " : ", ",
						 keys[i].name);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/* ------------------------------------------------------------------------------------------ */
/* Dump and key listing */

/* No [impair] key is set. */
static bool
impair_unset(const struct sc_scenario *s)
{
	bool set = s->impair.wan[0] || s->impair.ab[0] || s->impair.ba[0] ||
		   s->impair.loss != SC_AUTO || s->impair.jitter != SC_AUTO;

	for (unsigned int i = 0; i < SC_LINKS_MAX; i++)
		set |= s->impair.link[i][0] != '\0';
	return !set;
}

/* A KF_QUIET key whose value (as formatted, @p buf) is the one numbered 0. */
static bool
quiet_default(const struct sc_key *k, const char *buf)
{
	for (const struct sc_key_name *n = k->names; n != NULL && n->name != NULL; n++)
		if (n->value == 0)
			return strcmp(buf, n->name) == 0;
	return false;
}

static int
dump(const struct sc_scenario *s, FILE *f, bool how)
{
	char buf[2 * CFG_VALUE_LEN];
	const char *last = NULL;
	unsigned int i;

	if (s == NULL || f == NULL)
		return -EINVAL;
	/* Format every value first: write nothing for a struct that would not load back. */
	for (i = 0; i < N_KEYS; i++)
		if (!(keys[i].flags & KF_NO_DUMP) &&
		    (sc_key_format(&keys[i], s, buf, sizeof(buf)) != 0 ||
		     (buf[0] == '\0' && !(keys[i].flags & KF_EMPTY_OK)) ||
		     strlen(buf) >= CFG_VALUE_LEN))
			return -EINVAL;

	fprintf(f, "; syncemu scenario, written by sc_scenario_dump(): every key, with units.\n");
	if (s->path[0] != '\0')
		fprintf(f, "; loaded from %.*s\n", (int)strnlen(s->path, sizeof(s->path) - 1),
			s->path);
	for (i = 0; i < N_KEYS; i++) {
		const struct sc_key *k = &keys[i];

		/* a scenario without impairments is written as before they were keys */
		if (strcmp(k->section, "impair") == 0 && impair_unset(s))
			continue;
		if (last == NULL || strcmp(last, k->section) != 0) {
			last = k->section;
			fprintf(f, "\n[%s]\n; %s\n", k->section,
				sections[sc_section_find(k->section)].help);
		}
		sc_key_format(k, s, buf, sizeof(buf));
		if ((k->flags & KF_QUIET) && quiet_default(k, buf))
			continue;
		if (k->flags & KF_NO_DUMP) {
			if (k->type == KT_PRESET && buf[0] != '\0')
				fprintf(f, "; the values below are those of preset %s\n", buf);
			continue;
		}
		if ((k->flags & KF_HOW) && !how) {
			fprintf(f, "; %s: how the run was spread over cores, left out (it changes "
				"nothing in the results)\n", k->name);
			continue;
		}
		if (buf[0] == '\0')	/* KF_EMPTY_OK: a file cannot write "" */
			fprintf(f, "; %s is not set\n", k->name);
		else
			fprintf(f, "%s = %s\n", k->name, buf);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

int
sc_scenario_dump(const struct sc_scenario *s, FILE *f)
{
	return dump(s, f, true);
}

int
sc_scenario_dump_results(const struct sc_scenario *s, FILE *f)
{
	return dump(s, f, false);
}

void
sc_scenario_keys(FILE *f, int markdown)
{
	char key[2 * CFG_NAME_LEN + 16], def[2 * CFG_VALUE_LEN], range[512], units[512];
	bool used[SC_UNIT_KIND_COUNT] = { false };
	struct sc_scenario d;
	unsigned int i;

	if (f == NULL)
		return;
	sc_scenario_default(&d);
	if (markdown)
		fprintf(f, "| Key | Type | Default | Allowed | Description |\n"
			"|-----|------|---------|---------|-------------|\n");
	else
		fprintf(f, "%-26s %-15s %-20s %s\n", "KEY", "TYPE", "DEFAULT",
			"DESCRIPTION (ALLOWED)");
	for (i = 0; i < N_KEYS; i++) {
		const struct sc_key *k = &keys[i];

		snprintf(key, sizeof(key), "%s.%s%s%s%s", k->section, k->name,
			 k->alias != NULL ? " (or " : "", k->alias != NULL ? k->alias : "",
			 k->alias != NULL ? ")" : "");
		if (sc_key_format(k, &d, def, sizeof(def)) != 0 || def[0] == '\0')
			snprintf(def, sizeof(def), "-");
		sc_key_range(k, range, sizeof(range));
		if (k->type == KT_DBL || (k->type == KT_UINT && k->unit != SC_UNIT_COUNT))
			used[k->unit] = true;
		if (markdown)
			fprintf(f, "| `%s` | %s | %s | %s | %s |\n", key, sc_key_type(k), def, range,
				k->help);
		else
			fprintf(f, "%-26s %-15s %-20s %s (%s)\n", key, sc_key_type(k), def, k->help,
				range);
	}
	fprintf(f, markdown ? "\n| Type | Stored in | Units |\n|------|-----------|-------|\n" :
		"\nUNITS (at most one space between number and unit):\n");
	for (i = 0; i < SC_UNIT_KIND_COUNT; i++) {
		if (!used[i])
			continue;
		sc_unit_allowed((enum sc_unit_kind)i, units, sizeof(units));
		if (markdown)
			fprintf(f, "| %s | %s | %s |\n", sc_unit_kind_name((enum sc_unit_kind)i),
				sc_unit_base((enum sc_unit_kind)i)[0] != '\0' ?
				sc_unit_base((enum sc_unit_kind)i) : "-", units);
		else
			fprintf(f, "  %-16s %s\n", sc_unit_kind_name((enum sc_unit_kind)i), units);
	}
}
