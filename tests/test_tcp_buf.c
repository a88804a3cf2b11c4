/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux's socket buffers (models/tcp_buf.h) against values worked by hand from the kernel's
 * rules at an MTU of 1500 (MSS 1448, advmss 1460, tcp_rmem 4096 131072 32 MiB, tcp_wmem 4096
 * 16384 4 MiB): the first window (65536 rounded down to the MSS: 65160, what the real
 * receiver's SYN-ACK says through syncemu bridge), the scaling ratio from the first full
 * segment (1448 x 256 / 2396 = 154), rcv_ssthresh's growth by 2 x advmss a segment up to
 * window_clamp, the buffer's growth once a receiver's RTT has passed (2 x the bytes read),
 * the window rounded up to 2^7 and never shrinking, and the send buffer's size and segments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tcp_buf.h"

#define MS UINT64_C(1000000000)	/* ps */

static void
conf(struct sm_tcp_bufconf *bc)
{
	sm_tcp_bufconf_init(bc, 1500, 32u << 20, 4u << 20);
}

static void
test_initial(void **state)
{
	struct sm_tcp_bufconf bc;
	struct sm_rcvbuf rb;

	(void)state;
	conf(&bc);
	assert_int_equal(bc.mss, 1448);
	assert_int_equal(bc.advmss, 1460);
	assert_int_equal(sm_rcvbuf_initial_window(&bc), 65160);	/* 45 x 1448 */
	sm_rcvbuf_init(&rb, &bc, 0);
	assert_int_equal(rb.rcvbuf, 131072);
	assert_int_equal(rb.window_clamp, 65536);	/* 131072 x 128 / 256 */
	assert_int_equal(rb.rcv_ssthresh, 65160);
	assert_int_equal(rb.space, 14600);		/* 10 x advmss */
	assert_int_equal(rb.ratio, 128);
}

static void
test_first_segment(void **state)
{
	struct sm_tcp_bufconf bc;
	struct sm_rcvbuf rb;

	(void)state;
	conf(&bc);
	sm_rcvbuf_init(&rb, &bc, 0);
	sm_rcvbuf_data(&rb, &bc, 1448, 1448, true, 0, 0, 1 * MS);
	/* truesize 896 + 1448 + 52 = 2396: ratio 370688 / 2396 = 154 */
	assert_int_equal(rb.ratio, 154);
	assert_int_equal(rb.window_clamp, 78848);	/* 131072 x 154 / 256 */
	assert_int_equal(rb.rcv_mss, 1448);
	/* 2396 x 154 / 256 = 1441 <= 1448: + max(2 x 1460, 2 x 1448) */
	assert_int_equal(rb.rcv_ssthresh, 65160 + 2920);
	/* 68080 rounded up to 128; above the 65160 - 1448 the first window left open */
	assert_int_equal(sm_rcvbuf_window(&rb, &bc, 1448, 0), 68096);
	assert_int_equal(rb.rcv_wnd, 68096);
	assert_int_equal(rb.rcv_wup, 1448);
	/* never less than what the last window left open */
	rb.rcv_ssthresh = 1000;
	assert_int_equal(sm_rcvbuf_window(&rb, &bc, 1448 + 128, 0), 68096 - 128);
}

static void
test_autotune(void **state)
{
	struct sm_tcp_bufconf bc;
	struct sm_rcvbuf rb;
	uint64_t i;

	(void)state;
	conf(&bc);
	sm_rcvbuf_init(&rb, &bc, 0);
	/* a segment a millisecond; the RTT's measure ends once 1448 + 65160 bytes came */
	for (i = 1; i <= 45; i++)
		sm_rcvbuf_data(&rb, &bc, 1448, i * 1448, true, 0, 0, i * MS);
	assert_int_equal(rb.rtt, 0);
	assert_int_equal(rb.rcv_ssthresh, 78848);	/* + 2920 a segment, up to the clamp */
	assert_int_equal(rb.rcvbuf, 131072);
	sm_rcvbuf_data(&rb, &bc, 1448, 46 * 1448, true, 0, 0, 46 * MS);
	assert_int_equal(rb.rtt, 45 * MS);
	/* 66608 read > 14600: rcvbuf = 2 x 66608 x 256 / 154, the clamp its 154 / 256 */
	assert_int_equal(rb.space, 66608);
	assert_int_equal(rb.rcvbuf, 221449);
	assert_int_equal(rb.window_clamp, 133215);
	assert_int_equal(rb.space_seq, 66608);
	/* within an RTT of that: no change */
	sm_rcvbuf_data(&rb, &bc, 1448, 47 * 1448, true, 0, 0, 47 * MS);
	assert_int_equal(rb.rcvbuf, 221449);
	assert_int_equal(rb.rcv_ssthresh, 78848 + 2920);
	/* the largest window the scale can say */
	rb.rcvbuf = 32u << 20;
	rb.window_clamp = rb.rcv_ssthresh = 20u << 20;
	assert_int_equal(sm_rcvbuf_window(&rb, &bc, 47 * 1448, 0), 65535 << 7);
}

static void
test_sndbuf(void **state)
{
	struct sm_tcp_bufconf bc;

	(void)state;
	conf(&bc);
	/* per_mss: 1460 + 320 + 320 = 2100 -> 4096, + 256 */
	assert_int_equal(sm_sndbuf_expand(&bc, 16384, 10), 2 * 10 * 4352);
	assert_int_equal(sm_sndbuf_expand(&bc, 16384, 4), 2 * 10 * 4352);
	assert_int_equal(sm_sndbuf_expand(&bc, 87040, 300), 2 * 300 * 4352);
	assert_int_equal(sm_sndbuf_expand(&bc, 87040, 500), 4194304);
	assert_int_equal(sm_sndbuf_expand(&bc, 4194304, 20), 4194304);	/* never shrinks */
	/* segments of 896 + 1448 bytes, one past the last whole one */
	assert_int_equal(sm_sndbuf_segs(&bc, 87040), 38);
	assert_int_equal(sm_sndbuf_segs(&bc, 4194304), 1790);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initial),
		cmocka_unit_test(test_first_segment),
		cmocka_unit_test(test_autotune),
		cmocka_unit_test(test_sndbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
