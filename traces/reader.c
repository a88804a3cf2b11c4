/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace reader's front (reader.h): open a file, tell its format by its first four bytes (of
 * the decompressed stream if gzip'd, see source.c), hand it to the pcap parser (reader_pcap.c,
 * libpcap) or the pcapng parser (reader_pcapng.c), and keep what both share: the interface
 * table, the packet count, the out-of-order count and the sticky error message.
 *
 * Magic numbers, as the first four bytes of the file:
 *	0a 0d 0d 0a			pcapng (the SHB block type)
 *	a1 b2 c3 d4, d4 c3 b2 a1	pcap, microseconds (big, little endian)
 *	a1 b2 3c 4d, 4d 3c b2 a1	pcap, nanoseconds
 *	a1 b2 cd 34, 34 cd b2 a1	pcap with Kuznetzov's longer record headers (microseconds)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* strdup(); u_int for pcap.h */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_impl.h"

int
tr_reader_fail(struct tr_reader *r, int rc, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(r->msg, sizeof(r->msg), "%s: ", r->path);
	if (n < sizeof(r->msg)) {
		va_start(ap, fmt);
		vsnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
		va_end(ap);
	}
	r->err = rc;
	return rc;
}

int
tr_reader_add_if(struct tr_reader *r, const struct tr_if *ifp)
{
	struct tr_if *ifs;
	uint32_t cap;
	char *name = ifp->name;

	if (r->n_if >= TR_READER_IF_MAX) {
		free(name);
		return -EFBIG;
	}
	if (r->n_if == r->if_cap) {
		cap = r->if_cap != 0 ? r->if_cap * 2 : 4;
		ifs = realloc(r->ifs, (size_t)cap * sizeof(*ifs));
		if (ifs == NULL) {
			free(name);
			return -ENOMEM;
		}
		r->ifs = ifs;
		r->if_cap = cap;
	}
	if (name == NULL) {
		name = malloc(16);
		if (name == NULL)
			return -ENOMEM;
		snprintf(name, 16, "if%" PRIu32, r->n_if);
	}
	r->ifs[r->n_if] = *ifp;
	r->ifs[r->n_if].name = name;
	r->n_if++;
	return 0;
}

static void
copy_msg(const struct tr_reader *r, char *err, size_t errlen)
{
	if (err != NULL && errlen != 0)
		snprintf(err, errlen, "%s", r->msg);
}

/* Tell the format from the first four bytes and start its parser; 0 or -errno. */
static int
start(struct tr_reader *r)
{
	const char *gz = r->src.gz != NULL ? " (gzip)" : "";
	const uint8_t *m;
	uint32_t magic;
	ssize_t n;

	n = tr_src_peek(&r->src, 4, &m);
	if (n < 0)
		return tr_reader_fail(r, (int)n, "byte 0: %s", r->src.why);
	if (n == 0)
		return tr_reader_fail(r, -EBADMSG, "empty file%s", gz);
	if (n < 4)
		return tr_reader_fail(r, -EBADMSG, "too short for a pcap or pcapng header "
				      "(%zd bytes%s)", n, gz);
	magic = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
	switch (magic) {
	case 0x0A0D0D0Au:
		r->fmt = TR_FMT_PCAPNG;
		snprintf(r->format, sizeof(r->format), "pcapng%s", gz);
		return tr_reader_pcapng_start(r);
	case 0xA1B2C3D4u:
	case 0xD4C3B2A1u:
	case 0xA1B2CD34u:
	case 0x34CDB2A1u:
		r->fmt = TR_FMT_PCAP;
		snprintf(r->format, sizeof(r->format), "pcap%s", gz);
		return tr_reader_pcap_start(r);
	case 0xA1B23C4Du:
	case 0x4D3CB2A1u:
		r->fmt = TR_FMT_PCAP_NS;
		snprintf(r->format, sizeof(r->format), "pcap (ns)%s", gz);
		return tr_reader_pcap_start(r);
	default:
		return tr_reader_fail(r, -EBADMSG, "not a pcap or pcapng file (magic 0x%08" PRIx32
				      "%s)", magic, gz);
	}
}

struct tr_reader *
tr_reader_open(const char *path, char *err, size_t errlen)
{
	struct tr_reader *r;
	int rc;

	if (path == NULL || path[0] == '\0') {
		if (err != NULL && errlen != 0)
			snprintf(err, errlen, "no trace file given");
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->path = strdup(path)) == NULL) {
		if (err != NULL && errlen != 0)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->src.fd = -1;
	rc = tr_src_open(&r->src, path);
	if (rc < 0)
		tr_reader_fail(r, rc, "%s", r->src.why);
	else
		rc = start(r);
	if (rc < 0) {
		copy_msg(r, err, errlen);
		tr_reader_close(r);
		errno = -rc;
		return NULL;
	}
	return r;
}

static bool selected(struct tr_reader *r, uint32_t ifid);

/* One packet: 1, 2 (one not selected), 0 at the end, or -errno. */
static int
next_one(struct tr_reader *r, struct tr_packet *p, char *err, size_t errlen)
{
	int rc;

	if (r == NULL || p == NULL) {
		if (err != NULL && errlen != 0)
			snprintf(err, errlen, "tr_reader_next: %s", strerror(EINVAL));
		return -EINVAL;
	}
	if (r->err != 0) {
		copy_msg(r, err, errlen);
		return r->err;
	}
	if (r->at_end)
		return 0;
	r->no_ts = false;
	rc = r->fmt == TR_FMT_PCAPNG ? tr_reader_pcapng_next(r, p) : tr_reader_pcap_next(r, p);
	if (rc < 0) {
		if (r->err == 0)
			tr_reader_fail(r, rc, "%s", strerror(-rc));
		copy_msg(r, err, errlen);
		return rc;
	}
	if (rc == 0) {
		r->at_end = true;
		return 0;
	}
	p->frame = ++r->frames;
	if (r->sel != NULL && !selected(r, p->ifid)) {
		r->sel_skipped++;
		return 2;	/* not selected: the caller reads on */
	}
	if (!r->no_ts) {
		if (r->have_last && p->ts_ns < r->last_ts)
			r->unordered++;
		r->last_ts = p->ts_ns;
		r->have_last = true;
	}
	return 1;
}

int
tr_reader_select(struct tr_reader *r, const char *names)
{
	size_t n;

	if (r == NULL || names == NULL || names[0] == '\0')
		return -EINVAL;
	n = strlen(names);
	free(r->sel);
	r->sel = malloc(n + 3);
	if (r->sel == NULL)
		return -ENOMEM;
	snprintf(r->sel, n + 3, ",%s,", names);
	free(r->sel_ok);
	r->sel_ok = NULL;
	r->sel_cap = 0;
	return 0;
}

uint64_t
tr_reader_skipped(const struct tr_reader *r)
{
	return r != NULL ? r->sel_skipped : 0;
}

/* Whether interface @p ifid is one of the selection's names (looked up once per interface). */
static bool
selected(struct tr_reader *r, uint32_t ifid)
{
	if (ifid >= r->sel_cap) {
		uint32_t cap = ifid + 16, i;
		int8_t *ok = realloc(r->sel_ok, cap);

		if (ok == NULL)
			return true;	/* no memory to remember: read it (the caller sees more) */
		for (i = r->sel_cap; i < cap; i++)
			ok[i] = -1;
		r->sel_ok = ok;
		r->sel_cap = cap;
	}
	if (r->sel_ok[ifid] < 0) {
		const char *name = tr_reader_ifname(r, ifid);
		char key[512];

		snprintf(key, sizeof(key), ",%s,", name != NULL ? name : "");
		r->sel_ok[ifid] = name != NULL && strlen(name) + 2 < sizeof(key) &&
				  strstr(r->sel, key) != NULL;
	}
	return r->sel_ok[ifid] == 1;
}

int
tr_reader_next(struct tr_reader *r, struct tr_packet *p, char *err, size_t errlen)
{
	int rc;

	while ((rc = next_one(r, p, err, errlen)) == 2)
		;
	return rc;
}

void
tr_reader_close(struct tr_reader *r)
{
	uint32_t i;

	if (r == NULL)
		return;
	if (r->pcap != NULL)
		pcap_close(r->pcap);	/* and fclose() of its stream over r->src */
	tr_src_close(&r->src);
	for (i = 0; i < r->n_if; i++)
		free(r->ifs[i].name);
	free(r->ifs);
	free(r->blk);
	free(r->comment);
	free(r->path);
	free(r->sel);
	free(r->sel_ok);
	free(r);
}

const char *
tr_reader_format(const struct tr_reader *r)
{
	return r != NULL ? r->format : "";
}

uint32_t
tr_reader_ifcount(const struct tr_reader *r)
{
	return r != NULL ? r->n_if : 0;
}

const char *
tr_reader_ifname(const struct tr_reader *r, uint32_t ifid)
{
	if (r == NULL || ifid >= r->n_if)
		return NULL;
	return r->ifs[ifid].name;
}

int
tr_reader_linktype(const struct tr_reader *r, uint32_t ifid)
{
	if (r == NULL || ifid >= r->n_if)
		return -EINVAL;
	return r->ifs[ifid].linktype;
}

const char *
tr_reader_comment(const struct tr_reader *r)
{
	return r != NULL && r->comment != NULL ? r->comment : "";
}

uint64_t
tr_reader_unordered(const struct tr_reader *r)
{
	return r != NULL ? r->unordered : 0;
}
