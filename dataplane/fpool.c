/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame pools: compact frames (headers + a shared zero payload) and pools that grow and shrink.
 *
 * A set holds two kinds of pool: header mbufs (or whole frames) and payload segments.  A header
 * mbuf of a compact set has no headroom: its 90 bytes of headers follow its private area, four
 * cache lines in all.  A payload segment is an ordinary direct mbuf whose buffer, set once when
 * its pool is made, is the set's run of zeros: nothing ever writes into it (the data plane writes
 * headers only), so every segment can share it, and rte_pktmbuf_free() returns a segment to its
 * pool with its buffer unchanged.  (rte_pktmbuf_attach_extbuf() would do the same at the cost of
 * a detach on every free.)
 *
 * Frames of one payload length share one segment: the set keeps SHARE_SLOTS segments, a frame of
 * length L takes a reference on slot L % SHARE_SLOTS if that segment has length L (or if only the
 * set holds it, which then makes it length L), and rte_pktmbuf_free() of the frame drops the
 * reference.  A frame then touches only its own header mbuf, not a segment of its own (a cache
 * miss less at every free with many frames in flight).  When the slot holds another length, or
 * SHARE_MAX references are taken on it, the frame takes a segment of its own from the pools.
 * The mbuf reference count is atomic, and a locked instruction waits for every store before it
 * (a frame's are to lines out of the cache): the set takes CREDIT_BATCH references at once and
 * hands them out, and dp_frame_end() (dp_fpool_unshare()) gives a frame's back to the set
 * without touching the count.  A frame freed by rte_pktmbuf_free() drops its reference as usual.
 *
 * Taking an mbuf tries the lowest pool that had one, then the next ones, then adds a pool.  Every
 * TIDY_EVERY frames the set looks again from its first pool and releases its last pool if that
 * one is wholly free while the one below is at most half taken (so that a queue swinging around
 * a pool's edge does not make and release it over and over).  Which pool an mbuf comes from
 * changes nothing a run computes or writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf_pool_ops.h>

#include "eal.h"
#include "fpool.h"
#include "frame.h"

#define HUGE_SZ (2u << 20)
#define TIDY_EVERY 8192u
#define SHARE_SLOTS 64u		/* shared payload segments, by length modulo this */
#define SHARE_MAX 60000u	/* references on one shared segment (its refcnt is 16 bits) */
#define CREDIT_BATCH 1024u	/* references taken on a shared segment at once */

enum { KIND_HDR, KIND_SEG, KIND_COUNT };

struct fp_kind {
	struct rte_mempool *mp[DP_FPOOL_MAX];
	void *mem[DP_FPOOL_MAX];	/**< each pool's mapping */
	size_t len[DP_FPOOL_MAX];
	uint32_t n;			/**< pools */
	uint32_t cur;			/**< the lowest pool that last had an mbuf */
	uint16_t room, priv;		/**< data room and private area of its mbufs */
};

struct dp_fpool_set {
	struct fp_kind k[KIND_COUNT];
	bool compact;
	uint32_t grow;			/**< mbufs per added pool; 0: none */
	uint32_t first, frame_max;	/**< the first pool's mbufs, the largest frame */
	uint32_t ticks;			/**< frames since the last tidy */
	uint32_t serial;		/**< names of added pools */
	uint8_t *zero;			/**< the shared payload (zeros) */
	size_t zero_map;		/**< its mapping's length */
	uint16_t zero_len;		/**< its length as a segment's buffer */
	struct rte_mbuf *share[SHARE_SLOTS]; /**< payload segments many frames share */
	uint32_t credit[SHARE_SLOTS];	/**< references on them the set holds beyond its own */
	char name[RTE_MEMPOOL_NAMESIZE];
};

/*
 * Anonymous memory of @len bytes (a multiple of HUGE_SZ) aligned to HUGE_SZ, on transparent huge
 * pages where the kernel gives them (fewer TLB misses with many frames in flight).
 */
static void *
map(size_t len)
{
	uint8_t *p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0), *a;

	if (p == MAP_FAILED)
		return NULL;
	a = RTE_PTR_ALIGN_CEIL(p, HUGE_SZ);
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + len + HUGE_SZ)
		munmap(a + len, (size_t)(p + len + HUGE_SZ - (a + len)));
	(void)madvise(a, len, MADV_HUGEPAGE);	/* a hint: fine if refused */
	return a;
}

static void
seg_init(struct rte_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	const struct dp_fpool_set *s = opaque;
	struct rte_mbuf *m = obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	m->buf_addr = s->zero;
	rte_mbuf_iova_set(m, rte_mem_virt2iova(s->zero));
	m->buf_len = s->zero_len;
	m->data_off = 0;
}

/* A pool of @n mbufs of kind @kind, in memory of its own; 0 or -errno. */
static int
add_pool(struct dp_fpool_set *s, unsigned int kind, uint32_t n, const char *name,
	 unsigned int priv_size)
{
	struct fp_kind *k = &s->k[kind];
	struct rte_pktmbuf_pool_private pp = {
		.mbuf_data_room_size = k->room,
		.mbuf_priv_size = k->priv,
	};
	struct rte_mempool *mp;
	size_t obj, len;
	void *mem;
	int rc;

	if (k->n == DP_FPOOL_MAX)
		return -ENOSPC;
	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) + k->priv + k->room,
				      n >= 4096 ? 256 : 0,
				      RTE_MAX(priv_size, sizeof(struct rte_pktmbuf_pool_private)),
				      SOCKET_ID_ANY,
				      RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	/*
	 * A stack: the mbuf freed last is the next taken, its lines still in the cache (a ring
	 * hands out the one freed longest ago).  Without DPDK's stack driver, the usual ops.
	 */
	rc = rte_mempool_set_ops_byname(mp, "stack", NULL);
	if (rc != 0)
		rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc != 0) {
		rte_mempool_free(mp);
		return rc;
	}
	rte_pktmbuf_pool_init(mp, &pp);
	obj = (size_t)mp->header_size + mp->elt_size + mp->trailer_size;
	len = RTE_ALIGN_CEIL((size_t)n * obj + 64 * obj, HUGE_SZ);
	mem = map(len);
	if (mem == NULL) {
		rte_mempool_free(mp);
		return -ENOMEM;
	}
	rc = rte_mempool_populate_virt(mp, mem, len, (size_t)getpagesize(), NULL, NULL);
	if (rc < 0 || mp->populated_size != n) {
		rte_mempool_free(mp);
		munmap(mem, len);
		return rc < 0 ? rc : -ENOMEM;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	if (kind == KIND_SEG)
		rte_mempool_obj_iter(mp, seg_init, s);
	k->mp[k->n] = mp;
	k->mem[k->n] = mem;
	k->len[k->n] = len;
	k->n++;
	return 0;
}

static void
release_last(struct fp_kind *k)
{
	k->n--;
	rte_mempool_free(k->mp[k->n]);
	munmap(k->mem[k->n], k->len[k->n]);
	k->mp[k->n] = NULL;
	if (k->cur >= k->n)
		k->cur = k->n - 1;
}

static void
set_free(struct dp_fpool_set *s)
{
	unsigned int i;

	for (i = 0; i < SHARE_SLOTS; i++)
		if (s->share[i] != NULL) {
			rte_mbuf_refcnt_set(s->share[i], 1);	/* its frames are all back */
			s->share[i]->hash.usr = 0;
			rte_pktmbuf_free(s->share[i]);
		}
	for (i = 0; i < KIND_COUNT; i++)
		while (s->k[i].n > 1)
			release_last(&s->k[i]);
	/* the first pools last: the first header pool holds the set's pointer */
	if (s->k[KIND_SEG].n == 1)
		release_last(&s->k[KIND_SEG]);
	if (s->k[KIND_HDR].n == 1)
		release_last(&s->k[KIND_HDR]);
	if (s->zero != NULL)
		munmap(s->zero, s->zero_map);
	free(s);
}

struct rte_mempool *
dp_fpool_create(const char *name, const struct dp_fpool_params *p)
{
	struct dp_fpool_set *s;
	struct dp_fpool_priv *pv;
	struct rte_mempool *mp;
	char seg_name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room, i;
	int rc;

	if (name == NULL || p == NULL || p->n < 64 || p->frame_max <= SM_HDR_BYTES ||
	    strlen(name) > RTE_MEMPOOL_NAMESIZE - 8) {
		rte_errno = EINVAL;
		return NULL;
	}
	room = p->compact ? RTE_ALIGN_CEIL(SM_HDR_BYTES, 64) :
		RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(p->frame_max, 64);
	if (room > UINT16_MAX || p->frame_max > UINT16_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->compact = p->compact;
	s->grow = p->grow;
	s->first = p->n;
	s->frame_max = p->frame_max;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->k[KIND_HDR].room = (uint16_t)room;
	s->k[KIND_HDR].priv = DP_MBUF_PRIV;
	rc = add_pool(s, KIND_HDR, p->n, name, sizeof(struct dp_fpool_priv));
	if (rc != 0) {
		free(s);
		rte_errno = -rc;
		return NULL;
	}
	mp = s->k[KIND_HDR].mp[0];
	pv = rte_mempool_get_priv(mp);
	pv->magic = DP_FPOOL_MAGIC;
	pv->set = s;
	if (p->compact) {
		s->zero_len = (uint16_t)p->frame_max;
		s->zero_map = RTE_ALIGN_CEIL((size_t)p->frame_max, (size_t)getpagesize());
		/* untouched anonymous pages read as zeros and cost no memory */
		s->zero = mmap(NULL, s->zero_map, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->zero == MAP_FAILED) {
			s->zero = NULL;
			rc = -ENOMEM;
		} else {
			snprintf(seg_name, sizeof(seg_name), "%s_p", name);
			rc = add_pool(s, KIND_SEG, RTE_MAX(p->n / 4, 4 * SHARE_SLOTS), seg_name,
				      sizeof(struct dp_fpool_priv));
		}
		if (rc == 0) {
			pv = rte_mempool_get_priv(s->k[KIND_SEG].mp[0]);
			pv->magic = DP_FPOOL_MAGIC;
			pv->set = s;
		}
		for (i = 0; rc == 0 && i < SHARE_SLOTS; i++) {
			s->share[i] = rte_mbuf_raw_alloc(s->k[KIND_SEG].mp[0]);
			if (s->share[i] == NULL) {
				rc = -ENOMEM;
			} else {
				s->share[i]->data_len = 0;
				s->share[i]->hash.usr = DP_FPOOL_SHARED | i;
			}
		}
		if (rc != 0) {
			set_free(s);
			rte_errno = -rc;
			return NULL;
		}
	}
	return mp;
}

void
dp_fpool_free(struct rte_mempool *mp)
{
	struct dp_fpool_set *s;

	if (mp == NULL)
		return;
	s = dp_fpool_of(mp);
	if (s != NULL)
		set_free(s);
	else if (!dp_eal_is_ending())	/* else rte_eal_cleanup() releases it, unwritten */
		rte_mempool_free(mp);
}

uint64_t
dp_fpool_in_use(const struct rte_mempool *mp)
{
	struct dp_fpool_set *s = dp_fpool_of((struct rte_mempool *)(uintptr_t)mp);
	uint64_t n = 0;
	unsigned int i, j;

	if (s == NULL)
		return mp->size - rte_mempool_avail_count(mp);
	for (i = 0; i < KIND_COUNT; i++)
		for (j = 0; j < s->k[i].n; j++)
			n += s->k[i].mp[j]->size - rte_mempool_avail_count(s->k[i].mp[j]);
	return n;
}

uint64_t
dp_fpool_frames_in_use(const struct rte_mempool *mp)
{
	struct dp_fpool_set *s = dp_fpool_of((struct rte_mempool *)(uintptr_t)mp);
	uint64_t n = 0;
	unsigned int j;

	if (s == NULL)
		return mp->size - rte_mempool_avail_count(mp);
	for (j = 0; j < s->k[KIND_HDR].n; j++)
		n += s->k[KIND_HDR].mp[j]->size - rte_mempool_avail_count(s->k[KIND_HDR].mp[j]);
	return n;
}

uint32_t
dp_fpool_pools(const struct rte_mempool *mp, bool payload)
{
	struct dp_fpool_set *s = dp_fpool_of((struct rte_mempool *)(uintptr_t)mp);

	if (s == NULL)
		return payload ? 0 : 1;
	return s->k[payload ? KIND_SEG : KIND_HDR].n;
}

/* Look again from the first pool; release the last one if it is free and not needed soon. */
static void
tidy(struct dp_fpool_set *s)
{
	unsigned int i;

	for (i = 0; i < KIND_COUNT; i++) {
		struct fp_kind *k = &s->k[i];

		k->cur = 0;
		while (k->n > 1 && rte_mempool_full(k->mp[k->n - 1]) &&
		       rte_mempool_avail_count(k->mp[k->n - 2]) >= k->mp[k->n - 2]->size / 2)
			release_last(k);
	}
}

static struct rte_mbuf *
take_slow(struct dp_fpool_set *s, unsigned int kind)
{
	struct fp_kind *k = &s->k[kind];
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mbuf *m;
	uint32_t i;

	for (i = k->cur + 1; i < k->n; i++) {
		m = rte_mbuf_raw_alloc(k->mp[i]);
		if (m != NULL) {
			k->cur = i;
			return m;
		}
	}
	if (s->grow == 0)
		return NULL;
	snprintf(name, sizeof(name), "%.*s_%c%u", (int)RTE_MEMPOOL_NAMESIZE - 16, s->name,
		 kind == KIND_HDR ? 'h' : 'p', ++s->serial);
	if (add_pool(s, kind, s->grow, name, 0) != 0)
		return NULL;
	k->cur = k->n - 1;
	return rte_mbuf_raw_alloc(k->mp[k->cur]);
}

static inline struct rte_mbuf *
take(struct dp_fpool_set *s, unsigned int kind)
{
	struct fp_kind *k = &s->k[kind];
	struct rte_mbuf *m = rte_mbuf_raw_alloc(k->mp[k->cur]);

	return likely(m != NULL) ? m : take_slow(s, kind);
}

/*
 * rte_pktmbuf_reset() in stores only (it reads ol_flags and buf_len): a recycled mbuf is usually
 * out of the cache, and a store does not wait for its line as a load does.  The set's mbufs are
 * never external and their buffers are where rte_pktmbuf_init() put them.  A compact set's
 * header mbufs have no headroom: the headers follow the private area.
 */
static inline void
reset(struct rte_mbuf *m, uint16_t headroom)
{
	m->next = NULL;
	m->pkt_len = 0;
	m->tx_offload = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	m->nb_segs = 1;
	m->port = RTE_MBUF_PORT_INVALID;
	m->ol_flags = 0;
	m->packet_type = 0;
	m->data_off = headroom;
	m->data_len = 0;
}

struct rte_mbuf *
dp_fpool_frame(struct dp_fpool_set *s, uint32_t hdr_len, uint32_t payload, uint8_t **data)
{
	struct rte_mbuf *h, *g;
	uint32_t slot;

	if (unlikely(++s->ticks == TIDY_EVERY)) {
		s->ticks = 0;
		tidy(s);
	}
	h = take(s, KIND_HDR);
	if (h == NULL)
		return NULL;
	reset(h, s->compact ? 0 : RTE_PKTMBUF_HEADROOM);
	*data = (uint8_t *)h + sizeof(*h) + DP_MBUF_PRIV + h->data_off;
	if (!s->compact || payload == 0) {
		h->data_len = (uint16_t)(hdr_len + payload);
		h->pkt_len = h->data_len;
		return h;
	}
	slot = payload & (SHARE_SLOTS - 1);
	g = s->share[slot];
	if (g->data_len != payload && rte_mbuf_refcnt_read(g) == 1 + s->credit[slot]) {
		g->data_len = (uint16_t)payload;	/* only the set holds it: it may change */
		g->pkt_len = payload;
	}
	if (likely(g->data_len == payload && s->credit[slot] > 0)) {
		s->credit[slot]--;	/* a reference the set held is the frame's now */
	} else if (g->data_len == payload &&
		   rte_mbuf_refcnt_read(g) + CREDIT_BATCH < SHARE_MAX) {
		/* references in a batch: one atomic update for CREDIT_BATCH frames */
		rte_mbuf_refcnt_update(g, CREDIT_BATCH);
		s->credit[slot] = CREDIT_BATCH - 1;
	} else {
		g = take(s, KIND_SEG);		/* a segment of its own */
		if (g == NULL) {
			rte_pktmbuf_free(h);
			return NULL;
		}
		/* it comes back with next NULL and one segment (rte_pktmbuf_free()) */
		g->data_off = 0;
		g->data_len = (uint16_t)payload;
		g->pkt_len = payload;
	}
	h->data_len = (uint16_t)hdr_len;
	h->pkt_len = hdr_len + payload;
	h->next = g;
	h->nb_segs = 2;
	return h;
}

void
dp_fpool_unshare(struct rte_mbuf *m, struct rte_mbuf *g)
{
	struct dp_fpool_set *s = dp_fpool_of(g->pool);
	uint32_t slot = g->hash.usr & (SHARE_SLOTS - 1);

	/* the frame's reference goes back to the set: no atomic update */
	if (unlikely(s == NULL || s->credit[slot] >= 2 * CREDIT_BATCH)) {
		rte_pktmbuf_free(m);
		return;
	}
	s->credit[slot]++;
	m->next = NULL;
	m->nb_segs = 1;
	rte_pktmbuf_free_seg(m);
}

int
dp_fpool_params_of(struct rte_mempool *mp, struct dp_fpool_params *p)
{
	struct dp_fpool_set *s = dp_fpool_of(mp);

	if (s == NULL)
		return -EINVAL;
	*p = (struct dp_fpool_params){ .n = s->first, .frame_max = s->frame_max, .grow = s->grow,
				       .compact = s->compact };
	return 0;
}
