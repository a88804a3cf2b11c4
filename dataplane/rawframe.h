/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A frame a kernel interface handed over, as a bridge carries it (bridge.h): whether the device
 * cut it short, and whether its TCP or UDP checksum was left for a device to finish.
 *
 * A host with transmit checksum offload on (the default on veth) leaves a TCP or UDP segment
 * with only its pseudo-header's sum in the checksum field (the kernel's CHECKSUM_PARTIAL), for
 * the device to finish; a veth hands the frame on as it is, and a receiver that checks it drops
 * it silently.  Such a frame is recognised by that very field (the folded sum of the addresses,
 * the protocol and the length, RFC 793 / RFC 768 / RFC 8200 section 8.1) while the segment's
 * whole checksum does not hold, and finished here as the device would have (DPDK's
 * rte_ipv4_udptcp_cksum(), rte_ipv6_udptcp_cksum()).  A segment whose checksum is wrong in any
 * other way is carried as it is: the bridge does not mend corruption.
 *
 * A frame shorter than its IP header says was cut by the device: a frame longer than the device
 * hands over whole (af_packet's framesz), or a host's super-frame (TSO, GSO).
 */
#ifndef DP_RAWFRAME_H
#define DP_RAWFRAME_H

#include <stdint.h>

enum dp_raw_verdict {
	DP_RAW_OK = 0,		/**< carried as it is */
	DP_RAW_CSUM_DONE = 1,	/**< its TCP/UDP checksum was unfinished: finished */
	DP_RAW_CUT = -1,	/**< shorter than its IPv4 or IPv6 header says */
};

/**
 * Check (and where it was unfinished, finish the checksum of) the frame of @p len bytes at
 * @p f, from its Ethernet header; VLAN tags (802.1Q, 802.1ad) are skipped, IP fragments and
 * IPv6 extension headers carried as they are.
 */
enum dp_raw_verdict dp_raw_check(uint8_t *f, uint32_t len);

/**
 * The ECN field of the IPv4 or IPv6 frame of @p len bytes at @p f (RFC 3168: 0 Not-ECT, 1
 * ECT(1), 2 ECT(0), 3 CE), VLAN tags skipped; -1 if it is not IP.
 */
int dp_raw_ecn(const uint8_t *f, uint32_t len);

/**
 * Mark the frame Congestion Experienced if it is ECN-capable, as a router's queue does (IPv4's
 * header checksum kept right, RFC 1624); 0, or -ENOTSUP if it is not ECT (nor already CE).
 */
int dp_raw_set_ce(uint8_t *f, uint32_t len);

#endif /* DP_RAWFRAME_H */
