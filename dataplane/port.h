/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port: where a data centre's WAN traffic crosses a real DPDK ethdev (a NIC on a real host;
 * here net_ring, net_memif, net_af_packet or net_af_xdp).  Frames the DC's WAN link delivers to
 * the port (at the time they reach the far end of the emulated link) are transmitted at once;
 * frames that arrive on it enter the DC's switch at the time they arrived.  Control frames (UDP
 * port 47113) carry the two-process protocol of rt.c.
 *
 * Arrivals are taken by dp_port_poll() between events (the engine's real-time loop) and stamped
 * with the emulated time of the poll; a bridge's port (stamp_taken) with the time at which they
 * were in hand (read after each receive burst, never before the poll's own time), so that a
 * frame is never older than it is and none leaves before its time.  They enter the calendar as
 * the port's own events, so they run in time order with everything else.
 */
#ifndef DP_PORT_H
#define DP_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "engine.h"
#include "ifdev.h"
#include "lateness.h"

#define DP_CTL_UDP 47113
#define DP_CTL_MAX 1400		/**< bytes of a control message */
struct dp_port;

/** A control message arrived (in its turn in the calendar, at @p now). */
typedef void (*dp_port_ctl_fn)(void *arg, struct dp_port *p, const uint8_t *msg, uint32_t len,
			       dp_time_t now);

struct dp_port_arrival {
	struct rte_mbuf *m;
	dp_time_t t;
};

/** Frames in order with their times (a ring of a power-of-two size that doubles when full). */
struct dp_port_fifo {
	struct dp_port_arrival *a;
	uint32_t mask, head, tail;
};

struct dp_port {
	struct dp_elem e;
	uint16_t port_id;
	char name[24];			/**< dc0.eth; a link's ends: w0.nic.tx, w0.nic.rx */
	char dev[256];
	bool owned;			/**< opened here (closed by dp_port_close) */
	bool started;			/**< rte_eth_dev_start() succeeded */
	int link_wait_ms;
	struct rte_mempool *pool;	/**< the run's: control messages go out of it */
	struct rte_mempool *rx_pool;	/**< the device receives into it (its own) */
	const struct dp_clock *clk;
	struct dp_elem *rx_to;		/**< where arrivals go; NULL: nowhere (a link's TX end) */
	uint32_t run_id;		/**< frames of other runs are stale */
	uint32_t tcp_per_dc;		/**< workers a DC, when the job's transport is TCP: its
					 *   workers' TCP frames are taken (tcp.h); 0: none are */
	bool raw;			/**< every frame is taken as it is, none parsed (a
					 *   bridge's port: dp_pkt_of_raw()); set before attaching */
	bool tx_batch;			/**< frames handed over between two polls go out in one
					 *   burst at the next dp_port_poll() (or dp_port_flush(), or
					 *   when 32 wait); else each at once */
	uint16_t nb;			/**< frames in the batch */
	struct rte_mbuf *txb[32];
	dp_time_t txb_due[32];
	dp_port_ctl_fn on_ctl;
	void *ctl_arg;
	int cap_tx, cap_rx;
	struct dp_port_fifo rxq;	/**< arrivals waiting for their turn */
	struct dp_port_fifo txq;	/**< frames the device had no room for yet, with the
					 *   times they were due */
	/* statistics */
	uint64_t tx, tx_bytes, rx, rx_bytes, rx_ctl, tx_ctl;
	uint64_t tx_deferred;		/**< frames that waited for room in the device */
	uint64_t rx_other;		/**< frames that were not syncemu's (or cut short) */
	uint64_t rx_stale;		/**< frames of an earlier run, or left at its end */
	uint64_t dev_base[5];		/**< the device's counters when the run began
					 *   (struct dp_port_dev's order) */
	struct dp_lateness late;	/**< of the frames sent */
	bool hw_ts;			/**< the NIC stamps received frames */
	int ts_off;			/**< mbuf dynfield offset of the timestamp; -1: none */
	/* a kernel interface (af_packet, af_xdp), and a bridge's checks of what crosses it */
	struct dp_ifdev *ifd;		/**< NULL: none (a ring, memif, a NIC of DPDK's own) */
	uint32_t rx_whole;		/**< the largest frame the device hands over whole (0: no
					 *   bound known: longer ones are not cut) */
	bool check_raw;			/**< arrivals checked (rawframe.h): a raw port on a kernel
					 *   interface; set before attaching */
	bool stamp_taken;		/**< arrivals stamped when taken, not at the poll's time */
	uint32_t tx_max;		/**< longer frames are not sent (its MTU + the Ethernet
					 *   header; a VLAN tag more); 0: no limit */
	uint64_t rx_cut;		/**< arrivals shorter than their IP header says: dropped */
	uint64_t rx_csum;		/**< arrivals whose TCP/UDP checksum was finished here */
	uint64_t tx_too_long;		/**< frames longer than tx_max: dropped, not sent */
};

/**
 * Open (probe, configure, start) the device @p devargs: a vdev string ("net_memif0,role=server,
 * socket=/tmp/s.sock,socket-abstract=no", "net_af_xdp0,iface=veth0"), a device given to the EAL
 * (a PCI address "0000:3b:00.0", or a port name), or "ring:NAME" (an in-process pair of rings:
 * the first open of NAME gets one end, the second the other).  A memif client waits up to
 * @p link_wait_ms for its server's socket; the link itself is waited for by dp_port_wait_link().
 * A port stays open across the runs of an invocation.  It receives into a pool of its own of
 * @p rx_mbufs mbufs (0: DP_PORT_RX_MBUFS; a link's TX end, which receives nothing, a few).
 *
 * @return 0, or -errno with a message naming the device and what to do
 */
int dp_port_open(struct dp_port *p, const char *devargs, const char *name,
		 struct rte_mempool *pool, uint32_t frame_max, uint32_t rx_mbufs,
		 const struct dp_clock *clk, int link_wait_ms, char *err, size_t errlen);

/**
 * The mbufs a port receives into (its own pool: received frames stay in the emulation, queued
 * at the switch and its links, until the workers take them), and their data room for frames of
 * @p frame_max bytes on device @p devargs: af_packet needs whole TPACKET frames (9216 bytes with
 * framesz=9216), af_xdp an element of at most a page (frames of at most 2048 bytes).
 */
#define DP_PORT_RX_MBUFS 16384
uint32_t dp_port_rx_room(const char *devargs, uint32_t frame_max);

/**
 * Wait up to @p ms for the link (the peer process of a memif, the cable of a NIC).  Ports are
 * opened first and waited for after, so that two processes, each opening several, meet.
 * 0 or -ENOLINK with a message.
 */
int dp_port_wait_link(struct dp_port *p, int ms, char *err, size_t errlen);

/**
 * Make the port an element of a run's engine: frames that arrive go to @p rx_to (NULL: none
 * are expected; any that come are counted as not ours); its statistics start again.  0 or
 * -ENOSPC.
 */
int dp_port_attach(struct dp_port *p, struct dp_engine *eng, const char *name,
		   struct dp_elem *rx_to, int cap_tx, int cap_rx);

/**
 * What the device itself lost since the run began (its own counters, rte_eth_stats):
 * @p rx_dropped frames it could not receive (missed for want of descriptors, errored, or no
 * mbuf), @p tx_errors frames it failed to send.  A port that loses frames stalls the run until
 * `[ports] wait`: these say why.
 */
void dp_port_dev_drops(const struct dp_port *p, uint64_t *rx_dropped, uint64_t *tx_errors);

/** The device's own counts since the run began. */
struct dp_port_dev {
	uint64_t rx_packets;		/**< frames it handed over (ipackets) */
	uint64_t rx_missed;		/**< frames it had no room for: imissed, and what the
					 *   kernel dropped at an af_packet socket (ifdev.h) */
	uint64_t rx_nombuf;		/**< frames it had no mbuf for */
	uint64_t rx_errors;		/**< frames it received in error (ierrors) */
	uint64_t tx_errors;		/**< frames it failed to send (oerrors) */
};

/** Read them (a system call or two: not on the data path's every poll). */
void dp_port_dev_counts(const struct dp_port *p, struct dp_port_dev *c);

/** The run is over: what still waits in the port is freed (counted in rx_stale). */
void dp_port_detach(struct dp_port *p);

/** Stop and close the device. */
void dp_port_close(struct dp_port *p);

/**
 * Send what waits for room in the device (frames are never dropped for want of it: they wait,
 * in order, and their lateness grows), then take what has arrived, stamped @p now (with
 * stamp_taken: each burst with the emulated time it was taken, never before @p now).
 * @return frames taken.
 */
uint32_t dp_port_poll(struct dp_port *p, dp_time_t now);

/** Frames still waiting to be sent. */
static inline uint32_t
dp_port_backlog(const struct dp_port *p)
{
	return p->txq.tail - p->txq.head + p->nb;
}

/** Send the batch (dp_port.tx_batch) in one burst; what the device has no room for waits. */
void dp_port_flush_batch(struct dp_port *p);

static inline void
dp_port_flush(struct dp_port *p)
{
	if (p->nb > 0)
		dp_port_flush_batch(p);
}

/** Send a control message (at most DP_CTL_MAX bytes) at once; 0 or -errno. */
int dp_port_send_ctl(struct dp_port *p, const void *msg, uint32_t len);

/**
 * Outside the engine (the start handshake, the end): receive control messages for up to
 * @p max_ms (0: one poll), handing each to @p fn; data frames are dropped (counted in rx_stale).  Returns as
 * soon as @p fn sets *@p stop.
 */
void dp_port_ctl_wait(struct dp_port *p, int max_ms, dp_port_ctl_fn fn, void *arg,
		      const volatile bool *stop);

/** The link is up. */
bool dp_port_up(const struct dp_port *p);

#endif /* DP_PORT_H */
