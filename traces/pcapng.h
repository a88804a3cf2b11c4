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
 * It is written through an output file (outfile.h): to a regular file or a new name whole or
 * not at all (a temporary put in place only by a successful tr_pcapng_close(); an error or
 * tr_pcapng_abort() leaves what was at the path as it was), through a symbolic link to its
 * target, and to a FIFO or the standard output as a stream, which a reader (tshark -r -) can
 * follow live.  Output goes through a 1 MiB buffer: an EPB costs two or three memcpy() calls and
 * no allocation; to a stream, whole blocks go out whenever 64 KiB are buffered and at every
 * tr_pcapng_flush().  A writer is not thread-safe: use one per thread.
 */
#ifndef TR_PCAPNG_H
#define TR_PCAPNG_H

#include <stdbool.h>
#include <stdint.h>

#include "outfile.h"

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
	struct outfile *out;	/**< where to write, opened (outfile_open()); the writer takes it
				 *   over, also when tr_pcapng_open() fails; NULL: @c path */
	const char *path;	/**< with @c out NULL: the file name (outfile_new(), opened
				 *   waiting for a FIFO's reader) */
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
 * Start a trace: take over @p p->out (or open @p p->path) and write the SHB.
 *
 * A new file gets mode 0666 less the umask; a replaced one keeps its mode.
 *
 * @return the writer, or NULL with errno set:
 *   - EINVAL: @p p is NULL, neither @p p->out nor @p p->path is given (or the path is empty),
 *     @p p->snaplen > TR_PCAPNG_SNAPLEN_MAX, @p p->app longer than TR_PCAPNG_OPT_MAX, or the
 *     SHB would exceed TR_PCAPNG_SHB_MAX (a comment of about a million bytes); also a path
 *     outfile_new() refuses (a device, a directory, a socket)
 *   - ENOMEM
 *   - any error of outfile_new() or outfile_open() for @p p->path (ENOENT: the directory does
 *     not exist, EACCES, EROFS, ENAMETOOLONG, ENOSPC, ...)
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
 * Write out the buffered blocks now (the run calls it at every step's end when the trace is a
 * stream, so that a reader sees each step as it ends).
 *
 * @return 0, -EINVAL for @p w NULL, or the sticky write error (-EPIPE: a stream's reader went
 *         away)
 */
int tr_pcapng_flush(struct tr_pcapng *w);

/** @return true if the trace goes to a FIFO or the standard output (outfile_streams()) */
bool tr_pcapng_streams(const struct tr_pcapng *w);

/**
 * Finish a trace: flush the buffer and commit the output (outfile_commit(): fsync() and put in
 * place, or close the stream).  On any error a file already at the path is left untouched.
 * Frees @p w in every case.
 *
 * @return 0 (also for @p w NULL), or the first error: the sticky write error, or the error of
 *         write(), fsync(), close(), linkat() or rename() (-EIO, -ENOSPC, -EDQUOT, -EPIPE, ...)
 */
int tr_pcapng_close(struct tr_pcapng *w);

/**
 * Discard a trace: remove the temporary, so that nothing is left behind and a file already at
 * the path is untouched; a stream is closed where it is (what was sent stays sent).  Frees
 * @p w; NULL is a no-op.
 */
void tr_pcapng_abort(struct tr_pcapng *w);

/** @return the packets written on interface @p ifid; 0 if @p w is NULL or @p ifid unknown */
uint64_t tr_pcapng_count(const struct tr_pcapng *w, uint32_t ifid);

/** @return the bytes of the trace so far (written out or buffered); 0 if @p w is NULL */
uint64_t tr_pcapng_bytes(const struct tr_pcapng *w);

/** @return the number of interfaces added; 0 if @p w is NULL */
uint32_t tr_pcapng_ifcount(const struct tr_pcapng *w);

#endif /* TR_PCAPNG_H */
