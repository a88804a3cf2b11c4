/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames a kernel interface handed over (rawframe.h): cut short, or with their checksum left to
 * a device.  The pseudo-header sums are DPDK's (rte_ipv4_phdr_cksum(), rte_ipv6_phdr_cksum():
 * what a DPDK application leaves in the field for a NIC's offload, the same convention as the
 * kernel's), so only a frame with that value in the field pays for a pass over its payload.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "rawframe.h"

/* One's complement: 0 and 0xffff are the same number. */
static inline bool
same_sum(uint16_t a, uint16_t b)
{
	return a == b || ((a == 0 || a == 0xffff) && (b == 0 || b == 0xffff));
}

/* The checksum field of the TCP or UDP header at @l4 (@proto), with room for @l4_len bytes. */
static uint8_t *
l4_check(uint8_t proto, uint8_t *l4, uint32_t l4_len)
{
	if (proto == IPPROTO_TCP && l4_len >= sizeof(struct rte_tcp_hdr))
		return l4 + offsetof(struct rte_tcp_hdr, cksum);
	if (proto == IPPROTO_UDP && l4_len >= sizeof(struct rte_udp_hdr))
		return l4 + offsetof(struct rte_udp_hdr, dgram_cksum);
	return NULL;
}

static enum dp_raw_verdict
ipv4(uint8_t *ip, uint32_t len)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
	uint32_t hl, total;
	uint16_t field, sum;
	uint8_t *c;

	if (len < sizeof(*h) || (h->version_ihl >> 4) != 4)
		return DP_RAW_OK;
	hl = rte_ipv4_hdr_len(h);
	total = rte_be_to_cpu_16(h->total_length);
	if (total > len)
		return DP_RAW_CUT;
	if (hl < sizeof(*h) || total < hl ||
	    (rte_be_to_cpu_16(h->fragment_offset) & (RTE_IPV4_HDR_MF_FLAG |
						     RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return DP_RAW_OK;	/* malformed, or a fragment: the sum is the whole datagram's */
	c = l4_check(h->next_proto_id, ip + hl, total - hl);
	if (c == NULL)
		return DP_RAW_OK;
	memcpy(&field, c, sizeof(field));
	if ((h->next_proto_id == IPPROTO_UDP && field == 0) ||
	    !same_sum(field, rte_ipv4_phdr_cksum(h, 0)))
		return DP_RAW_OK;	/* no UDP checksum; or not left for a device */
	if (__rte_ipv4_udptcp_cksum(h, ip + hl) == 0xffff)
		return DP_RAW_OK;	/* a finished sum that happens to equal it */
	memset(c, 0, sizeof(field));
	sum = rte_ipv4_udptcp_cksum(h, ip + hl);
	memcpy(c, &sum, sizeof(sum));
	return DP_RAW_CSUM_DONE;
}

static enum dp_raw_verdict
ipv6(uint8_t *ip, uint32_t len)
{
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;
	uint32_t plen;
	uint16_t field, sum;
	uint8_t *c;

	if (len < sizeof(*h) || (rte_be_to_cpu_32(h->vtc_flow) >> 28) != 6)
		return DP_RAW_OK;
	plen = rte_be_to_cpu_16(h->payload_len);
	if (sizeof(*h) + plen > len)
		return DP_RAW_CUT;
	c = l4_check(h->proto, ip + sizeof(*h), plen);	/* extension headers: as it is */
	if (c == NULL)
		return DP_RAW_OK;
	memcpy(&field, c, sizeof(field));
	if (!same_sum(field, rte_ipv6_phdr_cksum(h, 0)) ||
	    __rte_ipv6_udptcp_cksum(h, ip + sizeof(*h)) == 0xffff)
		return DP_RAW_OK;
	memset(c, 0, sizeof(field));
	sum = rte_ipv6_udptcp_cksum(h, ip + sizeof(*h));
	memcpy(c, &sum, sizeof(sum));
	return DP_RAW_CSUM_DONE;
}

/* The EtherType after up to two VLAN tags, its payload at *@off; 0 if the frame ends first. */
static uint16_t
ether_type(const uint8_t *f, uint32_t len, uint32_t *off)
{
	uint32_t o = 2 * RTE_ETHER_ADDR_LEN;
	uint16_t type = 0;
	int tags;

	for (tags = 0; tags <= 2; tags++) {
		if (o + 2 > len)
			return 0;
		type = (uint16_t)(f[o] << 8 | f[o + 1]);
		o += 2;
		if (type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ)
			break;
		o += 2;	/* the tag's TCI */
	}
	*off = o;
	return type;
}

enum dp_raw_verdict
dp_raw_check(uint8_t *f, uint32_t len)
{
	uint32_t off;
	uint16_t type = ether_type(f, len, &off);

	if (type == RTE_ETHER_TYPE_IPV4)
		return ipv4(f + off, len - off);
	if (type == RTE_ETHER_TYPE_IPV6)
		return ipv6(f + off, len - off);
	return DP_RAW_OK;
}

/* The IP header's offset in the frame and its version (4 or 6), or -1. */
static int
ip_at(const uint8_t *f, uint32_t len, uint32_t *at)
{
	uint16_t type = ether_type(f, len, at);

	if (type == RTE_ETHER_TYPE_IPV4 && *at + sizeof(struct rte_ipv4_hdr) <= len)
		return 4;
	if (type == RTE_ETHER_TYPE_IPV6 && *at + sizeof(struct rte_ipv6_hdr) <= len)
		return 6;
	return -1;
}

int
dp_raw_ecn(const uint8_t *f, uint32_t len)
{
	uint32_t at;
	int v = ip_at(f, len, &at);

	if (v == 4)
		return f[at + 1] & 3;			/* the TOS byte's low bits */
	if (v == 6)
		return f[at + 1] >> 4 & 3;		/* the traffic class's low bits */
	return -1;
}

int
dp_raw_set_ce(uint8_t *f, uint32_t len)
{
	uint32_t at, sum;
	uint16_t old, new;
	int v = ip_at(f, len, &at);

	if (v < 0 || dp_raw_ecn(f, len) == 0)
		return -ENOTSUP;
	if (v == 6) {
		f[at + 1] |= 3 << 4;
		return 0;
	}
	/* HC' = ~(~HC + ~m + m'), m the 16-bit word holding the TOS byte */
	old = (uint16_t)(f[at] << 8 | f[at + 1]);
	f[at + 1] |= 3;
	new = (uint16_t)(f[at] << 8 | f[at + 1]);
	sum = (uint16_t)~(f[at + 10] << 8 | f[at + 11]) + (uint32_t)(uint16_t)~old + new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (uint16_t)~sum;
	f[at + 10] = (uint8_t)(sum >> 8);
	f[at + 11] = (uint8_t)sum;
	return 0;
}
