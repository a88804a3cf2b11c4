/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bridge's look at a frame from a kernel interface (dataplane/rawframe.h), without the EAL:
 * TCP and UDP over IPv4 and IPv6 with the checksum a host leaves to its device (the pseudo
 * header's sum), finished as the device would have; finished, wrong or absent checksums carried
 * as they are; frames shorter than their IP header says found.  The sums here are computed
 * byte by byte (RFC 1071), apart from DPDK's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rawframe.h"

/* RFC 1071: the one's complement sum of big-endian 16-bit words, folded. */
static uint32_t
sum16(const uint8_t *b, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The pseudo header's sum (not complemented), as a host leaves it for its device. */
static uint16_t
pseudo(const uint8_t *ip, int v6, uint8_t proto, uint32_t l4_len)
{
	uint32_t s = v6 ? sum16(ip + 8, 32, 0) : sum16(ip + 12, 8, 0);

	return fold(s + proto + (l4_len >> 16) + (l4_len & 0xffff));
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/*
 * A frame at @f: Ethernet (with @vlan tags), IPv4 or IPv6, TCP or UDP with @pay bytes of
 * payload; its checksum field holds the pseudo header's sum (a host's offload).  Returns its
 * length; *@l4 the offset of the TCP/UDP header.
 */
static uint32_t
frame(uint8_t *f, int v6, uint8_t proto, uint32_t pay, int vlan, uint32_t *l4)
{
	uint32_t off = 12, hl = proto == 6 ? 20 : 8, i;
	uint8_t *ip;
	int t;

	memset(f, 0, 12 + 8 + 2 + 40 + 20 + pay);
	for (i = 0; i < 12; i++)
		f[i] = (uint8_t)(0x10 + i);
	for (t = 0; t < vlan; t++, off += 4) {
		put16(f + off, t == 0 && vlan == 2 ? 0x88a8 : 0x8100);
		put16(f + off + 2, (uint16_t)(100 + t));
	}
	put16(f + off, v6 ? 0x86dd : 0x0800);
	ip = f + off + 2;
	if (v6) {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(hl + pay));
		ip[6] = proto;
		ip[7] = 64;
		for (i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0xf0 ^ i);
		*l4 = off + 2 + 40;
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(20 + hl + pay));
		put16(ip + 6, 0x4000);	/* DF */
		ip[8] = 64;
		ip[9] = proto;
		ip[12] = 10, ip[13] = 198, ip[14] = 0, ip[15] = 1;
		ip[16] = 10, ip[17] = 198, ip[18] = 0, ip[19] = 2;
		put16(ip + 10, (uint16_t)~fold(sum16(ip, 20, 0)));
		*l4 = off + 2 + 20;
	}
	put16(f + *l4, 40000);
	put16(f + *l4 + 2, 5201);
	if (proto == 6) {
		f[*l4 + 12] = 0x50;
		f[*l4 + 13] = 0x18;
	} else {
		put16(f + *l4 + 4, (uint16_t)(hl + pay));
	}
	for (i = 0; i < pay; i++)
		f[*l4 + hl + i] = (uint8_t)(i * 7 + 3);
	put16(f + *l4 + (proto == 6 ? 16 : 6), pseudo(ip, v6, proto, hl + pay));
	return *l4 + hl + pay;
}

/* The TCP/UDP checksum of the segment at @l4 holds (RFC 1071: the sum with it is all ones). */
static int
sum_holds(const uint8_t *f, uint32_t l4, uint32_t len, int v6, uint8_t proto)
{
	const uint8_t *ip = f + l4 - (v6 ? 40 : 20);
	uint32_t n = len - l4;
	uint16_t ph = pseudo(ip, v6, proto, n);

	return fold(sum16(f + l4, n, ph)) == 0xffff;
}

static void
test_unfinished_sums_are_finished(void **state)
{
	static const struct { int v6; uint8_t proto; uint32_t pay; int vlan; } c[] = {
		{ 0, 6, 1448, 0 }, { 0, 17, 1472, 0 }, { 1, 6, 1428, 0 }, { 1, 17, 1, 0 },
		{ 0, 6, 0, 1 }, { 0, 17, 9000, 2 }, { 1, 6, 8947, 1 }, { 0, 17, 3, 0 },
	};
	uint8_t f[9200], copy[9200];
	uint32_t i, l4, len;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		len = frame(f, c[i].v6, c[i].proto, c[i].pay, c[i].vlan, &l4);
		assert_false(sum_holds(f, l4, len, c[i].v6, c[i].proto));
		memcpy(copy, f, len);
		assert_int_equal(dp_raw_check(f, len), DP_RAW_CSUM_DONE);
		assert_true(sum_holds(f, l4, len, c[i].v6, c[i].proto));
		/* only the checksum changed */
		memcpy(copy + l4 + (c[i].proto == 6 ? 16 : 6), f + l4 + (c[i].proto == 6 ? 16 : 6),
		       2);
		assert_memory_equal(copy, f, len);
		/* finished now: carried as it is */
		assert_int_equal(dp_raw_check(f, len), DP_RAW_OK);
		assert_memory_equal(copy, f, len);
	}
}

static void
test_other_frames_are_carried_as_they_are(void **state)
{
	uint8_t f[2000], copy[2000];
	uint32_t l4, len;

	(void)state;
	/* a checksum wrong in another way: corruption is not mended */
	len = frame(f, 0, 6, 100, 0, &l4);
	f[l4 + 17] ^= 0x01;
	memcpy(copy, f, len);
	assert_int_equal(dp_raw_check(f, len), DP_RAW_OK);
	assert_memory_equal(copy, f, len);
	/* UDP over IPv4 without a checksum (0) */
	len = frame(f, 0, 17, 100, 0, &l4);
	put16(f + l4 + 6, 0);
	assert_int_equal(dp_raw_check(f, len), DP_RAW_OK);
	assert_int_equal(get16(f + l4 + 6), 0);
	/* a fragment: its sum covers the whole datagram */
	len = frame(f, 0, 17, 100, 0, &l4);
	put16(f + 14 + 6, 0x2000);	/* MF */
	memcpy(copy, f, len);
	assert_int_equal(dp_raw_check(f, len), DP_RAW_OK);
	assert_memory_equal(copy, f, len);
	/* not IP (ARP), and frames too short for their headers */
	memset(f, 0, 60);
	put16(f + 12, 0x0806);
	assert_int_equal(dp_raw_check(f, 60), DP_RAW_OK);
	assert_int_equal(dp_raw_check(f, 13), DP_RAW_OK);
	len = frame(f, 1, 6, 10, 0, &l4);
	assert_int_equal(dp_raw_check(f, 14 + 39), DP_RAW_OK);
	/* an IPv6 header followed by an extension header: as it is */
	len = frame(f, 1, 6, 10, 0, &l4);
	f[14 + 6] = 0;	/* hop-by-hop */
	memcpy(copy, f, len);
	assert_int_equal(dp_raw_check(f, len), DP_RAW_OK);
	assert_memory_equal(copy, f, len);
	/* Ethernet padding after a short datagram is no cut */
	len = frame(f, 0, 17, 2, 0, &l4);
	assert_true(len < 60);
	memset(f + len, 0, 60 - len);
	assert_int_equal(dp_raw_check(f, 60), DP_RAW_CSUM_DONE);
	assert_true(sum_holds(f, l4, len, 0, 17));
}

static void
test_cut_frames_are_found(void **state)
{
	uint8_t f[9600];
	uint32_t l4, len;

	(void)state;
	/* a 9514-byte frame (MTU 9500) handed over as 9150 bytes (af_packet, framesz=9216) */
	len = frame(f, 0, 17, 9472, 0, &l4);
	assert_int_equal(len, 9514);
	assert_int_equal(dp_raw_check(f, 9150), DP_RAW_CUT);
	assert_int_equal(dp_raw_check(f, len - 1), DP_RAW_CUT);
	len = frame(f, 1, 6, 8000, 1, &l4);
	assert_int_equal(dp_raw_check(f, len - 100), DP_RAW_CUT);
	/* a host's super-frame cut to the device's frame */
	len = frame(f, 0, 6, 1448, 0, &l4);
	put16(f + 14 + 2, 65000);
	assert_int_equal(dp_raw_check(f, len), DP_RAW_CUT);
}

/*
 * ECN in the IP header, behind 0, 1 or 2 VLAN tags: not ECN-capable is left alone; ECT(0) marked
 * CE, the IPv4 header's checksum mended (RFC 1624) so that it still sums to 0xffff; a frame cut
 * before its IP header has none.
 */
static void
test_ecn_mark(void **state)
{
	uint8_t f[2048];
	uint32_t l4, len, ip;
	int v6, vlan;

	(void)state;
	for (v6 = 0; v6 <= 1; v6++)
		for (vlan = 0; vlan <= 2; vlan++) {
			len = frame(f, v6, 6, 100, vlan, &l4);
			ip = 14 + 4 * (uint32_t)vlan;
			assert_int_equal(dp_raw_ecn(f, len), 0);
			assert_int_equal(dp_raw_set_ce(f, len), -ENOTSUP);	/* not ECT */
			if (v6) {
				f[ip + 1] |= 2 << 4;			/* ECT(0) */
			} else {
				f[ip + 1] |= 2;
				put16(f + ip + 10, 0);
				put16(f + ip + 10, (uint16_t)~fold(sum16(f + ip, 20, 0)));
			}
			assert_int_equal(dp_raw_ecn(f, len), 2);
			assert_int_equal(dp_raw_set_ce(f, len), 0);
			assert_int_equal(dp_raw_ecn(f, len), 3);
			if (!v6)
				assert_int_equal(fold(sum16(f + ip, 20, 0)), 0xffff);
			assert_int_equal(dp_raw_ecn(f, ip + 8), -1);		/* cut */
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unfinished_sums_are_finished),
		cmocka_unit_test(test_other_frames_are_carried_as_they_are),
		cmocka_unit_test(test_cut_frames_are_found),
		cmocka_unit_test(test_ecn_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
