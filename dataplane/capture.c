/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture points over the pcapng writer of traces/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/wire.h"
#include "../traces/pcapng.h"
#include "capture.h"
#include "frame.h"
#include "parallel.h"

static const char *const kind_names[DP_CAP_COUNT] = {
	"tx", "rx", "nic", "switch", "wan", "module", "port", "bg", "eth",
};

const char *
dp_capture_kind_name(enum dp_cap_kind k)
{
	return (unsigned int)k < DP_CAP_COUNT ? kind_names[k] : "?";
}

int
dp_capture_parse(const char *s, uint32_t *mask, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int k;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "capture list too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		if (strcmp(tok, "none") == 0)
			continue;
		if (strcmp(tok, "all") == 0) {
			*mask = (1u << DP_CAP_COUNT) - 1;
			continue;
		}
		for (k = 0; k < DP_CAP_COUNT; k++)
			if (strcmp(tok, kind_names[k]) == 0)
				break;
		if (k == DP_CAP_COUNT) {
			snprintf(err, errlen, "unknown capture point '%s' (allowed: tx, rx, nic, "
				 "switch, wan, module, port, bg, eth, all, none)", tok);
			return -EINVAL;
		}
		*mask |= 1u << k;
	}
	return 0;
}

int
dp_capture_point(struct dp_capture *c, enum dp_cap_kind kind, const char *name)
{
	uint32_t i;
	int id;

	if (c == NULL || (c->w == NULL && !c->elsewhere) || !(c->mask & (1u << kind)))
		return -1;
	if ((unsigned int)kind >= DP_CAP_COUNT)
		return -1;
	for (i = 0; i < c->nif; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int)i;
	if (c->nif == DP_CAP_IF_MAX)
		return -1;
	id = c->w != NULL ? tr_pcapng_add_if(c->w, name, kind_names[kind]) : 0;
	if (id < 0)
		return -1;
	snprintf(c->names[c->nif], DP_CAP_NAME_MAX, "%s", name);
	c->kinds[c->nif] = (uint8_t)kind;
	return (int)c->nif++;
}

/* A buffer of at least @need bytes (from @first, doubled): 0 or -ENOMEM (it is as it was). */
static int
room(uint8_t **buf, size_t *cap, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first;
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	while (need > c)
		c *= 2;
	nb = realloc(*buf, c);
	if (nb == NULL)
		return -ENOMEM;
	*buf = nb;
	*cap = c;
	return 0;
}

/* A record written, also put on the tape. */
static void
tape_add(struct dp_cap_tape *tp, const struct dp_cap_taped *r, const void *data)
{
	size_t size = (sizeof(*r) + r->len + 7) & ~(size_t)7;

	if (tp->failed)
		return;
	if (tp->len + size > DP_CAP_TAPE_MAX) {
		tp->failed = true;	/* a step this large is emulated: its copy costs more */
		return;
	}
	if (room(&tp->buf, &tp->cap, tp->len + size, 1 << 16) != 0) {
		tp->failed = true;
		return;
	}
	memcpy(tp->buf + tp->len, r, sizeof(*r));
	memcpy(tp->buf + tp->len + sizeof(*r), data, r->len);
	tp->len += size;
}

/* A record held to the run's end (dp_capture.hold). */
static int
hold(struct dp_capture *c, int ifid, dp_time_t t, const struct rte_mbuf *m, uint32_t len)
{
	struct dp_cap_held h = { .ts_ns = t / 1000, .ifid = (uint32_t)ifid, .len = len,
				 .orig = rte_pktmbuf_pkt_len(m) };
	size_t size = dp_cap_held_size(&h);
	const void *data;

	if (room(&c->held, &c->held_cap, c->held_len + size, 1 << 20) != 0)
		return -ENOMEM;
	memcpy(c->held + c->held_len, &h, sizeof(h));
	data = rte_pktmbuf_read(m, 0, len, c->held + c->held_len + sizeof(h));
	if (data != NULL && data != (const void *)(c->held + c->held_len + sizeof(h)))
		memcpy(c->held + c->held_len + sizeof(h), data, len);
	c->held_len += size;
	return 0;
}

int
dp_capture_put(struct dp_capture *c, uint32_t ifid, uint64_t ts_ns, const void *data,
	       uint32_t len, uint32_t orig)
{
	int rc;

	if (c->w == NULL || ifid >= c->nif)
		return -EINVAL;
	rc = tr_pcapng_write(c->w, ifid, ts_ns, data, len, orig);
	if (rc == 0)
		c->frames[ifid]++;
	return rc;
}

void
dp_capture_hold_free(struct dp_capture *c)
{
	free(c->held);
	c->held = NULL;
	c->held_len = c->held_cap = 0;
}

void
dp_capture_write(struct dp_engine *eng, int ifid, const struct rte_mbuf *m, dp_time_t t)
{
	struct dp_capture *c = eng->cap_ctx;
	const void *data;
	uint32_t len;
	int rc;

	if (c->until != 0 && t >= c->until)
		return;		/* trace.until: by the frame's emulated time, whatever the engines */
	if (eng->part != NULL) {
		dp_par_capture(eng, ifid, m, t);	/* merged in order (parallel.h) */
		return;
	}
	if (eng->rt != NULL)
		t = eng->rt->now(eng->rt->arg);	/* when it happened, not when it was due */
	len = rte_pktmbuf_pkt_len(m);
	if (len > c->snaplen)
		len = c->snaplen;
	if (c->hold) {
		rc = hold(c, ifid, t, m, len);
		if (rc != 0)
			dp_engine_fail(eng, rc, "trace: out of memory for the records held to the "
				       "run's end");
		return;
	}
	if (len <= rte_pktmbuf_data_len(m))
		data = rte_pktmbuf_mtod(m, const void *);
	else	/* the headers and a payload segment (fpool.h): gathered */
		data = rte_pktmbuf_read(m, 0, len, c->gather);
	rc = tr_pcapng_write(c->w, (uint32_t)ifid, c->ts_base_ns + t / 1000, data, len,
			     rte_pktmbuf_pkt_len(m));
	if (rc != 0)
		dp_engine_fail(eng, rc, "trace: writing interface %s failed: %s", c->names[ifid],
			       strerror(-rc));
	else
		c->frames[ifid]++;
	if (c->tape != NULL)
		tape_add(c->tape, &(struct dp_cap_taped){ .t_ps = t, .ifid = (uint32_t)ifid,
			 .len = len, .orig = rte_pktmbuf_pkt_len(m),
			 .departure_ps = dp_mbuf_departure_ps(m) }, data);
}

/* Big-endian @p v into the @p n bytes at @p at of a record of @p len bytes (those within it). */
static void
put_be(uint8_t *rec, uint32_t len, uint32_t at, uint64_t v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (at + i < len)
			rec[at + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

int
dp_capture_replay(struct dp_capture *c, const struct dp_cap_tape *tape, dp_time_t shift,
		  uint32_t steps)
{
	size_t off = 0;
	int rc = 0;

	while (rc == 0 && off < tape->len) {
		const struct dp_cap_taped *r = (const struct dp_cap_taped *)(tape->buf + off);
		const uint8_t *b = tape->buf + off + sizeof(*r);
		uint8_t *f = c->gather;

		if (c->until != 0 && r->t_ps + shift >= c->until) {	/* (trace.until) */
			off += (sizeof(*r) + r->len + 7) & ~(size_t)7;
			continue;
		}
		memcpy(f, b, r->len);
		if (r->departure_ps != UINT64_MAX && r->len >= SM_SE_AT + 4 &&
		    sm_se_magic(f + SM_SE_AT) == SM_SE_MAGIC) {
			/* the step it belongs to, and when its sender queued it */
			put_be(f, r->len, SM_SE_AT + offsetof(struct sm_se_hdr, step),
			       sm_be_get(b + SM_SE_AT + offsetof(struct sm_se_hdr, step), 4) + steps,
			       4);
			put_be(f, r->len, SM_SE_AT + offsetof(struct sm_se_hdr, departure_ns),
			       (r->departure_ps + shift) / 1000, 8);
		}
		rc = dp_capture_put(c, r->ifid, c->ts_base_ns + (r->t_ps + shift) / 1000, f, r->len,
				    r->orig);
		off += (sizeof(*r) + r->len + 7) & ~(size_t)7;
	}
	return rc;
}

void
dp_capture_note(struct dp_engine *eng, const char *text, dp_time_t t)
{
	static const uint8_t head[42] = {
		/* Ethernet: to and from 02:53:45:ff:ff:ff, IPv4 */
		0x02, 0x53, 0x45, 0xff, 0xff, 0xff, 0x02, 0x53, 0x45, 0xff, 0xff, 0xff, 0x08, 0x00,
		/* IPv4 127.0.0.1 to itself, UDP; lengths and checksum filled below */
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
		/* UDP 47112 to 47112 */
		0xb8, 0x08, 0xb8, 0x08, 0, 0, 0, 0,
	};
	struct dp_capture *c = eng->cap_ctx;
	uint8_t buf[42 + 256];
	size_t n = strlen(text);
	uint32_t sum = 0;
	int i, id;

	if (c == NULL || c->w == NULL)
		return;
	/* notes are written whatever kinds are captured, whole whatever the snap length */
	for (id = 0; id < (int)c->nif && strcmp(c->names[id], "ctl") != 0; id++)
		;
	if (id == (int)c->nif) {
		if (c->nif == DP_CAP_IF_MAX ||
		    tr_pcapng_add_if_snap(c->w, "ctl", "notes: runtime changes (UDP 47112)",
					  TR_PCAPNG_SNAPLEN_MAX) < 0)
			return;
		snprintf(c->names[c->nif++], DP_CAP_NAME_MAX, "ctl");
	}
	if (n > 256)
		n = 256;
	memcpy(buf, head, sizeof(head));
	memcpy(buf + 42, text, n);
	buf[16] = (uint8_t)((20 + 8 + n) >> 8);
	buf[17] = (uint8_t)(20 + 8 + n);
	buf[38] = (uint8_t)((8 + n) >> 8);
	buf[39] = (uint8_t)(8 + n);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)buf[14 + i] << 8 | buf[15 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	buf[24] = (uint8_t)(~sum >> 8);
	buf[25] = (uint8_t)~sum;
	if (tr_pcapng_write(c->w, (uint32_t)id, c->ts_base_ns + t / 1000, buf, (uint32_t)(42 + n),
			    (uint32_t)(42 + n)) == 0)
		c->frames[id]++;
}
