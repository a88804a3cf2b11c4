/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP frames' bytes: Ethernet, IPv4 (DF, identification 0) and TCP with the timestamps option
 * (TSval the sender's time in ms; TSecr 0: not modelled) and, on a pure ACK with a SACK block,
 * the SACK option; window scale DP_TCP_WSCALE; the TCP checksum complete (the payload is zeros:
 * the pseudo-header and the header are the sum).  Ports: the lower-numbered worker of a pair
 * listens on DP_TCP_PORT_LISTEN, the other connects from DP_TCP_PORT_CONNECT (the addresses
 * tell the pairs apart).  Sequence and ACK numbers add each direction's initial sequence number
 * to the stream offsets tcp.h keeps.
 *
 * Through DPDK ports a frame is its bytes alone.  What a receiving TCP needs beyond what a real
 * stack's headers carry is the message a data segment's bytes belong to (its step and round,
 * and whether it is a library's control message): a library frames its messages in the byte
 * stream itself (Open MPI's BTL headers), but the element does not put them there.  So a frame
 * leaving through a port carries them in two fields that take any value on the wire: the IPv4
 * identification (RFC 6864: only fragments need it unique, and these are DF) holds the round,
 * and the TSecr the step, the control flag and the run (the element models no TSecr).
 */
#define ALLOW_EXPERIMENTAL_API	/* rte_ipv4_udptcp_cksum_mbuf_verify */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "fpool.h"
#include "tcp.h"

#define DP_TCP_PORT_LISTEN 50000
#define DP_TCP_PORT_CONNECT 40000

#define TCPOPT_NOP 1
#define TCPOPT_SACK 5
#define TCPOPT_TS 8

void
dp_tcp_conn_template(const struct dp_tcp *t, struct dp_tcp_conn *c)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)c->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(c->hdr + SM_ETH_HDR);
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(c->hdr + SM_ETH_HDR + SM_IP_HDR);
	uint8_t *opt = (uint8_t *)(tcp + 1);
	uint32_t self = t->id * t->dst_mult, peer = c->dst;
	bool low = c->self_wire < c->peer;

	memset(c->hdr, 0, sizeof(c->hdr));
	ip->src_addr = dp_worker_addr(self, t->per_dc, t->addr_base, &eth->src_addr);
	ip->dst_addr = dp_worker_addr(peer, t->per_dc, t->addr_base, &eth->dst_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	if (t->conf->ecn)
		ip->type_of_service = 2;	/* ECT(0): data segments (dp_tcp_frame()) */
	/* several connections between two hosts (bulk flows): the connecting side's port */
	tcp->src_port = rte_cpu_to_be_16(low ? DP_TCP_PORT_LISTEN :
					 DP_TCP_PORT_CONNECT + c->self_wire % t->mult);
	tcp->dst_port = rte_cpu_to_be_16(low ? DP_TCP_PORT_CONNECT + c->peer % t->mult :
					 DP_TCP_PORT_LISTEN);
	opt[0] = TCPOPT_NOP;
	opt[1] = TCPOPT_NOP;
	opt[2] = TCPOPT_TS;
	opt[3] = 10;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

struct rte_mbuf *
dp_tcp_frame(struct rte_mempool *pool, const struct dp_tcp_conn *c, const struct dp_pkt *p,
	     dp_time_t now)
{
	struct dp_fpool_set *fs = dp_fpool_of(pool);
	bool sack = p->meta.flags & DP_SE_F_TCP_SACK;
	uint32_t hlen = sack ? DP_TCP_HDR_SACK : DP_TCP_HDR;
	uint32_t payload = p->len - hlen, wnd = (uint32_t)p->departure_ns >> DP_TCP_WSCALE;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
	struct rte_mbuf *m;
	uint8_t *b, *opt;
	uint32_t sum;

	if (fs != NULL) {
		m = dp_fpool_frame(fs, hlen, payload, &b);
		if (m == NULL)
			return NULL;
	} else {
		if (p->len > (uint32_t)rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM)
			return NULL;
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL)
			return NULL;
		m->data_len = (uint16_t)p->len;
		m->pkt_len = p->len;
		b = rte_pktmbuf_mtod(m, uint8_t *);
		memset(b + hlen, 0, payload);
	}
	memcpy(b, c->hdr, DP_TCP_HDR);
	ip = (struct rte_ipv4_hdr *)(b + SM_ETH_HDR);
	tcp = (struct rte_tcp_hdr *)(b + SM_ETH_HDR + SM_IP_HDR);
	opt = (uint8_t *)(tcp + 1);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(p->len - SM_ETH_HDR));
	if (payload == 0 || sack)
		ip->type_of_service = 0;	/* a pure ACK is not ECN-capable (RFC 3168 6.1.4) */
	else if (p->meta.flags & DP_SE_F_CE)
		ip->type_of_service = 3;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	tcp->sent_seq = rte_cpu_to_be_32(c->isn_tx + p->seq);
	tcp->recv_ack = rte_cpu_to_be_32(c->isn_rx + (uint32_t)(p->departure_ns >> 32));
	tcp->data_off = (uint8_t)((hlen - SM_ETH_HDR - SM_IP_HDR) / 4) << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG | (p->meta.flags & DP_SE_F_LAST ? RTE_TCP_PSH_FLAG : 0) |
			 (p->meta.flags & DP_SE_F_TCP_ECE ? RTE_TCP_ECE_FLAG : 0);
	tcp->rx_win = rte_cpu_to_be_16((uint16_t)(wnd > UINT16_MAX ? UINT16_MAX : wnd));
	put32(opt + 4, (uint32_t)(now / UINT64_C(1000000000)));	/* TSval, ms */
	if (sack) {
		opt[12] = TCPOPT_NOP;
		opt[13] = TCPOPT_NOP;
		opt[14] = TCPOPT_SACK;
		opt[15] = 10;
		put32(opt + 16, c->isn_rx + p->meta.step);
		put32(opt + 20, c->isn_rx + p->meta.step + p->meta.payload);
	}
	tcp->cksum = 0;
	/* the payload is zeros: the pseudo-header (with the TCP length) and the header are all */
	sum = rte_raw_cksum(tcp, hlen - SM_ETH_HDR - SM_IP_HDR) + rte_ipv4_phdr_cksum(ip, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	tcp->cksum = (uint16_t)~sum;
	*dp_meta(m) = p->meta;
	return m;
}

/* ---- through DPDK ports ---- */

#define TSECR_CTL UINT32_C(0x80000000)
#define TSECR_RUN(r) (((r) & UINT32_C(0x7f)) << 24)
#define TSECR_STEP(v) ((v) & (DP_TCP_PORT_STEPS - 1))

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* RFC 1624 (eqn. 3): checksum @ck (network order) after 16-bit word @old became @new. */
static inline uint16_t
cksum_adjust(uint16_t ck, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(ck) + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

void
dp_tcp_port_tag(struct rte_mbuf *m, uint32_t run_id)
{
	const struct dp_meta *meta = dp_meta(m);
	bool data = meta->payload > 0 && !(meta->flags & DP_SE_F_TCP_SACK);
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + SM_ETH_HDR);
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(b + SM_ETH_HDR + SM_IP_HDR);
	uint8_t *tsecr = (uint8_t *)(tcp + 1) + 8;
	uint32_t old = get32(tsecr), v = TSECR_RUN(run_id);

	if (data) {
		v |= TSECR_STEP(meta->step) | (meta->flags & DP_SE_F_CTL ? TSECR_CTL : 0);
		ip->packet_id = rte_cpu_to_be_16(meta->round);
	} else {
		ip->packet_id = 0;
	}
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	put32(tsecr, v);
	tcp->cksum = cksum_adjust(tcp->cksum, (uint16_t)(old >> 16), (uint16_t)(v >> 16));
	tcp->cksum = cksum_adjust(tcp->cksum, (uint16_t)old, (uint16_t)v);
}

/* Worker @w of an IPv4 address (frame.h dp_worker_addr(), base 0); -1 if none is. */
static int64_t
worker_of(rte_be32_t addr, uint32_t per_dc)
{
	uint32_t a = rte_be_to_cpu_32(addr), d = a >> 16 & 0xff, i;

	if (a >> 24 != 10 || d >= 100 || (a & 0xff) == 0 || (a & 0xff) > 250)
		return -1;
	i = (a >> 8 & 0xff) * 250 + (a & 0xff) - 1;
	return i < per_dc ? (int64_t)d * per_dc + i : -1;
}

int
dp_tcp_port_parse(struct rte_mbuf *m, uint32_t per_dc, uint32_t run_id)
{
	uint8_t buf[DP_TCP_HDR_SACK];
	const uint8_t *b = rte_pktmbuf_read(m, 0, DP_TCP_HDR, buf);
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *tcp;
	const uint8_t *opt;
	struct dp_meta *meta = dp_meta(m);
	uint32_t hlen, len = rte_pktmbuf_pkt_len(m), tsecr, sle;
	uint16_t sport, dport;
	int64_t src, dst;

	if (b == NULL || per_dc == 0 || rte_pktmbuf_data_len(m) < DP_TCP_HDR)
		return -EINVAL;
	ip = (const struct rte_ipv4_hdr *)(b + SM_ETH_HDR);
	tcp = (const struct rte_tcp_hdr *)(b + SM_ETH_HDR + SM_IP_HDR);
	opt = (const uint8_t *)(tcp + 1);
	hlen = SM_ETH_HDR + SM_IP_HDR + (tcp->data_off >> 4) * 4u;
	if (b[12] != 0x08 || b[13] != 0x00 || ip->version_ihl != RTE_IPV4_VHL_DEF ||
	    ip->next_proto_id != IPPROTO_TCP ||
	    SM_ETH_HDR + (uint32_t)rte_be_to_cpu_16(ip->total_length) != len ||
	    (hlen != DP_TCP_HDR && hlen != DP_TCP_HDR_SACK) || hlen > len ||
	    hlen > rte_pktmbuf_data_len(m) || opt[0] != TCPOPT_NOP || opt[1] != TCPOPT_NOP ||
	    opt[2] != TCPOPT_TS || opt[3] != 10 ||
	    (hlen == DP_TCP_HDR_SACK && (opt[12] != TCPOPT_NOP || opt[13] != TCPOPT_NOP ||
					 opt[14] != TCPOPT_SACK || opt[15] != 10 ||
					 hlen != len)))
		return -EINVAL;
	sport = rte_be_to_cpu_16(tcp->src_port);
	dport = rte_be_to_cpu_16(tcp->dst_port);
	src = worker_of(ip->src_addr, per_dc);
	dst = worker_of(ip->dst_addr, per_dc);
	if (src < 0 || dst < 0 || src == dst || src > UINT16_MAX || dst > UINT16_MAX ||
	    !(src < dst ? sport == DP_TCP_PORT_LISTEN && dport == DP_TCP_PORT_CONNECT :
			  sport == DP_TCP_PORT_CONNECT && dport == DP_TCP_PORT_LISTEN) ||
	    rte_ipv4_cksum(ip) != 0 ||
	    rte_ipv4_udptcp_cksum_mbuf_verify(m, ip, SM_ETH_HDR + SM_IP_HDR) != 0)
		return -EINVAL;
	tsecr = get32(opt + 8);
	if ((tsecr & TSECR_RUN(UINT32_MAX)) != TSECR_RUN(run_id))
		return -ESTALE;
	memset(meta, 0, sizeof(*meta));
	meta->src = (uint16_t)src;
	meta->dst = (uint16_t)dst;
	meta->kind = DP_KIND_WORKER;
	meta->flags = DP_SE_F_TCP;
	meta->payload = len - hlen;
	if (tcp->tcp_flags & RTE_TCP_PSH_FLAG)
		meta->flags |= DP_SE_F_LAST;
	if (tcp->tcp_flags & RTE_TCP_ECE_FLAG)
		meta->flags |= DP_SE_F_TCP_ECE;
	if ((ip->type_of_service & 3) == 3)
		meta->flags |= DP_SE_F_CE;
	if (hlen == DP_TCP_HDR_SACK) {
		/* the block is in the numbers of the receiver's own direction */
		sle = get32(opt + 16) - dp_tcp_isn((uint32_t)dst, (uint32_t)src);
		meta->flags |= DP_SE_F_TCP_SACK;
		meta->step = sle;
		meta->payload = get32(opt + 20) - get32(opt + 16);
	} else if (meta->payload > 0) {
		meta->step = TSECR_STEP(tsecr);
		meta->round = rte_be_to_cpu_16(ip->packet_id);
		if (tsecr & TSECR_CTL)
			meta->flags |= DP_SE_F_CTL;
	}
	return 0;
}

void
dp_tcp_port_pkt(struct rte_mbuf *m, struct dp_pkt *p)
{
	const struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *,
								SM_ETH_HDR + SM_IP_HDR);
	const struct dp_meta *meta = dp_meta(m);
	uint32_t ack = rte_be_to_cpu_32(tcp->recv_ack) - dp_tcp_isn(meta->dst, meta->src);
	uint64_t wnd = (uint64_t)rte_be_to_cpu_16(tcp->rx_win) << DP_TCP_WSCALE;

	p->m = m;
	p->len = rte_pktmbuf_pkt_len(m);
	p->seq = rte_be_to_cpu_32(tcp->sent_seq) - dp_tcp_isn(meta->src, meta->dst);
	p->departure_ns = (uint64_t)ack << 32 | wnd;
	p->meta = *meta;
}
