/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the stream reader (streams.h): the tracker shared by the passes (streams.c) and the
 * split (split.c).
 */
#ifndef TR_STREAMS_IMPL_H
#define TR_STREAMS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"
#include "select.h"
#include "streams.h"

/** Holes (bytes skipped, maybe to come late) remembered per TCP flow. */
#define FLOW_HOLES 8

/* A flow: one way of a TCP connection, a UDP flow, or a RoCE v2 queue pair. */
struct flow_key {
	uint8_t family, proto, bg, roce;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t qp;				/* RoCE: destination queue pair */
};

struct hole {
	uint64_t s, e;
};

struct flow {
	struct flow_key k;			/* first: the table compares it */
	uint32_t dir;				/* the tracker's direction number */
	bool has_base, new_flow;
	uint32_t syn_seq;
	uint64_t hwm;				/* TCP: the highest offset + 1, 64-bit (from 2^32
						 *   + the first sequence number); RoCE: the PSN */
	struct hole hole[FLOW_HOLES];
	uint32_t nholes;
	uint64_t holes;				/* holes ever left (RoCE: PSNs skipped) */
	uint64_t lost;				/* hole bytes given up for room */
	uint64_t jumps;				/* the sequence moved further than a sender
						 *   could: a new stream from there */
	uint64_t last_ts;			/* its last data packet */
};

struct dir_key {
	uint8_t family;
	uint8_t src[16], dst[16];
};

/* What one packet did. */
struct tk_ev {
	bool selected;				/* passed the filter */
	bool not_ip;
	int32_t dir;				/* the tracker's direction number; -1: none */
	bool bg;				/* a background packet */
	bool new_flow;				/* the flow's first packet */
	uint8_t proto;				/* 0 TCP, 1 UDP, 2 RoCE v2 */
	uint64_t ts;
	uint64_t off;				/* the direction's stream before it */
	uint32_t fresh;				/* new application bytes */
	uint32_t payload;			/* payload bytes (application bytes it carries) */
	uint32_t retrans;			/* of which sent before */
	bool reordered;				/* filled a hole */
	bool jump;				/* its flow's stream started anew with it */
	bool cut;				/* the snap length cut its payload */
	uint32_t wire;				/* frame bytes (original length) */
};

struct tracker {
	struct tr_select *fg, *bg;
	struct flow *flow;
	uint32_t nflows, fcap, fmask;
	uint32_t *fidx;
	struct dir_key *dkey;
	uint32_t ndirs, dcap, dmask;
	uint32_t *didx;
	uint64_t *dpos;				/* [ndirs] each direction's stream so far */
};

/** @p s seconds in ns, saturated at the ends of 64 bits. */
static inline uint64_t
tk_ns(double s)
{
	return s >= 1.8e10 ? UINT64_MAX : s > 0 ? (uint64_t)(s * 1e9) : 0;
}

/*
 * A direction's link: until when it carried data.  With the link's rate known, each data
 * frame keeps it busy for its bytes at that rate from when it came or the frame before it left,
 * whichever is later (so that frames a shaper lets out in clumps count as the link's time they
 * took); without, a frame keeps it busy at its own time only.
 */
struct occ {
	uint64_t until;
	bool any;
};

/* A data frame of @p wire bytes at @p ts: the idle time before it (0 for the first), and from
 * when in *@p from. */
static inline uint64_t
occ_frame(struct occ *o, uint64_t ts, uint32_t wire, double rate, uint64_t *from)
{
	uint64_t gap = o->any && ts > o->until ? ts - o->until : 0;

	*from = o->until;
	if (!o->any || ts > o->until)
		o->until = ts;
	if (rate > 0)
		o->until += (uint64_t)(wire / rate * 1e9);
	o->any = true;
	return gap;
}

int tk_init(struct tracker *t, const struct tr_stream_params *p);
void tk_free(struct tracker *t);

/** One packet: 1 (see *@p ev), or the error of the filter or a table (-EINVAL, -E2BIG,
 *  -ENOMEM) with the message in @p err. */
int tk_packet(struct tracker *t, const struct tr_packet *p, struct tk_ev *ev, char *err,
	      size_t errlen);

/** Where the cuts go (split.c): fills nsteps, step[], each major direction's cut[] and step[]
 *  (zeroed), how; 0 or -EINVAL / -ENOMEM with the message in @p err. */
int split_streams(struct tr_streams *s, const struct tr_stream_params *p, char *err,
		  size_t errlen);

/** Each major direction's job_lo and job_hi: its stream without a one-way prelude and
 *  postlude (joint.c); 0 or -ENOMEM. */
int joint_bounds(struct tr_streams *s);

/**
 * Cut the job's part of every major direction (cut[0] and cut[n] placed) into @p n steps at the
 * n - 1 longest times every direction was idle (joint.c): for steps whose volumes differ.  How
 * much longer the last time taken is than the first left, in *@p sep (0: fewer than n - 1).
 *
 * @return 0; -ENOENT (fewer than n - 1 such times, or sep under TR_IDLE_SEP_MIN: the cuts are
 *         left), -ENOMEM
 */
int joint_cuts(struct tr_streams *s, uint32_t n, double *sep);

/**
 * Where the directions' interior cuts k (placed, each at an idle gap or not) are at gaps that
 * were never idle at one time, move them to gaps within TR_SNAP_FRACTION of a step of each that
 * were: the longest such time (a step ends when every direction is idle, the same moment for
 * all; a small message one way beside the cut, a receiver's ready or a rendezvous reply, puts
 * two gaps of a direction near its cut, and the idle times alone may pick the wrong one).
 *
 * @return the cuts moved, or -ENOMEM
 */
int joint_agree(struct tr_streams *s, uint32_t n);

/** The longest gap of @p d with an offset in [a, b] (by joint idle time): its index, or -1
 *  (split.c). */
int64_t longest_gap(const struct tr_dir *d, uint64_t a, uint64_t b);

/** Whether the idle times at direction @p d's n cuts alternate, long and short (joint.c). */
bool joint_alternate(const struct tr_dir *d, uint32_t n);

/** Whether direction @p d's n steps pause at their middles as at their ends (joint.c). */
bool joint_middles(const struct tr_dir *d, uint32_t n);

/** Each step's span, overlap and idle from the directions' steps and idle gaps (split.c). */
void spans_fill(struct tr_streams *s);

#endif /* TR_STREAMS_IMPL_H */
