/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A TCP connection's socket buffers as Linux sizes them (transport.receive_window = auto,
 * transport.send_buffer = auto): the receive buffer's autotuning and the window it advertises,
 * and the send buffer's growth with the congestion window.  Bytes of memory are counted as
 * Linux counts them, in skb truesize: one segment of the MSS takes SM_TCP_RX_TRUESIZE bytes in
 * the receiver's queue and SM_TCP_TX_TRUESIZE in the sender's.  Plain C: no DPDK, no clock.
 */
#ifndef SM_TCP_BUF_H
#define SM_TCP_BUF_H

#include <stdbool.h>
#include <stdint.h>

/** transport.receive_window / send_buffer: sized as Linux does (sm_tcp_conf). */
#define SM_TCP_AUTO (-1.0)

/*
 * x86-64 Linux's sizes: SKB_DATA_ALIGN(sizeof(struct sk_buff)) 256 and of struct
 * skb_shared_info 320 (SKB_TRUESIZE(x) = x + 576); MAX_TCP_HEADER 320.
 */
#define SM_SKB_OVERHEAD 576u
#define SM_MAX_TCP_HEADER 320u
/**
 * A received full-sized segment's truesize: a small skb head (the small-head cache's 640
 * bytes: SKB_TRUESIZE(320) = 896) and the frame's 1500 bytes after its Ethernet header as a
 * page fragment, as a veth hands on what an af_packet transmit ring sent.
 */
#define SM_TCP_RX_TRUESIZE(mss) (896u + (mss) + 52u)
/**
 * A sent segment's truesize: the fast-clone skb with its MAX_TCP_HEADER head (896) and the
 * segment's bytes in a page fragment (no TSO/GSO: one skb per segment).
 */
#define SM_TCP_TX_TRUESIZE(mss) (896u + (mss))

/** The receiver's side (struct tcp_sock's fields of the same names). */
struct sm_rcvbuf {
	uint64_t rcvbuf;	/**< sk_rcvbuf: truesize bytes the receive queue may hold */
	uint64_t window_clamp;	/**< the largest window it will advertise */
	uint64_t rcv_ssthresh;	/**< the window's slow-start bound (tcp_grow_window()) */
	uint64_t rcv_wnd, rcv_wup;	/**< the last window advertised, and from where */
	uint64_t space;		/**< rcvq_space.space: bytes copied in the last measured RTT */
	uint64_t space_seq;	/**< rcvq_space.seq */
	uint64_t space_time;	/**< rcvq_space.time, ps */
	uint64_t rtt;		/**< rcv_rtt_est, ps (0: none yet) */
	uint64_t rtt_seq, rtt_time;	/**< its measure: until rcv_nxt passes rtt_seq */
	bool rtt_started;
	uint32_t ratio;		/**< scaling_ratio: window bytes per 256 bytes of truesize */
	uint32_t rcv_mss;	/**< icsk_ack.rcv_mss */
};

/** The settings both sides read. */
struct sm_tcp_bufconf {
	uint32_t mss;		/**< payload bytes of a full segment (MTU - 52) */
	uint32_t advmss;	/**< the MSS announced (MTU - 40) */
	uint32_t wscale;	/**< the receiver's window scale */
	uint64_t rmem[3];	/**< net.ipv4.tcp_rmem */
	uint64_t wmem[3];	/**< net.ipv4.tcp_wmem */
};

/** Linux's defaults for an MTU of @p mtu and a tcp_rmem maximum of @p rmem_max. */
void sm_tcp_bufconf_init(struct sm_tcp_bufconf *bc, uint32_t mtu, uint64_t rmem_max,
			 uint64_t wmem_max);

/** The window a receiver advertises in its SYN or SYN-ACK (tcp_select_initial_window()). */
uint64_t sm_rcvbuf_initial_window(const struct sm_tcp_bufconf *bc);

/** A connection's receiver once established at @p now (tcp_init_buffer_space()). */
void sm_rcvbuf_init(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint64_t now);

/**
 * A data segment of @p len bytes arrived; @p rcv_nxt is the next byte expected after it,
 * @p in_order whether it was (else it waits beyond a hole), @p ooo_truesize the truesize the
 * out-of-order queue holds and @p ooo_span the bytes from rcv_nxt to the end of that queue.
 * The app reads what is in order at once, so the autotuning runs as it reads
 * (tcp_rcv_space_adjust()).
 */
void sm_rcvbuf_data(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc, uint32_t len,
		    uint64_t rcv_nxt, bool in_order, uint64_t ooo_truesize, uint64_t ooo_span,
		    uint64_t now);

/**
 * The window an ACK sent now advertises, in bytes from @p rcv_nxt (tcp_select_window(): never
 * less than what the last one left open; a multiple of 2^wscale).
 */
uint64_t sm_rcvbuf_window(struct sm_rcvbuf *rb, const struct sm_tcp_bufconf *bc,
			  uint64_t rcv_nxt, uint64_t ooo_truesize);

/** sk_sndbuf once established, with a window of @p cwnd segments (tcp_sndbuf_expand()). */
uint64_t sm_sndbuf_expand(const struct sm_tcp_bufconf *bc, uint64_t sndbuf, uint32_t cwnd);

/** Segments of the MSS a send buffer of @p sndbuf truesize bytes holds (at least 1). */
uint32_t sm_sndbuf_segs(const struct sm_tcp_bufconf *bc, uint64_t sndbuf);

#endif /* SM_TCP_BUF_H */
