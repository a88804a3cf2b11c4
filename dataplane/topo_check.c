/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks at the end of a run (topology.h): every element's invariants and the frames'
 * conservation over the graph; with ranks, the elements' counters and the run's outcome agreed
 * between them first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mempool.h>

#include "fpool.h"
#include "ranks.h"
#include "topology.h"

/* rx = tx + drop + held, and nothing held at the end. */
static int
check_elem(const struct dp_elem *e, char *err, size_t errlen)
{
	uint64_t held = e->ops->held(e);

	if (held != 0) {
		snprintf(err, errlen, "invariant: %s %s still holds %" PRIu64 " frames at the end",
			 e->ops->kind, e->name, held);
		return -EPROTO;
	}
	if (e->c.rx != e->c.tx + e->c.drop) {
		snprintf(err, errlen, "invariant: %s %s received %" PRIu64 " frames but sent %"
			 PRIu64 " and dropped %" PRIu64, e->ops->kind, e->name, e->c.rx, e->c.tx,
			 e->c.drop);
		return -EPROTO;
	}
	return 0;
}

int
dp_topo_check(const struct dp_topo *t, char *err, size_t errlen)
{
	uint64_t made = 0, got = 0, consumed = 0, dropped = 0, wire_in = 0, wire_out = 0;
	uint32_t i;
	int rc;

	for (i = 0; t->dc_port != NULL && i < t->d; i++)
		if (t->dc_port[i] != NULL) {
			wire_in += t->dc_port[i]->rx;
			wire_out += t->dc_port[i]->tx;
		}
	for (i = 0; i < t->n_link_ports; i++) {
		wire_in += t->link_port[i].rx->rx;
		wire_out += t->link_port[i].tx->tx;
	}
	for (i = 0; i < t->w_count; i++) {
		const struct dp_worker *w = &t->workers[i];

		if (!dp_topo_here(t, i / t->n))
			continue;	/* another process runs it */
		if (w->state != DP_W_DONE && (t->par == NULL || t->par->p[t->part_w[i]].here)) {
			char where[240];

			dp_topo_waiting(t, where, sizeof(where));
			snprintf(err, errlen, "the run stalled: %s", where);
			return -EPROTO;
		}
		made += w->e.c.tx;
		got += w->e.c.rx - w->e.c.drop;
		dropped += w->e.c.drop;
	}
	for (i = 0; i < t->n_xin; i++) {	/* cut links' far ends: the link counts */
		if (t->xin[i].tail != t->xin[i].head) {
			snprintf(err, errlen, "invariant: the far end of link %s still holds %u "
				 "frames at the end", t->xin[i].e.name,
				 t->xin[i].tail - t->xin[i].head);
			return -EPROTO;
		}
	}
	for (i = 0; i < t->n_all; i++) {
		const struct dp_elem *e = t->all[i];

		if (strcmp(e->ops->kind, "worker") == 0)
			continue;
		if (strcmp(e->ops->kind, "bghost") == 0) {
			made += e->c.tx;	/* a source */
			continue;
		}
		if (strcmp(e->ops->kind, "tcp") == 0) {	/* a worker's TCP: source and sink */
			made += e->c.tx;
			got += e->c.rx - e->c.drop;
			dropped += e->c.drop;
			continue;
		}
		rc = check_elem(e, err, errlen);
		if (rc != 0)
			return rc;
		dropped += e->c.drop;
		if (e->ops == &dp_link_ops)	/* a duplicate is a frame its wire made */
			made += ((const struct dp_link *)e)->duplicated;
		if (strcmp(e->ops->kind, "module") == 0 || strcmp(e->ops->kind, "sink") == 0)
			consumed += e->c.tx;
	}
	if (made + wire_in != got + consumed + dropped + wire_out) {
		snprintf(err, errlen, "invariant: workers made %" PRIu64 " frames and %" PRIu64
			 " came in through ports; received %" PRIu64 ", modules consumed %" PRIu64
			 ", dropped %" PRIu64 ", %" PRIu64 " went out through ports", made, wire_in,
			 got, consumed, dropped, wire_out);
		return -EPROTO;
	}
	if (t->eng.rt == NULL && t->eng.sync_wip != 0) {
		snprintf(err, errlen, "invariant: the sync's work in progress is %" PRId64 " at the "
			 "end, not 0 (frames made and not received, or events pending)",
			 t->eng.sync_wip);
		return -EPROTO;
	}
	for (i = 0; t->par != NULL && i < t->par->n; i++)
		if (t->par->p[i].own_pool != NULL &&
		    dp_fpool_frames_in_use(t->par->p[i].own_pool) != 0) {
			snprintf(err, errlen, "invariant: partition %u's frame pool has %" PRIu64
				 " frames taken at the end", i,
				 dp_fpool_frames_in_use(t->par->p[i].own_pool));
			return -EPROTO;
		}
	if (t->pool != NULL && rte_mempool_avail_count(t->pool) != t->pool->size) {
		snprintf(err, errlen, "invariant: the mbuf pool has %u of %u mbufs back",
			 rte_mempool_avail_count(t->pool), t->pool->size);
		return -EPROTO;
	}
	return 0;
}

/* An element's counters as they cross between ranks. */
struct wire_elem {
	uint32_t gid, pad;
	struct dp_counters c;
	uint64_t max_qbytes, fg_over, bg_drop, lost, reordered, corrupted, duplicated;
	uint64_t marked, aqm_drop;
	dp_time_t busy_ps;
	dp_time_t stage_busy[SM_STAGE_COUNT];
	struct dp_wait_summary wait[DP_WAIT_CLASSES];	/* a WAN link's, as its owner has them */
};

/* The element of @e's kind that holds more counters: a link's or a module's place, or -1. */
static int
mod_index(const struct dp_topo *t, const struct dp_elem *e)
{
	uintptr_t d;

	if (t->mod == NULL || (uintptr_t)e < (uintptr_t)&t->mod[0].e)
		return -1;
	d = (uintptr_t)e - (uintptr_t)&t->mod[0].e;
	if (d % sizeof(t->mod[0]) != 0 || d / sizeof(t->mod[0]) >= t->w_count)
		return -1;
	return (int)(d / sizeof(t->mod[0]));
}

int
dp_topo_gather_end(struct dp_topo *t)
{
	struct wire_elem *mine = NULL;
	uint8_t *all = NULL;
	size_t cap = 0, *lens = NULL, n = 0, total = 0;
	int rc;

	if (t->par != NULL && t->par->rt_on) {
		dp_par_rt_halt(t->par);		/* real time: what the lcores ran, now this one's */
		dp_topo_par_view(t);
	} else if (t->par != NULL && t->eng.rt != NULL) {
		dp_topo_par_view(t);
	}
	if (t->par == NULL || t->par->nranks == 1)
		return 0;
	rc = dp_par_gather_end(t->par);
	mine = calloc(t->n_all ? t->n_all : 1, sizeof(*mine));
	lens = calloc((size_t)t->par->nranks, sizeof(*lens));
	if ((mine == NULL || lens == NULL) && rc == 0)
		rc = -ENOMEM;
	for (uint32_t i = 0; mine != NULL && i < t->n_all; i++) {
		const struct dp_elem *e = t->all[i];
		struct wire_elem *w = &mine[n];
		int m;

		if (e == NULL || e->eng->part == NULL || !e->eng->part->here)
			continue;
		n++;
		w->gid = e->gid;
		w->c = e->c;
		if (e->ops == &dp_link_ops) {
			const struct dp_link *l = (const struct dp_link *)e;

			w->max_qbytes = l->max_qbytes;
			w->fg_over = l->fg_over;
			w->bg_drop = l->bg_drop;
			w->lost = l->lost;
			w->reordered = l->reordered;
			w->corrupted = l->corrupted;
			w->duplicated = l->duplicated;
			w->marked = l->marked;
			w->aqm_drop = l->aqm_drop;
			w->busy_ps = l->busy_ps;
			if (l->wait != NULL)
				dp_link_wait_summary(l, w->wait);
		}
		m = mod_index(t, e);
		if (m >= 0)
			memcpy(w->stage_busy, t->mod[m].stage_busy, sizeof(w->stage_busy));
	}
	/* every rank takes part, whatever failed here */
	{
		int rc2 = dp_ranks_allgatherv(mine, rc == 0 ? n * sizeof(*mine) : 0, &all, &cap,
					      lens);

		if (rc == 0)
			rc = rc2;
	}
	for (int r = 0; rc == 0 && r < t->par->nranks; r++)
		total += lens[r];
	for (size_t at = 0; rc == 0 && at + sizeof(struct wire_elem) <= total;
	     at += sizeof(struct wire_elem)) {
		struct wire_elem w;
		struct dp_elem *e;
		int m;

		memcpy(&w, all + at, sizeof(w));
		if (w.gid >= t->n_all || t->all[w.gid] == NULL) {
			rc = -EPROTO;
			break;
		}
		e = t->all[w.gid];
		if (e->eng->part != NULL && e->eng->part->here)
			continue;
		e->c = w.c;
		if (e->ops == &dp_link_ops) {
			struct dp_link *l = (struct dp_link *)e;

			l->max_qbytes = w.max_qbytes;
			l->fg_over = w.fg_over;
			l->bg_drop = w.bg_drop;
			l->lost = w.lost;
			l->reordered = w.reordered;
			l->corrupted = w.corrupted;
			l->duplicated = w.duplicated;
			l->marked = w.marked;
			l->aqm_drop = w.aqm_drop;
			l->busy_ps = w.busy_ps;
			if (l->wait != NULL) {
				l->wait->given = true;
				memcpy(l->wait->from, w.wait, sizeof(w.wait));
			}
		}
		m = mod_index(t, e);
		if (m >= 0)
			memcpy(t->mod[m].stage_busy, w.stage_busy, sizeof(w.stage_busy));
	}
	free(all);
	free(lens);
	free(mine);
	return rc;
}

struct wire_outcome {
	int32_t rc;
	char err[500];
};

int
dp_topo_agree(const struct dp_topo *t, int rc, char *err, size_t errlen)
{
	struct wire_outcome mine = { .rc = rc };
	uint8_t *all = NULL;
	size_t cap = 0, *lens;
	int out = rc;

	if (t->par == NULL || t->par->nranks == 1)
		return rc;
	lens = calloc((size_t)t->par->nranks, sizeof(*lens));
	if (lens == NULL)
		return rc != 0 ? rc : -ENOMEM;	/* the others wait: mpirun ends them */
	if (rc != 0)
		snprintf(mine.err, sizeof(mine.err), "%s", err);
	if (dp_ranks_allgatherv(&mine, sizeof(mine), &all, &cap, lens) != 0) {
		if (out == 0) {
			snprintf(err, errlen, "the ranks could not agree on the run's outcome");
			out = -EIO;
		}
	} else {
		for (int r = 0; r < t->par->nranks; r++) {
			struct wire_outcome w;

			memcpy(&w, all + (size_t)r * sizeof(w), sizeof(w));
			if (w.rc == 0)
				continue;
			out = w.rc;
			w.err[sizeof(w.err) - 1] = '\0';
			if (r == t->par->rank)
				break;	/* its own message is in err */
			snprintf(err, errlen, "rank %d: %s", r, w.err);
			break;
		}
	}
	free(all);
	free(lens);
	return out;
}