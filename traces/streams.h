/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steps from the application's byte stream: what `syncemu validate` does with a capture of a
 * real job (an MPI or NCCL all-reduce between hosts), where idle gaps cannot tell the steps apart
 * (the link can stay busy from one step into the next, and idle for milliseconds inside one).
 *
 * A *direction* is everything one host sent another: every TCP connection, UDP flow and RoCE v2
 * queue pair between them, in that direction.  Its *stream* is the application's bytes in the
 * order the application wrote them, found from the packets, not from their count:
 *   - TCP: the payload's offset from the sequence number (wrapping at 2^32), so that a
 *     retransmission adds nothing, a segment that came late (reordering) fills the hole it left,
 *     and a segment missing from the capture still moves the stream on (its bytes were sent);
 *     the payload length comes from the IP header, so a snap length that cut the payload does
 *     not matter.  Several connections between two hosts (NCCL opens several) add up.
 *   - RoCE v2 (UDP to port 4791): the message bytes of each packet whose PSN is new on its
 *     queue pair (24-bit serial arithmetic); a repeated PSN is a retransmission.
 *   - other UDP: every datagram's payload.
 * The job's steps are then equal volumes of each direction's stream: a step is the bytes
 * [cut[k], cut[k+1]) of every direction, begins with the first packet that carries a byte of it
 * in any direction and ends with the last.  The volume comes from the user (`--steps N`: the
 * capture holds N steps), from the collective (`--collective`: the algorithm's bytes per
 * direction, tr_coll_dir_bytes()), or from the stream itself: the idle moments of a job repeat
 * at the same positions of its stream every step, so the step count N is the one whose
 * multiples of total / N the idle moments fall on (a harmonic sum over the first
 * TR_PERIOD_HARMONICS multiples of the stream's Fourier series of idle time, so that a step with
 * a pause in its middle is not read as two steps).
 *
 * The cuts are placed in two moves: the first and the last (the stream may hold a little before
 * the first step, such as a connection's set-up or a barrier, and after the last) are chosen
 * among the stream's ends and the longest idle gaps within a tenth of a step of them, the pair
 * that puts the interior cuts nearest idle gaps; then each interior cut at its nominal offset
 * moves to the longest idle gap within TR_SNAP_FRACTION of a step, if there is one (the
 * application's own headers make a step a few bytes longer than its data).
 *
 * The capture is read three times (each pass streams it: memory holds the flows, the idle gaps
 * and the steps, not the packets): the streams and their idle gaps, then each step's bytes in
 * each direction, then (with background) the background's bytes during each step.
 */
#ifndef TR_STREAMS_H
#define TR_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A direction whose stream holds less than this share of the largest one's is not the job's
 *  (acknowledgements, a control connection): it is reported but not cut into steps. */
#define TR_MINOR_SHARE 0.01

/** An interior cut moves to an idle gap at most this share of a step away from it. */
#define TR_SNAP_FRACTION 0.005

/** The first and last cuts move to an idle gap at most this share of a step into the stream. */
#define TR_EDGE_FRACTION 0.1

/** A direction's stream holds a whole number of a collective's steps within this share (and
 *  0.02 of a step): its bytes and the library's headers. */
#define TR_COLL_SLACK 0.01

/** The joint structure (joint.c): every direction of the job idle this long at least (and
 *  each direction's own idle threshold) splits the capture into periods. */
#define TR_JOINT_IDLE_MIN_S 1e-3

/** A period in which a direction carries less than this share of the busiest one's bytes is
 *  one-way. */
#define TR_ONE_WAY_SHARE 0.125

/** A period whose busiest direction carries less than this share of the median period's is
 *  small: neither a prelude nor a step. */
#define TR_SMALL_SHARE 0.1

/** The equal volumes of the largest direction found an idle gap at fewer than this share of
 *  its cuts: the steps' volumes differ, and the cuts go to the times every direction was idle
 *  (joint.c). */
#define TR_VARY_SNAP_SHARE 0.5

/** Cut so, the shortest idle time taken must be this many times the longest one left, or the
 *  cuts are uncertain. */
#define TR_IDLE_SEP_MIN 1.2

/** Harmonics summed when the step count is found from the stream. */
#define TR_PERIOD_HARMONICS 6

/** Idle gaps kept per direction at most (beyond, the shortest are dropped and the floor rises). */
#define TR_GAPS_MAX (1u << 20)

/** Flows tracked at most (a capture with more is refused: give a filter). */
#define TR_STREAM_FLOWS_MAX (1u << 20)

/** Directions tracked at most. */
#define TR_DIRS_MAX 4096u

/**
 * A flow's sequence may move on over bytes the capture missed only as far as a sender could
 * have sent them: within TR_SEQ_WINDOW_MAX of the highest byte so far (TCP's largest window,
 * RFC 7323: 65535 << 14 bytes; RoCE v2: the 2^23 PSNs the InfiniBand spec lets a requester have
 * outstanding), and no more than a link of TR_LINK_RATE_MAX carries in the time since the
 * flow's previous data packet and a microsecond (a timestamp's grain), with TCP
 * TR_SEQ_BURST_MAX more (a host's segmentation offload hands the capture many segments at once).
 * A jump beyond is not loss: the flow's stream starts anew there (a new connection on the same
 * ports, or a capture that lost more than that), counted in tr_dir.jumps.
 */
#define TR_SEQ_WINDOW_MAX (1u << 30)

/** The fastest link a jump is measured against (B/s): 1.6 Tbit/s, IEEE 802.3dj. */
#define TR_LINK_RATE_MAX 2e11

/** TCP bytes a host may hand the capture at once beyond the link's rate. */
#define TR_SEQ_BURST_MAX (16u << 20)

/** The smallest RoCE v2 frame on the wire, preamble and gap included (bytes). */
#define TR_ROCE_WIRE_MIN 84u

/** Steps at most. */
#define TR_STEPS_MAX 10000000u

/** Collectives whose bytes per direction tr_coll_dir_bytes() knows. */
enum tr_coll {
	TR_COLL_NONE = 0,
	TR_COLL_ALLREDUCE,
	TR_COLL_ALLGATHER,
	TR_COLL_REDUCESCATTER,
	TR_COLL_ALLTOALL,
};

/** "allreduce", ...; NULL for TR_COLL_NONE or an unknown value. */
const char *tr_coll_name(enum tr_coll c);

/** The collective named @p name, or TR_COLL_NONE. */
enum tr_coll tr_coll_parse(const char *name);

/** How ranks are placed on the hosts. */
enum tr_placement {
	TR_PLACE_BLOCK = 0,		/**< ranks 0..R-1 on the first host, ... (mpirun's
					 *   default by-slot mapping, NCCL's ring within a node) */
	TR_PLACE_CYCLIC,		/**< dealt round robin: rank r on host r mod H (mpirun
					 *   --map-by node) */
};

/**
 * The application bytes one host sends the next in one step of collective @p c over @p ranks
 * ranks on @p hosts hosts (the same number on each), placed as @p place, with a buffer of
 * @p bytes.  The algorithms: a ring for all-reduce (a reduce-scatter then an all-gather, as NCCL
 * and Open MPI's ring do: each rank sends 2 (N - 1) / N of the buffer to the next rank),
 * all-gather and reduce-scatter ((N - 1) / N of the buffer: the gathered one, the one
 * scattered); for all-to-all each rank sends bytes / N to every other.  A ring crosses from a
 * host to the next once with the ranks in blocks, N / H times dealt round robin; the ring's
 * direction is from each host to the next (with two hosts, both ways):
 *   ring collective  crossings x (per-rank bytes)
 *   alltoall         (N / H)^2 x bytes / N
 *
 * @return the bytes, or -1 if an argument is out of range (fewer than 2 ranks or hosts, ranks
 *         not a multiple of the hosts)
 */
double tr_coll_dir_bytes(enum tr_coll c, uint32_t ranks, uint32_t hosts,
			 enum tr_placement place, double bytes);

/** What to take from a trace, and how to cut it. */
struct tr_stream_params {
	const char *filter;		/**< the job's packets (libpcap syntax); NULL: every IP
					 *   packet */
	const char *ifaces;		/**< only packets of these interfaces (tr_reader_select());
					 *   NULL: all */
	const char *background;		/**< packets of the background (libpcap syntax), whatever
					 *   @c filter says: taken out of the job's; NULL: none */
	uint32_t steps;			/**< > 0: the capture holds this many steps */
	bool steps_from_app;		/**< @c steps is the application's count (its step
					 *   times were given) */
	enum tr_coll coll;		/**< or: the step's volume from this collective */
	uint32_t ranks;			/**< its ranks (>= 2) */
	enum tr_placement place;	/**< how they are placed on the hosts */
	double coll_bytes;		/**< its buffer, bytes */
	double idle_s;			/**< a gap longer than this is idle; 0: automatic (10 x the
					 *   direction's median gap between data packets, at least
					 *   TR_IDLE_MIN_S) */
	double rate_Bps;		/**< the link's rate in frame bytes, 0: not known.  Given, a
					 *   direction's gap is counted from when its frames so far
					 *   would have left the link at that rate (a shaper that lets
					 *   frames out in clumps leaves no gap inside a clump) */
};

/** The automatic idle threshold's floor (s). */
#define TR_IDLE_MIN_S 50e-6

/** One direction's share of one step. */
struct tr_dir_step {
	uint64_t first_ns, last_ns;	/**< the packets that carried its first and last byte */
	uint64_t bytes;			/**< application bytes (cut[k + 1] - cut[k]) */
	uint64_t wire;			/**< frame bytes (original length) of the packets that
					 *   carried data of the step, retransmissions included */
	uint64_t packets;		/**< those packets */
	uint64_t retrans_bytes;		/**< payload that had been sent before */
	uint64_t idle_ns;		/**< idle gaps between first_ns and last_ns */
	uint64_t longest_gap_ns;	/**< the longest gap between its data packets */
	uint64_t span_wire;		/**< frame bytes of the direction's data packets in the
					 *   step's span (any step's) */
	uint64_t bg_bytes, bg_wire;	/**< background payload and frame bytes in the same
					 *   direction during the step's span */
};

/** One step over every direction of the job. */
struct tr_step_span {
	uint64_t start_ns, end_ns;	/**< first and last byte in any direction */
	uint64_t overlap_ns;		/**< every direction of the job carried data */
	uint64_t some_ns;		/**< at least one did (busy); end - start - some = idle */
	uint64_t longest_idle_ns;	/**< the longest time in the step when none did */
	uint32_t stalls;		/**< times in the step when none did, longer than
					 *   TR_STALL_S */
};

/** A time inside a step when no direction carried data for longer than this is a stall (s). */
#define TR_STALL_S 1e-3

/** An idle gap of one direction: the stream stood at @c off from @c start_ns for @c dur_ns. */
struct tr_gap {
	uint64_t off;
	uint64_t start_ns;
	uint64_t dur_ns;
	uint64_t joint_ns;		/**< of which every direction of the job was idle (the
					 *   split fills it): what tells a step's end from a
					 *   direction waiting for the other's turn */
};

/** A direction: what one host sent another. */
struct tr_dir {
	int family;			/**< 4 or 6 */
	uint8_t src[16], dst[16];	/**< IPv4 in the first 4 bytes */
	char name[96];			/**< "SRC > DST" */
	uint32_t id;			/**< the order it was met in */
	bool major;			/**< carries the job: cut into steps */
	/* the whole capture */
	uint64_t bytes;			/**< the stream's length: application bytes */
	uint64_t payload;		/**< payload bytes of the data packets (retransmissions
					 *   included) */
	uint64_t wire;			/**< frame bytes of its data packets */
	uint64_t packets, data_packets;
	uint64_t retrans_bytes, retrans_packets;
	uint64_t reordered;		/**< segments that filled a hole a later one had left */
	uint64_t missing_bytes, holes;	/**< never seen: the stream moved on over them */
	uint64_t jumps;			/**< a flow's sequence moved further than a sender
					 *   could: its stream started anew
					 *   (TR_SEQ_WINDOW_MAX) */
	uint64_t cut_payload;		/**< data packets whose payload the snap length cut */
	uint32_t flows, tcp, udp, roce;
	uint64_t first_ns, last_ns;	/**< first and last data packet */
	uint64_t bg_bytes, bg_wire, bg_packets;	/**< background flows in this direction */
	uint32_t bg_flows;
	/* idle */
	double median_gap_s;		/**< between consecutive data packets */
	double idle_s;			/**< the threshold used */
	uint32_t ngaps;			/**< gaps over the threshold */
	struct tr_gap *gap;		/**< [ngaps], in stream (and time) order */
	bool gaps_thinned;		/**< TR_GAPS_MAX was reached: the shortest were dropped */
	/* the split */
	uint64_t *cut;			/**< [nsteps + 1] stream offsets */
	struct tr_dir_step *step;	/**< [nsteps] */
	uint32_t snapped;		/**< interior cuts moved to an idle gap */
	uint64_t before, after;		/**< stream bytes before the first cut, after the last */
	uint64_t job_lo, job_hi;	/**< the job's part of the stream: without a one-way
					 *   prelude and postlude (joint.c) */
};

/** The first gap of @p d at stream offset @p off or later (d->ngaps: none). */
static inline uint32_t
tr_gap_from_off(const struct tr_dir *d, uint64_t off)
{
	uint32_t lo = 0, hi = d->ngaps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->gap[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** The first gap of @p d that ends after @p t ns (d->ngaps: none). */
static inline uint32_t
tr_gap_after(const struct tr_dir *d, uint64_t t)
{
	uint32_t lo = 0, hi = d->ngaps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->gap[mid].start_ns + d->gap[mid].dur_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** How the steps were found. */
enum tr_split_by {
	TR_SPLIT_NONE = 0,		/**< not split (no major direction, or nothing periodic) */
	TR_SPLIT_STEPS,			/**< --steps N */
	TR_SPLIT_COLLECTIVE,		/**< the collective's volume */
	TR_SPLIT_PERIOD,		/**< the stream's periodicity */
};

/** Everything read from a capture by tr_streams_read(). */
struct tr_streams {
	uint64_t packets;		/**< in the file */
	uint64_t selected;		/**< passed the filter */
	uint64_t not_ip;		/**< selected but not IP (or of a link type not decoded) */
	uint64_t bg_packets;		/**< the background's */
	uint64_t flows, bg_flows;
	uint64_t unordered;		/**< came with a timestamp below the previous one */
	uint64_t first_ns, last_ns;	/**< first and last selected packet */
	uint32_t ndirs;
	struct tr_dir *dir;		/**< largest stream first */
	uint32_t nmajor;		/**< the first nmajor of dir[] */
	/* the split */
	enum tr_split_by by;
	uint32_t nsteps;
	struct tr_step_span *step;	/**< [nsteps] */
	double coll_dir_bytes[2];	/**< the collective's bytes for the ring edges and the
					 *   others (TR_SPLIT_COLLECTIVE) */
	double steps_exact;		/**< stream / collective bytes before rounding */
	double steps_dir_min;		/**< the same, the direction that holds the fewest */
	double steps_dir_max;		/**< and the most */
	bool coll_disagrees;		/**< the directions do not hold a whole number of the
					 *   collective's steps, or not the same number */
	double confidence;		/**< TR_SPLIT_PERIOD: the harmonic sum's share, 0..1 */
	uint32_t runner_up;		/**< the best step count that is not a multiple or a
					 *   divisor of nsteps, and */
	double runner_up_confidence;	/**< its share */
	bool period_uncertain;		/**< the runner-up scores as well as the count found */
	uint32_t period_other;		/**< 0, or the count found first when cutting again
					 *   at half or twice it told no better */
	char how[512];			/**< how the capture was split, in words */
	bool by_idle;			/**< cut at the times every direction was idle, not into
					 *   equal volumes (the steps' volumes differ) */
	double idle_sep;		/**< the shortest idle time taken / the longest left */
	bool cuts_uncertain;		/**< equal volumes missed the idle times, and the idle
					 *   times do not tell where the steps end */
	uint64_t prelude_ns;		/**< 0, or the end of a one-way prelude left out */
	uint64_t postlude_ns;		/**< 0, or the start of a one-way postlude left out */
	/* the whole capture, over the steps */
	uint64_t span_ns, overlap_ns, some_ns;
	uint32_t *rank;			/**< internal: [id] the direction's index in dir[] */
};

/**
 * Read the capture at @p path (three passes; a gzip'd file is read three times) and cut the
 * job's streams into steps as @p p says: by p->steps, by p->coll, or by the stream's
 * periodicity.  What cannot be split (no major direction; no period found) is not an error: @c
 * by is TR_SPLIT_NONE and @c how says why.
 *
 * @return 0; -EINVAL (a filter that does not compile, a step count beyond the stream's bytes,
 *         an argument out of range: the message says which), -EBADMSG and the reader's other
 *         errors (the message names the byte offset and the packet), -E2BIG (more than
 *         TR_STREAM_FLOWS_MAX flows or TR_DIRS_MAX directions), -ENOMEM
 */
int tr_streams_read(const char *path, const struct tr_stream_params *p, struct tr_streams *out,
		    char *err, size_t errlen);

void tr_streams_free(struct tr_streams *s);

/**
 * The step count whose multiples of the stream's length the idle gaps fall on, for directions
 * @p d[0..n-1] (their gaps, each weighed by its joint_ns, between offsets @p lo and @p hi): the
 * best fold over candidates 2..@p max_steps (split.c).  Exposed for tests.
 *
 * @return the step count (0 if no gap), its share in *@p conf, the runner-up's in *@p second_n
 *         and *@p second_conf
 */
uint32_t tr_period_find(const struct tr_dir *d, uint32_t n, const uint64_t *lo,
			const uint64_t *hi, uint32_t max_steps, double *conf, uint32_t *second_n,
			double *second_conf);

#endif /* TR_STREAMS_H */
