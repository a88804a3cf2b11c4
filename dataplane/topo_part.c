/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cutting the element graph into partitions (topology.h, parallel.h): which partition runs each
 * worker and switch, the partitions' engines and records, the barrier's copies, and every
 * element once by gid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "bulk.h"
#include "fpool.h"
#include "topo_impl.h"
#include "topology.h"
#include "wan.h"

static void
release(void *arg, uint32_t w, dp_time_t now)
{
	struct dp_topo *t = arg;

	dp_worker_release(&t->workers[w], now);
}

/* Every worker is done: the background hosts and the probe of the barrier's engine stop. */
static void
finish(void *arg, dp_time_t now)
{
	struct dp_topo *t = arg;
	uint32_t d;

	(void)now;
	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL && (t->par == NULL || t->bg[d].e.eng->part != NULL))
			dp_bghost_stop(&t->bg[d]);
	for (d = 0; t->bulk != NULL && d < t->d; d++)
		dp_bulk_stop(&t->bulk[d]);
	if (t->probe != NULL)
		dp_probe_stop(t->probe);
}

/* A partition's copy of finish(): its own hosts and probe (the others' are not its to touch). */
static void
finish_part(void *arg, dp_time_t now)
{
	struct dp_part *pt = arg;
	struct dp_topo *t = pt->par->topo;
	uint32_t d;

	(void)now;
	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL && t->bg[d].e.eng == &pt->eng)
			dp_bghost_stop(&t->bg[d]);
	if (pt->probe != NULL)
		dp_probe_stop(pt->probe);
}

/*
 * Which partition runs each worker and each switch (parallel.h).  Up to one partition per data
 * centre: whole data centres, in contiguous blocks, cut at the WAN links.  Beyond that each data
 * centre has a share of the partitions: its workers in contiguous groups, the switch with the
 * first group, cut at the workers' NIC links, the switch's links down to them and to their
 * modules.  Every partition has workers.  Returns the partitions used: fewer than asked if there
 * are fewer workers, or if a link to cut has no delay (nothing to look ahead by).
 */
uint32_t
dp_topo_assign(struct dp_topo *t, uint32_t np, bool in_net)
{
	uint32_t d, i, off = 0;

	if (np > t->w_count)
		np = t->w_count;
	if (np > t->d && (t->links.nic_delay == 0 || t->links.down_delay == 0 ||
			  (in_net && t->links.mlink_delay == 0)))
		np = t->d;
	for (d = 0; np > 1 && d < t->n_wan; d++)
		if (sm_wan_link_delay(t->shape, t->d, d, t->links.wan_delay) == 0)
			np = 1;		/* a WAN link to cut has no delay: one engine */
	for (d = 0; d < t->d; d++) {
		uint32_t k = np <= t->d ? 1 : np / t->d + (d < np % t->d);
		uint32_t first = np <= t->d ? d * np / t->d : off;

		t->part_sw[d] = first;
		for (i = 0; i < t->n; i++)
			t->part_w[d * t->n + i] = first + (uint32_t)((uint64_t)i * k / t->n);
		off += k;
	}
	if (t->n_sw > t->d)
		t->part_sw[t->d] = t->part_sw[0];	/* the star's core */
	return np;
}

/* Cut into @np partitions: the engines, their records and barriers' workers.  0 or -errno. */
int
dp_topo_partitions_make(struct dp_topo *t, const struct dp_topo_params *p, uint32_t np)
{
	const struct sm_program *prog = p->prog;
	uint32_t i, w, per;
	int rc;

	t->par = calloc(1, sizeof(*t->par));
	if (t->par == NULL)
		return -ENOMEM;
	/* a partition holds its workers' elements, a DC's shared ones, and cut links' far ends */
	per = 9 * ((t->w_count + np - 1) / np + t->n) + 6 * t->d + 4 + 2 * t->n_wan;
	rc = dp_par_init(t->par, np, per, p->pool, p->t0, p->cap);
	if (rc != 0) {
		free(t->par);
		t->par = NULL;
		return rc;
	}
	t->par->topo = t;
	t->par->rec = &t->rec;
	t->par->bg = &t->bgstats;
	t->cap_xin = 3 * t->w_count + t->n_wan;
	t->xin = dp_topo_zalloc_lines(t->cap_xin, sizeof(*t->xin));
	if (t->xin == NULL)
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		struct dp_part *pt = &t->par->p[i];
		struct dp_fpool_params fp;

		pt->eng.bytes = t->eng.bytes;
		if (i > 0 && pt->here && t->eng.bytes && p->pool != NULL &&
		    dp_fpool_params_of(p->pool, &fp) == 0) {
			/* a frame pool is one lcore's: each partition has its own like it */
			char pname[RTE_MEMPOOL_NAMESIZE];

			snprintf(pname, sizeof(pname), "part%u", i);
			pt->own_pool = dp_fpool_create(pname, &fp);
			if (pt->own_pool == NULL)
				return -rte_errno;
			pt->eng.pool = pt->own_pool;
		}
		pt->who = calloc(t->w_count, sizeof(*pt->who));
		if (pt->who == NULL)
			return -ENOMEM;
		for (w = 0; w < t->w_count; w++)
			if (t->part_w[w] == i)
				pt->who[pt->n_who++] = w;
		/* every step held: merged into the run's record once all partitions have it */
		rc = dp_record_init(&pt->rec, p->steps, prog->n, pt->n_who, true,
				    p->pk->sync != SM_SYNC_NONE);
		if (rc != 0)
			return rc;
		pt->rec.t0 = p->t0;
		pt->rec.last_end = p->t0;
		pt->rec.budget = prog->budget;
		pt->bg.on_done = dp_par_transfer;
		pt->bg.arg = pt;
	}
	return 0;
}

/* The barrier, last of all elements (its id the largest): one, or a copy per partition. */
int
dp_topo_barriers_make(struct dp_topo *t)
{
	uint32_t i, g;
	int rc;

	if (t->par == NULL) {
		rc = dp_barrier_init(&t->barrier, &t->eng, "barrier", t->n_local, t->local_w);
		t->barrier.release = release;
		t->barrier.finish = finish;
		t->barrier.arg = t;
		t->barrier.finish_arg = t;
		return rc;
	}
	g = t->par->gid_next;
	for (i = 0; i < t->par->n; i++) {
		struct dp_part *pt = &t->par->p[i];

		t->par->gid_next = g;	/* every copy has the barrier's id */
		rc = dp_barrier_init(&pt->bar, &pt->eng, "barrier", pt->n_who, pt->who);
		if (rc != 0)
			return rc;
		pt->bar.release = release;
		pt->bar.finish = finish_part;
		pt->bar.arg = t;
		pt->bar.finish_arg = pt;
		pt->bar.local_done = dp_par_local_done;
		pt->bar.local_arg = pt;
	}
	t->par->gid_next = g + 1;
	return 0;
}

/*
 * Every element once, by gid: one engine's list, or the partitions' merged (a cut link's far
 * end is its link's; copies of the barrier and the probe are one).
 */
int
dp_topo_all_make(struct dp_topo *t)
{
	uint32_t n = 0, i, *at;

	if (t->par == NULL) {
		t->all = malloc(t->eng.n * sizeof(*t->all));
		if (t->all == NULL)
			return -ENOMEM;
		memcpy(t->all, t->eng.elems, t->eng.n * sizeof(*t->all));
		t->n_all = t->eng.n;
		return 0;
	}
	t->all = calloc(t->par->gid_next, sizeof(*t->all));
	at = calloc(t->par->n, sizeof(*at));
	if (t->all == NULL || at == NULL) {
		free(at);
		return -ENOMEM;
	}
	for (;;) {	/* each partition's elements are in gid order: a merge */
		struct dp_elem *best = NULL;

		for (i = 0; i < t->par->n; i++) {
			const struct dp_engine *e = &t->par->p[i].eng;

			while (at[i] < e->n && e->elems[at[i]]->ops == &dp_xin_ops)
				at[i]++;
			if (at[i] < e->n && (best == NULL || e->elems[at[i]]->gid < best->gid))
				best = e->elems[at[i]];
		}
		if (best == NULL)
			break;
		for (i = 0; i < t->par->n; i++) {
			const struct dp_engine *e = &t->par->p[i].eng;

			if (at[i] < e->n && e->elems[at[i]]->gid == best->gid)
				at[i]++;	/* its copies */
		}
		t->all[n++] = best;
	}
	free(at);
	t->n_all = n;
	return 0;
}
