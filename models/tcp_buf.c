/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux's TCP socket buffers (kernel 6.18, net/ipv4/tcp_input.c and tcp_output.c).
 *
 * Receiver.  The window is a share of the receive buffer: win = space x scaling_ratio / 256,
 * the ratio measured from a full segment's length over its truesize (tcp_measure_rcv_mss(); 50 %
 * before one came).  A connection starts with sk_rcvbuf = tcp_rmem[1], its first window
 * rounded down to the MSS (tcp_select_initial_window()), rcv_ssthresh that window and
 * rcvq_space 10 x advmss (tcp_init_buffer_space()).  Each segment in order of 128 bytes or
 * more raises rcv_ssthresh by 2 x advmss while the buffer has room (tcp_grow_window()); as the
 * application reads, once per receiver's RTT estimate, the bytes read over it (copied)
 * past the last such count set sk_rcvbuf to hold 2 x copied (plus what waits beyond a hole),
 * up to tcp_rmem[2], and window_clamp follows (tcp_rcv_space_adjust(), tcp_rcvbuf_grow()).  The
 * RTT estimate's sample is the time to receive a window's worth (tcp_rcv_rtt_measure()), filtered
 * as Linux filters the samples of the timestamp echo (tcp_rcv_rtt_update() since 6.16: a
 * smaller one at once, a larger one by 1/8), which this model does not carry (TSecr is 0):
 * behind a queue, both exceed the path's RTT, so the buffer grows past its bandwidth-delay
 * product, as the real one does.  The window advertised
 * is the free space bounded by rcv_ssthresh and window_clamp, rounded up to the window scale,
 * never less than what the last ACK left open (__tcp_select_window(), tcp_select_window()).
 *
 * Sender.  sk_sndbuf = 2 x max(10, cwnd) x per_mss, per_mss a segment's worst-case truesize
 * (the MSS and MAX_TCP_HEADER in a power of two, with the skb: 4352 at an MTU of 1500), up to
 * tcp_wmem[2], growing as ACKs free room while the writer waits and the window is not full
 * (tcp_sndbuf_expand(), tcp_should_expand_sndbuf()).  The writer may queue a segment while the
 * queued truesize is below sk_sndbuf, so unacknowledged and unsent segments together are at
 * most sk_sndbuf / SM_TCP_TX_TRUESIZE, rounded up.
 */
#include <stddef.h>

#include "tcp_buf.h"

#define RMEM_TO_WIN 8		/* TCP_RMEM_TO_WIN_SCALE */
#define INIT_CWND 10u		/* TCP_INIT_CWND */
#define MSS_DEFAULT 536u	/* TCP_MSS_DEFAULT */
#define MIN_CLAMP 1152u		/* SOCK_MIN_RCVBUF / 2 */

static inline uint64_t
win_from_space(uint32_t ratio, int64_t space)
{
	return space <= 0 ? 0 : ((uint64_t)space * ratio) >> RMEM_TO_WIN;
}

static inline uint64_t
space_from_win(uint32_t ratio, uint64_t win)
{
	return (win << RMEM_TO_WIN) / ratio;
}

static inline uint64_t
align_up(uint64_t x, uint32_t shift)
{
	return (x + (UINT64_C(1) << shift) - 1) >> shift << shift;
}

static inline uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void
sm_tcp_bufconf_init(struct sm_tcp_bufconf *bc, uint32_t mtu, uint64_t rmem_max,
		    uint64_t wmem_max)
{
	bc->mss = mtu - 52;
	bc->advmss = mtu - 40;
	bc->wscale = 7;
	bc->rmem[0] = 4096;
	bc->rmem[1] = 131072;
	bc->rmem[2] = max64(rmem_max, bc->rmem[1]);
	bc->wmem[0] = 4096;
	bc->wmem[1] = 16384;
	bc->wmem[2] = max64(wmem_max, bc->wmem[1]);
}

/* The largest window the scale can say. */
static inline uint64_t
wnd_max(const struct sm_tcp_bufconf *bc)
{
	return UINT64_C(65535) << bc->wscale;
}

uint64_t
sm_rcvbuf_initial_window(const struct sm_tcp_bufconf *bc)
{
	uint64_t space = win_from_space(1u << (RMEM_TO_WIN - 1), (int64_t)bc->rmem[1]);

	if (space > bc->mss)
		space -= space % bc->mss;
	return min64(space, 65535);
}

void
sm_rcvbuf_init(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint64_t now)
{
	uint64_t maxwin;

	rb->ratio = 1u << (RMEM_TO_WIN - 1);
	rb->rcvbuf = bc->rmem[1];
	rb->rcv_wnd = sm_rcvbuf_initial_window(bc);
	rb->rcv_wup = 0;
	maxwin = win_from_space(rb->ratio, (int64_t)rb->rcvbuf);
	rb->window_clamp = max64(maxwin, 4 * (uint64_t)bc->advmss);
	rb->rcv_ssthresh = min64(rb->rcv_wnd, rb->window_clamp);
	rb->space = min64(rb->rcv_ssthresh, INIT_CWND * (uint64_t)bc->advmss);
	rb->space_seq = 0;
	rb->space_time = now;
	rb->rtt = 0;
	rb->rtt_seq = 0;
	rb->rtt_time = 0;
	rb->rtt_started = false;
	rb->rcv_mss = MSS_DEFAULT;
}

/* tcp_space(): the window the free part of the buffer holds. */
static inline uint64_t
space_free(const struct sm_rcvbuf *rb, uint64_t ooo_truesize)
{
	return win_from_space(rb->ratio, (int64_t)rb->rcvbuf - (int64_t)ooo_truesize);
}

/* tcp_set_window_clamp() */
static void
set_clamp(struct sm_rcvbuf *rb, uint64_t val)
{
	uint64_t nc = max64(MIN_CLAMP, val), old = rb->window_clamp;

	if (nc == old)
		return;
	rb->window_clamp = nc;
	if (nc < old)
		rb->rcv_ssthresh = min64(rb->rcv_ssthresh, nc);
	else
		rb->rcv_ssthresh = max64(min64(rb->rcv_wnd, nc), rb->rcv_ssthresh);
}

/* tcp_measure_rcv_mss(): the scaling ratio from a full segment */
static void
measure_mss(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint32_t len,
	    uint32_t truesize)
{
	uint32_t ratio, old = rb->ratio;

	if (len < rb->rcv_mss)
		return;
	if (len != rb->rcv_mss) {
		ratio = (uint32_t)(((uint64_t)len << RMEM_TO_WIN) / truesize);
		rb->ratio = ratio ? (ratio > 255 ? 255 : ratio) : 1;
		if (rb->ratio != old) {
			set_clamp(rb, win_from_space(rb->ratio, (int64_t)rb->rcvbuf));
			if (rb->window_clamp < rb->space)
				rb->space = rb->window_clamp;
		}
	}
	rb->rcv_mss = len < bc->advmss ? len : bc->advmss;
}

/* tcp_grow_window() with __tcp_grow_window() */
static void
grow_window(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint32_t len,
	    uint32_t truesize, uint64_t ooo_truesize)
{
	uint64_t lim = min64(rb->window_clamp, space_free(rb, ooo_truesize)), incr = 0;

	if (lim <= rb->rcv_ssthresh)
		return;
	if (win_from_space(rb->ratio, truesize) <= len) {
		incr = 2 * (uint64_t)bc->advmss;
	} else {
		uint64_t ts = win_from_space(rb->ratio, truesize) >> 1;
		uint64_t w = win_from_space(rb->ratio, (int64_t)bc->rmem[2]) >> 1;

		while (rb->rcv_ssthresh <= w) {
			if (ts <= len) {
				incr = 2 * (uint64_t)rb->rcv_mss;
				break;
			}
			ts >>= 1;
			w >>= 1;
		}
	}
	if (incr == 0)
		return;
	incr = max64(incr, 2 * (uint64_t)len);
	rb->rcv_ssthresh += min64(lim - rb->rcv_ssthresh, incr);
}

/* tcp_rcvbuf_grow() */
static void
rcvbuf_grow(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint64_t ooo_span)
{
	uint64_t rcvwin = (rb->space << 1) + ooo_span;
	uint64_t rcvbuf = min64(space_from_win(rb->ratio, rcvwin), bc->rmem[2]);

	if (rcvbuf > rb->rcvbuf) {
		rb->rcvbuf = rcvbuf;
		rb->window_clamp = win_from_space(rb->ratio, (int64_t)rcvbuf);
	}
}

void
sm_rcvbuf_data(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint32_t len,
	       uint64_t rcv_nxt, bool in_order, uint64_t ooo_truesize, uint64_t ooo_span,
	       uint64_t now)
{
	uint32_t truesize = SM_TCP_RX_TRUESIZE(len);

	if (!in_order) {		/* tcp_data_queue_ofo() */
		grow_window(rb, bc, len, truesize, ooo_truesize);
		rcvbuf_grow(rb, bc, ooo_span);
		return;
	}
	/* tcp_event_data_recv() */
	measure_mss(rb, bc, len, truesize);
	if (rb->rtt_started && rcv_nxt >= rb->rtt_seq) {	/* tcp_rcv_rtt_measure() */
		uint64_t d = now - rb->rtt_time;

		if (d < 1000000)
			d = 1000000;		/* 1 us, its unit */
		if (rb->rtt == 0 || d < rb->rtt)
			rb->rtt = d;
		else		/* a larger sample as a timestamp's is taken: 1/8 of it */
			rb->rtt = rb->rtt - rb->rtt / 8 + d / 8;
	}
	if (!rb->rtt_started || rcv_nxt >= rb->rtt_seq) {
		rb->rtt_seq = rcv_nxt + rb->rcv_wnd;
		rb->rtt_time = now;
		rb->rtt_started = true;
	}
	if (len >= 128)
		grow_window(rb, bc, len, truesize, ooo_truesize);
	/* tcp_rcv_space_adjust(): the application has read up to rcv_nxt */
	if (rb->rtt == 0 || now - rb->space_time < rb->rtt)
		return;
	if (rcv_nxt - rb->space_seq > rb->space) {
		rb->space = rcv_nxt - rb->space_seq;
		rcvbuf_grow(rb, bc, ooo_span);
	}
	rb->space_seq = rcv_nxt;
	rb->space_time = now;
}

uint64_t
sm_rcvbuf_window(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint64_t rcv_nxt,
		 uint64_t ooo_truesize)
{
	uint64_t free = space_free(rb, ooo_truesize);
	uint64_t allowed = win_from_space(rb->ratio, (int64_t)rb->rcvbuf);
	uint64_t full = min64(rb->window_clamp, allowed), mss = min64(rb->rcv_mss, full);
	uint64_t win, cur = rb->rcv_wup + rb->rcv_wnd > rcv_nxt ?
			    rb->rcv_wup + rb->rcv_wnd - rcv_nxt : 0;

	if (free < full / 2) {
		free = free >> bc->wscale << bc->wscale;
		if (free < allowed / 16 || free < mss || mss == 0)
			free = 0;
	}
	if (free > rb->rcv_ssthresh)
		free = rb->rcv_ssthresh;
	win = align_up(free, bc->wscale);
	if (win < cur)
		win = align_up(cur, bc->wscale);
	win = min64(win, wnd_max(bc));
	rb->rcv_wnd = win;
	rb->rcv_wup = rcv_nxt;
	return win;
}

/* tcp_sndbuf_expand()'s per_mss: a segment's worst-case truesize */
static inline uint64_t
per_mss(const struct sm_tcp_bufconf *bc)
{
	uint64_t x = max64(bc->advmss, bc->mss) + SM_MAX_TCP_HEADER + 320, p = 1;

	while (p < x)
		p <<= 1;
	return p + 256;
}

uint64_t
sm_sndbuf_expand(const struct sm_tcp_bufconf *bc, uint64_t sndbuf, uint32_t cwnd)
{
	uint64_t mem = 2 * (uint64_t)(cwnd > INIT_CWND ? cwnd : INIT_CWND) * per_mss(bc);

	if (sndbuf < mem)
		sndbuf = min64(mem, bc->wmem[2]);
	return max64(sndbuf, bc->wmem[0]);
}

uint32_t
sm_sndbuf_segs(const struct sm_tcp_bufconf *bc, uint64_t sndbuf)
{
	uint64_t ts = SM_TCP_TX_TRUESIZE(bc->mss), n = (sndbuf + ts - 1) / ts;

	return n == 0 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}
