/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's kernel interface (net_af_packet, net_af_xdp on a veth or a NIC the kernel drives):
 * its MTU, the largest frame the driver hands over whole, and the frames the kernel dropped at
 * the driver's sockets because their receive ring was full, which DPDK 22.11's net_af_packet
 * does not count (its rte_eth_stats have no imissed): read here with PACKET_STATISTICS on the
 * driver's own sockets, found through /proc/self/net/packet.
 */
#ifndef DP_IFDEV_H
#define DP_IFDEV_H

#include <stdint.h>

#define DP_IFDEV_SOCKS 16	/**< sockets of one interface read (net_af_packet: one a queue) */

struct dp_ifdev {
	int ifindex;			/**< 0: no kernel interface */
	char name[16];			/**< its name (IF_NAMESIZE) */
	uint32_t mtu;			/**< 0: unknown */
	int fd[DP_IFDEV_SOCKS];		/**< the driver's AF_PACKET sockets on it (the driver's) */
	unsigned int nfd;
	uint64_t drops;			/**< frames the kernel dropped at them since found */
};

/**
 * The interface @p ifindex of this network namespace: its name and MTU, and the AF_PACKET
 * sockets this process has bound to it (none for af_xdp: its driver counts its own drops).
 * 0 or -errno (no such interface).
 */
int dp_ifdev_find(struct dp_ifdev *d, int ifindex);

/** Read the interface's MTU again (it can change while a port is open). */
void dp_ifdev_read_mtu(struct dp_ifdev *d);

/** Add to d->drops what the kernel dropped at the sockets since the last call (a system call a
 *  socket: not for the data path's every poll). */
void dp_ifdev_update(struct dp_ifdev *d);

/**
 * The largest frame (from its destination MAC, without FCS) that net_af_packet with @p devargs
 * hands over whole: its ring's frame (framesz=, 2048 by default) less the kernel's header and
 * alignment before the frame (TPACKET_V2: 66 bytes).  A longer one is cut to this.
 */
uint32_t dp_ifdev_af_packet_whole(const char *devargs);

/** net_af_packet's ring frame for @p devargs (framesz=, 2048 by default). */
uint32_t dp_ifdev_af_packet_framesz(const char *devargs);

/**
 * Its ring block (blocksz=, a page by default).  The driver reads frame i at i x framesz from
 * the ring's start, where the kernel puts it only if blocksz is a multiple of framesz: else
 * every frame past the first block is read from the wrong place.
 */
uint32_t dp_ifdev_af_packet_blocksz(const char *devargs);

#endif /* DP_IFDEV_H */
