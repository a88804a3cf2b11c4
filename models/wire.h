/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The syncemu wire format: Ethernet / IPv4 / UDP / syncemu header / payload.
 *
 * Standard headers make traces open in Wireshark and filter with tcpdump expressions
 * ("udp dst port 47110").  The syncemu header follows the UDP header, all fields in network byte
 * order:
 *
 *   offset size field
 *    0     4   magic        0x53594e43 ("SYNC")
 *    4     1   version      1
 *    5     1   flags        0x01 background, 0x02 last frame of its chunk, 0x04 dense (to a module)
 *    6     2   round        round of the step program (0-based)
 *    8     4   run_id       which run of the invocation (one per variant and budget)
 *   12     4   step         training step (0-based)
 *   16     2   src          sending worker (or background host)
 *   18     2   dst          receiving worker (or the worker whose module receives)
 *   20     1   phase        phase of the collective (index into its plan)
 *   21     1   kind         what dst names: 0 worker, 1 module, 2 background sink
 *   22     2   chunk        which shard of the gradient the payload belongs to
 *   24     8   offset       byte offset of the payload within the round's chunk
 *   32     4   seq          frame number within the round
 *   36     4   payload_len  gradient bytes in the frame
 *   40     8   departure_ns when the sender queued the frame, ns of the run's clock
 *
 * Addresses: worker i of data centre d has MAC 02:53:45:d:i/256:i%256 and IPv4 10.d.i/250.i%250+1;
 * its module 10.(100+d).i/250.i%250+1; background hosts 10.(200+d).x.y.  UDP source port 47111,
 * destination 47110.  IPv4 DF set, identification 0 (RFC 6864), no UDP checksum.
 *
 * struct sm_se_hdr is the one spelling of the layout: the data plane writes frames through it
 * (dataplane/frame.c), a trace's reader reads a byte buffer through the sm_se_*() accessors
 * (traces/syncs.c), and the test cli-wire holds the Wireshark dissector
 * (tools/wireshark/syncemu.lua) against the accessors.  Plain C: no DPDK.
 */
#ifndef SM_WIRE_H
#define SM_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Frame layout. */
#define SM_ETH_HDR 14u
#define SM_IP_HDR 20u
#define SM_UDP_HDR 8u
#define SM_SE_HDR 48u					/**< the syncemu header */
#define SM_SE_AT (SM_ETH_HDR + SM_IP_HDR + SM_UDP_HDR)	/**< where it starts in a frame */
#define SM_HDR_BYTES (SM_SE_AT + SM_SE_HDR)		/**< 90 */

#define SM_SE_MAGIC 0x53594e43u
#define SM_SE_VERSION 1
#define SM_SE_UDP_DST 47110
#define SM_SE_UDP_SRC 47111

/* The header's flags. */
#define SM_SE_F_BG 0x01		/**< background */
#define SM_SE_F_LAST 0x02	/**< last frame of its chunk */
#define SM_SE_F_DENSE 0x04	/**< dense: to a module */

/* The header's kind: what dst names. */
#define SM_SE_KIND_WORKER 0
#define SM_SE_KIND_MODULE 1
#define SM_SE_KIND_SINK 2

/** The syncemu header; every multi-byte field in network byte order. */
struct sm_se_hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t flags;
	uint16_t round;
	uint32_t run_id;
	uint32_t step;
	uint16_t src;
	uint16_t dst;
	uint8_t phase;
	uint8_t kind;
	uint16_t chunk;
	uint64_t offset;
	uint32_t seq;
	uint32_t payload_len;
	uint64_t departure_ns;
} __attribute__((packed));

_Static_assert(sizeof(struct sm_se_hdr) == SM_SE_HDR, "the syncemu header is 48 bytes");

/** The big-endian unsigned integer of @p n bytes at @p p. */
static inline uint64_t
sm_be_get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * sm_se_FIELD(h): field FIELD of the syncemu header that starts at byte h (SM_SE_HDR bytes
 * readable), in host order: sm_se_magic(), sm_se_version(), sm_se_flags(), sm_se_round(),
 * sm_se_run_id(), sm_se_step(), sm_se_src(), sm_se_dst(), sm_se_phase(), sm_se_kind(),
 * sm_se_chunk(), sm_se_offset(), sm_se_seq(), sm_se_payload_len(), sm_se_departure_ns().
 */
#define SM_SE_ACCESSOR(type, f)							\
static inline type								\
sm_se_##f(const uint8_t *h)							\
{										\
	return (type)sm_be_get(h + offsetof(struct sm_se_hdr, f),		\
			       sizeof(((struct sm_se_hdr *)0)->f));		\
}

SM_SE_ACCESSOR(uint32_t, magic)
SM_SE_ACCESSOR(uint8_t, version)
SM_SE_ACCESSOR(uint8_t, flags)
SM_SE_ACCESSOR(uint16_t, round)
SM_SE_ACCESSOR(uint32_t, run_id)
SM_SE_ACCESSOR(uint32_t, step)
SM_SE_ACCESSOR(uint16_t, src)
SM_SE_ACCESSOR(uint16_t, dst)
SM_SE_ACCESSOR(uint8_t, phase)
SM_SE_ACCESSOR(uint8_t, kind)
SM_SE_ACCESSOR(uint16_t, chunk)
SM_SE_ACCESSOR(uint64_t, offset)
SM_SE_ACCESSOR(uint32_t, seq)
SM_SE_ACCESSOR(uint32_t, payload_len)
SM_SE_ACCESSOR(uint64_t, departure_ns)

#undef SM_SE_ACCESSOR

#endif /* SM_WIRE_H */
