/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's device (port.h): opened as in DPDK's examples/skeleton (one RX and one TX queue,
 * started, promiscuous), vdevs probed when opened (rte_dev_probe) so that a scenario can name
 * them, in-process ring pairs built with rte_eth_from_rings; on a kernel interface its MTU, what
 * the driver hands over whole and the kernel's own drops (ifdev.h); its counts; its closing.
 */
#define ALLOW_EXPERIMENTAL_API	/* rte_mbuf_dyn_rx_timestamp_register */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "eal.h"
#include "frame.h"
#include "port.h"
#include "port_impl.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define BURST DP_PORT_BURST

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
	size_t k = strcspn(devargs, ",");
	char dev[192];
	int rc;

	/* (the name before the first comma; copied, not printed: GCC under the sanitizers took
	 * devargs for a null argument of "%.*s") */
	if (k >= sizeof(dev))
		k = sizeof(dev) - 1;
	memcpy(dev, devargs, k);
	dev[k] = '\0';
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
	if (dp_port_fifo_room(&p->rxq) != 0 || dp_port_fifo_room(&p->txq) != 0) {
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
	    rte_mbuf_dyn_rx_timestamp_register(&p->ts_off, &dp_port_ts_flag) == 0) {
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

bool
dp_port_up(const struct dp_port *p)
{
	struct rte_eth_link link;

	return rte_eth_link_get_nowait(p->port_id, &link) == 0 && link.link_status;
}

/* The device's counts as they are (not since the run began). */
void
dp_port_dev_raw(const struct dp_port *p, uint64_t v[5])
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

void
dp_port_dev_counts(const struct dp_port *p, struct dp_port_dev *c)
{
	uint64_t v[5], *out[5] = { &c->rx_packets, &c->rx_missed, &c->rx_nombuf, &c->rx_errors,
				   &c->tx_errors };
	int i;

	dp_port_dev_raw(p, v);
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
dp_port_close(struct dp_port *p)
{
	struct rte_mbuf *m[BURST];
	uint16_t n;

	dp_port_fifo_fini(&p->rxq);
	dp_port_fifo_fini(&p->txq);
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
