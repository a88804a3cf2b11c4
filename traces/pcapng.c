/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer (see pcapng.h): block layout after draft-ietf-opsawg-pcapng, sections 3 and 4.
 *
 * Every block is
 *	uint32 block type | uint32 total length | body | uint32 total length
 * with the body a multiple of 4 bytes.  Options are
 *	uint16 code | uint16 value length | value, zero-padded to 4 bytes
 * and, when a block has any, the last is opt_endofopt (code 0, length 0).  The blocks used:
 *	SHB: magic 0x1A2B3C4D | uint16 major 1 | uint16 minor 0 | int64 section length -1 | options
 *	IDB: uint16 link type | uint16 reserved | uint32 snap length | options
 *	EPB: uint32 interface id | uint32 ts high | uint32 ts low | uint32 captured length |
 *	     uint32 original length | data, zero-padded to 4 bytes
 *
 * Every block is built in place in one output buffer of TR_BUF bytes, flushed with write() when
 * the next block does not fit.  The limits in pcapng.h (SHB <= 1 MiB, an IDB with two 64 KiB
 * strings, an EPB with at most 256 KiB of data) make every block fit in the empty buffer, so a
 * block is always written whole, in order, and without a second path for big blocks.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h"

#define TR_BUF (1024u * 1024u)		/* output buffer, bytes */
#define TR_STREAM_CHUNK (64u * 1024u)	/* to a stream: written out once this much is buffered */

#define BT_SHB 0x0A0D0D0Au		/* block types */
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u

#define OPT_ENDOFOPT 0			/* option codes */
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9

#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define LINKTYPE_ETHERNET 1
#define TSRESOL_NS 9			/* if_tsresol: 10^-9 s */

#define SHB_FIXED 28u			/* header, magic, versions, section length, trailer */
#define IDB_FIXED 20u			/* header, link type, reserved, snap length, trailer */
#define EPB_FIXED 32u			/* header, five words, trailer */
#define EPB_HDR (EPB_FIXED - 4)		/* all of it before the data */

#define PAD4(n) ((4 - ((n) & 3)) & 3)

/* One capture point. */
struct tr_pcapng_if {
	uint64_t count;			/**< packets written */
	uint32_t snaplen;		/**< its snap length */
	char *name;			/**< if_name, to refuse duplicates */
};

struct tr_pcapng {
	/* Hot: touched by every tr_pcapng_write(). */
	uint8_t *buf;			/**< output buffer, TR_BUF bytes */
	size_t len;			/**< bytes in buf, a multiple of 4 */
	size_t chunk;			/**< write out when len reaches it (TR_BUF: when full) */
	struct outfile *out;		/**< the output */
	int err;			/**< first write error (-errno), sticky; 0 if none */
	uint32_t snaplen;		/**< snap length of an interface unless it has its own */
	uint32_t n_if;			/**< interfaces added */
	struct tr_pcapng_if *ifs;	/**< n_if interfaces */
	/* Cold. */
	uint64_t flushed;		/**< bytes written out of buf so far */
	uint32_t ifs_cap;		/**< room in ifs */
};

/* Write out the buffer; on failure record the sticky error and return it. */
static int
flush(struct tr_pcapng *w)
{
	int rc = w->len != 0 ? outfile_write(w->out, w->buf, w->len) : 0;

	if (rc != 0) {
		w->err = rc;
		return rc;
	}
	w->flushed += w->len;
	w->len = 0;
	return 0;
}

/* A block of @n bytes was built at the end of the buffer; to a stream it may go out now. */
static int
appended(struct tr_pcapng *w, size_t n)
{
	w->len += n;
	return w->len >= w->chunk ? flush(w) : 0;
}

/* Room for a block of @n bytes (n <= TR_BUF) at the end of the buffer, or NULL on error. */
static uint8_t *
reserve(struct tr_pcapng *w, size_t n)
{
	if (n > TR_BUF - w->len && flush(w) != 0)
		return NULL;
	return w->buf + w->len;
}

static uint8_t *
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

/* Bytes an option with a value of @len bytes takes. */
static size_t
opt_size(size_t len)
{
	return 4 + len + PAD4(len);
}

/* Append an option; returns the byte after it. */
static uint8_t *
put_opt(uint8_t *p, uint16_t code, const void *val, size_t len)
{
	uint16_t hdr[2] = { code, (uint16_t)len };

	memcpy(p, hdr, sizeof(hdr));
	if (len != 0)
		memcpy(p + sizeof(hdr), val, len);
	memset(p + sizeof(hdr) + len, 0, PAD4(len));
	return p + opt_size(len);
}

/*
 * Length of the first opt_comment chunk of @s (@n bytes left): all of it if it fits in one
 * option; else up to a newline in the second half of the largest option; else the largest
 * option, shortened so that the next chunk does not start inside a UTF-8 sequence.
 */
static size_t
comment_chunk(const char *s, size_t n)
{
	size_t c, i;

	if (n <= TR_PCAPNG_OPT_MAX)
		return n;
	for (c = TR_PCAPNG_OPT_MAX; c > TR_PCAPNG_OPT_MAX / 2; c--)
		if (s[c - 1] == '\n')
			return c;
	c = TR_PCAPNG_OPT_MAX;
	for (i = 0; i < 3 && ((unsigned char)s[c] & 0xC0) == 0x80; i++)
		c--;
	return c;
}

/* Bytes the opt_comment options for @s take, or (when @p is not NULL) append them. */
static size_t
comment_opts(uint8_t *p, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	size_t total = 0, c;

	while (n > 0) {
		c = comment_chunk(s, n);
		if (p != NULL)
			p = put_opt(p, OPT_COMMENT, s, c);
		total += opt_size(c);
		s += c;
		n -= c;
	}
	return total;
}

/* The SHB, or 0 if it would exceed TR_PCAPNG_SHB_MAX or an option is too long. */
static size_t
shb_size(const struct tr_pcapng_params *p)
{
	size_t app = p->app != NULL ? strlen(p->app) : 0;
	size_t opts = 0;

	if (app > TR_PCAPNG_OPT_MAX)
		return 0;
	if (p->app != NULL)
		opts += opt_size(app);
	if (p->comment != NULL && strlen(p->comment) > TR_PCAPNG_SHB_MAX)
		return 0;
	opts += comment_opts(NULL, p->comment);
	if (opts != 0)
		opts += opt_size(0);
	return SHB_FIXED + opts <= TR_PCAPNG_SHB_MAX ? SHB_FIXED + opts : 0;
}

static int
write_shb(struct tr_pcapng *w, const struct tr_pcapng_params *prm, size_t total)
{
	uint8_t *b = reserve(w, total), *p;
	uint16_t ver[2] = { 1, 0 };
	int64_t seclen = -1;

	if (b == NULL)
		return w->err;
	p = put32(b, BT_SHB);
	p = put32(p, (uint32_t)total);
	p = put32(p, BYTE_ORDER_MAGIC);
	memcpy(p, ver, sizeof(ver));
	memcpy(p + sizeof(ver), &seclen, sizeof(seclen));
	p += sizeof(ver) + sizeof(seclen);
	if (prm->app != NULL)
		p = put_opt(p, SHB_USERAPPL, prm->app, strlen(prm->app));
	p += comment_opts(p, prm->comment);
	if (total > SHB_FIXED)
		p = put_opt(p, OPT_ENDOFOPT, NULL, 0);
	put32(p, (uint32_t)total);
	return appended(w, total);
}

/* Free everything but the file. */
static void
wfree(struct tr_pcapng *w)
{
	uint32_t i;

	for (i = 0; i < w->n_if; i++)
		free(w->ifs[i].name);
	free(w->ifs);
	free(w->buf);
	free(w);
}

/* The output of @p p: its own, or @p p->path opened (waiting for a FIFO's reader). */
static struct outfile *
output(const struct tr_pcapng_params *p)
{
	struct outfile *o;
	int rc;

	if (p->out != NULL)
		return p->out;
	o = outfile_new(p->path, "the trace", NULL, 0);
	if (o == NULL)
		return NULL;
	rc = outfile_open(o, true, NULL, 0);
	if (rc != 0) {
		outfile_abort(o);
		errno = -rc;
		return NULL;
	}
	return o;
}

struct tr_pcapng *
tr_pcapng_open(const struct tr_pcapng_params *p)
{
	struct tr_pcapng *w;
	size_t shb;
	int err;

	if (p == NULL || (p->out == NULL && (p->path == NULL || p->path[0] == '\0')) ||
	    p->snaplen > TR_PCAPNG_SNAPLEN_MAX || (shb = shb_size(p)) == 0) {
		if (p != NULL)
			outfile_abort(p->out);
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		outfile_abort(p->out);
		errno = ENOMEM;
		return NULL;
	}
	w->snaplen = p->snaplen != 0 ? p->snaplen : TR_PCAPNG_SNAPLEN_MAX;
	w->out = output(p);
	if (w->out == NULL) {
		err = errno;
		goto fail;
	}
	w->chunk = outfile_streams(w->out) ? TR_STREAM_CHUNK : TR_BUF;
	w->buf = malloc(TR_BUF);
	if (w->buf == NULL) {
		err = ENOMEM;
		goto fail;
	}
	if (write_shb(w, p, shb) != 0) {
		err = -w->err;
		goto fail;
	}
	return w;

fail:
	tr_pcapng_abort(w);
	errno = err;
	return NULL;
}

int
tr_pcapng_add_if(struct tr_pcapng *w, const char *name, const char *desc)
{
	return tr_pcapng_add_if_snap(w, name, desc, 0);
}

int
tr_pcapng_add_if_snap(struct tr_pcapng *w, const char *name, const char *desc, uint32_t snaplen)
{
	size_t nlen, dlen, total;
	struct tr_pcapng_if *ifs;
	uint8_t tsresol = TSRESOL_NS;
	uint16_t lt[2] = { LINKTYPE_ETHERNET, 0 };
	uint32_t i, cap;
	uint8_t *b, *p;
	char *copy;

	if (w == NULL)
		return -EINVAL;
	if (w->err != 0)
		return w->err;
	if (name == NULL || name[0] == '\0' || snaplen > TR_PCAPNG_SNAPLEN_MAX)
		return -EINVAL;
	if (snaplen == 0)
		snaplen = w->snaplen;
	nlen = strlen(name);
	dlen = desc != NULL ? strlen(desc) : 0;
	if (nlen > TR_PCAPNG_OPT_MAX || dlen > TR_PCAPNG_OPT_MAX)
		return -EINVAL;
	for (i = 0; i < w->n_if; i++)
		if (strcmp(w->ifs[i].name, name) == 0)
			return -EEXIST;
	if (w->n_if == INT_MAX)
		return -ERANGE;
	if (w->n_if == w->ifs_cap) {
		cap = w->ifs_cap != 0 ? w->ifs_cap * 2 : 8;
		ifs = realloc(w->ifs, (size_t)cap * sizeof(*ifs));
		if (ifs == NULL)
			return -ENOMEM;
		w->ifs = ifs;
		w->ifs_cap = cap;
	}
	copy = strdup(name);
	if (copy == NULL)
		return -ENOMEM;

	total = IDB_FIXED + opt_size(nlen) + opt_size(sizeof(tsresol)) + opt_size(0);
	if (desc != NULL)
		total += opt_size(dlen);
	b = reserve(w, total);
	if (b == NULL) {
		free(copy);
		return w->err;
	}
	p = put32(b, BT_IDB);
	p = put32(p, (uint32_t)total);
	memcpy(p, lt, sizeof(lt));
	p = put32(p + sizeof(lt), snaplen);
	p = put_opt(p, IF_NAME, name, nlen);
	if (desc != NULL)
		p = put_opt(p, IF_DESCRIPTION, desc, dlen);
	p = put_opt(p, IF_TSRESOL, &tsresol, sizeof(tsresol));
	p = put_opt(p, OPT_ENDOFOPT, NULL, 0);
	put32(p, (uint32_t)total);

	w->ifs[w->n_if].count = 0;
	w->ifs[w->n_if].snaplen = snaplen;
	w->ifs[w->n_if].name = copy;
	w->n_if++;
	return appended(w, total) == 0 ? (int)w->n_if - 1 : w->err;
}

int
tr_pcapng_write(struct tr_pcapng *w, uint32_t ifid, uint64_t ts_ns, const void *data,
		uint32_t caplen, uint32_t origlen)
{
	uint32_t pad, total;
	uint8_t *b;

	if (w == NULL)
		return -EINVAL;
	if (w->err != 0)
		return w->err;
	if (ifid >= w->n_if || caplen > origlen || (data == NULL && caplen != 0))
		return -EINVAL;
	if (caplen > w->ifs[ifid].snaplen)
		caplen = w->ifs[ifid].snaplen;
	pad = PAD4(caplen);
	total = EPB_FIXED + caplen + pad;
	b = reserve(w, total);
	if (b == NULL)
		return w->err;

	memcpy(b, (const uint32_t[7]){ BT_EPB, total, ifid, (uint32_t)(ts_ns >> 32),
				       (uint32_t)ts_ns, caplen, origlen }, EPB_HDR);
	if (caplen != 0)
		memcpy(b + EPB_HDR, data, caplen);
	/* Padding and trailing length in one copy: the last pad + 4 bytes of { 0, total }. */
	memcpy(b + EPB_HDR + caplen, (const uint8_t *)(const uint32_t[2]){ 0, total } + 4 - pad,
	       pad + 4);
	w->ifs[ifid].count++;
	return appended(w, total);
}

int
tr_pcapng_flush(struct tr_pcapng *w)
{
	if (w == NULL)
		return -EINVAL;
	return w->err != 0 ? w->err : flush(w);
}

bool
tr_pcapng_streams(const struct tr_pcapng *w)
{
	return w != NULL && outfile_streams(w->out);
}

int
tr_pcapng_close(struct tr_pcapng *w)
{
	int rc;

	if (w == NULL)
		return 0;
	rc = w->err;
	if (rc == 0)
		rc = flush(w);
	if (rc == 0) {
		rc = outfile_commit(w->out);
	} else {
		/* a file stays as it was; a stream gets what was written before the error */
		outfile_abort(w->out);
	}
	w->out = NULL;
	wfree(w);
	return rc;
}

void
tr_pcapng_abort(struct tr_pcapng *w)
{
	if (w == NULL)
		return;
	outfile_abort(w->out);
	wfree(w);
}

uint64_t
tr_pcapng_count(const struct tr_pcapng *w, uint32_t ifid)
{
	if (w == NULL || ifid >= w->n_if)
		return 0;
	return w->ifs[ifid].count;
}

uint32_t
tr_pcapng_ifcount(const struct tr_pcapng *w)
{
	return w != NULL ? w->n_if : 0;
}

uint64_t
tr_pcapng_bytes(const struct tr_pcapng *w)
{
	return w != NULL ? w->flushed + w->len : 0;
}
