/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port element: frames out of and into a real ethdev.
 *
 * Set up as in DPDK's examples/skeleton (one RX and one TX queue, started, promiscuous), with vdevs
 * probed when opened (rte_dev_probe) so that a scenario can name them, and in-process ring pairs
 * built with rte_eth_from_rings.  A frame handed to the port at emulated time t is transmitted at
 * once, and how late that was (the actual time against t's real time) is recorded.  Received
 * frames are parsed (dp_frame_parse), queued with the time they were taken (the clock read after
 * the receive burst that returned them), and handed to the DC's switch when the calendar reaches
 * that time.  Where the NIC stamps received frames
 * (RTE_ETH_RX_OFFLOAD_TIMESTAMP), the stamp, moved onto the TSC clock by the offset read at each
 * poll (rte_eth_read_clock), is the arrival time instead.
 */
#define ALLOW_EXPERIMENTAL_API	/* rte_eth_read_clock */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "capture.h"
#include "eal.h"
#include "frame.h"
#include "port.h"
#include "rawframe.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define BURST 32
#define QUEUE_MIN 256
#define TX_TRIES 1000

static uint64_t ts_flag;	/* RTE_MBUF_DYNFLAG_RX_TIMESTAMP's bit, once registered */

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
static int
fifo_room(struct dp_port_fifo *f)
{
	uint32_t size = f->mask + 1, n = fifo_len(f), i;
	struct dp_port_arrival *a;

	if (f->a != NULL && n <= f->mask)
		return 0;
	size = f->a == NULL ? QUEUE_MIN : 2 * size;
	a = malloc((size_t)size * sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		a[i] = *fifo_at(f, f->head + i);
	free(f->a);
	f->a = a;
	f->head = 0;
	f->tail = n;
	f->mask = size - 1;
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

static void
fifo_fini(struct dp_port_fifo *f)
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
	if (fifo_room(&p->txq) != 0) {
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
		if (fifo_room(&p->txq) != 0) {
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
		dp_pkt_of_mbuf(a->m, &f);	/* checked by dp_frame_parse() when it came */
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
	const struct dp_se_hdr *se = rte_pktmbuf_mtod_offset(m, const struct dp_se_hdr *,
							     SM_ETH_HDR + SM_IP_HDR + SM_UDP_HDR);

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

	if (!p->hw_ts || !(m->ol_flags & ts_flag) || p->clk == NULL)
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

	if (!p->raw && is_ctl(m, &msg, &len)) {
		p->rx_ctl++;
		return 0;
	}
	if ((!p->raw && dp_frame_parse(m) != 0) || p->rx_to == NULL) {
		p->rx_other++;	/* not syncemu's; or a link's TX end: nothing comes here */
		rte_pktmbuf_free(m);
		return -1;
	}
	if (!p->raw && frame_run(m) != p->run_id) {
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

/* Emulated time now, never before @p floor (the poll's own time). */
static inline dp_time_t
taken_at(const struct dp_port *p, dp_time_t floor)
{
	dp_time_t t;

	if (p->clk == NULL)
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
		/* stamped once they are in hand: a frame that came during the sends above, or
		 * while the host held this thread, is never aged by that time */
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
			if (fifo_room(&p->rxq) != 0) {
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

bool
dp_port_up(const struct dp_port *p)
{
	struct rte_eth_link link;

	return rte_eth_link_get_nowait(p->port_id, &link) == 0 && link.link_status;
}

/* ---- opening ---- */

/* "ring:NAME": the two ends of a pair of rings, one per call. */
static int
ring_end(const char *name, uint16_t *port, char *err, size_t errlen)
{
	char rn[2][RTE_RING_NAMESIZE], dev[64];
	struct rte_ring *r[2];
	uint16_t other;
	int i, side, pid;

	if (name[0] == '\0' || strlen(name) > 20) {
		snprintf(err, errlen, "ring:%s: the name must have 1 to 20 characters", name);
		return -EINVAL;
	}
	for (side = 0; side < 2; side++) {
		snprintf(dev, sizeof(dev), "net_ring_se_%s_%d", name, side);
		if (rte_eth_dev_get_port_by_name(dev, &other) != 0)
			break;
	}
	if (side == 2) {
		snprintf(err, errlen, "ring:%s: both ends are in use", name);
		return -EBUSY;
	}
	for (i = 0; i < 2; i++) {
		snprintf(rn[i], sizeof(rn[i]), "se_%s_%d", name, i);
		r[i] = rte_ring_lookup(rn[i]);
		if (r[i] == NULL)
			r[i] = rte_ring_create(rn[i], 4096, SOCKET_ID_ANY,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL) {
			snprintf(err, errlen, "ring:%s: no ring: %s", name, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	snprintf(dev, sizeof(dev), "se_%s_%d", name, side);	/* the ethdev: net_ring_se_... */
	/* side 0 receives on ring 0 and sends on ring 1; side 1 the other way round */
	pid = rte_eth_from_rings(dev, &r[side], 1, &r[1 - side], 1, (unsigned int)rte_socket_id());
	if (pid < 0) {
		snprintf(err, errlen, "ring:%s: %s", name, rte_strerror(rte_errno));
		return -rte_errno;
	}
	*port = (uint16_t)pid;
	return 0;
}

static int
find_or_probe(struct dp_port *p, const char *devargs, char *err, size_t errlen)
{
	char dev[192];
	int rc;

	snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(devargs, ","), devargs);
	if (rte_eth_dev_get_port_by_name(dev, &p->port_id) == 0)
		return 0;	/* given to the EAL (-a, --vdev) */
	if (strncmp(devargs, "net_", 4) != 0) {
		snprintf(err, errlen, "port '%s': no such device (a PCI device must be given to "
			 "the EAL: --eal \"... -a %s\"; a virtual one is net_<driver><n>,<args>)",
			 devargs, dev);
		return -ENODEV;
	}
	rc = rte_dev_probe(devargs);
	if (rc != 0 || rte_eth_dev_get_port_by_name(dev, &p->port_id) != 0) {
		snprintf(err, errlen, "port '%s': the device did not start (%s; is the driver "
			 "installed, the interface there, the socket free?)", devargs,
			 rc ? rte_strerror(-rc) : "no ethdev");
		return rc ? rc : -ENODEV;
	}
	p->owned = true;
	return 0;
}

uint32_t
dp_port_rx_room(const char *devargs, uint32_t frame_max)
{
	if (strncmp(devargs, "ring:", 5) == 0)
		return 0;	/* frames arrive in the mbufs the other end sent */
	if (strncmp(devargs, "net_af_xdp", 10) == 0)
		return 2048;
	if (strncmp(devargs, "net_af_packet", 13) == 0) {
		/* the driver wants room for a whole ring frame (less its 32-byte header) */
		uint32_t fs = dp_ifdev_af_packet_framesz(devargs);

		return frame_max > fs ? frame_max : fs;
	}
	return frame_max;
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * net_af_packet reads frame i at i x framesz from its ring's start, where the kernel puts it only
 * if each block holds whole frames: else every frame past the first block is read from the wrong
 * place.  True (with the message) if @p devargs says so.
 */
static bool
af_packet_blocks(const char *devargs, char *err, size_t errlen)
{
	uint32_t fs = dp_ifdev_af_packet_framesz(devargs), bs = dp_ifdev_af_packet_blocksz(devargs);
	uint64_t lcm;

	if (fs == 0 || bs % fs == 0)
		return false;
	lcm = (uint64_t)fs * 4096 / gcd(fs, 4096);
	if (lcm <= 65536)
		snprintf(err, errlen, "port '%s': blocksz=%u is not a multiple of framesz=%u: the "
			 "af_packet driver would read every frame past the first block from the "
			 "wrong place (give blocksz=%" PRIu64 ")", devargs, bs, fs, lcm);
	else
		snprintf(err, errlen, "port '%s': blocksz=%u is not a multiple of framesz=%u: the "
			 "af_packet driver would read every frame past the first block from the "
			 "wrong place (give framesz=%u,blocksz=%u)", devargs, bs, fs,
			 RTE_ALIGN_CEIL(fs, 2048), RTE_ALIGN_CEIL(fs, 4096) == RTE_ALIGN_CEIL(fs, 2048) ?
			 RTE_ALIGN_CEIL(fs, 2048) : 2 * RTE_ALIGN_CEIL(fs, 2048));
	return true;
}

static int
rx_pool_create(struct dp_port *p, const char *devargs, uint32_t frame_max, uint32_t rx_mbufs,
	       char *err, size_t errlen)
{
	uint32_t room = dp_port_rx_room(devargs, frame_max), n = rx_mbufs ? rx_mbufs :
							       DP_PORT_RX_MBUFS;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (room == 0) {
		room = 256;
		n = 2 * RX_DESC;	/* set up, never filled */
	}
	if (strncmp(devargs, "net_af_xdp", 10) == 0 && frame_max > room) {
		snprintf(err, errlen, "port '%s': af_xdp takes frames of at most %u bytes here "
			 "(one page per frame), and the run's are %u: lower run.mtu and "
			 "run.frame_payload (e.g. run.mtu=1500)", devargs, room, frame_max);
		return -EMSGSIZE;
	}
	snprintf(name, sizeof(name), "se_rx_%.19s", p->name);	/* names are short */
	p->rx_pool = rte_pktmbuf_pool_create(name, n, 256, RTE_ALIGN(sizeof(struct dp_meta),
					     RTE_MBUF_PRIV_ALIGN), (uint16_t)(RTE_PKTMBUF_HEADROOM +
					     room), SOCKET_ID_ANY);
	if (p->rx_pool == NULL) {
		snprintf(err, errlen, "port '%s': no pool of %u mbufs of %u bytes to receive into "
			 "(%s): give the EAL more memory (-m)", devargs, n, room,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

int
dp_port_open(struct dp_port *p, const char *devargs, const char *name, struct rte_mempool *pool,
	     uint32_t frame_max, uint32_t rx_mbufs, const struct dp_clock *clk, int link_wait_ms,
	     char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	int rc, waited;

	memset(p, 0, sizeof(*p));
	p->cap_tx = p->cap_rx = -1;
	p->ts_off = -1;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->pool = pool;
	p->clk = clk;
	snprintf(p->dev, sizeof(p->dev), "%s", devargs);
	if (fifo_room(&p->rxq) != 0 || fifo_room(&p->txq) != 0) {
		rc = -ENOMEM;
		goto fail;
	}
	if (strncmp(devargs, "net_af_packet", 13) == 0 && af_packet_blocks(devargs, err, errlen)) {
		rc = -EINVAL;
		goto fail;
	}
	rc = rx_pool_create(p, devargs, frame_max, rx_mbufs, err, errlen);
	if (rc != 0)
		goto fail;
	if (strncmp(devargs, "ring:", 5) == 0) {
		rc = ring_end(devargs + 5, &p->port_id, err, errlen);
		p->owned = rc == 0;
	} else {
		rc = find_or_probe(p, devargs, err, errlen);
	}
	if (rc != 0)
		goto fail;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_info_get(p->port_id, &info) != 0) {
		snprintf(err, errlen, "port '%s': no device information", devargs);
		rc = -ENODEV;
		goto fail;
	}
	if (info.if_index > 0) {
		/* a kernel interface: its MTU, and what the driver hands over whole */
		p->ifd = calloc(1, sizeof(*p->ifd));
		if (p->ifd != NULL && dp_ifdev_find(p->ifd, (int)info.if_index) != 0) {
			free(p->ifd);
			p->ifd = NULL;
		}
		if (strncmp(devargs, "net_af_packet", 13) == 0)
			p->rx_whole = dp_ifdev_af_packet_whole(devargs);
		else if (strncmp(devargs, "net_af_xdp", 10) == 0)
			p->rx_whole = info.max_rx_pktlen;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP &&
	    rte_mbuf_dyn_rx_timestamp_register(&p->ts_off, &ts_flag) == 0) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		p->hw_ts = true;
	}
	rc = rte_eth_dev_configure(p->port_id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p->port_id, 0, RX_DESC, SOCKET_ID_ANY, NULL,
					    p->rx_pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p->port_id, 0, TX_DESC, SOCKET_ID_ANY, NULL);
	/* a memif client cannot start before its server has made the socket: try again */
	for (waited = 0; rc == 0; waited += 50) {
		struct timespec ts = { 0, 50000000 };

		rc = rte_eth_dev_start(p->port_id);
		if (rc == 0 || strstr(devargs, "role=client") == NULL || waited >= link_wait_ms)
			break;
		rc = 0;
		nanosleep(&ts, NULL);
	}
	if (rc != 0) {
		snprintf(err, errlen, "port '%s': cannot configure or start it: %s%s", devargs,
			 rte_strerror(-rc), strstr(devargs, "role=client") != NULL ?
			 " (no server on that socket?)" : "");
		goto fail;
	}
	p->started = true;
	p->link_wait_ms = link_wait_ms;
	rte_eth_promiscuous_enable(p->port_id);
	return 0;
fail:
	dp_port_close(p);
	return rc;
}

int
dp_port_wait_link(struct dp_port *p, int ms, char *err, size_t errlen)
{
	int waited;

	for (waited = 0; !dp_port_up(p) && waited < ms; waited += 10) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
	if (!dp_port_up(p)) {
		snprintf(err, errlen, "port '%s': the link did not come up in %d ms (is the other "
			 "end there: the peer process, the cable, the other interface?)", p->dev, ms);
		return -ENOLINK;
	}
	return 0;
}

/* The device's counts as they are (not since the run began). */
static void
dev_raw(const struct dp_port *p, uint64_t v[5])
{
	struct rte_eth_stats s;

	memset(v, 0, 5 * sizeof(*v));
	if (!p->started || rte_eth_stats_get(p->port_id, &s) != 0)
		return;
	v[0] = s.ipackets;
	v[1] = s.imissed;
	v[2] = s.rx_nombuf;
	v[3] = s.ierrors;
	v[4] = s.oerrors;
	if (p->ifd != NULL) {
		dp_ifdev_update(p->ifd);
		v[1] += p->ifd->drops;
	}
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
	dev_raw(p, p->dev_base);	/* the counters so far */
	dp_lateness_reset(&p->late);
	return 0;
}

void
dp_port_dev_counts(const struct dp_port *p, struct dp_port_dev *c)
{
	uint64_t v[5], *out[5] = { &c->rx_packets, &c->rx_missed, &c->rx_nombuf, &c->rx_errors,
				   &c->tx_errors };
	int i;

	dev_raw(p, v);
	for (i = 0; i < 5; i++)	/* counters that went back (a device reset) count from zero */
		*out[i] = v[i] >= p->dev_base[i] ? v[i] - p->dev_base[i] : v[i];
}

void
dp_port_dev_drops(const struct dp_port *p, uint64_t *rx_dropped, uint64_t *tx_errors)
{
	struct dp_port_dev c;

	dp_port_dev_counts(p, &c);
	*rx_dropped = c.rx_missed + c.rx_nombuf + c.rx_errors;
	*tx_errors = c.tx_errors;
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

void
dp_port_close(struct dp_port *p)
{
	struct rte_mbuf *m[BURST];
	uint16_t n;

	fifo_fini(&p->rxq);
	fifo_fini(&p->txq);
	if (p->started && strncmp(p->dev, "net_memif", 9) == 0 &&
	    strstr(p->dev, "role=client") == NULL) {
		/* a memif server closed while its client disconnects can crash in DPDK 22.11's
		 * interrupt thread: let the client go first (it does, once its run is over), and
		 * the interrupt thread finish handling it (the link is down before it has: closing
		 * then freed the port under the handler, a SIGSEGV at exit in about one run of
		 * four with both roles in a process and the vCPUs busy) */
		int waited;

		for (waited = 0; dp_port_up(p) && waited < 1000; waited += 10) {
			struct timespec ts = { 0, 10000000 };

			while ((n = rte_eth_rx_burst(p->port_id, 0, m, BURST)) > 0)
				rte_pktmbuf_free_bulk(m, n);
			nanosleep(&ts, NULL);
		}
		dp_eal_intr_settle(1000);
	}
	if (p->started) {
		while ((n = rte_eth_rx_burst(p->port_id, 0, m, BURST)) > 0)
			rte_pktmbuf_free_bulk(m, n);
		rte_eth_dev_stop(p->port_id);
		p->started = false;
	}
	if (p->owned) {
		rte_eth_dev_close(p->port_id);
		if (strncmp(p->dev, "net_", 4) == 0) {
			char dev[192];

			snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(p->dev, ","), p->dev);
			rte_vdev_uninit(dev);
		}
		p->owned = false;
	}
	if (!dp_eal_is_ending())	/* else rte_eal_cleanup() releases it, unwritten */
		rte_mempool_free(p->rx_pool);
	p->rx_pool = NULL;
	dp_lateness_free(&p->late);
	free(p->ifd);
	p->ifd = NULL;
}
