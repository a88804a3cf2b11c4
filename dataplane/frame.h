/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames of the syncemu wire format (its layout: models/wire.h) as elements pass them on.
 */
#ifndef DP_FRAME_H
#define DP_FRAME_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "../models/packet.h"
#include "engine.h"
#include "fpool.h"

/* The header's flags (wire.h), in dp_meta.flags too. */
#define DP_SE_F_BG SM_SE_F_BG
#define DP_SE_F_LAST SM_SE_F_LAST
#define DP_SE_F_DENSE SM_SE_F_DENSE
/*
 * Not a header flag: dp_meta.flags of a frame that is not syncemu's at all (any frame a bridge
 * carries, bridge.h).  It is no part of the sync: a queue drops it as it drops background, and a
 * link charges its bytes (sm_charge_frame()), since it has no gradient payload.
 */
#define DP_SE_F_RAW 0x80
/*
 * Not header flags either: dp_meta.flags of TCP frames (job.transport = tcp, tcp.h), whose bytes
 * are Ethernet, IPv4 and TCP.  A link charges their bytes (sm_charge_frame()), and a queue that
 * drops one leaves its resending to TCP.
 */
#define DP_SE_F_TCP 0x40	/**< a TCP segment */
#define DP_SE_F_TCP_SACK 0x20	/**< a pure ACK carrying a SACK block */
#define DP_SE_F_CTL 0x08	/**< a TCP segment of a library's control message (no gradient) */
/*
 * Congestion Experienced: a queue's RED or step threshold marked the frame (its IP header's
 * ECN field says so too where it has bytes).  And on TCP frames only (never dense), ECE: the
 * ACK echoes a CE its receiver saw.
 */
#define DP_SE_F_CE 0x10
#define DP_SE_F_TCP_ECE SM_SE_F_DENSE

enum dp_kind {
	DP_KIND_WORKER = SM_SE_KIND_WORKER,
	DP_KIND_MODULE = SM_SE_KIND_MODULE,
	DP_KIND_SINK = SM_SE_KIND_SINK,
	DP_KIND_BULK = 3,	/**< a bulk host (bulk.h): TCP frames only, never in a header */
};

/** What elements read from a frame, kept in the mbuf's private area so no one parses it twice. */
struct dp_meta {
	uint32_t payload;	/**< gradient bytes */
	uint32_t step;
	uint16_t src, dst;
	uint16_t round;
	uint8_t kind;		/**< enum dp_kind */
	uint8_t flags;		/**< DP_SE_F_* */
};

/** Private area size the mempool must give each mbuf: its dp_meta, then its departure (ps). */
#define DP_MBUF_META RTE_ALIGN(sizeof(struct dp_meta), 8)
#define DP_MBUF_PRIV RTE_ALIGN(DP_MBUF_META + sizeof(uint64_t), RTE_MBUF_PRIV_ALIGN)

static inline struct dp_meta *
dp_meta(struct rte_mbuf *m)
{
	return (struct dp_meta *)rte_mbuf_to_priv(m);
}

/**
 * When the sender queued frame @p m, to the picosecond (the header says ns), or DP_NEVER: a
 * frame not made by dp_pkt_make() from a pool of DP_MBUF_PRIV (a port's, a copy's).  The
 * exact fast-forward's trace needs it (ffwd.h).
 */
static inline uint64_t
dp_mbuf_departure_ps(const struct rte_mbuf *m)
{
	uint64_t t;

	if (m->pool == NULL || rte_pktmbuf_priv_size(m->pool) < DP_MBUF_PRIV)
		return UINT64_MAX;
	memcpy(&t, (const uint8_t *)rte_mbuf_to_priv((struct rte_mbuf *)(uintptr_t)m) +
	       DP_MBUF_META, sizeof(t));
	return t;
}

/**
 * A frame as elements pass it on: what they read of it, and its bytes if it has any.
 *
 * Elements read only these fields, never the bytes: a frame of virtual time needs no bytes unless
 * something looks at them (a trace, a DPDK port), so a run without either makes none (m NULL), and
 * a queued frame is these 40 bytes in its link's ring instead of a header mbuf of four cache
 * lines taken from a pool and freed again.  With a trace or ports every frame has its mbuf, its
 * headers made from the same flow template as ever, so traces are the same byte for byte.
 * rx() passes a dp_pkt by pointer: the receiver owns the frame (its mbuf) from then on and copies
 * the struct if it keeps it.
 */
struct dp_pkt {
	struct rte_mbuf *m;	/**< its bytes (the receiver frees them), or NULL: none */
	uint64_t departure_ns;	/**< when the sender queued it (the header's field) */
	uint32_t len;		/**< frame bytes (pkt_len) */
	uint32_t seq;		/**< frame number within its round or transfer */
	struct dp_meta meta;
};

/**
 * A frame's journey ends here (received, consumed or dropped): free its bytes; a frame of the sync
 * is no longer part of the sync's work in progress (dp_engine.sync_wip).
 */
static inline void
dp_frame_end(struct dp_engine *eng, const struct dp_pkt *p)
{
	if (!(p->meta.flags & (DP_SE_F_BG | DP_SE_F_RAW)))
		dp_sync_release(eng);
	if (p->m != NULL)
		dp_fpool_frame_free(p->m);
}

/** The headers of one flow (source, destination, round), written into each of its frames. */
struct dp_flow {
	uint8_t hdr[SM_HDR_BYTES];
	struct dp_meta meta;
	uint16_t cksum_full;	/**< IPv4 checksum for a full frame */
	uint32_t full;		/**< payload of a full frame */
};

/**
 * The IPv4 address of worker @p w (network order) and its MAC in @p mac (models/wire.h: the
 * addresses); @p base 0 for a worker, 100 for its module, 200 for a background host.
 */
rte_be32_t dp_worker_addr(uint32_t w, uint32_t n_per_dc, uint8_t base,
			  struct rte_ether_addr *mac);

/**
 * Prepare the headers of a flow.
 *
 * @param n_per_dc  workers per data centre (to form addresses)
 * @param src, dst  worker indices; dst names a module if @p kind is DP_KIND_MODULE
 */
void dp_flow_init(struct dp_flow *f, uint32_t n_per_dc, uint32_t run_id, uint32_t step,
		  uint16_t round, uint8_t phase, uint16_t chunk, uint32_t src, uint32_t dst,
		  enum dp_kind kind, uint8_t flags, uint32_t full_payload);

/**
 * A copy of frame @p m (its bytes as a trace reads them, its dp_meta) from @p pool: a frame
 * crossing into another partition, whose pool is its own (parallel.h).  NULL if none is left.
 */
struct rte_mbuf *dp_frame_copy(struct rte_mempool *pool, const struct rte_mbuf *m);

/**
 * A frame of @p pkt_len bytes from @p pool whose first SM_HDR_BYTES are @p hdr and the rest
 * zeros (as every frame dp_frame_make() writes), with dp_meta @p meta: a frame that crossed from
 * another rank as its headers alone (parallel.c).  NULL if the pool is empty or the frame does
 * not fit one of its mbufs.
 */
struct rte_mbuf *dp_frame_of_hdr(struct rte_mempool *pool, const uint8_t *hdr, uint32_t pkt_len,
				 const struct dp_meta *meta);

/**
 * Allocate and write one frame of flow @p f.  From a frame pool (dp_fpool_create()) the frame
 * may be two segments: its headers (rte_pktmbuf_mtod(), data_len SM_HDR_BYTES) and a shared
 * read-only payload of zeros; pkt_len is always the whole frame.
 *
 * @return the mbuf, or NULL if the pool is empty
 */
struct rte_mbuf *dp_frame_make(struct rte_mempool *pool, const struct dp_flow *f, uint64_t offset,
			       uint32_t seq, uint32_t payload, uint64_t departure_ns, bool last);

/**
 * One frame of flow @p f into @p p, queued by its sender at @p departure (ps; the header and
 * dp_pkt have ns): with bytes (an mbuf from @p pool, dp_frame_make()) if the engine's frames
 * have them (dp_engine.bytes), else the fields alone.
 *
 * @return 0, or -ENOBUFS if the pool is empty
 */
static inline int
dp_pkt_make(struct dp_engine *eng, const struct dp_flow *f, uint64_t offset, uint32_t seq,
	    uint32_t payload, dp_time_t departure, bool last, struct dp_pkt *p)
{
	uint64_t departure_ns = departure / 1000;

	p->m = NULL;
	if (eng->bytes) {
		p->m = dp_frame_make(eng->pool, f, offset, seq, payload, departure_ns, last);
		if (p->m == NULL)
			return -ENOBUFS;
		if (rte_pktmbuf_priv_size(p->m->pool) >= DP_MBUF_PRIV)
			memcpy((uint8_t *)rte_mbuf_to_priv(p->m) + DP_MBUF_META, &departure,
			       sizeof(departure));
	}
	p->departure_ns = departure_ns;
	p->len = SM_HDR_BYTES + payload;
	p->seq = seq;
	p->meta = f->meta;
	p->meta.payload = payload;
	if (last)
		p->meta.flags |= DP_SE_F_LAST;
	return 0;
}

/**
 * The dp_pkt of a frame taken from a port, checked by dp_frame_parse(): @p m is its bytes.
 */
void dp_pkt_of_mbuf(struct rte_mbuf *m, struct dp_pkt *p);

/** The dp_pkt of a frame that is not syncemu's (DP_SE_F_RAW): @p m is its bytes. */
static inline void
dp_pkt_of_raw(struct rte_mbuf *m, struct dp_pkt *p)
{
	p->m = m;
	p->departure_ns = 0;
	p->len = rte_pktmbuf_pkt_len(m);
	p->seq = 0;
	memset(&p->meta, 0, sizeof(p->meta));
	p->meta.payload = p->len;
	p->meta.flags = DP_SE_F_RAW;
}

/**
 * Check a received frame and fill its dp_meta from the headers (frames from a real port).
 *
 * @return 0, or -EINVAL naming nothing (count it and drop the frame)
 */
int dp_frame_parse(struct rte_mbuf *m);

#endif /* DP_FRAME_H */
