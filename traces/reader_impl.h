/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the trace reader (reader.h): the byte source that serves a plain or gzip'd file
 * (source.c), the reader's state (reader.c), and the entry points of the two format parsers
 * (reader_pcap.c through libpcap, reader_pcapng.c by hand).
 *
 * The source keeps a TR_SRC_BUF read-ahead buffer and counts the offset of the next unread byte
 * in the decompressed stream; the pcapng parser reads blocks from it, and libpcap reads from it
 * through an fopencookie() stream whose ftello() gives the offset net of stdio's buffer.
 */
#ifndef TR_READER_IMPL_H
#define TR_READER_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pcap/pcap.h>
#include <zlib.h>

#include "reader.h"

#define TR_SRC_BUF (64u * 1024u)	/* read-ahead, bytes; also the most tr_src_peek() gives */

/* A file read front to back, decompressed on the fly if it is gzip'd. */
struct tr_src {
	uint8_t *buf;		/**< TR_SRC_BUF bytes of read-ahead */
	size_t pos;		/**< next unread byte in buf */
	size_t end;		/**< end of the valid bytes in buf */
	uint64_t off;		/**< offset of buf[pos] in the (decompressed) stream */
	int fd;			/**< the file; -1 if not open or owned by gz */
	gzFile gz;		/**< the gzip stream if the file is gzip'd, else NULL */
	bool eof;		/**< the stream has ended cleanly */
	int err;		/**< sticky error (-errno), 0 if none */
	char why[160];		/**< what err means, e.g. "gzip stream truncated after 1234 bytes" */
};

/*
 * Open @p path, and switch to gzip decoding if it starts with 1f 8b.
 * @return 0, or -errno with s->why set (open(), read(), lseek() errors; -ENOMEM)
 */
int tr_src_open(struct tr_src *s, const char *path);

/* Close the file and free the buffer; a zeroed or closed source is fine. */
void tr_src_close(struct tr_src *s);

/*
 * Make the next @p n (<= TR_SRC_BUF) bytes available at *@p p without consuming them.
 * @return the bytes available (fewer than @p n only at the end of the stream), or the sticky
 *         error if fewer than @p n are available because of it
 */
ssize_t tr_src_peek(struct tr_src *s, size_t n, const uint8_t **p);

/*
 * Consume up to @p n bytes into @p dst (NULL: discard them).
 * @return the bytes consumed (fewer than @p n only at the end of the stream), or the sticky
 *         error if fewer than @p n were read because of it
 */
ssize_t tr_src_read(struct tr_src *s, void *dst, size_t n);

/* Discard exactly @p n bytes; @return the bytes discarded, or the sticky error. */
int64_t tr_src_skip(struct tr_src *s, uint64_t n);

/* One interface (pcapng IDB; pcap has one). */
struct tr_if {
	char *name;		/**< if_name, or "if<N>" */
	int linktype;		/**< LINKTYPE_* */
	uint32_t snaplen;	/**< 0: no limit */
	uint8_t tsresol;	/**< if_tsresol: 10^-n, or 2^-(n & 0x7f) if bit 7 is set */
	int64_t tsoffset;	/**< if_tsoffset, seconds */
};

enum tr_fmt {
	TR_FMT_PCAP,		/**< classic pcap, microseconds */
	TR_FMT_PCAP_NS,		/**< classic pcap, nanoseconds */
	TR_FMT_PCAPNG,
};

struct tr_reader {
	/* Hot: every packet. */
	struct tr_src src;	/**< the file */
	uint64_t frames;	/**< packets returned so far */
	uint64_t unordered;	/**< packets whose ts went below the previous packet's */
	uint64_t last_ts;	/**< ts of the previous timestamped packet */
	bool have_last;		/**< last_ts is set */
	bool no_ts;		/**< set by a parser: the packet just read has no timestamp */
	bool at_end;		/**< the end was reached */
	int err;		/**< sticky error (-errno), 0 if none */
	enum tr_fmt fmt;	/**< what the file is */
	struct tr_if *ifs;	/**< n_if interfaces, global ids */
	uint32_t n_if;		/**< interfaces known */
	/* pcapng */
	uint8_t *blk;		/**< the current block, blk_cap bytes of room */
	size_t blk_cap;
	bool swap;		/**< the section is in the other byte order */
	uint32_t sec_base;	/**< global id of the section's interface 0 */
	uint32_t sec_nif;	/**< interfaces in the section */
	uint32_t sections;	/**< SHBs read */
	/* pcap */
	pcap_t *pcap;		/**< libpcap's reader */
	/* Cold. */
	uint32_t if_cap;	/**< room in ifs */
	char *path;		/**< as given to tr_reader_open() */
	char *comment;		/**< SHB comments of section 1, NUL-terminated; NULL if none */
	size_t comment_len;
	char format[32];	/**< tr_reader_format() */
	char *sel;		/**< tr_reader_select(): ",name1,name2," or NULL: every interface */
	int8_t *sel_ok;		/**< by interface: 1 selected, 0 not, -1 not yet looked at */
	uint32_t sel_cap;
	uint64_t sel_skipped;	/**< packets of interfaces not selected */
	char msg[512];		/**< the error message, "path: ..." */
};

/* Set the reader's sticky error @p rc and its message "path: <fmt ...>"; @return @p rc. */
int tr_reader_fail(struct tr_reader *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append interface @p ifp (its name is taken over, NULL: "if<N>"); @return 0 or -errno. */
int tr_reader_add_if(struct tr_reader *r, const struct tr_if *ifp);

/* The pcap parser: read the file header (the magic is already checked); 0 or -errno. */
int tr_reader_pcap_start(struct tr_reader *r);
/* The next pcap packet: 1, 0 at the end, or -errno (with tr_reader_fail()). */
int tr_reader_pcap_next(struct tr_reader *r, struct tr_packet *p);

/* The pcapng parser: the first SHB and every block up to the first packet; 0 or -errno. */
int tr_reader_pcapng_start(struct tr_reader *r);
/* The next pcapng packet: 1, 0 at the end, or -errno (with tr_reader_fail()). */
int tr_reader_pcapng_next(struct tr_reader *r, struct tr_packet *p);

#endif /* TR_READER_IMPL_H */
