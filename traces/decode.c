/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoding a captured frame down to IP and TCP/UDP (tr_decode_ip(), reader.h).
 *
 * Link layers (tcpdump.org's LINKTYPE_* list):
 *	ETHERNET (1)	dst 6 | src 6 | EtherType 2, with up to four 802.1Q (0x8100), 802.1ad
 *			(0x88a8) or old QinQ (0x9100) tags of 4 bytes before the EtherType
 *	NULL (0)	AF_ value, 4 bytes in the byte order of the capturing host (a value above
 *			0xffff is taken as the other byte order, as Wireshark does)
 *	LOOP (108)	AF_ value, 4 bytes, network byte order
 *	LINUX_SLL (113)	packet type 2 | ARPHRD 2 | address length 2 | address 8 | protocol 2
 *	LINUX_SLL2 (276) protocol 2 | reserved 2 | ifindex 4 | ARPHRD 2 | packet type 1 |
 *			address length 1 | address 8
 *	RAW (101), IPV4 (228), IPV6 (229): the IP header at once
 * AF_INET is 2 everywhere; AF_INET6 is 10 (Linux), 24 (NetBSD, OpenBSD), 28 (FreeBSD) or
 * 30 (macOS).
 *
 * Then IPv4 (RFC 791; options skipped by the header length) or IPv6 (RFC 8200; Hop-by-Hop,
 * Routing, Destination Options, Fragment, AH, Mobility, HIP and Shim6 extension headers walked),
 * and TCP (RFC 9293) or UDP (RFC 768).  Lengths come from the headers, never from the captured
 * length: Ethernet padding after the IP packet is not payload, and a capture cut by the snap
 * length still reports the payload length on the wire.  Every header must be captured whole.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "reader.h"

#define ETH_HDR 14
#define SLL_HDR 16
#define SLL2_HDR 20
#define NULL_HDR 4
#define VLAN_TAG 4
#define VLAN_MAX 4			/* tags walked at most */
#define IPV4_HDR 20
#define IPV6_HDR 40
#define IPV6_EXT_MAX 16			/* extension headers walked at most */
#define TCP_HDR 20
#define UDP_HDR 8

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
fail(struct tr_ip *out, int rc, const char *why)
{
	out->why = why;
	return rc;
}

/* IP version wanted for an EtherType-like protocol number: 4, 6, or -ENOTSUP. */
static int
by_ethertype(uint16_t et)
{
	if (et == ETHERTYPE_IPV4)
		return 4;
	if (et == ETHERTYPE_IPV6)
		return 6;
	return -ENOTSUP;
}

/* IP version for an AF_ value of a loopback header: 4, 6, or -ENOTSUP. */
static int
by_af(uint32_t af)
{
	if (af == 2)
		return 4;
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return 6;
	return -ENOTSUP;
}

/*
 * The link layer: *@p off gets the offset of the IP header; @return 4 or 6 (the IP version the
 * link layer announces), 0 (raw IP: the version nibble tells), or -errno.
 */
static int
link_layer(int linktype, const uint8_t *d, uint32_t n, uint32_t *off, struct tr_ip *out)
{
	uint32_t af;
	uint16_t et;
	int v, tags;

	switch (linktype) {
	case TR_LINKTYPE_ETHERNET:
		if (n < ETH_HDR)
			return fail(out, -EBADMSG, "Ethernet header truncated");
		*off = ETH_HDR;
		et = be16(d + 12);
		for (tags = 0; et == 0x8100 || et == 0x88A8 || et == 0x9100; tags++) {
			if (tags == VLAN_MAX)
				return fail(out, -ENOTSUP, "more than 4 VLAN tags");
			if (n < *off + VLAN_TAG)
				return fail(out, -EBADMSG, "VLAN tag truncated");
			et = be16(d + *off + 2);
			*off += VLAN_TAG;
		}
		v = by_ethertype(et);
		return v > 0 ? v : fail(out, v, "EtherType not IPv4 or IPv6");
	case TR_LINKTYPE_LINUX_SLL:
		if (n < SLL_HDR)
			return fail(out, -EBADMSG, "Linux cooked (SLL) header truncated");
		*off = SLL_HDR;
		v = by_ethertype(be16(d + 14));
		return v > 0 ? v : fail(out, v, "SLL protocol not IPv4 or IPv6");
	case TR_LINKTYPE_LINUX_SLL2:
		if (n < SLL2_HDR)
			return fail(out, -EBADMSG, "Linux cooked (SLL2) header truncated");
		*off = SLL2_HDR;
		v = by_ethertype(be16(d));
		return v > 0 ? v : fail(out, v, "SLL2 protocol not IPv4 or IPv6");
	case TR_LINKTYPE_NULL:
	case TR_LINKTYPE_LOOP:
		if (n < NULL_HDR)
			return fail(out, -EBADMSG, "loopback header truncated");
		*off = NULL_HDR;
		af = be32(d);
		if (linktype == TR_LINKTYPE_NULL) {
			af = (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[1] << 8 | d[0];
			if (af > 0xFFFF)
				af = be32(d);
		}
		v = by_af(af);
		return v > 0 ? v : fail(out, v, "loopback address family not IPv4 or IPv6");
	case TR_LINKTYPE_RAW:
		*off = 0;
		return 0;
	case TR_LINKTYPE_IPV4:
		*off = 0;
		return 4;
	case TR_LINKTYPE_IPV6:
		*off = 0;
		return 6;
	default:
		return fail(out, -ENOTSUP, "unsupported link type");
	}
}

/*
 * IPv4 at @p d (@p n bytes captured): fill the addresses, proto and ip_len; *@p l4 and
 * *@p l4len get the transport header and its length by the IP header (0 if a later fragment);
 * *@p more is set for a first fragment.
 */
static int
ipv4(const uint8_t *d, uint32_t n, struct tr_ip *out, uint32_t *l4, uint32_t *l4len,
     bool *more)
{
	uint32_t ihl, tot;

	if (n < IPV4_HDR)
		return fail(out, -EBADMSG, "IPv4 header truncated");
	ihl = (uint32_t)(d[0] & 0x0F) * 4;
	tot = be16(d + 2);
	if (ihl < IPV4_HDR)
		return fail(out, -EBADMSG, "IPv4 header length below 20");
	if (ihl > n)
		return fail(out, -EBADMSG, "IPv4 options truncated");
	if (tot < ihl)
		return fail(out, -EBADMSG, "IPv4 total length below the header length");
	out->family = 4;
	memcpy(out->src, d + 12, 4);
	memcpy(out->dst, d + 16, 4);
	out->proto = d[9];
	out->ip_len = tot;
	out->fragment = (be16(d + 6) & 0x1FFF) != 0;
	*more = (be16(d + 6) & 0x2000) != 0;
	*l4 = ihl;
	*l4len = out->fragment ? 0 : tot - ihl;
	return 0;
}

static bool
ipv6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 ||
	       nh == 139 || nh == 140;
}

/* IPv6, likewise, walking the extension headers. */
static int
ipv6(const uint8_t *d, uint32_t n, struct tr_ip *out, uint32_t *l4, uint32_t *l4len,
     bool *more)
{
	uint32_t off = IPV6_HDR, left, hlen;
	uint8_t nh;
	int i;

	if (n < IPV6_HDR)
		return fail(out, -EBADMSG, "IPv6 header truncated");
	out->family = 6;
	memcpy(out->src, d + 8, 16);
	memcpy(out->dst, d + 24, 16);
	left = be16(d + 4);
	out->ip_len = IPV6_HDR + left;
	nh = d[6];
	for (i = 0; ipv6_ext(nh); i++) {
		if (i == IPV6_EXT_MAX)
			return fail(out, -EBADMSG, "too many IPv6 extension headers");
		if (n < off + 8)
			return fail(out, -EBADMSG, "IPv6 extension header truncated");
		if (nh == 44)
			hlen = 8;
		else if (nh == 51)
			hlen = ((uint32_t)d[off + 1] + 2) * 4;
		else
			hlen = ((uint32_t)d[off + 1] + 1) * 8;
		if (hlen > left)
			return fail(out, -EBADMSG, "IPv6 extension header beyond the payload length");
		if (n < off + hlen)
			return fail(out, -EBADMSG, "IPv6 extension header truncated");
		if (nh == 44 && (be16(d + off + 2) & 0xFFF8) != 0)
			out->fragment = 1;
		if (nh == 44 && (d[off + 3] & 1) != 0)
			*more = true;
		nh = d[off];
		off += hlen;
		left -= hlen;
		if (out->fragment)
			break;
	}
	out->proto = nh;
	*l4 = off;
	*l4len = out->fragment ? 0 : left;
	return 0;
}

/*
 * TCP or UDP at @p d: @p len bytes by the IP header, @p n captured; @p more: a first fragment,
 * whose UDP length may go beyond it.
 */
static int
transport(const uint8_t *d, uint32_t n, uint32_t len, bool more, struct tr_ip *out)
{
	uint32_t hdr, end;

	if (n > len)
		n = len;		/* link-layer padding after the IP packet */
	if (out->proto == IPPROTO_TCP) {
		if (len < TCP_HDR)
			return fail(out, -EBADMSG, "TCP header beyond the IP length");
		if (n < TCP_HDR)
			return fail(out, -EBADMSG, "TCP header truncated");
		hdr = (uint32_t)(d[12] >> 4) * 4;
		if (hdr < TCP_HDR)
			return fail(out, -EBADMSG, "TCP data offset below 20");
		if (hdr > len)
			return fail(out, -EBADMSG, "TCP options beyond the IP length");
		if (hdr > n)
			return fail(out, -EBADMSG, "TCP options truncated");
		out->tcp_seq = be32(d + 4);
		out->tcp_flags = d[13];
		end = len;
	} else if (out->proto == IPPROTO_UDP) {
		if (len < UDP_HDR)
			return fail(out, -EBADMSG, "UDP header beyond the IP length");
		if (n < UDP_HDR)
			return fail(out, -EBADMSG, "UDP header truncated");
		hdr = UDP_HDR;
		end = be16(d + 4);
		if (end < UDP_HDR)
			return fail(out, -EBADMSG, "UDP length below 8");
		if (end > len && !more)
			return fail(out, -EBADMSG, "UDP length beyond the IP length");
		if (n > end)
			n = end;
	} else {
		return 0;
	}
	out->sport = be16(d);
	out->dport = be16(d + 2);
	out->l4_payload = end - hdr;
	out->l4_caplen = n - hdr;
	out->l4_data = out->l4_caplen != 0 ? d + hdr : NULL;
	return 0;
}

int
tr_decode_ip(int linktype, const uint8_t *data, uint32_t caplen, struct tr_ip *out)
{
	uint32_t off = 0, l4 = 0, l4len = 0, n;
	bool more = false;
	int v, rc;

	if (out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (data == NULL && caplen != 0)
		return fail(out, -EINVAL, "no data");
	v = link_layer(linktype, data, caplen, &off, out);
	if (v < 0)
		return v;
	n = caplen - off;
	if (n == 0)
		return fail(out, -EBADMSG, "IP header truncated");
	if (v == 0 && (data[off] >> 4 == 4 || data[off] >> 4 == 6))
		v = data[off] >> 4;
	else if (v == 0)
		return fail(out, -EBADMSG, "IP version neither 4 nor 6");
	if (data[off] >> 4 != v)
		return fail(out, -EBADMSG, "IP version differs from the link layer's");
	rc = v == 4 ? ipv4(data + off, n, out, &l4, &l4len, &more) :
		      ipv6(data + off, n, out, &l4, &l4len, &more);
	if (rc < 0 || out->fragment)
		return rc;
	rc = transport(data + off + l4, n - l4, l4len, more, out);
	if (rc < 0) {
		/* Keep what was decoded (addresses, proto) for the caller's message. */
		out->sport = 0;
		out->dport = 0;
	}
	return rc;
}

/*
 * RoCE v2: the BTH (OpCode 1 | SE M PadCnt TVer 1 | P_Key 2 | reserved 1 | DestQP 3 | A
 * reserved 1 | PSN 3), then the extended headers the opcode has, the message, the pad (0-3
 * bytes) and the 4-byte ICRC.  Reliable and unreliable connections (RC 0x00-0x1f, UC
 * 0x20-0x3f) share their operations' layouts; an unreliable datagram (UD 0x60-0x7f) adds its
 * DETH (8 bytes).  Bytes of extended headers by the operation (the opcode's low 5 bits): RETH 16
 * (RDMA WRITE FIRST and ONLY, READ REQUEST), ImmDt or IETH 4, AETH 4 (READ responses with it,
 * ACK), AtomicETH 28, AtomicAckETH 8; -1: not an operation of the spec.
 */
#define BTH_LEN 12
#define ICRC_LEN 4
#define DETH_LEN 8

static const int8_t bth_ext[32] = {
	[0x00] = 0, [0x01] = 0, [0x02] = 0, [0x03] = 4, [0x04] = 0, [0x05] = 4,
	[0x06] = 16, [0x07] = 0, [0x08] = 0, [0x09] = 4, [0x0a] = 16, [0x0b] = 20,
	[0x0c] = 16, [0x0d] = 4, [0x0e] = 0, [0x0f] = 4, [0x10] = 4, [0x11] = 4,
	[0x12] = 12, [0x13] = 28, [0x14] = 28, [0x15] = -1, [0x16] = 4, [0x17] = 4,
	[0x18] = -1, [0x19] = -1, [0x1a] = -1, [0x1b] = -1, [0x1c] = -1, [0x1d] = -1,
	[0x1e] = -1, [0x1f] = -1,
};

int
tr_decode_bth(const struct tr_ip *ip, struct tr_bth *out)
{
	const uint8_t *b;
	uint32_t hdr, op;
	int ext;

	if (ip == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (ip->proto != IPPROTO_UDP || ip->dport != TR_ROCE_PORT)
		return -ENOTSUP;
	if (ip->l4_caplen < BTH_LEN)
		return -EBADMSG;
	b = ip->l4_data;
	out->opcode = b[0];
	out->dest_qp = (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
	out->psn = (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];
	if (out->opcode == 0x81) {		/* CNP: 16 reserved bytes */
		out->ack = true;
		return ip->l4_payload >= BTH_LEN + 16 + ICRC_LEN ? 0 : -EBADMSG;
	}
	op = out->opcode & 0x1f;
	switch (out->opcode >> 5) {
	case 0:					/* RC */
	case 1:					/* UC */
		hdr = 0;
		break;
	case 3:					/* UD: SEND ONLY (with immediate) */
		if (op != 0x04 && op != 0x05)
			return -ENOTSUP;
		hdr = DETH_LEN;
		break;
	default:				/* RD, CNP variants, manufacturer-specific */
		return -ENOTSUP;
	}
	ext = bth_ext[op];
	if (ext < 0)
		return -ENOTSUP;
	hdr += BTH_LEN + (uint32_t)ext + ((b[1] >> 4) & 3) + ICRC_LEN;
	if (ip->l4_payload < hdr)
		return -EBADMSG;
	out->ack = op == 0x11 || op == 0x12;
	/* a READ REQUEST and the atomics carry their request, not message bytes */
	out->payload = op == 0x0c || op == 0x13 || op == 0x14 ? 0 : ip->l4_payload - hdr;
	return 0;
}
