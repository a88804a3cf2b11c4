/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng parser (draft-ietf-opsawg-pcapng).  libpcap reads pcapng too, but it cannot say
 * which interface a packet came from (and refuses files whose interfaces differ in link type),
 * and syncemu's traces have one interface per capture point; so the blocks are parsed here.
 *
 * Every block is
 *	uint32 type | uint32 total length | body | uint32 total length
 * in its section's byte order, which the SHB's byte-order magic 0x1A2B3C4D gives.  Checked for
 * every block before its body is looked at: total length >= 12 (and the type's minimum), a
 * multiple of 4, at most TR_READER_BLOCK_MAX, within the file, and equal to the trailing copy.
 * The blocks used (bodies after the 8-byte header):
 *	SHB  0x0A0D0D0A  magic | u16 major 1 | u16 minor | i64 section length | options
 *	IDB  1           u16 link type | u16 reserved | u32 snap length | options
 *	PB   2           u16 if id | u16 drops | u32 ts high | u32 ts low | u32 caplen | u32 len |
 *	                 data | options                                        (obsolete)
 *	SPB  3           u32 len | data      (interface 0 of the section, no timestamp)
 *	EPB  6           u32 if id | u32 ts high | u32 ts low | u32 caplen | u32 len | data | options
 * Other block types (NRB, ISB, DSB, custom, ...) are skipped by their length.  Options are
 *	u16 code | u16 length | value, zero-padded to 4 bytes
 * ending with code 0 or the end of the block; read are the SHB's opt_comment (1) of the first
 * section and the IDB's if_name (2), if_tsresol (9, one byte) and if_tsoffset (14, int64 s).
 *
 * Each SHB starts a section whose interface ids restart at 0; they are mapped to global ids in
 * the order of the IDBs in the file.  Timestamps are converted to ns exactly: ts * 10^(9-n) for
 * if_tsresol 10^-n (n <= 9), ts / 10^(n-9) for finer ones, ts * 10^9 / 2^n for 2^-n, plus
 * if_tsoffset seconds, in 128-bit arithmetic; a result outside [0, 2^64) is an error.
 *
 * A block is read whole into one growing buffer (unknown types are only skipped), which grows
 * with the bytes actually read, not the length claimed: memory stays bounded by the largest
 * block the file really has.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* fopencookie(), strndup(); u_int for pcap.h */
#endif
#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_impl.h"

#define BT_SHB 0x0A0D0D0Au		/* block types */
#define BT_IDB 0x00000001u
#define BT_PB 0x00000002u
#define BT_SPB 0x00000003u
#define BT_EPB 0x00000006u

#define BYTE_ORDER_MAGIC 0x1A2B3C4Du

#define OPT_ENDOFOPT 0			/* option codes */
#define OPT_COMMENT 1
#define IF_NAME 2
#define IF_TSRESOL 9
#define IF_TSOFFSET 14

#define TSRESOL_DEFAULT 6		/* microseconds, when an IDB has no if_tsresol */
#define NS_PER_S 1000000000

#define PAD4(n) ((4 - ((n) & 3)) & 3)

/* A block in r->blk. */
struct blk {
	uint64_t off;			/**< byte offset in the file */
	uint32_t type;
	uint32_t len;			/**< total length */
	bool known;			/**< type and length were read */
};

static const struct {
	uint32_t type;
	const char *name;
	uint32_t min;			/**< smallest total length */
} BLOCKS[] = {
	{ BT_SHB, "SHB", 28 },
	{ BT_IDB, "IDB", 20 },
	{ BT_PB, "PB", 32 },
	{ BT_SPB, "SPB", 16 },
	{ BT_EPB, "EPB", 32 },
};
#define N_BLOCKS (sizeof(BLOCKS) / sizeof(BLOCKS[0]))

static int
block_kind(uint32_t type)
{
	size_t i;

	for (i = 0; i < N_BLOCKS; i++)
		if (BLOCKS[i].type == type)
			return (int)i;
	return -1;
}

static bool
is_packet(uint32_t type)
{
	return type == BT_EPB || type == BT_SPB || type == BT_PB;
}

/* Fail with "<what> at byte N (packet K): <fmt ...>". */
static int __attribute__((format(printf, 4, 5)))
blk_fail(struct tr_reader *r, const struct blk *b, int rc, const char *fmt, ...)
{
	int kind = b->known ? block_kind(b->type) : -1;
	char what[48], pkt[40] = "", m[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (kind >= 0)
		snprintf(what, sizeof(what), "%s", BLOCKS[kind].name);
	else if (b->known)
		snprintf(what, sizeof(what), "block of type 0x%08" PRIx32, b->type);
	else
		snprintf(what, sizeof(what), "block");
	if (b->known && is_packet(b->type))
		snprintf(pkt, sizeof(pkt), " (packet %" PRIu64 ")", r->frames + 1);
	return tr_reader_fail(r, rc, "%s at byte %" PRIu64 "%s: %s", what, b->off, pkt, m);
}

static uint16_t
g16(const struct tr_reader *r, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return r->swap ? bswap_16(v) : v;
}

static uint32_t
g32(const struct tr_reader *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return r->swap ? bswap_32(v) : v;
}

static uint64_t
g64(const struct tr_reader *r, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return r->swap ? bswap_64(v) : v;
}

/*
 * The next option in [*pp, end): 1 with *code, *len and *val set, 0 at opt_endofopt or the end,
 * or a failure naming the option.
 */
static int
next_opt(struct tr_reader *r, const struct blk *b, const uint8_t **pp, const uint8_t *end,
	 uint16_t *code, uint16_t *len, const uint8_t **val)
{
	const uint8_t *p = *pp;
	size_t left = (size_t)(end - p), padded;

	if (left == 0)
		return 0;
	if (left < 4)
		return blk_fail(r, b, -EBADMSG, "option header truncated (%zu bytes left)", left);
	*code = g16(r, p);
	*len = g16(r, p + 2);
	if (*code == OPT_ENDOFOPT)
		return 0;
	if (*len > left - 4)
		return blk_fail(r, b, -EBADMSG, "option %u of %u bytes overruns the block "
				"(%zu bytes left)", *code, *len, left - 4);
	*val = p + 4;
	/* Tolerate a last option whose padding is missing. */
	padded = (size_t)*len + PAD4(*len);
	*pp = p + 4 + (padded <= left - 4 ? padded : *len);
	return 1;
}

/* Read the block whose header is at the current offset into r->blk; 1, 0 at the end, -errno. */
static int
read_block(struct tr_reader *r, struct blk *b)
{
	const uint8_t *h;
	uint32_t bom, min, trail;
	size_t have, chunk, lim;
	uint8_t *nb;
	ssize_t n;
	int kind;

	b->off = r->src.off;
	b->known = false;
	n = tr_src_peek(&r->src, 12, &h);
	if (n < 0)
		return blk_fail(r, b, (int)n, "%s", r->src.why);
	if (n == 0)
		return 0;
	if (n < 8)
		return blk_fail(r, b, -EBADMSG, "truncated block header (%zd of 8 bytes)", n);
	memcpy(&b->type, h, 4);
	if (b->type == BT_SHB) {
		b->known = true;
		if (n < 12)
			return blk_fail(r, b, -EBADMSG, "SHB truncated (%zd of 12 bytes)", n);
		memcpy(&bom, h + 8, 4);
		if (bom != BYTE_ORDER_MAGIC && bom != bswap_32(BYTE_ORDER_MAGIC))
			return blk_fail(r, b, -EBADMSG, "SHB byte-order magic 0x%08" PRIx32
					" is not 0x1a2b3c4d either way", bom);
		r->swap = bom != BYTE_ORDER_MAGIC;
	}
	b->type = g32(r, h);
	b->len = g32(r, h + 4);
	b->known = true;
	kind = block_kind(b->type);
	min = kind >= 0 ? BLOCKS[kind].min : 12;
	if (b->len % 4 != 0)
		return blk_fail(r, b, -EBADMSG, "block length %" PRIu32 " is not a multiple of 4",
				b->len);
	if (b->len < min)
		return blk_fail(r, b, -EBADMSG, "block length %" PRIu32 " < %" PRIu32,
				b->len, min);
	if (b->len > TR_READER_BLOCK_MAX)
		return blk_fail(r, b, -EFBIG, "block length %" PRIu32 " exceeds the limit of %u MiB",
				b->len, TR_READER_BLOCK_MAX >> 20);

	if (kind < 0) {
		/* Unknown: skip the body, keep only the trailing length. */
		n = tr_src_skip(&r->src, b->len - 4);
		if (n == (ssize_t)b->len - 4) {
			have = (size_t)n;
			n = tr_src_read(&r->src, &trail, 4);
			have += n > 0 ? (size_t)n : 0;
		} else {
			have = n > 0 ? (size_t)n : 0;
		}
	} else {
		/* Grow the buffer with what arrives, at most doubling it per read. */
		for (have = 0, n = 0; have < b->len; have += (size_t)n) {
			lim = have > TR_SRC_BUF ? have : TR_SRC_BUF;
			chunk = b->len - have < lim ? b->len - have : lim;
			if (have + chunk > r->blk_cap) {
				nb = realloc(r->blk, have + chunk);
				if (nb == NULL)
					return blk_fail(r, b, -ENOMEM, "%s", strerror(ENOMEM));
				r->blk = nb;
				r->blk_cap = have + chunk;
			}
			n = tr_src_read(&r->src, r->blk + have, chunk);
			if (n < 0 || (size_t)n < chunk) {
				have += n > 0 ? (size_t)n : 0;
				break;
			}
		}
		if (have == b->len)
			memcpy(&trail, r->blk + b->len - 4, 4);
	}
	if (n < 0)
		return blk_fail(r, b, (int)n, "%s", r->src.why);
	if (have < b->len)
		return blk_fail(r, b, -EBADMSG, "truncated: the block has %" PRIu32 " bytes, the "
				"file ends %zu bytes into it", b->len, have);
	trail = r->swap ? bswap_32(trail) : trail;
	if (trail != b->len)
		return blk_fail(r, b, -EBADMSG, "trailing length %" PRIu32 " differs from %" PRIu32,
				trail, b->len);
	return 1;
}

static int
parse_shb(struct tr_reader *r, const struct blk *b)
{
	const uint8_t *p = r->blk + 24, *end = r->blk + b->len - 4, *val;
	uint16_t major = g16(r, r->blk + 12), minor = g16(r, r->blk + 14), code, len;
	bool first = r->sections == 0;
	size_t add;
	char *c;
	int rc;

	if (major != 1)
		return blk_fail(r, b, -ENOTSUP, "unsupported pcapng version %u.%u", major, minor);
	while ((rc = next_opt(r, b, &p, end, &code, &len, &val)) == 1) {
		if (!first || code != OPT_COMMENT)
			continue;
		add = (size_t)len + 1;	/* a value, then "\n" or the NUL */
		if (r->comment_len + add > TR_READER_COMMENT_MAX)
			return blk_fail(r, b, -EFBIG, "SHB comment exceeds the limit of %u MiB",
					TR_READER_COMMENT_MAX >> 20);
		c = realloc(r->comment, r->comment_len + add + 1);
		if (c == NULL)
			return blk_fail(r, b, -ENOMEM, "%s", strerror(ENOMEM));
		r->comment = c;
		if (r->comment_len != 0 && c[r->comment_len - 1] != '\n')
			c[r->comment_len++] = '\n';
		memcpy(c + r->comment_len, val, len);
		r->comment_len += len;
		c[r->comment_len] = '\0';
	}
	if (rc < 0)
		return rc;
	if (first && r->comment == NULL) {
		r->comment = calloc(1, 1);
		if (r->comment == NULL)
			return blk_fail(r, b, -ENOMEM, "%s", strerror(ENOMEM));
	}
	r->sections++;
	r->sec_base = r->n_if;
	r->sec_nif = 0;
	return 0;
}

static int
parse_idb(struct tr_reader *r, const struct blk *b)
{
	const uint8_t *p = r->blk + 16, *end = r->blk + b->len - 4, *val;
	struct tr_if ifc = { .tsresol = TSRESOL_DEFAULT };
	uint16_t code, len;
	int rc;

	ifc.linktype = g16(r, r->blk + 8);
	ifc.snaplen = g32(r, r->blk + 12);
	while ((rc = next_opt(r, b, &p, end, &code, &len, &val)) == 1) {
		if (code == IF_NAME && len != 0 && ifc.name == NULL) {
			ifc.name = strndup((const char *)val, len);
			if (ifc.name == NULL)
				return blk_fail(r, b, -ENOMEM, "%s", strerror(ENOMEM));
		} else if (code == IF_TSRESOL) {
			if (len != 1)
				rc = blk_fail(r, b, -EBADMSG, "if_tsresol of %u bytes, not 1", len);
			else
				ifc.tsresol = val[0];
		} else if (code == IF_TSOFFSET) {
			if (len != 8)
				rc = blk_fail(r, b, -EBADMSG, "if_tsoffset of %u bytes, not 8", len);
			else
				ifc.tsoffset = (int64_t)g64(r, val);
		}
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		free(ifc.name);
		return rc;
	}
	rc = tr_reader_add_if(r, &ifc);
	if (rc == -EFBIG)
		return blk_fail(r, b, rc, "more than %u interfaces", TR_READER_IF_MAX);
	if (rc < 0)
		return blk_fail(r, b, rc, "%s", strerror(-rc));
	r->sec_nif++;
	return 0;
}

/* A timestamp in the units of @p ifp, in ns since the epoch; 0 or -ERANGE. */
static int
ts_to_ns(const struct tr_if *ifp, uint64_t ts, uint64_t *ns)
{
	static const uint64_t POW10[20] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
		UINT64_C(10000000000000), UINT64_C(100000000000000),
		UINT64_C(1000000000000000), UINT64_C(10000000000000000),
		UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
		UINT64_C(10000000000000000000),
	};
	unsigned int n = ifp->tsresol & 0x7F;
	unsigned __int128 v;
	__int128 t;

	if (ifp->tsresol & 0x80)
		v = ((unsigned __int128)ts * NS_PER_S) >> n;		/* < 2^94, n <= 127 */
	else if (n <= 9)
		v = (unsigned __int128)ts * POW10[9 - n];
	else if (n - 9 < 20)
		v = ts / POW10[n - 9];
	else
		v = 0;
	t = (__int128)v + (__int128)ifp->tsoffset * NS_PER_S;
	if (t < 0 || t > (__int128)UINT64_MAX)
		return -ERANGE;
	*ns = (uint64_t)t;
	return 0;
}

/* Fill @p p from the packet block in r->blk. */
static int
parse_packet(struct tr_reader *r, const struct blk *b, struct tr_packet *p)
{
	const uint8_t *k = r->blk + 8;
	uint32_t ifid, caplen, room;
	const struct tr_if *ifp;
	uint64_t ts = 0;

	if (b->type == BT_SPB) {
		room = b->len - 16;
		ifid = 0;
		p->len = g32(r, k);
		caplen = p->len < room ? p->len : room;
		p->data = k + 4;
	} else {
		room = b->len - 32;
		ifid = b->type == BT_EPB ? g32(r, k) : g16(r, k);
		ts = (uint64_t)g32(r, k + 4) << 32 | g32(r, k + 8);
		caplen = g32(r, k + 12);
		p->len = g32(r, k + 16);
		p->data = k + 20;
		if (caplen > room)
			return blk_fail(r, b, -EBADMSG, "captured length %" PRIu32 " exceeds the %"
					PRIu32 " bytes of room in the block", caplen, room);
	}
	if (ifid >= r->sec_nif)
		return blk_fail(r, b, -EBADMSG, "unknown interface id %" PRIu32 " (section %"
				PRIu32 " has %" PRIu32 ")", ifid, r->sections, r->sec_nif);
	ifp = &r->ifs[r->sec_base + ifid];
	if (b->type == BT_SPB) {
		if (ifp->snaplen != 0 && caplen > ifp->snaplen)
			caplen = ifp->snaplen;
		p->ts_ns = 0;
		r->no_ts = true;
	} else if (ts_to_ns(ifp, ts, &p->ts_ns) != 0) {
		return blk_fail(r, b, -ERANGE, "timestamp %" PRIu64 " (if_tsresol 0x%02x, "
				"if_tsoffset %" PRId64 " s) does not fit in 64-bit ns", ts,
				ifp->tsresol, ifp->tsoffset);
	}
	p->ifid = r->sec_base + ifid;
	p->linktype = ifp->linktype;
	p->caplen = caplen;
	p->offset = b->off;
	return 1;
}

/* Read and apply one block: 1 with a packet in @p p, 0 for another block, -errno. */
static int
step(struct tr_reader *r, struct tr_packet *p)
{
	struct blk b;
	int rc;

	rc = read_block(r, &b);
	if (rc <= 0) {
		if (rc == 0)
			r->at_end = true;
		return rc;
	}
	switch (b.type) {
	case BT_SHB:
		return parse_shb(r, &b);
	case BT_IDB:
		return parse_idb(r, &b);
	case BT_EPB:
	case BT_SPB:
	case BT_PB:
		return parse_packet(r, &b, p);
	default:
		return 0;
	}
}

int
tr_reader_pcapng_start(struct tr_reader *r)
{
	const uint8_t *h;
	ssize_t n;
	int rc;

	/* The magic made sure the first block is an SHB. */
	rc = step(r, NULL);
	if (rc < 0)
		return rc;
	for (;;) {
		n = tr_src_peek(&r->src, 8, &h);
		if (n < 8 || is_packet(g32(r, h)))
			break;			/* the end, an error or a packet: for next() */
		rc = step(r, NULL);
		if (rc < 0)
			return rc;
	}
	r->at_end = false;
	return 0;
}

int
tr_reader_pcapng_next(struct tr_reader *r, struct tr_packet *p)
{
	int rc = 0;

	while (rc == 0 && !r->at_end)
		rc = step(r, p);
	return rc;
}
