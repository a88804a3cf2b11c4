/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pcapng trace writer for virtual-time runs (draft-ietf-opsawg-pcapng).
 *
 * One Section Header Block (SHB), then one Interface Description Block (IDB) per capture point
 * ("w3.tx", "wan0>1.in", ...), added whenever the caller likes before first use, and one
 * Enhanced Packet Block (EPB) per frame.  Every interface is Ethernet (LINKTYPE_ETHERNET), has
 * if_tsresol 9 (timestamps are integer nanoseconds, given by the caller, never read from a clock)
 * and the writer's one snap length, so that libpcap, which wants a single link type and snap
 * length per file, reads it as well as Wireshark and tshark (frame.interface_name).  Blocks are
 * in host byte order.
 *
 * The file is deterministic: it holds only what the caller passes (no date, host or pid), so two
 * runs with the same seed write byte-identical traces.
 *
 * It is written to "<path>.tmp.XXXXXX" in the same directory and renamed onto @c path only by a
 * successful tr_pcapng_close(); an error or tr_pcapng_abort() removes the temporary, and a file
 * already at @c path is then left as it was.  Output goes through a 1 MiB buffer: an EPB costs
 * two or three memcpy() calls and no allocation.  A writer is not thread-safe: use one per thread.
 */
#ifndef TR_PCAPNG_H
#define TR_PCAPNG_H

#include <stdint.h>

/** Snap length used when tr_pcapng_params.snaplen is 0, and the largest allowed. */
#define TR_PCAPNG_SNAPLEN_MAX 262144u

/** Largest SHB, comment and application included (libpcap refuses larger ones). */
#define TR_PCAPNG_SHB_MAX (1024u * 1024u)

/** Longest application name, interface name or interface description (one pcapng option). */
#define TR_PCAPNG_OPT_MAX 65535u

/** A trace file being written (opaque). */
struct tr_pcapng;

/** What tr_pcapng_open() needs. */
struct tr_pcapng_params {
	const char *path;	/**< final file name */
	const char *app;	/**< SHB shb_userappl, UTF-8, at most TR_PCAPNG_OPT_MAX bytes;
				 *   NULL: none */
	const char *comment;	/**< SHB opt_comment, UTF-8, may be long and multi-line (the seed,
				 *   the whole scenario); longer than TR_PCAPNG_OPT_MAX, it is split
				 *   into several opt_comment options, after a newline where one is
				 *   near, never inside a UTF-8 sequence; NULL: none */
	uint32_t snaplen;	/**< snap length of every interface (unless
				 *   tr_pcapng_add_if_snap() gives one), bytes;
				 *   0 = TR_PCAPNG_SNAPLEN_MAX */
};

/**
 * Start a trace: create the temporary file next to @p p->path and write the SHB.
 *
 * The temporary (and so the final file) gets mode 0644.
 *
 * @return the writer, or NULL with errno set:
 *   - EINVAL: @p p or @p p->path is NULL or empty, @p p->snaplen > TR_PCAPNG_SNAPLEN_MAX,
 *     @p p->app longer than TR_PCAPNG_OPT_MAX, or the SHB would exceed TR_PCAPNG_SHB_MAX
 *     (a comment of about a million bytes)
 *   - ENOMEM
 *   - any error of mkstemp() in the directory of @p p->path (ENOENT: it does not exist,
 *     EACCES, ENAMETOOLONG, ENOSPC, ...)
 *   - any error of fchmod() or write()
 */
struct tr_pcapng *tr_pcapng_open(const struct tr_pcapng_params *p);

/**
 * Describe a capture point: write an IDB (Ethernet, if_name @p name, if_description @p desc
 * if not NULL, if_tsresol 9, the writer's snap length).  May be called at any time; packets
 * may use the interface once it is added.  Ids count up from 0 in the order of the calls.
 *
 * @return the interface id (>= 0), or
 *   - -EINVAL: @p w or @p name is NULL, @p name is empty, or @p name or @p desc is longer
 *     than TR_PCAPNG_OPT_MAX bytes
 *   - -EEXIST: an interface of this name exists already
 *   - -ERANGE: INT_MAX interfaces exist already
 *   - -ENOMEM
 *   - the writer's sticky write error (see tr_pcapng_write())
 */
int tr_pcapng_add_if(struct tr_pcapng *w, const char *name, const char *desc);

/**
 * tr_pcapng_add_if() with a snap length of its own, @p snaplen (0: the writer's), e.g. for an
 * interface of whole annotation frames in a trace of headers.  -EINVAL also if @p snaplen >
 * TR_PCAPNG_SNAPLEN_MAX.
 */
int tr_pcapng_add_if_snap(struct tr_pcapng *w, const char *name, const char *desc,
			  uint32_t snaplen);

/**
 * Record a frame: write an EPB on interface @p ifid, stamped @p ts_ns nanoseconds (after the
 * Unix epoch, as readers show it; virtual time may start at 0).  Only the first min(@p caplen,
 * snap length) bytes of @p data are stored; @p origlen is the frame's length on the wire.
 * Timestamps need not be in order.
 *
 * @return 0, or
 *   - -EINVAL: @p w is NULL, @p ifid is not an added interface, @p caplen > @p origlen, or
 *     @p data is NULL and @p caplen is not 0; nothing is written and the writer stays usable
 *   - the error of a failed write() of the buffer to the file (-EIO, -ENOSPC, -EFBIG, ...):
 *     it is sticky, and this and every later tr_pcapng_add_if(), tr_pcapng_write() and
 *     tr_pcapng_close() return it; the trace is lost
 */
int tr_pcapng_write(struct tr_pcapng *w, uint32_t ifid, uint64_t ts_ns, const void *data,
		    uint32_t caplen, uint32_t origlen);

/**
 * Finish a trace: flush the buffer, fsync() the temporary and rename() it onto the path.
 * On any error the temporary is removed and a file already at the path is left untouched.
 * Frees @p w in every case.
 *
 * @return 0 (also for @p w NULL), or the first error: the sticky write error, or the error of
 *         write(), fsync(), close() or rename() (-EIO, -ENOSPC, -EDQUOT, -EACCES, ...)
 */
int tr_pcapng_close(struct tr_pcapng *w);

/**
 * Discard a trace: remove the temporary file, so that nothing is left behind and a file already
 * at the path is untouched.  Frees @p w; NULL is a no-op.
 */
void tr_pcapng_abort(struct tr_pcapng *w);

/** @return the packets written on interface @p ifid; 0 if @p w is NULL or @p ifid unknown */
uint64_t tr_pcapng_count(const struct tr_pcapng *w, uint32_t ifid);

/** @return the number of interfaces added; 0 if @p w is NULL */
uint32_t tr_pcapng_ifcount(const struct tr_pcapng *w);

#endif /* TR_PCAPNG_H */
