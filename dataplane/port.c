/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port element: frames out of and into a real ethdev.
 *
 * Its device is opened, counted and closed in port_dev.c.  A frame handed to the port at
 * emulated time t is transmitted at once, and how late that was (the actual time against t's
 * real time) is recorded.  Received frames are parsed (dp_frame_parse), queued with the time of
 * the poll that took them (a bridge's: the clock read after the receive burst that returned
 * them), and handed to the DC's switch when the calendar reaches that time.  Where the NIC
 * stamps received frames (RTE_ETH_RX_OFFLOAD_TIMESTAMP), the stamp, moved onto the TSC clock by
 * the offset read at each poll (rte_eth_read_clock), is the arrival time instead.
 */
#define ALLOW_EXPERIMENTAL_API	/* rte_eth_read_clock */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "../models/ring.h"
#include "capture.h"
#include "eal.h"
#include "frame.h"
#include "port.h"
#include "port_impl.h"
#include "rawframe.h"
#include "tcp.h"

#define BURST DP_PORT_BURST
#define QUEUE_MIN 256
#define TX_TRIES 1000

uint64_t dp_port_ts_flag;	/* RTE_MBUF_DYNFLAG_RX_TIMESTAMP's bit, once registered */

/* ---- the element ---- */

/*
 * @m, due at emulated time @due, was handed to the device at real time @real (read before the
 * send: a device such as af_packet delivers the frame inside the send call, tens of us through
 * the peer's stack, which is not the frame's lateness).
 */
static void
sent(struct dp_port *p, struct rte_mbuf *m, uint32_t len, dp_time_t due, uint64_t real)
{
	p->tx++;
	p->tx_bytes += len;
	p->e.c.tx++;
	p->e.c.tx_bytes += len;
	if (p->clk != NULL)
		dp_lateness_add(&p->late, real, dp_clock_real(p->clk, due));
	(void)m;
}

static inline uint64_t
real_now(const struct dp_port *p)
{
	return p->clk != NULL ? dp_clock_ns(p->clk) : 0;
}

static uint32_t
fifo_len(const struct dp_port_fifo *f)
{
	return f->tail - f->head;
}

static struct dp_port_arrival *
fifo_at(const struct dp_port_fifo *f, uint32_t i)
{
	return &f->a[i & f->mask];
}

/* Room for one more (doubling the ring when full); 0 or -ENOMEM. */
int
dp_port_fifo_room(struct dp_port_fifo *f)
{
	struct dp_port_arrival *a;

	if (f->a != NULL && fifo_len(f) <= f->mask)
		return 0;
	a = sm_ring_grow(f->a, &f->mask, &f->head, &f->tail, sizeof(*a), QUEUE_MIN, 0);
	if (a == NULL)
		return -ENOMEM;
	f->a = a;
	return 0;
}

/* Free the frames that wait; return how many. */
static uint64_t
fifo_drop(struct dp_port_fifo *f)
{
	uint64_t n = 0;

	for (; f->a != NULL && f->head != f->tail; n++)
		rte_pktmbuf_free(fifo_at(f, f->head++)->m);
	return n;
}

void
dp_port_fifo_fini(struct dp_port_fifo *f)
{
	fifo_drop(f);
	free(f->a);
	f->a = NULL;
}

/* Send what waits, in order, as far as the device has room. */
static void
flush(struct dp_port *p)
{
	while (fifo_len(&p->txq) > 0) {
		struct dp_port_arrival *a = fifo_at(&p->txq, p->txq.head);
		uint32_t len = rte_pktmbuf_pkt_len(a->m);
		uint64_t real = real_now(p);

		if (rte_eth_tx_burst(p->port_id, 0, &a->m, 1) != 1)
			return;
		sent(p, a->m, len, a->t, real);
		p->txq.head++;
	}
}

/* The frame carries an 802.1Q or 802.1ad tag (4 bytes over the MTU are allowed for it). */
static inline bool
vlan_tagged(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;

	if (rte_pktmbuf_data_len(m) < 14)
		return false;
	type = (uint16_t)(b[12] << 8 | b[13]);
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
}

/*
 * A frame from the DC's WAN link: onto the wire now, or, if the device has no room (its ring is
 * full: the far end is slow to read), after the frames already waiting, as soon as it has.
 */
static void
port_rx(struct dp_elem *e, const struct dp_pkt *f, dp_time_t now)
{
	struct dp_port *p = (struct dp_port *)e;
	struct rte_mbuf *m = f->m;	/* frames have bytes where there are ports */
	uint32_t len = f->len;
	int tries;

	e->c.rx++;
	e->c.rx_bytes += len;
	if (m == NULL) {
		dp_engine_fail(e->eng, -EINVAL, "%s: a frame without bytes to send", e->name);
		e->c.drop++;
		e->c.drop_bytes += len;
		dp_frame_end(e->eng, f);
		return;
	}
	if (p->tx_max != 0 && len > p->tx_max && !(len <= p->tx_max + 4 && vlan_tagged(m))) {
		/* longer than the interface takes: its driver would drop it unseen */
		p->tx_too_long++;
		e->c.drop++;
		e->c.drop_bytes += len;
		rte_pktmbuf_free(m);
		return;
	}
	if (f->meta.flags & DP_SE_F_TCP)
		dp_tcp_port_tag(m, p->run_id);	/* what its receiver needs that TCP's do not say */
	dp_capture_frame(e->eng, p->cap_tx, f, now);
	if (p->tx_batch) {
		if (p->nb == RTE_DIM(p->txb))
			dp_port_flush_batch(p);
		p->txb[p->nb] = m;
		p->txb_due[p->nb++] = now;
		return;
	}
	flush(p);
	for (tries = 0; fifo_len(&p->txq) == 0 && tries < TX_TRIES; tries++) {
		uint64_t real = real_now(p);

		if (rte_eth_tx_burst(p->port_id, 0, &m, 1) == 1) {
			sent(p, m, len, now, real);
			return;
		}
	}
	if (dp_port_fifo_room(&p->txq) != 0) {
		dp_engine_fail(e->eng, -ENOMEM, "%s: out of memory for frames waiting to be sent",
			       e->name);
		e->c.drop++;
		e->c.drop_bytes += len;
		rte_pktmbuf_free(m);
		return;
	}
	p->tx_deferred++;
	*fifo_at(&p->txq, p->txq.tail++) = (struct dp_port_arrival){ m, now };
}

void
dp_port_flush_batch(struct dp_port *p)
{
	uint64_t real;
	uint16_t n = 0, i;

	flush(p);	/* what waited for room goes first */
	real = real_now(p);
	if (fifo_len(&p->txq) == 0)
		n = rte_eth_tx_burst(p->port_id, 0, p->txb, p->nb);
	for (i = 0; i < n; i++)
		sent(p, p->txb[i], rte_pktmbuf_pkt_len(p->txb[i]), p->txb_due[i], real);
	for (; i < p->nb; i++) {
		/* no room in the device: they wait, in order (never dropped) */
		if (dp_port_fifo_room(&p->txq) != 0) {
			dp_engine_fail(p->e.eng, -ENOMEM, "%s: out of memory for frames waiting to "
				       "be sent", p->e.name);
			rte_pktmbuf_free(p->txb[i]);
			continue;
		}
		p->tx_deferred++;
		*fifo_at(&p->txq, p->txq.tail++) = (struct dp_port_arrival){ p->txb[i],
									     p->txb_due[i] };
	}
	p->nb = 0;
}

static bool
is_ctl(const struct rte_mbuf *m, const uint8_t **msg, uint32_t *len)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l = rte_pktmbuf_data_len(m), ulen;

	if (l < 42 || b[12] != 0x08 || b[13] != 0x00 || b[23] != 17 ||
	    (uint32_t)(b[36] << 8 | b[37]) != DP_CTL_UDP)
		return false;
	ulen = (uint32_t)(b[38] << 8 | b[39]);
	if (ulen < 8 || 34 + ulen > l)
		return false;
	*msg = b + 42;
	*len = ulen - 8;
	return true;
}

/* Arrivals whose time has come: into the DC's switch, or to the control protocol. */
static void
port_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_port *p = (struct dp_port *)e;

	while (fifo_len(&p->rxq) > 0 && fifo_at(&p->rxq, p->rxq.head)->t <= now) {
		struct dp_port_arrival *a = fifo_at(&p->rxq, p->rxq.head++);
		const uint8_t *msg;
		struct dp_pkt f;
		uint32_t len;

		if (p->raw) {
			dp_pkt_of_raw(a->m, &f);	/* a bridge's: any frame, as it is */
			e->c.tx++;
			e->c.tx_bytes += f.len;
			dp_capture_frame(e->eng, p->cap_rx, &f, now);
			p->rx_to->ops->rx(p->rx_to, &f, now);
			continue;
		}
		if (is_ctl(a->m, &msg, &len)) {
			if (p->on_ctl != NULL)
				p->on_ctl(p->ctl_arg, p, msg, len, now);
			rte_pktmbuf_free(a->m);
			continue;
		}
		/* checked by dp_frame_parse() or dp_tcp_port_parse() when it came */
		if (dp_meta(a->m)->flags & DP_SE_F_TCP)
			dp_tcp_port_pkt(a->m, &f);
		else
			dp_pkt_of_mbuf(a->m, &f);
		e->c.tx++;
		e->c.tx_bytes += f.len;
		dp_capture_frame(e->eng, p->cap_rx, &f, now);
		p->rx_to->ops->rx(p->rx_to, &f, now);
	}
	dp_sched(e, fifo_len(&p->rxq) > 0 ? fifo_at(&p->rxq, p->rxq.head)->t : DP_NEVER);
}

static uint64_t
port_held(const struct dp_elem *e)
{
	const struct dp_port *p = (const struct dp_port *)e;
	uint64_t n = fifo_len(&p->txq) + p->nb;
	uint32_t i;

	if (p->raw)
		return n + fifo_len(&p->rxq);

	for (i = p->rxq.head; i != p->rxq.tail; i++) {
		const uint8_t *msg;
		uint32_t len;

		n += !is_ctl(fifo_at(&p->rxq, i)->m, &msg, &len);
	}
	return n;
}

static const struct dp_elem_ops port_ops = {
	.kind = "port",
	.event = port_event,
	.rx = port_rx,
	.held = port_held,
};

static uint32_t
frame_run(const struct rte_mbuf *m)
{
	const struct sm_se_hdr *se = rte_pktmbuf_mtod_offset(m, const struct sm_se_hdr *,
							     SM_SE_AT);

	return rte_be_to_cpu_32(se->run_id);
}

/* The NIC's clock minus ours at this moment, ns; 0 if it cannot be read. */
static int64_t
nic_offset(const struct dp_port *p)
{
	uint64_t nic = 0, ours = dp_clock_ns(p->clk);

	if (rte_eth_read_clock(p->port_id, &nic) != 0)
		return 0;
	return (int64_t)(nic - ours);
}

/* When @m arrived: the NIC's stamp if it gave one, else the poll's time @now. */
static inline dp_time_t
hw_time(const struct dp_port *p, const struct rte_mbuf *m, int64_t off, dp_time_t now)
{
	uint64_t hw;
	dp_time_t h;

	if (!p->hw_ts || !(m->ol_flags & dp_port_ts_flag) || p->clk == NULL)
		return now;
	hw = *RTE_MBUF_DYNFIELD(m, p->ts_off, uint64_t *);
	h = dp_clock_emu(p->clk, (uint64_t)((int64_t)hw - off));
	/* never before what already ran */
	return h > p->e.eng->now ? (h < now ? h : now) : p->e.eng->now;
}

/*
 * What arrival @m is: 1 a frame of the run (a bridge's port: any frame), 0 a control message,
 * -1 neither (counted as not ours or stale, and freed).
 */
static int
classify(struct dp_port *p, struct rte_mbuf *m)
{
	const uint8_t *msg;
	uint32_t len;
	int rc = 0;

	if (!p->raw && is_ctl(m, &msg, &len)) {
		p->rx_ctl++;
		return 0;
	}
	if (p->raw ? p->rx_to == NULL :
		     (rc = dp_frame_parse(m)) != 0 &&
		     (rc = dp_tcp_port_parse(m, p->tcp_per_dc, p->run_id)) == -EINVAL) {
		p->rx_other++;	/* not syncemu's; or a link's TX end: nothing comes here */
		rte_pktmbuf_free(m);
		return -1;
	}
	if (p->rx_to == NULL) {
		p->rx_other++;
		rte_pktmbuf_free(m);
		return -1;
	}
	if (!p->raw && (rc != 0 || (!(dp_meta(m)->flags & DP_SE_F_TCP) &&
				    frame_run(m) != p->run_id))) {
		p->rx_stale++;	/* an earlier run's, late */
		rte_pktmbuf_free(m);
		return -1;
	}
	p->rx++;
	p->rx_bytes += rte_pktmbuf_pkt_len(m);
	if (p->check_raw && m->nb_segs == 1) {
		enum dp_raw_verdict v = dp_raw_check(rte_pktmbuf_mtod(m, uint8_t *),
						     rte_pktmbuf_data_len(m));

		if (v == DP_RAW_CUT) {
			p->rx_cut++;	/* the rest of it is lost: not sent on as if whole */
			rte_pktmbuf_free(m);
			return -1;
		}
		p->rx_csum += v == DP_RAW_CSUM_DONE;
	}
	p->e.c.rx++;
	p->e.c.rx_bytes += rte_pktmbuf_pkt_len(m);
	return 1;
}

/* When a burst was taken: now (stamp_taken), never before @p floor, the poll's own time. */
static inline dp_time_t
taken_at(const struct dp_port *p, dp_time_t floor)
{
	dp_time_t t;

	if (!p->stamp_taken || p->clk == NULL)
		return floor;
	t = dp_clock_emu(p->clk, dp_clock_ns(p->clk));
	return t > floor ? t : floor;
}

uint32_t
dp_port_poll(struct dp_port *p, dp_time_t now)
{
	struct rte_mbuf *m[BURST];
	uint32_t taken = 0;
	int64_t off = 0;
	bool was_empty = fifo_len(&p->rxq) == 0;
	uint16_t n, i;

	flush(p);
	dp_port_flush(p);
	do {
		dp_time_t at;

		n = rte_eth_rx_burst(p->port_id, 0, m, BURST);
		if (n == 0)
			break;
		/* (stamp_taken: stamped once they are in hand, so that a frame that came during
		 * the sends above, or while the host held this thread, is never aged by that
		 * time) */
		at = taken_at(p, now);
		if (p->hw_ts && p->clk != NULL && taken == 0)
			off = nic_offset(p);
		for (i = 0; i < n; i++) {
			int kind = classify(p, m[i]);
			dp_time_t t = at;

			if (kind < 0)
				continue;	/* not for this run: counted and freed */
			if (kind > 0)
				t = hw_time(p, m[i], off, at);
			if (dp_port_fifo_room(&p->rxq) != 0) {
				dp_engine_fail(p->e.eng, -ENOMEM, "%s: out of memory for arrivals",
					       p->e.name);
				rte_pktmbuf_free(m[i]);
				continue;
			}
			/* in order of time: a NIC stamp may be earlier than the last poll's */
			if (fifo_len(&p->rxq) > 0 && fifo_at(&p->rxq, p->rxq.tail - 1)->t > t)
				t = fifo_at(&p->rxq, p->rxq.tail - 1)->t;
			*fifo_at(&p->rxq, p->rxq.tail++) = (struct dp_port_arrival){ m[i], t };
		}
		taken += n;
	} while (n == BURST && taken < 4 * BURST);
	if (was_empty && fifo_len(&p->rxq) > 0)
		dp_sched(&p->e, fifo_at(&p->rxq, p->rxq.head)->t);
	return taken;
}

int
dp_port_send_ctl(struct dp_port *p, const void *msg, uint32_t len)
{
	static const uint8_t head[42] = {
		/* Ethernet broadcast from 02:53:45:fe:fe:fe, IPv4 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x53, 0x45, 0xfe, 0xfe, 0xfe, 0x08, 0x00,
		/* IPv4 10.255.255.1 to 10.255.255.2, UDP; lengths and checksum below */
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 255, 255, 1, 10, 255, 255, 2,
		/* UDP 47113 to 47113 */
		0xb8, 0x09, 0xb8, 0x09, 0, 0, 0, 0,
	};
	struct rte_mbuf *m;
	uint32_t sum = 0;
	uint8_t *b;
	int tries, i;

	if (len > DP_CTL_MAX)
		return -EMSGSIZE;
	m = rte_pktmbuf_alloc(p->pool);
	if (m == NULL)
		return -ENOBUFS;
	b = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(b, head, sizeof(head));
	b[16] = (uint8_t)((28 + len) >> 8);
	b[17] = (uint8_t)(28 + len);
	b[38] = (uint8_t)((8 + len) >> 8);
	b[39] = (uint8_t)(8 + len);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)b[14 + i] << 8 | b[15 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	b[24] = (uint8_t)(~sum >> 8);
	b[25] = (uint8_t)~sum;
	memcpy(b + 42, msg, len);
	m->data_len = (uint16_t)(42 + len);
	m->pkt_len = m->data_len;
	for (tries = 0; tries < 100000; tries++)
		if (rte_eth_tx_burst(p->port_id, 0, &m, 1) == 1) {
			p->tx_ctl++;
			return 0;
		}
	rte_pktmbuf_free(m);
	return -EAGAIN;
}

void
dp_port_ctl_wait(struct dp_port *p, int max_ms, dp_port_ctl_fn fn, void *arg,
		 const volatile bool *stop)
{
	uint64_t end = dp_clock_raw_ns() + (uint64_t)max_ms * 1000000;

	do {
		struct rte_mbuf *m[BURST];
		uint16_t n = rte_eth_rx_burst(p->port_id, 0, m, BURST), i;

		for (i = 0; i < n; i++) {
			const uint8_t *msg;
			uint32_t len;

			if (is_ctl(m[i], &msg, &len)) {
				p->rx_ctl++;
				fn(arg, p, msg, len, 0);
			} else {
				p->rx_stale++;
			}
			rte_pktmbuf_free(m[i]);
		}
		if (n == 0)
			rte_pause();
	} while (!*stop && dp_clock_raw_ns() < end);
}


int
dp_port_attach(struct dp_port *p, struct dp_engine *eng, const char *name, struct dp_elem *rx_to,
	       int cap_tx, int cap_rx)
{
	int rc = dp_engine_add(eng, &p->e, &port_ops, name);

	if (rc != 0)
		return rc;
	p->rx_to = rx_to;
	p->cap_tx = cap_tx;
	p->cap_rx = cap_rx;
	p->rxq.head = p->rxq.tail = 0;
	p->tx = p->tx_bytes = p->tx_deferred = p->rx = p->rx_bytes = p->rx_other = 0;
	p->txq.head = p->txq.tail = 0;
	p->rx_ctl = p->tx_ctl = p->rx_stale = 0;
	p->rx_cut = p->rx_csum = p->tx_too_long = 0;
	dp_port_dev_raw(p, p->dev_base);	/* the counters so far */
	dp_lateness_reset(&p->late);
	return 0;
}

void
dp_port_detach(struct dp_port *p)
{
	p->rx_stale += fifo_drop(&p->rxq);
	fifo_drop(&p->txq);	/* the run was cut short */
	if (p->nb > 0)
		rte_pktmbuf_free_bulk(p->txb, p->nb);
	p->nb = 0;
	p->rx_to = NULL;
	p->e.eng = NULL;
}
