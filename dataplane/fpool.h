/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame pools for virtual time: memory that follows the frames in flight.
 *
 * In virtual time a frame has bytes only when a trace is written (frame.h struct dp_pkt); then
 * it is only ever read for its headers (and, by a trace with a full snap
 * length, for its payload, which is zeros).  A compact pool makes each frame two mbufs: its
 * 90 bytes of headers in a small mbuf of its own (with the dp_meta private area), chained to a
 * payload segment whose buffer is one shared, read-only run of zeros.  pkt_len, what a link
 * charges and every byte a trace writes stay as with a whole frame; a queued frame costs about
 * 320 bytes instead of its MTU.
 *
 * A pool also grows: when every mbuf of its pools is taken, another pool of params.grow mbufs is
 * added, and one that is again wholly free is released (its memory goes back to the system), so
 * the memory follows the frames actually queued, not the queue limits.  The pools' memory is the
 * process's own (anonymous, with transparent huge pages where the kernel offers them: fewer TLB
 * misses with many frames in flight), not the EAL's: frames of a compact pool must not leave
 * through a DPDK port (a NIC could not reach the memory, and the payload is shared); real time
 * with ports uses dp_pool_create()'s whole frames.
 *
 * The handle is the first pool, an ordinary pktmbuf mempool: dp_frame_make() recognises it and
 * every mbuf is freed with rte_pktmbuf_free() as usual (to the pool it came from).
 */
#ifndef DP_FPOOL_H
#define DP_FPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/** Pools a frame pool may grow to, per kind (headers, payload segments). */
#define DP_FPOOL_MAX 256

/** Configuration of a frame pool. */
struct dp_fpool_params {
	uint32_t n;		/**< mbufs of the first pool (never released) */
	uint32_t frame_max;	/**< largest frame, bytes (headers and payload) */
	uint32_t grow;		/**< mbufs of each pool added when all are taken; 0: never grow */
	bool compact;		/**< headers apart from a shared zero payload; false: whole frames */
};

/**
 * Create a frame pool (the EAL must be up).
 *
 * @return the first pool (the handle), or NULL with rte_errno set: EINVAL (a bad parameter),
 *         ENOMEM, EEXIST (the name is taken)
 */
struct rte_mempool *dp_fpool_create(const char *name, const struct dp_fpool_params *p);

/** Free a frame pool and every pool it grew (or a plain mempool); NULL is a no-op. */
void dp_fpool_free(struct rte_mempool *mp);

/** Mbufs taken from the pool and every pool it grew, now. */
uint64_t dp_fpool_in_use(const struct rte_mempool *mp);

/** The parameters frame pool @p mp was made with (another like it): 0, or -EINVAL if none. */
int dp_fpool_params_of(struct rte_mempool *mp, struct dp_fpool_params *p);

/** Frames taken from it now: its header mbufs (the payload segments frames share are not). */
uint64_t dp_fpool_frames_in_use(const struct rte_mempool *mp);

/** Pools of the kind @p payload (false: headers or whole frames) it holds now. */
uint32_t dp_fpool_pools(const struct rte_mempool *mp, bool payload);

/** The set behind a frame pool (fpool.c); NULL for a plain mempool. */
struct dp_fpool_set;

/** What a frame pool keeps in its first pool's private area. */
struct dp_fpool_priv {
	struct rte_pktmbuf_pool_private pkt;	/**< first: what rte_pktmbuf_* read */
	uint32_t magic;				/**< DP_FPOOL_MAGIC */
	struct dp_fpool_set *set;
};

#define DP_FPOOL_MAGIC 0x46504f4cu

/** hash.usr of a payload segment frames share (its slot in the low bits). */
#define DP_FPOOL_SHARED 0x53480000u
#define DP_FPOOL_SHARED_MASK 0xffff0000u

/** The frame pool's set if @p mp is a frame pool's handle, else NULL. */
static inline struct dp_fpool_set *
dp_fpool_of(struct rte_mempool *mp)
{
	struct dp_fpool_priv *pv;

	if (mp->private_data_size < sizeof(struct dp_fpool_priv))
		return NULL;
	pv = rte_mempool_get_priv(mp);
	return pv->magic == DP_FPOOL_MAGIC ? pv->set : NULL;
}

/**
 * A frame of @p payload bytes from set @p s: a reset header mbuf with room for the headers and,
 * in a compact set, the payload segment chained to it (pkt_len = @p hdr_len + @p payload,
 * data_len = @p hdr_len); in a set of whole frames one mbuf of both.  @p data receives where
 * the headers go (rte_pktmbuf_mtod(), without reading the mbuf).
 *
 * @return the mbuf, or NULL if no more memory could be had
 */
struct rte_mbuf *dp_fpool_frame(struct dp_fpool_set *s, uint32_t hdr_len, uint32_t payload,
				uint8_t **data);

/**
 * Free frame @p m whose payload is @p g, a segment it shares (m->next, hash.usr
 * DP_FPOOL_SHARED): its reference on @p g goes back to the set, without an atomic update.
 */
void dp_fpool_unshare(struct rte_mbuf *m, struct rte_mbuf *g);

/** Free a frame: rte_pktmbuf_free(), quicker for a frame that shares its payload. */
static inline void
dp_fpool_frame_free(struct rte_mbuf *m)
{
	struct rte_mbuf *g = m->next;

	if (g != NULL && (g->hash.usr & DP_FPOOL_SHARED_MASK) == DP_FPOOL_SHARED &&
	    m->nb_segs == 2 && rte_mbuf_refcnt_read(m) == 1)
		dp_fpool_unshare(m, g);
	else
		rte_pktmbuf_free(m);
}

#endif /* DP_FPOOL_H */
