/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bulk host (bulk.h): its TCP keeps each flow's send buffer full.  A flow is written a send
 * buffer's worth at a time, and again whenever every flow's writes are within their send
 * buffers (the TCP's "sent"), so TCP always has data to send: the flows are limited by their
 * windows alone, as iperf3's are.  What arrives from the previous data centre's host is only
 * counted (the TCP element's bytes in).
 *
 * Transfers (background.transport = tcp) go on connections of their own, after the bulk flows'
 * ids: each connection keeps its transfers in order with where each ends in its stream, and the
 * far host, as bytes arrive in order, completes those whose end it has reached.  A transfer's
 * write never holds the bulk flows' refill (dp_tcp_unwait()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ring.h"
#include "bulk.h"
#include "link.h"

#define XFER_QMIN 16

static void
write_all(struct dp_bulk *b, dp_time_t now)
{
	uint32_t k;

	for (k = 0; k < b->flows && !b->tcp.stopped; k++)
		if (dp_tcp_write(&b->tcp, b->nic, b->to * DP_BULK_FLOWS_MAX + k, b->chunk, 0, 0,
				 0, 0, now) < 0) {
			dp_engine_fail(b->tcp.e.eng, -ENOMEM, "%s: out of memory for its flows",
				       b->tcp.e.name);
			return;
		}
}

static void
bulk_sent(void *arg, dp_time_t now)
{
	write_all(arg, now);
}

/* Bytes of connection @p k of @p from arrived in order here: complete the transfers they end. */
static void
xfer_got(struct dp_bulk *b, struct dp_bulk *from, uint32_t k, uint64_t bytes, dp_time_t now)
{
	struct dp_bulk_conn *c = &from->conn[k];

	if (from->stopped)
		return;		/* counted unsent at the stop */
	c->got += bytes;
	while (c->qhead != c->qtail) {
		struct dp_bulk_xfer *x = &c->q[c->qhead & c->qmask];

		if (x->first == DP_NEVER && c->got > x->start)
			x->first = now;
		if (x->end > c->got)
			break;
		c->qhead++;
		if (dp_bgstats_add(from->stats, (double)(now - x->created) * 1e-12,
				   (double)(x->first - x->created) * 1e-12) != 0) {
			dp_engine_fail(b->tcp.e.eng, -ENOMEM, "%s: out of memory for its "
				       "transfers' times", b->tcp.e.name);
			return;
		}
	}
}

static void
bulk_got(void *arg, uint32_t src, uint32_t step, uint16_t round, bool ctl, uint64_t bytes,
	 dp_time_t now)
{
	struct dp_bulk *b = arg, *from = b->from;
	uint32_t k = src % DP_BULK_FLOWS_MAX;

	(void)step, (void)round, (void)ctl;
	if (from != NULL && from->conn != NULL && k >= from->flows && k - from->flows < from->conns)
		xfer_got(b, from, k - from->flows, bytes, now);
}

int
dp_bulk_xfer(struct dp_bulk *b, uint64_t bytes, dp_time_t now)
{
	struct dp_bulk_conn *c = NULL;
	uint64_t least = UINT64_MAX;
	uint32_t k, pick = 0, peer;
	int rc;

	if (b->conns == 0 || b->stopped)
		return b->stopped ? 0 : -EINVAL;
	for (k = 0; k < b->n_open; k++) {
		uint64_t left = b->conn[k].written - b->conn[k].got;

		if (b->conn[k].qhead == b->conn[k].qtail) {
			pick = k;
			least = 0;
			break;
		}
		if (left < least) {
			least = left;
			pick = k;
		}
	}
	if (least != 0 && b->n_open < b->conns)
		pick = b->n_open++;
	c = &b->conn[pick];
	if (c->q == NULL) {
		c->q = malloc(XFER_QMIN * sizeof(*c->q));
		if (c->q == NULL)
			return -ENOMEM;
		c->qmask = XFER_QMIN - 1;
	} else if (c->qtail - c->qhead > c->qmask) {
		struct dp_bulk_xfer *q = sm_ring_grow(c->q, &c->qmask, &c->qhead, &c->qtail,
						      sizeof(*q), 0, 0);

		if (q == NULL)
			return -ENOMEM;
		c->q = q;
	}
	c->q[c->qtail++ & c->qmask] = (struct dp_bulk_xfer){
		.start = c->written, .end = c->written + bytes, .created = now, .first = DP_NEVER,
	};
	c->written += bytes;
	peer = b->to * DP_BULK_FLOWS_MAX + b->flows + pick;
	rc = dp_tcp_write(&b->tcp, b->nic, peer, bytes, 0, 0, 0, 0, now);
	if (rc < 0)
		return rc;
	if (rc == 0)
		dp_tcp_unwait(&b->tcp, peer);
	return 0;
}

int
dp_bulk_init(struct dp_bulk *b, struct dp_engine *eng, const struct dp_bulk_params *p)
{
	struct dp_tcp_params tp = {
		.id = p->dc,
		.per_dc = p->per_dc,
		.mult = DP_BULK_FLOWS_MAX,
		.dst_mult = p->per_dc,
		.kind = DP_KIND_BULK,
		.addr_base = 220,
		.bg = true,
		.conf = p->conf,
		.mss = p->mss,
		.burst = p->burst,
		.nic = p->nic,
		.app = { .sent = bulk_sent, .got = bulk_got, .arg = b },
		.cap_tx = p->cap_tx,
		.cap_rx = p->cap_rx,
	};
	int rc;

	if (p->flows + p->conns > DP_BULK_FLOWS_MAX || (p->conns > 0 && p->stats == NULL))
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	rc = dp_tcp_init(&b->tcp, eng, p->name, &tp);
	if (rc != 0)
		return rc;
	b->to = p->to;
	b->flows = p->flows;
	b->nic = p->nic;
	/* past the send buffer: the write waits, and "sent" comes when it has room again */
	b->chunk = 2 * (uint64_t)(p->conf->sndbuf < 0 ? p->conf->wmem_max : p->conf->sndbuf) +
		   p->mss;
	b->stats = p->stats;
	if (p->conns > 0) {
		b->conn = calloc(p->conns, sizeof(*b->conn));
		if (b->conn == NULL) {
			dp_tcp_fini(&b->tcp);
			return -ENOMEM;
		}
		b->conns = p->conns;
	}
	return 0;
}

void
dp_bulk_start(struct dp_bulk *b, dp_time_t now)
{
	write_all(b, now);
}

void
dp_bulk_stop(struct dp_bulk *b)
{
	uint32_t k;

	for (k = 0; k < b->n_open && !b->stopped; k++)
		b->stats->unsent += b->conn[k].qtail - b->conn[k].qhead;
	b->stopped = true;
	dp_tcp_stop(&b->tcp);
}

void
dp_bulk_fini(struct dp_bulk *b)
{
	uint32_t k;

	for (k = 0; k < b->conns; k++)
		free(b->conn[k].q);
	free(b->conn);
	b->conn = NULL;
	dp_tcp_fini(&b->tcp);
}
