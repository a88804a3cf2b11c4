/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture points: which elements write frames to the trace, and under which interface name.
 *
 * One pcapng interface per capture point (e.g. "w3.tx", "wan0>1.in"); the same name keeps its
 * interface across the runs of one invocation.  Timestamps are the run's emulated time in ns: in
 * virtual time the time of the event, in real time the actual time read off the clock (mapped
 * through the dilation), so a real-time trace shows when things happened, not when they were due.
 */
#ifndef DP_CAPTURE_H
#define DP_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "frame.h"

struct tr_pcapng;

/** Kinds of capture point, selectable one by one. */
enum dp_cap_kind {
	DP_CAP_TX,	/**< a worker queues a frame ("w3.tx") */
	DP_CAP_RX,	/**< a worker receives a frame ("w3.rx") */
	DP_CAP_NIC,	/**< a worker's NIC queue in and out ("w3.nic.in", ".out") */
	DP_CAP_SWITCH,	/**< a DC switch's queues towards workers and modules ("dc0>w3.in") */
	DP_CAP_WAN,	/**< the WAN queues ("wan0>1.in", ".out") */
	DP_CAP_MODULE,	/**< a module's input and output ("m3.in", "m3.out") */
	DP_CAP_PORT,	/**< a pluggable's port cap ("w3.port.in", ".out") */
	DP_CAP_BG,	/**< background hosts and sinks ("bg0.tx", "bg0.nic.in", "dc1.sink.rx") */
	DP_CAP_ETH,	/**< real time: a DC's DPDK port, sent and received ("dc0.eth.tx", ".rx") */
	DP_CAP_COUNT
};

#define DP_CAP_NAME_MAX 48
#define DP_CAP_IF_MAX 4096

struct dp_capture {
	struct tr_pcapng *w;		/**< the trace */
	/** another rank writes the trace (ranks.h): interfaces are numbered as there (the same
	 *  graph makes the same points in the same order), nothing is written here */
	bool elsewhere;
	/** real time over ranks (rt.h): every rank holds its records until the run's end, when
	 *  rank 0 merges them in time order into the trace (the ranks' points differ: their ports) */
	bool hold;
	uint8_t *held;			/**< struct dp_cap_held records, each padded to 8 bytes */
	size_t held_len, held_cap;
	uint32_t mask;			/**< kinds enabled (1u << enum dp_cap_kind) */
	uint64_t ts_base_ns;		/**< added to every timestamp written (a bridge: the
					 *   wall-clock time of its emulated time 0); 0: none */
	uint32_t snaplen;		/**< bytes kept per frame */
	uint32_t nif;
	char names[DP_CAP_IF_MAX][DP_CAP_NAME_MAX];
	uint8_t kinds[DP_CAP_IF_MAX];	/**< enum dp_cap_kind of each interface */
	uint64_t frames[DP_CAP_IF_MAX];	/**< frames written per interface */
	uint8_t gather[UINT16_MAX];	/**< a frame of several segments, made contiguous */
	struct dp_cap_tape *tape;	/**< NULL: none; else every record written is also put
					 *   there */
	dp_time_t until;		/**< frames of emulated time from this on are not written
					 *   (trace.until; 0: every one) */
};

/**
 * The records of a step as they were written, for the exact fast-forward to write again shifted
 * (ffwd.h): each a struct dp_cap_taped and its bytes, padded to 8.
 */
struct dp_cap_tape {
	uint8_t *buf;
	size_t len, cap;
	bool failed;			/**< out of memory, or the step's records are more than
					 *   DP_CAP_TAPE_MAX: records are missing */
};

/** A step's records kept at most (a step with more is emulated, not replayed). */
#define DP_CAP_TAPE_MAX ((size_t)256 << 20)

struct dp_cap_taped {
	uint64_t t_ps;			/**< when it was captured */
	uint64_t departure_ps;		/**< its frame's departure, DP_NEVER: not known */
	uint32_t ifid, len, orig, pad;
};

/** A held record (dp_capture.hold), followed by its @c len bytes. */
struct dp_cap_held {
	uint64_t ts_ns;
	uint32_t ifid, len, orig, pad;
};

/** The size of held record @p r with its bytes and padding. */
static inline size_t
dp_cap_held_size(const struct dp_cap_held *r)
{
	return (sizeof(*r) + r->len + 7) & ~(size_t)7;
}

/** Write @p len bytes of a frame of @p orig on interface @p ifid at @p ts_ns into the trace
 *  (a held record, merged).  0 or -errno. */
int dp_capture_put(struct dp_capture *c, uint32_t ifid, uint64_t ts_ns, const void *data,
		   uint32_t len, uint32_t orig);

/**
 * Write the records of @p tape again, @p shift ps later, each syncemu frame's step @p steps
 * further on and its departure @p shift later (the exact fast-forward: ffwd.h).  0 or -errno.
 */
int dp_capture_replay(struct dp_capture *c, const struct dp_cap_tape *tape, dp_time_t shift,
		      uint32_t steps);

/** Free the held records. */
void dp_capture_hold_free(struct dp_capture *c);

/** Interface id of point @p name of @p kind, creating it; -1 if the kind is off or no trace. */
int dp_capture_point(struct dp_capture *c, enum dp_cap_kind kind, const char *name);

/** dp_capture_frame() for a point that is on: write the frame. */
void dp_capture_write(struct dp_engine *eng, int ifid, const struct rte_mbuf *m, dp_time_t t);

/**
 * Write frame @p p on interface @p ifid (no-op for -1 or without a trace); errors stop the
 * engine.  With a trace every frame has its bytes (dp_engine.bytes).  Inline: every element
 * calls it for every frame, and most points are off.
 */
static inline void
dp_capture_frame(struct dp_engine *eng, int ifid, const struct dp_pkt *p, dp_time_t t)
{
	if (ifid >= 0 && eng->cap_ctx != NULL && p->m != NULL)
		dp_capture_write(eng, ifid, p->m, t);
}

/**
 * Write a note into the trace at @p t: a UDP frame to port 47112 on the interface "ctl" whose
 * payload is @p text (e.g. a change made through the control socket).  No-op without a trace.
 */
void dp_capture_note(struct dp_engine *eng, const char *text, dp_time_t t);

/** Parse "tx,rx,wan" (also "all", "none"); -EINVAL with a message naming the unknown kind. */
int dp_capture_parse(const char *s, uint32_t *mask, char *err, size_t errlen);

/** Name of a kind: "tx", "rx", "nic", "switch", "wan", "module", "port". */
const char *dp_capture_kind_name(enum dp_cap_kind k);

#endif /* DP_CAPTURE_H */
