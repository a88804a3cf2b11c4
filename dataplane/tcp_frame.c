/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP frames' bytes: Ethernet, IPv4 (DF, identification 0) and TCP with the timestamps option
 * (TSval the sender's time in ms; TSecr 0: not modelled) and, on a pure ACK with a SACK block,
 * the SACK option; window scale DP_TCP_WSCALE; the TCP checksum complete (the payload is zeros:
 * the pseudo-header and the header are the sum).  Ports: the lower-numbered worker of a pair
 * listens on DP_TCP_PORT_LISTEN, the other connects from DP_TCP_PORT_CONNECT (the addresses
 * tell the pairs apart).  Sequence and ACK numbers add each direction's initial sequence number
 * to the stream offsets tcp.h keeps.
 */
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
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	tcp->sent_seq = rte_cpu_to_be_32(c->isn_tx + p->seq);
	tcp->recv_ack = rte_cpu_to_be_32(c->isn_rx + (uint32_t)(p->departure_ns >> 32));
	tcp->data_off = (uint8_t)((hlen - SM_ETH_HDR - SM_IP_HDR) / 4) << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG | (p->meta.flags & DP_SE_F_LAST ? RTE_TCP_PSH_FLAG : 0);
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
