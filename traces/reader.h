/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trace reader for `syncemu validate`: it streams the packets of a capture file, whatever wrote
 * it, and decodes a frame down to IP and TCP/UDP.
 *
 * Formats read:
 *   - pcapng (syncemu's own traces, dumpcap, Wireshark): several sections, either byte order,
 *     several interfaces each with its own link type, if_tsresol (10^-n or 2^-n) and
 *     if_tsoffset; Enhanced, Simple and (obsolete) Packet Blocks; other blocks are skipped.
 *     Parsed here, since libpcap cannot say which interface a packet came from.
 *   - classic pcap (tcpdump), microsecond or nanosecond magic, either byte order: parsed by
 *     libpcap at nanosecond precision.
 *   - either of them gzip-compressed, recognised by its first bytes (1f 8b), not by its name.
 *
 * The file is streamed: memory stays bounded by its largest block (at most TR_READER_BLOCK_MAX),
 * never its size.  Every error names the file, the byte offset (in the decompressed stream) of
 * the record at fault and, for packets, the 1-based packet number, e.g.
 *	x.pcapng: EPB at byte 1234 (packet 17): trailing length 80 differs from 84
 * After an error, tr_reader_next() keeps returning it.
 *
 * Timestamps are nanoseconds since the epoch of the trace's clock (for syncemu's traces, virtual
 * time).  A reader is not thread-safe: use one per thread.
 */
#ifndef TR_READER_H
#define TR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Largest pcapng block or pcap record accepted (bytes); beyond it the file is refused. */
#define TR_READER_BLOCK_MAX (256u * 1024u * 1024u)

/** Largest total of SHB opt_comment values accepted (bytes). */
#define TR_READER_COMMENT_MAX (16u * 1024u * 1024u)

/** Most interfaces accepted in one file (over all sections). */
#define TR_READER_IF_MAX (1u << 20)

/** Link types (LINKTYPE_* of tcpdump.org; not libpcap's DLT_*, which differ for some). */
enum tr_linktype {
	TR_LINKTYPE_NULL = 0,		/**< BSD loopback: 4-byte AF_ in the writer's byte order */
	TR_LINKTYPE_ETHERNET = 1,	/**< Ethernet II, 802.1Q/802.1ad tags allowed */
	TR_LINKTYPE_RAW = 101,		/**< raw IPv4 or IPv6, by the version nibble */
	TR_LINKTYPE_LOOP = 108,		/**< OpenBSD loopback: 4-byte AF_ in network byte order */
	TR_LINKTYPE_LINUX_SLL = 113,	/**< Linux cooked capture v1 (tcpdump -i any) */
	TR_LINKTYPE_IPV4 = 228,		/**< raw IPv4 */
	TR_LINKTYPE_IPV6 = 229,		/**< raw IPv6 */
	TR_LINKTYPE_LINUX_SLL2 = 276,	/**< Linux cooked capture v2 */
};

/** A trace being read (opaque). */
struct tr_reader;

/** One packet, as tr_reader_next() returns it. */
struct tr_packet {
	uint64_t ts_ns;		/**< timestamp, ns since the epoch of the trace's clock, exact
				 *   (if_tsresol and if_tsoffset applied); 0 for a pcapng Simple
				 *   Packet Block, which has none */
	uint32_t ifid;		/**< interface id, global over the pcapng sections (section
				 *   2's interface 0 follows section 1's last); 0 for pcap */
	int linktype;		/**< LINKTYPE_* of that interface (enum tr_linktype) */
	uint32_t caplen;	/**< bytes captured, at @c data (pcap: libpcap cuts a record
				 *   longer than the file's snap length to it) */
	uint32_t len;		/**< original length on the wire */
	const uint8_t *data;	/**< caplen bytes, valid until the next tr_reader_next() or
				 *   tr_reader_close() */
	uint64_t frame;		/**< 1-based packet number */
	uint64_t offset;	/**< byte offset of its record (pcapng block, pcap record header)
				 *   in the file, decompressed if gzip'd */
};

/**
 * Open a trace and read its headers: for pcap the file header, for pcapng the first Section
 * Header Block and every block before the first packet (so that the interfaces described up
 * front are known; later Interface Description Blocks are read as they come).
 *
 * @param path  the file; gzip-compressed files are recognised by their content
 * @param err   if not NULL, receives a one-line message on failure (the path first)
 * @param errlen  room in @p err
 * @return the reader, or NULL with errno set (and the message in @p err):
 *   - EINVAL: @p path is NULL or empty
 *   - EBADMSG: empty file, too short for a header, not a pcap or pcapng file (the message gives
 *     the magic), a malformed or truncated header or block, a corrupt or truncated gzip stream
 *   - ENOTSUP: an unsupported pcap or pcapng version
 *   - EFBIG: a block, an SHB comment or the interface count beyond the TR_READER_*_MAX limits
 *   - ENOMEM
 *   - any error of open(), read() or lseek() (ENOENT, EACCES, EISDIR, EIO, ESPIPE for a
 *     gzip'd pipe, ...)
 */
struct tr_reader *tr_reader_open(const char *path, char *err, size_t errlen);

/**
 * Read the next packet, skipping the blocks that are not packets.
 *
 * @param r  the reader
 * @param p  filled on success
 * @param err  if not NULL, receives a one-line message on failure: the path, the byte offset
 *             of the record at fault and the packet number, and libpcap's own message for pcap
 * @param errlen  room in @p err
 * @return 1: a packet is in @p p; 0: the end of the trace; or (and again on every later call)
 *   - -EINVAL: @p r or @p p is NULL
 *   - -EBADMSG: malformed data: a truncated record, a block length below 12, not a multiple of
 *     4 or different from its trailing copy, a captured length beyond the block, an unknown
 *     interface id, a bad option, a corrupt or truncated gzip stream, a record libpcap refuses
 *     (e.g. a capture length beyond the link type's maximum), or a pcap timestamp whose
 *     fraction is not below one second
 *   - -EFBIG: a block or caplen beyond TR_READER_BLOCK_MAX, a pcapng SHB comment beyond
 *     TR_READER_COMMENT_MAX or more than TR_READER_IF_MAX interfaces
 *   - -ENOTSUP: a later section of an unsupported pcapng version
 *   - -ERANGE: a timestamp that does not fit in 64-bit nanoseconds after if_tsoffset
 *   - -ENOMEM
 *   - -EIO or another errno of read()
 */
int tr_reader_next(struct tr_reader *r, struct tr_packet *p, char *err, size_t errlen);

/**
 * Read only the packets of the interfaces named in @p names (a comma list of if_name values,
 * as tr_reader_ifname() gives them: "wan.ab.out,wan.ba.out"); packets of other interfaces are
 * skipped by tr_reader_next() (their frame numbers still count).  0, -EINVAL, -ENOMEM.
 */
int tr_reader_select(struct tr_reader *r, const char *names);

/** Packets skipped so far by tr_reader_select(). */
uint64_t tr_reader_skipped(const struct tr_reader *r);

/** Close the trace and free the reader; NULL is a no-op. */
void tr_reader_close(struct tr_reader *r);

/**
 * @return "pcap", "pcap (ns)" or "pcapng", followed by " (gzip)" for a compressed file;
 *         "" if @p r is NULL
 */
const char *tr_reader_format(const struct tr_reader *r);

/**
 * @return the interfaces known so far (pcapng: described by the IDBs read up to now, over all
 *         sections; pcap: 1); 0 if @p r is NULL
 */
uint32_t tr_reader_ifcount(const struct tr_reader *r);

/**
 * @return the if_name of interface @p ifid, or "if<N>" (N = @p ifid) if it has none; NULL if
 *         @p r is NULL or @p ifid is not a known interface.  Valid until tr_reader_close().
 */
const char *tr_reader_ifname(const struct tr_reader *r, uint32_t ifid);

/**
 * @return the LINKTYPE_* of interface @p ifid (>= 0), or -EINVAL if @p r is NULL or @p ifid is
 *         not a known interface
 */
int tr_reader_linktype(const struct tr_reader *r, uint32_t ifid);

/**
 * @return the opt_comment values of the first pcapng section's SHB, in order, joined with
 *         "\n" except after a value that already ends with one (so that a long comment which
 *         tr_pcapng_open() split after newlines reads back as it was written); "" if it has
 *         none, for pcap, or if @p r is NULL.  Valid until tr_reader_close().
 */
const char *tr_reader_comment(const struct tr_reader *r);

/**
 * @return the packets read so far whose timestamp is below that of the packet read just before
 *         (overall, across interfaces; Simple Packet Blocks, which have no timestamp, are not
 *         counted and do not count as the previous packet); 0 if @p r is NULL
 */
uint64_t tr_reader_unordered(const struct tr_reader *r);

/** A frame decoded down to IP and TCP/UDP by tr_decode_ip(). */
struct tr_ip {
	int family;		/**< 4 or 6; 0 if not IP */
	uint8_t src[16];	/**< source address; IPv4 in the first 4 bytes, the rest 0 */
	uint8_t dst[16];	/**< destination address, likewise */
	uint8_t proto;		/**< IPPROTO_TCP, IPPROTO_UDP, ... (after IPv6 extension
				 *   headers) */
	uint16_t sport;		/**< TCP/UDP source port, host order; 0 otherwise */
	uint16_t dport;		/**< TCP/UDP destination port, host order; 0 otherwise */
	uint32_t ip_len;	/**< IP total length from the header (IPv6: 40 + payload
				 *   length) */
	uint32_t l4_payload;	/**< TCP/UDP payload bytes from the headers' lengths (not the
				 *   captured length); 0 otherwise */
	const uint8_t *l4_data;	/**< start of the TCP/UDP payload in the captured bytes; NULL if
				 *   none of it is captured */
	uint32_t l4_caplen;	/**< TCP/UDP payload bytes captured (<= l4_payload) */
	uint32_t tcp_seq;	/**< TCP sequence number, host order */
	uint8_t tcp_flags;	/**< TCP flags byte (FIN 0x01 ... CWR 0x80) */
	uint8_t fragment;	/**< 1 if a non-first IP fragment: no ports, no payload (a
				 *   first fragment decodes its ports, and a UDP one its
				 *   datagram's length as l4_payload) */
	const char *why;	/**< when the result is not 0: what was wrong, a static string
				 *   (e.g. "IPv4 header truncated"); NULL on success */
};

/**
 * Decode a frame of link type @p linktype down to IP and TCP/UDP.  Supported link types: those
 * of enum tr_linktype.  Ethernet may carry up to four 802.1Q/802.1ad tags; IPv6 extension
 * headers are walked.  A non-first IP fragment, and an IP protocol other than TCP and UDP,
 * decode with ports and payload 0.  Lengths come from the headers: link-layer padding after the
 * IP packet is not payload.  Pure function: no state, thread-safe.
 *
 * @param linktype  LINKTYPE_* of the frame's interface
 * @param data  the captured bytes
 * @param caplen  bytes at @p data
 * @param out  filled in every case (zeroed first; @c why says what went wrong)
 * @return 0, or
 *   - -EINVAL: @p out is NULL, or @p data is NULL and @p caplen is not 0
 *   - -ENOTSUP: an unsupported link type, or a frame that is not IPv4/IPv6 (ARP, LLC, ...):
 *     out->family is 0
 *   - -EBADMSG: a malformed or truncated header (link, IP, IPv6 extension, TCP or UDP), e.g.
 *     a capture snapped inside the headers, an IP version that contradicts the link type, or a
 *     length field smaller than its header or larger than the enclosing one
 */
int tr_decode_ip(int linktype, const uint8_t *data, uint32_t caplen, struct tr_ip *out);

/** The UDP port of RoCE v2 (IANA). */
#define TR_ROCE_PORT 4791

/** The InfiniBand Base Transport Header of a RoCE v2 packet, decoded by tr_decode_bth(). */
struct tr_bth {
	uint8_t opcode;		/**< OpCode: transport (RC 0x00, UC 0x20, RD 0x40, UD 0x60,
				 *   CNP 0x80) | operation */
	uint32_t dest_qp;	/**< destination queue pair, 24 bits */
	uint32_t psn;		/**< packet sequence number, 24 bits */
	uint32_t payload;	/**< message bytes carried: the UDP payload less the BTH, the
				 *   extended headers of the opcode, the pad and the ICRC */
	bool ack;		/**< an acknowledgement (ACK, atomic ACK, CNP): no message bytes */
};

/**
 * Decode the BTH of a RoCE v2 packet (UDP to TR_ROCE_PORT) that tr_decode_ip() decoded, and the
 * message bytes it carries (InfiniBand Architecture Specification vol. 1, release 1.4, 9.2 and
 * 9.3; RoCE v2: annex A17).  Only the BTH (12 bytes) must be captured; the rest is counted from
 * the UDP length.
 *
 * @return 0, or
 *   - -EINVAL: a NULL argument
 *   - -ENOTSUP: not UDP to port 4791, or an opcode that is not a reliable or unreliable
 *     connection's, an unreliable datagram's or a CNP (out->opcode says which)
 *   - -EBADMSG: the BTH is not captured whole, or the UDP payload is shorter than the headers
 *     its opcode has
 */
int tr_decode_bth(const struct tr_ip *ip, struct tr_bth *out);

#endif /* TR_READER_H */
