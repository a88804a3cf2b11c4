/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Changing a running topology.
 *
 * The new value is checked with the model's own checks (sm_params_check on a copy, and the
 * packet topology's sm_links_build) before anything changes; then the module stages, the port
 * caps, the WAN links and the background hosts take their new rates from sm_links_build, the same
 * derivation the topology was built with, so a change mid-run is the run the new scenario would
 * have been from that instant.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "../models/kernel.h"
#include "../models/packet.h"
#include "capture.h"
#include "kernel_prog.h"
#include "topology.h"
#include "tune.h"

static double *
field(struct sm_params *m, enum dp_param p)
{
	switch (p) {
	case DP_P_BUDGET_LOW:
		return &m->mod.budget[SM_BUDGET_LOW];
	case DP_P_BUDGET_HIGH:
		return &m->mod.budget[SM_BUDGET_HIGH];
	case DP_P_PLANES:
		return &m->mod.planes;
	case DP_P_LAT_PLUGGABLE:
		return &m->mod.latency_port;
	case DP_P_LAT_NETWORK:
		return &m->mod.latency_network;
	case DP_P_MOD_PORT:
		return &m->mod.port_bw;
	case DP_P_FPGA_RATE:
		return &m->mod.fpga_rate;
	case DP_P_WAN_BW:
		return &m->wan.bw;
	case DP_P_WAN_LAT:
		return &m->wan.lat;
	default:
		return NULL;
	}
}

double
dp_param_get(const struct sm_params *model, enum dp_param p)
{
	double *f = field((struct sm_params *)model, p);

	return f != NULL ? *f : NAN;
}

int
dp_param_set(struct sm_params *model, enum dp_param p, double value)
{
	double *f = (unsigned int)p < DP_P_COUNT ? field(model, p) : NULL;

	if (f == NULL)
		return -EINVAL;
	*f = value;
	return 0;
}

/* The rates of the background hosts for a load. */
static void
retune_background(struct dp_topo *t, double load, dp_time_t now)
{
	uint32_t d;

	t->bg_load = load;
	for (d = 0; t->bg != NULL && d < t->d; d++) {
		struct dp_bghost *h = &t->bg[d];

		if (h->link == NULL || !dp_topo_here(t, d))
			continue;	/* no host, or the other process runs it */
		dp_bghost_set_rate(h, load * (double)t->links.wan_bw / h->sizes->mean, now);
	}
}

int
dp_topo_tune(struct dp_topo *t, struct sm_params *model, int budget_kind, enum dp_param p,
	     double value, dp_time_t now, double *old, struct dp_tune_why *why)
{
	struct sm_params next = *model;
	struct sm_links l;
	double *f, budget;
	uint32_t w, d;
	int s;

	if ((unsigned int)p >= DP_P_COUNT || !isfinite(value)) {
		snprintf(why->msg, sizeof(why->msg), "not a value that can change during a run");
		return -EINVAL;
	}
	if (p == DP_P_WAN_QUEUE) {
		*old = t->wan != NULL && t->n_wan > 0 ? (double)t->wan[0].cap_bytes : 0;
		if (!(value > 0) || value > 0x1p62) {
			snprintf(why->msg, sizeof(why->msg), "%g not a queue limit in bytes", value);
			why->named = true;
			why->param = p;
			return -EINVAL;
		}
		/* frames already queued stay; the limit holds for the frames that come */
		for (d = 0; t->wan != NULL && d < t->n_wan; d++)
			t->wan[d].cap_bytes = (uint64_t)value;
		return 0;
	}
	if (p == DP_P_IMP_LOSS || p == DP_P_IMP_JITTER) {
		bool loss = p == DP_P_IMP_LOSS;

		*old = loss ? t->imp_loss : t->imp_jitter;
		why->named = true;
		why->param = p;
		if (!(value >= 0) || (loss && value > 1) || (!loss && value > 3600)) {
			snprintf(why->msg, sizeof(why->msg), loss ? "%g is not a probability" :
				 "%g s is not a jitter", value);
			return -EINVAL;
		}
		for (d = 0; t->wan != NULL && d < t->n_wan; d++) {
			int rc = dp_link_impair_live(&t->wan[d], loss ? value : NAN,
						     loss ? NAN : value, t->imp_seed);

			if (rc != 0) {
				snprintf(why->msg, sizeof(why->msg), rc == -EINVAL ?
					 "%s is cut between partitions: jitter could bring a frame "
					 "sooner than its far end's partition allows (run.partitions "
					 "= 1)" : "%s: out of memory", t->wan[d].e.name);
				return rc;
			}
		}
		*(loss ? &t->imp_loss : &t->imp_jitter) = value;
		return 0;
	}
	if (p == DP_P_BG_LOAD) {
		*old = t->bg_load;
		if (!(value >= 0 && value < 1)) {
			snprintf(why->msg, sizeof(why->msg), "%g not in [0, 1)", value);
			why->named = true;
			why->param = p;
			return -EINVAL;
		}
		if (t->bg == NULL) {
			snprintf(why->msg, sizeof(why->msg),
				 "this run has no background hosts (it started at load 0)");
			return -ENOTSUP;
		}
		retune_background(t, value, now);
		return 0;
	}
	f = field(&next, p);
	*old = *f;
	*f = value;
	if (sm_params_check(&next, why->msg, sizeof(why->msg)) != 0)
		return -EINVAL;
	budget = budget_kind >= 0 ? sm_budget_value(&next.mod, (enum sm_budget)budget_kind) : 0;
	if (sm_links_build(&next, budget, &l, why->msg, sizeof(why->msg)) != 0)
		return -EINVAL;
	*model = next;
	t->links = l;
	if (budget_kind >= 0)
		t->rec.budget = budget;
	for (w = 0; t->mod != NULL && w < t->w_count; w++) {
		struct dp_module *m = &t->mod[w];

		for (s = 0; s < SM_STAGE_COUNT; s++)
			m->stage_bw[s] = l.stage_bw[s];
		m->slowest = SM_STAGE_PORT;
		for (s = 0; s < SM_STAGE_COUNT; s++)
			if (m->stage_bw[s] > 0 && m->stage_bw[s] < m->stage_bw[m->slowest])
				m->slowest = s;
		m->latency = t->port != NULL ? l.mod_latency_port : l.mod_latency_network;
		if (m->kernel != NULL) {
			dp_kernel_rates(&next.mod, budget, m->op_rate);
			m->planes = (uint32_t)(next.mod.planes + 0.5);
		}
	}
	for (w = 0; t->port != NULL && w < t->w_count; w++) {
		t->port[w].bw = l.port_bw;
		t->port[w].last_charge = UINT32_MAX;
	}
	for (d = 0; t->wan != NULL && d < t->n_wan; d++) {
		t->wan[d].bw = l.wan_bw;
		t->wan[d].delay = sm_wan_link_delay(t->shape, t->d, d, l.wan_delay);
		t->wan[d].last_charge = UINT32_MAX;
	}
	if (p == DP_P_WAN_BW)
		retune_background(t, t->bg_load, now);	/* the load is a fraction of the rate */
	return 0;
}

bool
dp_change_add(struct dp_change **v, uint32_t *n, uint32_t *cap, const struct dp_change *c)
{
	if (*n == *cap) {
		uint32_t room = *cap ? 2 * *cap : 16;
		struct dp_change *nv = realloc(*v, room * sizeof(*nv));

		if (nv == NULL)
			return false;
		*v = nv;
		*cap = room;
	}
	(*v)[(*n)++] = *c;
	return true;
}

void
dp_tune_serve(const struct dp_tune_target *tg, struct dp_tune_req *req, dp_time_t now)
{
	struct dp_tune_resp *resp = calloc(1, sizeof(*resp));
	struct dp_tune_why why = { .named = false };
	double old = 0;
	int r;

	r = tg->tune(tg->arg, req->param, req->value, now, &old, &why);
	if (r == 0 && tg->keep(tg->arg, req->param, old, req->value, now)) {
		char note[160];

		snprintf(note, sizeof(note), "syncemu set %s %.12g (was %.12g) in %s",
			 req->key != NULL ? req->key : "?", req->value, old, tg->where);
		dp_capture_note(tg->eng, note, now);
		dp_status_publish(tg->status, req->param, req->value);
		atomic_fetch_add(&tg->status->changes, 1);
	}
	if (resp != NULL) {
		resp->id = req->id;
		resp->rc = r;
		resp->run_id = tg->run_id;
		resp->at = now;
		resp->old = old;
		if (r != 0) {
			memcpy(resp->msg, why.msg, sizeof(resp->msg));
			resp->named = why.named;
			resp->param = why.param;
			resp->takes = why.takes;
		}
		if (rte_ring_enqueue(tg->resp, resp) != 0)
			free(resp);	/* nobody is reading: never wait for the control plane */
	}
	free(req);
}

void
dp_status_link_update(struct dp_status_link *sl, const struct dp_link *l, dp_time_t now)
{
	/* qbytes as of the link's last event (it is advanced lazily, by the link's own events) */
	atomic_store_explicit(&sl->frames, l->e.c.tx, memory_order_relaxed);
	atomic_store_explicit(&sl->bytes, l->e.c.tx_bytes, memory_order_relaxed);
	atomic_store_explicit(&sl->drops, l->e.c.drop, memory_order_relaxed);
	atomic_store_explicit(&sl->drops_bg, l->bg_drop, memory_order_relaxed);
	atomic_store_explicit(&sl->drops_tcp, l->tcp_drop, memory_order_relaxed);
	atomic_store_explicit(&sl->drops_real, l->raw_drop, memory_order_relaxed);
	atomic_store_explicit(&sl->drops_aqm, l->aqm_drop, memory_order_relaxed);
	atomic_store_explicit(&sl->lost, l->lost, memory_order_relaxed);
	atomic_store_explicit(&sl->marked, l->marked, memory_order_relaxed);
	atomic_store_explicit(&sl->qbytes, l->qbytes, memory_order_relaxed);
	atomic_store_explicit(&sl->max_qbytes, l->max_qbytes, memory_order_relaxed);
	/* the serialiser's time up to now: what it has done, less what it is yet to do */
	atomic_store_explicit(&sl->busy_ps, l->busy > now && l->busy_ps > l->busy - now ?
			      l->busy_ps - (l->busy - now) : l->busy_ps, memory_order_relaxed);
}
