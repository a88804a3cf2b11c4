/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace reader's tests: tr_decode_ip() on each supported link layer, truncated headers, ARP,
 * fragments (test_reader.c runs them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <zlib.h>

#include "common.h"
#include "pcapng.h"
#include "reader.h"
#include "test_reader.h"

/* ---- tr_decode_ip() ---- */

static const uint8_t SRC4[4] = { 10, 0, 0, 1 }, DST4[4] = { 192, 168, 7, 2 };
static const uint8_t SRC6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t DST6[16] = { 0xfe, 0x80, [14] = 0xab, [15] = 0xcd };

/* Ethernet header with EtherType @p et; @return its length. */
static size_t
mk_eth(uint8_t *b, uint16_t et)
{
	memset(b, 0xee, 12);
	tc_put16(b + 12, et);
	return 14;
}

static size_t
mk_ipv4(uint8_t *b, uint8_t proto, uint16_t tot, unsigned int ihl_words, uint16_t frag)
{
	memset(b, 0, ihl_words * 4);
	b[0] = (uint8_t)(0x40 | ihl_words);
	tc_put16(b + 2, tot);
	tc_put16(b + 6, frag);
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, SRC4, 4);
	memcpy(b + 16, DST4, 4);
	return ihl_words * 4;
}

static size_t
mk_ipv6(uint8_t *b, uint8_t nh, uint16_t plen)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	tc_put16(b + 4, plen);
	b[6] = nh;
	b[7] = 64;
	memcpy(b + 8, SRC6, 16);
	memcpy(b + 24, DST6, 16);
	return 40;
}

static size_t
mk_tcp(uint8_t *b, uint16_t sport, uint16_t dport, uint32_t seq, unsigned int doff_words)
{
	memset(b, 0, doff_words * 4);
	tc_put16(b, sport);
	tc_put16(b + 2, dport);
	tc_put32(b + 4, seq);
	b[12] = (uint8_t)(doff_words << 4);
	b[13] = 0x18;
	return doff_words * 4;
}

static size_t
mk_udp(uint8_t *b, uint16_t sport, uint16_t dport, uint16_t len)
{
	memset(b, 0, 8);
	tc_put16(b, sport);
	tc_put16(b + 2, dport);
	tc_put16(b + 4, len);
	return 8;
}

static void
expect_decode(int lt, const uint8_t *f, size_t n, int rc, struct tr_ip *ip)
{
	int got = tr_decode_ip(lt, f, (uint32_t)n, ip);

	if (got != rc)
		fail_msg("tr_decode_ip: %d, not %d (%s)", got, rc, ip->why ? ip->why : "");
	if (rc == 0)
		assert_null(ip->why);
	else
		assert_non_null(ip->why);
}

void
test_decode_ether(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n, h;

	(void)state;
	/* Ethernet / IPv4 with options / TCP with options, 100 bytes of payload. */
	n = mk_eth(f, 0x0800);
	n += mk_ipv4(f + n, IPPROTO_TCP, 24 + 32 + 100, 6, 0);
	n += mk_tcp(f + n, 40000, 443, 0xDEADBEEF, 8);
	h = n;
	fill(f + n, 9, 100);
	n += 100;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_memory_equal(ip.src, SRC4, 4);
	assert_memory_equal(ip.dst, DST4, 4);
	assert_int_equal(ip.src[4], 0);
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.sport, 40000);
	assert_int_equal(ip.dport, 443);
	assert_int_equal(ip.tcp_seq, 0xDEADBEEF);
	assert_int_equal(ip.tcp_flags, 0x18);
	assert_int_equal(ip.ip_len, 156);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 100);
	assert_ptr_equal(ip.l4_data, f + h);
	assert_int_equal(ip.fragment, 0);
	/* Snapped inside the payload, at its start, inside the TCP options. */
	expect_decode(TR_LINKTYPE_ETHERNET, f, h + 10, 0, &ip);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 10);
	expect_decode(TR_LINKTYPE_ETHERNET, f, h, 0, &ip);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 0);
	assert_null(ip.l4_data);
	expect_decode(TR_LINKTYPE_ETHERNET, f, h - 1, -EBADMSG, &ip);

	/* Ethernet / 802.1Q / IPv6 / Hop-by-Hop / UDP, 30 bytes. */
	n = mk_eth(f, 0x8100);
	tc_put16(f + n, 0x0123);
	tc_put16(f + n + 2, 0x86DD);
	n += 4;
	n += mk_ipv6(f + n, 0, 8 + 8 + 30);
	memset(f + n, 0, 8);
	f[n] = IPPROTO_UDP;
	n += 8;
	n += mk_udp(f + n, 5353, 53, 38);
	h = n;
	n += 30;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_memory_equal(ip.src, SRC6, 16);
	assert_memory_equal(ip.dst, DST6, 16);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.sport, 5353);
	assert_int_equal(ip.dport, 53);
	assert_int_equal(ip.ip_len, 40 + 46);
	assert_int_equal(ip.l4_payload, 30);
	assert_int_equal(ip.l4_caplen, 30);
	assert_ptr_equal(ip.l4_data, f + h);

	/* 802.1ad + 802.1Q / IPv4 / UDP of 4 bytes, padded to 60: the padding is not payload. */
	memset(f, 0, sizeof(f));
	n = mk_eth(f, 0x88A8);
	tc_put16(f + n + 2, 0x8100);
	tc_put16(f + n + 6, 0x0800);
	n += 8;
	n += mk_ipv4(f + n, IPPROTO_UDP, 20 + 8 + 4, 5, 0);
	n += mk_udp(f + n, 1, 2, 12);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 64, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.ip_len, 32);
	assert_int_equal(ip.l4_payload, 4);
	assert_int_equal(ip.l4_caplen, 4);
	assert_ptr_equal(ip.l4_data, f + n);
}

void
test_decode_other_links(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n;

	(void)state;
	/* Linux SLL / IPv4 / UDP */
	memset(f, 0, 16);
	tc_put16(f + 14, 0x0800);
	n = 16 + mk_ipv4(f + 16, IPPROTO_UDP, 20 + 8 + 10, 5, 0);
	n += mk_udp(f + n, 7, 9, 18) + 10;
	expect_decode(TR_LINKTYPE_LINUX_SLL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.sport, 7);
	assert_int_equal(ip.dport, 9);
	assert_int_equal(ip.l4_payload, 10);
	assert_ptr_equal(ip.l4_data, f + 16 + 28);

	/* Linux SLL2 / IPv6 / TCP */
	memset(f, 0, 20);
	tc_put16(f, 0x86DD);
	n = 20 + mk_ipv6(f + 20, IPPROTO_TCP, 20 + 5);
	n += mk_tcp(f + n, 80, 1234, 7, 5) + 5;
	expect_decode(TR_LINKTYPE_LINUX_SLL2, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.sport, 80);
	assert_int_equal(ip.tcp_seq, 7);
	assert_int_equal(ip.l4_payload, 5);
	assert_int_equal(ip.ip_len, 65);

	/* Raw IPv4 (101 and 228), raw IPv6 (101 and 229). */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8, 5, 0);
	n += mk_udp(f + n, 1000, 2000, 8);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.dport, 2000);
	assert_int_equal(ip.l4_payload, 0);
	assert_null(ip.l4_data);
	expect_decode(TR_LINKTYPE_IPV4, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	expect_decode(TR_LINKTYPE_IPV6, f, n, -EBADMSG, &ip);
	n = mk_ipv6(f, IPPROTO_UDP, 8 + 2);
	n += mk_udp(f + n, 3, 4, 10) + 2;
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.l4_payload, 2);
	expect_decode(TR_LINKTYPE_IPV6, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	expect_decode(TR_LINKTYPE_IPV4, f, n, -EBADMSG, &ip);

	/* BSD NULL: AF_INET in either byte order, AF_INET6 as macOS writes it. */
	memcpy(f, (const uint8_t[4]){ 2, 0, 0, 0 }, 4);
	n = 4 + mk_ipv4(f + 4, IPPROTO_ICMP, 20 + 8, 5, 0) + 8;
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.proto, IPPROTO_ICMP);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.l4_payload, 0);
	memcpy(f, (const uint8_t[4]){ 0, 0, 0, 2 }, 4);
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	memcpy(f, (const uint8_t[4]){ 30, 0, 0, 0 }, 4);
	n = 4 + mk_ipv6(f + 4, IPPROTO_TCP, 20);
	n += mk_tcp(f + n, 22, 2222, 1, 5);
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.dport, 2222);
	/* OpenBSD LOOP: network byte order, AF_INET6 24. */
	memcpy(f, (const uint8_t[4]){ 0, 0, 0, 24 }, 4);
	expect_decode(TR_LINKTYPE_LOOP, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);

	/* A non-first IPv4 fragment: no ports, no payload; a first one has its ports. */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 100, 5, 100);
	n += mk_udp(f + n, 5, 6, 8 + 100);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.fragment, 1);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.l4_payload, 0);
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 100, 5, 0x2000);
	n += mk_udp(f + n, 5, 6, 8 + 1000);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.fragment, 0);
	assert_int_equal(ip.sport, 5);
	assert_int_equal(ip.l4_payload, 1000);
	assert_int_equal(ip.l4_caplen, 0);
}

void
test_decode_bad(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n, e;

	(void)state;
	memset(f, 0, sizeof(f));
	/* Truncated link headers. */
	mk_eth(f, 0x0800);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 10, -EBADMSG, &ip);
	assert_int_equal(ip.family, 0);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 14, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_LINUX_SLL, f, 10, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_LINUX_SLL2, f, 19, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_NULL, f, 3, -EBADMSG, &ip);
	mk_eth(f, 0x8100);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 16, -EBADMSG, &ip);
	/* Not IP: ARP, an unknown link type, a loopback AF_ of 7, too many VLAN tags. */
	mk_eth(f, 0x0806);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 42, -ENOTSUP, &ip);
	assert_int_equal(ip.family, 0);
	expect_decode(147, f, 42, -ENOTSUP, &ip);
	assert_int_equal(ip.family, 0);
	memcpy(f, (const uint8_t[4]){ 7, 0, 0, 0 }, 4);
	expect_decode(TR_LINKTYPE_NULL, f, 42, -ENOTSUP, &ip);
	for (n = 12; n < 12 + 5 * 4; n += 4)
		tc_put16(f + n, 0x8100);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 64, -ENOTSUP, &ip);

	/* IPv4: header cut, header length below 20, total length below it, version 5. */
	e = mk_eth(f, 0x0800);
	n = e + mk_ipv4(f + e, IPPROTO_TCP, 40, 5, 0);
	n += mk_tcp(f + n, 1, 2, 3, 5);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, e + 19, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, e + 30, -EBADMSG, &ip);	/* TCP cut */
	assert_int_equal(ip.family, 4);
	f[e] = 0x44;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	f[e] = 0x45;
	tc_put16(f + e + 2, 19);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	tc_put16(f + e + 2, 30);					/* TCP beyond the IP length */
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	tc_put16(f + e + 2, 40);
	f[e + 20 + 12] = 0x40;					/* data offset 16 */
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	f[e + 20 + 12] = 0x50;
	f[e] = 0x55;
	expect_decode(TR_LINKTYPE_RAW, f + e, n - e, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);

	/* UDP: length below 8, beyond the IP length, header cut. */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 4, 5, 0);
	n += mk_udp(f + n, 1, 2, 4) + 4;
	expect_decode(TR_LINKTYPE_RAW, f, n, -EBADMSG, &ip);
	tc_put16(f + 24, 13);
	expect_decode(TR_LINKTYPE_RAW, f, n, -EBADMSG, &ip);
	tc_put16(f + 24, 12);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	expect_decode(TR_LINKTYPE_RAW, f, 27, -EBADMSG, &ip);

	/* IPv6: header cut, extension header cut or beyond the payload length. */
	n = mk_ipv6(f, 60, 16);
	memset(f + n, 0, 16);
	f[n] = 59;						/* no next header */
	f[n + 1] = 1;						/* 16 bytes */
	expect_decode(TR_LINKTYPE_RAW, f, n + 16, 0, &ip);
	assert_int_equal(ip.proto, 59);
	expect_decode(TR_LINKTYPE_RAW, f, 39, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_RAW, f, n + 12, -EBADMSG, &ip);
	tc_put16(f + 4, 8);
	expect_decode(TR_LINKTYPE_RAW, f, n + 16, -EBADMSG, &ip);

	/* Bad arguments. */
	assert_int_equal(tr_decode_ip(TR_LINKTYPE_RAW, f, 20, NULL), -EINVAL);
	expect_decode(TR_LINKTYPE_RAW, NULL, 20, -EINVAL, &ip);
	expect_decode(TR_LINKTYPE_RAW, NULL, 0, -EBADMSG, &ip);
}
