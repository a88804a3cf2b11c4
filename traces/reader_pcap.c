/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classic pcap (tcpdump's format), parsed by libpcap: pcap_fopen_offline_with_tstamp_precision()
 * at nanosecond precision, then pcap_next_ex(), so that libpcap's checks (byte order, versions,
 * capture lengths against the snap length and the link type's maximum) are the ones applied.
 *
 * libpcap reads through a FILE * made with fopencookie() over the reader's byte source
 * (source.c), which serves plain and gzip'd files alike.  The stream's seek function answers
 * only ftell() (with the source's offset), so ftello() before each pcap_next_ex() gives the
 * offset of the record, net of what stdio has buffered: 24-byte file header, then 16 + caplen
 * per record (24 + caplen with Kuznetzov's magic), a record cut to the snap length counting its
 * bytes on disk.  (An unbuffered stream would make the offset trivial, but glibc then reads a
 * cookie stream one byte per call.)  That offset and the packet number go into every error
 * message, with libpcap's own message and, when the source failed beneath it, the source's
 * (e.g. a truncated gzip stream).
 *
 * The file header is also read here (not parsed: only its link type and version) to report the
 * link type as LINKTYPE_* (libpcap's pcap_datalink() gives DLT_*, which differ, e.g. raw IP is
 * LINKTYPE 101 but DLT 12 or 14).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* fopencookie(), strndup(); u_int for pcap.h */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_impl.h"

#define PCAP_HDR 24u			/* file header, bytes */
#define STDIO_BUF (64u * 1024u)		/* the FILE's buffer, bytes */
#define NS_PER_S UINT64_C(1000000000)

static ssize_t
cookie_read(void *cookie, char *buf, size_t size)
{
	ssize_t n = tr_src_read(cookie, buf, size);

	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}

/* Only ftell() is served: the stream cannot move. */
static int
cookie_seek(void *cookie, off64_t *pos, int whence)
{
	const struct tr_src *s = cookie;

	if (*pos != 0 || whence != SEEK_CUR) {
		errno = ESPIPE;
		return -1;
	}
	*pos = (off64_t)s->off;
	return 0;
}

/* A 32-bit field of the file header; @p le: the file is little-endian. */
static uint32_t
hdr32(const uint8_t *p, int le)
{
	if (le)
		return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int
tr_reader_pcap_start(struct tr_reader *r)
{
	static const cookie_io_functions_t io = { .read = cookie_read, .seek = cookie_seek };
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct tr_if ifc = { 0 };
	const uint8_t *h;
	unsigned int major, minor;
	FILE *f;
	ssize_t n;
	int le, rc;

	n = tr_src_peek(&r->src, PCAP_HDR, &h);
	if (n < 0)
		return tr_reader_fail(r, (int)n, "pcap file header: %s", r->src.why);
	if (n < PCAP_HDR)
		return tr_reader_fail(r, -EBADMSG, "pcap file header truncated (%zd of %u bytes)",
				      n, PCAP_HDR);
	le = h[0] != 0xA1;
	major = le ? (unsigned int)h[5] << 8 | h[4] : (unsigned int)h[4] << 8 | h[5];
	minor = le ? (unsigned int)h[7] << 8 | h[6] : (unsigned int)h[6] << 8 | h[7];
	if (major != 2)
		return tr_reader_fail(r, -ENOTSUP, "unsupported pcap version %u.%u", major, minor);
	ifc.linktype = (int)(hdr32(h + 20, le) & 0xFFFF);
	ifc.snaplen = hdr32(h + 16, le);
	ifc.tsresol = r->fmt == TR_FMT_PCAP_NS ? 9 : 6;
	rc = tr_reader_add_if(r, &ifc);
	if (rc < 0)
		return tr_reader_fail(r, rc, "%s", strerror(-rc));

	f = fopencookie(&r->src, "r", io);
	if (f == NULL)
		return tr_reader_fail(r, -errno, "fopencookie: %s", strerror(errno));
	setvbuf(f, NULL, _IOFBF, STDIO_BUF);
	r->pcap = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (r->pcap == NULL) {
		fclose(f);
		if (r->src.err != 0)
			return tr_reader_fail(r, r->src.err, "pcap file header: %s", r->src.why);
		return tr_reader_fail(r, -EBADMSG, "pcap file header: libpcap: %s", errbuf);
	}
	return 0;
}

int
tr_reader_pcap_next(struct tr_reader *r, struct tr_packet *p)
{
	off64_t pos = ftello(pcap_file(r->pcap));
	uint64_t off = pos >= 0 ? (uint64_t)pos : r->src.off;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	rc = pcap_next_ex(r->pcap, &h, &data);
	if (rc == 1) {
		/*
		 * The file's seconds are unsigned 32-bit, but libpcap reads them as signed and
		 * sign-extends them: undo that.  The fraction must be below a second.
		 */
		if (h->ts.tv_usec < 0 || h->ts.tv_usec >= (suseconds_t)NS_PER_S)
			return tr_reader_fail(r, -EBADMSG, "record at byte %" PRIu64 " (packet %"
					      PRIu64 "): timestamp fraction of %lld ns is not "
					      "within a second", off, r->frames + 1,
					      (long long)h->ts.tv_usec);
		p->ts_ns = (uint64_t)(uint32_t)h->ts.tv_sec * NS_PER_S + (uint64_t)h->ts.tv_usec;
		p->ifid = 0;
		p->linktype = r->ifs[0].linktype;
		p->caplen = h->caplen;
		p->len = h->len;
		p->data = data;
		p->offset = off;
		return 1;
	}
	if (r->src.err != 0)
		return tr_reader_fail(r, r->src.err, "record at byte %" PRIu64 " (packet %" PRIu64
				      "): %s", off, r->frames + 1, r->src.why);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	return tr_reader_fail(r, -EBADMSG, "record at byte %" PRIu64 " (packet %" PRIu64
			      "): libpcap: %s", off, r->frames + 1, pcap_geterr(r->pcap));
}
