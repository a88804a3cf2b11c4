/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames of the syncemu wire format.
 *
 * A flow's 90 bytes of headers are built once per round; each frame copies them and patches what
 * changes per frame (offset, sequence, departure, and on a short last frame the lengths and the IP
 * checksum).  The payload bytes are left as the pool gave them (zero), so a trace with a full snap
 * length is deterministic; from a frame pool (fpool.h) the payload is a segment of shared zeros
 * chained to the headers' mbuf.
 */
#include <errno.h>
#include <string.h>

#include "fpool.h"
#include "frame.h"

rte_be32_t
dp_worker_addr(uint32_t w, uint32_t n_per_dc, uint8_t base, struct rte_ether_addr *mac)
{
	uint32_t d = w / n_per_dc, i = w % n_per_dc;

	mac->addr_bytes[0] = 0x02;
	mac->addr_bytes[1] = 0x53;
	mac->addr_bytes[2] = 0x45;
	mac->addr_bytes[3] = (uint8_t)(base + d);
	mac->addr_bytes[4] = (uint8_t)(i >> 8);
	mac->addr_bytes[5] = (uint8_t)i;
	return rte_cpu_to_be_32(RTE_IPV4(10, (uint8_t)(base + d), i / 250, i % 250 + 1));
}

static void
set_lengths(uint8_t *hdr, uint32_t payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + SM_ETH_HDR);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(hdr + SM_ETH_HDR + SM_IP_HDR);
	uint32_t l4 = SM_UDP_HDR + SM_SE_HDR + payload;

	ip->total_length = rte_cpu_to_be_16((uint16_t)(SM_IP_HDR + l4));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4);
}

void
dp_flow_init(struct dp_flow *f, uint32_t n_per_dc, uint32_t run_id, uint32_t step,
	     uint16_t round, uint8_t phase, uint16_t chunk, uint32_t src, uint32_t dst,
	     enum dp_kind kind, uint8_t flags, uint32_t full_payload)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->hdr + SM_ETH_HDR);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f->hdr + SM_ETH_HDR + SM_IP_HDR);
	struct sm_se_hdr *se = (struct sm_se_hdr *)(f->hdr + SM_SE_AT);
	uint8_t dst_base = kind == DP_KIND_MODULE ? 100 : kind == DP_KIND_SINK ? 200 : 0;
	uint8_t src_base = flags & DP_SE_F_BG ? 200 : 0;

	memset(f, 0, sizeof(*f));
	ip->src_addr = dp_worker_addr(src, n_per_dc, src_base, &eth->src_addr);
	ip->dst_addr = dp_worker_addr(dst, n_per_dc, dst_base, &eth->dst_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	udp->src_port = rte_cpu_to_be_16(SM_SE_UDP_SRC);
	udp->dst_port = rte_cpu_to_be_16(SM_SE_UDP_DST);
	se->magic = rte_cpu_to_be_32(SM_SE_MAGIC);
	se->version = SM_SE_VERSION;
	se->flags = flags;
	se->round = rte_cpu_to_be_16(round);
	se->run_id = rte_cpu_to_be_32(run_id);
	se->step = rte_cpu_to_be_32(step);
	se->src = rte_cpu_to_be_16((uint16_t)src);
	se->dst = rte_cpu_to_be_16((uint16_t)dst);
	se->phase = phase;
	se->kind = (uint8_t)kind;
	se->chunk = rte_cpu_to_be_16(chunk);
	set_lengths(f->hdr, full_payload);
	f->cksum_full = ip->hdr_checksum;
	f->full = full_payload;
	f->meta.step = step;
	f->meta.src = (uint16_t)src;
	f->meta.dst = (uint16_t)dst;
	f->meta.round = round;
	f->meta.kind = (uint8_t)kind;
	f->meta.flags = flags;
}

/*
 * A frame of @hdr + @payload bytes from @pool (@fs its frame pool, or NULL): from a frame pool its
 * headers, the payload a shared segment of zeros; else one mbuf of the whole frame (the caller
 * checks that it fits).  @p: where its headers go.  NULL if the pool is empty.
 */
static inline struct rte_mbuf *
frame_alloc_hdr(struct rte_mempool *pool, struct dp_fpool_set *fs, uint32_t hdr,
		uint32_t payload, uint8_t **p)
{
	struct rte_mbuf *m;

	if (fs != NULL)
		return dp_fpool_frame(fs, hdr, payload, p);
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return NULL;
	m->data_len = (uint16_t)(hdr + payload);
	m->pkt_len = m->data_len;
	*p = rte_pktmbuf_mtod(m, uint8_t *);
	return m;
}

/* A syncemu frame: SM_HDR_BYTES of headers and @payload. */
static inline struct rte_mbuf *
frame_alloc(struct rte_mempool *pool, struct dp_fpool_set *fs, uint32_t payload, uint8_t **p)
{
	return frame_alloc_hdr(pool, fs, SM_HDR_BYTES, payload, p);
}

/* Does a frame of @len bytes fit one mbuf of @pool (@fs NULL: not a frame pool)? */
static inline bool
frame_fits(struct rte_mempool *pool, const struct dp_fpool_set *fs, uint32_t len)
{
	return fs != NULL ||
	       len <= (uint32_t)rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
}

struct rte_mbuf *
dp_frame_make(struct rte_mempool *pool, const struct dp_flow *f, uint64_t offset, uint32_t seq,
	      uint32_t payload, uint64_t departure_ns, bool last)
{
	struct dp_fpool_set *fs = dp_fpool_of(pool);
	struct rte_mbuf *m;
	uint8_t *p;
	struct sm_se_hdr *se;
	struct dp_meta *meta;

	m = frame_alloc(pool, fs, payload, &p);
	if (m == NULL)
		return NULL;
	memcpy(p, f->hdr, SM_HDR_BYTES);
	if (payload != f->full)
		set_lengths(p, payload);
	se = (struct sm_se_hdr *)(p + SM_SE_AT);
	if (last)
		se->flags |= DP_SE_F_LAST;
	se->offset = rte_cpu_to_be_64(offset);
	se->seq = rte_cpu_to_be_32(seq);
	se->payload_len = rte_cpu_to_be_32(payload);
	se->departure_ns = rte_cpu_to_be_64(departure_ns);
	meta = dp_meta(m);
	*meta = f->meta;
	meta->payload = payload;
	if (last)
		meta->flags |= DP_SE_F_LAST;
	return m;
}

struct rte_mbuf *
dp_frame_of_hdr(struct rte_mempool *pool, const uint8_t *hdr, uint32_t pkt_len,
		const struct dp_meta *meta)
{
	struct dp_fpool_set *fs = dp_fpool_of(pool);
	struct rte_mbuf *m;
	uint8_t *p;

	if (pkt_len < SM_HDR_BYTES || pkt_len > UINT16_MAX || !frame_fits(pool, fs, pkt_len))
		return NULL;
	m = frame_alloc(pool, fs, pkt_len - SM_HDR_BYTES, &p);
	if (m == NULL)
		return NULL;
	if (fs == NULL)
		memset(p + SM_HDR_BYTES, 0, pkt_len - SM_HDR_BYTES);
	memcpy(p, hdr, SM_HDR_BYTES);
	*dp_meta(m) = *meta;
	return m;
}

int
dp_frame_parse(struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + SM_ETH_HDR);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(p + SM_ETH_HDR + SM_IP_HDR);
	const struct sm_se_hdr *se;
	struct dp_meta *meta = dp_meta(m);
	uint32_t payload;

	if (m->data_len < SM_HDR_BYTES || m->nb_segs != 1 ||
	    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->version_ihl != RTE_IPV4_VHL_DEF || ip->next_proto_id != IPPROTO_UDP ||
	    udp->dst_port != rte_cpu_to_be_16(SM_SE_UDP_DST))
		return -EINVAL;
	se = (const struct sm_se_hdr *)(p + SM_SE_AT);
	payload = rte_be_to_cpu_32(se->payload_len);
	if (se->magic != rte_cpu_to_be_32(SM_SE_MAGIC) || se->version != SM_SE_VERSION ||
	    SM_HDR_BYTES + (uint64_t)payload != m->pkt_len || se->kind > DP_KIND_SINK ||
	    (se->flags & ~(DP_SE_F_BG | DP_SE_F_LAST | DP_SE_F_DENSE)) != 0)
		return -EINVAL;
	meta->payload = payload;
	meta->step = rte_be_to_cpu_32(se->step);
	meta->src = rte_be_to_cpu_16(se->src);
	meta->dst = rte_be_to_cpu_16(se->dst);
	meta->round = rte_be_to_cpu_16(se->round);
	meta->kind = se->kind;
	meta->flags = se->flags;
	return 0;
}

void
dp_pkt_of_mbuf(struct rte_mbuf *m, struct dp_pkt *p)
{
	const struct sm_se_hdr *se = rte_pktmbuf_mtod_offset(m, const struct sm_se_hdr *,
							     SM_ETH_HDR + SM_IP_HDR + SM_UDP_HDR);

	p->m = m;
	p->departure_ns = rte_be_to_cpu_64(se->departure_ns);
	p->len = rte_pktmbuf_pkt_len(m);
	p->seq = rte_be_to_cpu_32(se->seq);
	p->meta = *dp_meta(m);
}

/*
 * The headers of @m (@len bytes): a TCP segment's (tcp_frame.c) end where its TCP header's data
 * offset says, every other frame's at SM_HDR_BYTES; never past the frame.
 */
static uint32_t
hdr_len(const struct rte_mbuf *m, uint32_t len)
{
	uint8_t b[SM_ETH_HDR + SM_IP_HDR + 13];
	const uint8_t *h;
	uint32_t n = SM_HDR_BYTES;

	if (dp_meta((struct rte_mbuf *)(uintptr_t)m)->flags & DP_SE_F_TCP) {
		h = len >= sizeof(b) ? rte_pktmbuf_read(m, 0, sizeof(b), b) : NULL;
		n = h != NULL ? SM_ETH_HDR + SM_IP_HDR + (h[SM_ETH_HDR + SM_IP_HDR + 12] >> 4) * 4u :
				len;
	}
	return n < len ? n : len;
}

struct rte_mbuf *
dp_frame_copy(struct rte_mempool *pool, const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct dp_fpool_set *fs = dp_fpool_of(pool);
	struct rte_mbuf *c;
	const void *h;
	uint32_t n, hdr;
	uint8_t *p;

	if (!frame_fits(pool, fs, len))
		return NULL;
	hdr = hdr_len(m, len);
	c = frame_alloc_hdr(pool, fs, hdr, len - hdr, &p);
	if (c == NULL)
		return NULL;
	/* in a frame pool the payload is zeros in every frame: the headers are the frame */
	n = fs != NULL ? hdr : len;
	h = rte_pktmbuf_read(m, 0, n, p);
	if (h != p)
		memcpy(p, h, n);
	*dp_meta(c) = *dp_meta((struct rte_mbuf *)(uintptr_t)m);
	return c;
}
