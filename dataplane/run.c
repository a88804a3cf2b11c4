/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a variant on the data plane: build the graph, run the calendar, read the record.
 *
 * The share each resource held in a step follows the model's rule (a round is charged to the
 * resource its fluid term is charged to; the module to its busiest stage), applied to the
 * emulated times: the compute span, then each round's span between the last worker's end of the
 * previous round and the last worker's end of this one.  With phase sync these spans add up to
 * the step exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/variant.h"
#include "run.h"
#include "topology.h"

#define WATCHDOG UINT64_C(10000000000000)	/* 10 s of virtual time without a step */

static const enum sm_resource stage_res[SM_STAGE_COUNT] = {
	SM_RES_MOD_OPTICS, SM_RES_MOD_COMPUTE, SM_RES_MOD_FPGA, SM_RES_MOD_PORT,
};

struct watch {
	const struct dp_topo *t;
	uint32_t seen;
};

static bool
step_finished(void *arg)
{
	struct watch *wt = arg;

	return wt->t->rec.steps_done != wt->seen;
}

static void
fill_steps(const struct dp_topo *t, const struct sm_program *prog, dp_time_t t0,
	   enum sm_resource module_res, struct dp_run_result *res)
{
	const struct dp_record *rec = &t->rec;
	dp_time_t prev = t0;
	uint32_t s, r;

	for (s = 0; s < rec->steps_done; s++) {
		struct dp_step_result *sr = &res->step[s];
		dp_time_t mark = rec->compute_end[s];
		double span[SM_RES_COUNT] = { 0 }, total;
		int k;

		sr->end = rec->step_end[s];
		sr->time = sr->end - prev;
		sr->frames = rec->frames[s];
		span[SM_RES_COMPUTE] += (double)(mark > prev ? mark - prev : 0);
		for (r = 0; r < prog->n; r++) {
			dp_time_t end = rec->round_end[(size_t)s * prog->n + r];
			enum sm_resource res_r = prog->r[r].res;
			dp_time_t from = mark;

			if (prog->r[r].hop == SM_HOP_MODULE) {
				res_r = module_res;
				if (rec->gathered[s] > mark && rec->gathered[s] <= end) {
					span[SM_RES_INTRA] += (double)(rec->gathered[s] - mark);
					from = rec->gathered[s];
				}
			}
			span[res_r] += (double)(end > from ? end - from : 0);
			if (end > mark)
				mark = end;
		}
		total = 0;
		for (k = 0; k < SM_RES_COUNT; k++)
			total += span[k];
		for (k = 0; k < SM_RES_COUNT; k++)
			sr->share[k] = total > 0 ? span[k] / total : 0;
		prev = sr->end;
	}
}

/* Move the background's records and the queue samples into the result. */
static void
take_background(struct dp_topo *t, struct dp_run_result *res)
{
	uint32_t i;

	res->bg = t->bgstats;
	memset(&t->bgstats, 0, sizeof(t->bgstats));
	if (t->probe == NULL)
		return;
	res->q_links = t->probe->nlinks;
	for (i = 0; i < t->probe->nlinks; i++)
		snprintf(res->q_names[i], sizeof(res->q_names[i]), "%s", t->probe->links[i]->e.name);
	res->q_n = t->probe->n;
	res->q_t = t->probe->t;
	res->q_bytes = t->probe->bytes;
	t->probe->t = NULL;
	t->probe->bytes = NULL;
}

static int
summarise(const struct dp_topo *t, struct dp_run_result *res)
{
	dp_time_t dur = res->t_end > res->t_start ? res->t_end - res->t_start : 1;
	uint32_t i;

	res->elems = calloc(t->eng.n, sizeof(*res->elems));
	if (res->elems == NULL)
		return -ENOMEM;
	res->n_elems = t->eng.n;
	for (i = 0; i < t->eng.n; i++) {
		const struct dp_elem *e = NULL;
		struct dp_elem_summary *es = &res->elems[i];
		uint32_t j;

		for (j = 0; j < t->eng.n; j++)	/* in id order, not heap order */
			if (t->eng.heap[j]->id == i)
				e = t->eng.heap[j];
		snprintf(es->name, sizeof(es->name), "%s", e->name);
		es->kind = e->ops->kind;
		es->rx = e->c.rx;
		es->tx = e->c.tx;
		es->drop = e->c.drop;
		res->drops += e->c.drop;
		if (e->ops == &dp_link_ops) {
			const struct dp_link *l = (const struct dp_link *)e;

			es->max_qbytes = l->max_qbytes;
			es->util = (double)l->busy_ps / (double)dur;
			es->fg_over = l->fg_over;
			es->bg_drop = l->bg_drop;
		}
	}
	return 0;
}

int
dp_run(const struct dp_run_params *p, struct dp_run_result *res, char *err, size_t errlen)
{
	struct sm_program *prog;
	struct dp_topo *t;
	struct watch wt;
	enum sm_resource module_res;
	int rc;

	memset(res, 0, sizeof(*res));
	prog = malloc(sizeof(*prog));
	t = malloc(sizeof(*t));
	res->step = calloc(p->steps ? p->steps : 1, sizeof(*res->step));
	if (prog == NULL || t == NULL || res->step == NULL) {
		free(prog);
		free(t);
		dp_run_result_free(res);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = sm_program_build(p->model, p->var, p->budget, prog);
	if (rc != 0) {
		snprintf(err, errlen, "the model cannot build the program of %s: %s",
			 sm_variant_name(p->var), strerror(-rc));
		goto out;
	}
	{
		struct dp_topo_params tp = {
			.model = p->model, .pk = p->pk, .prog = prog, .run_id = p->run_id,
			.steps = p->steps, .q_nic = p->q_nic, .q_port = p->q_port,
			.q_sw = p->q_sw, .q_wan = p->q_wan, .cap = p->cap, .pool = p->pool,
			.t0 = p->t0, .bg = p->bg,
		};

		rc = dp_topo_build(t, &tp, err, errlen);
		if (rc != 0)
			goto out;
	}
	res->t_start = p->t0;
	dp_topo_start(t, p->bg_only > 0);
	wt.t = t;
	wt.seen = 0;
	if (p->bg_only > 0) {
		/* background alone for a while, then it stops and drains */
		rc = dp_engine_run(&t->eng, p->t0 + p->bg_only, NULL, NULL);
		dp_topo_stop(t);
		if (rc == 0)
			rc = dp_engine_run(&t->eng, DP_NEVER, NULL, NULL);
	}
	while (p->bg_only == 0) {
		/* a watchdog: background and the probe never run out of events, so a sync that
		 * makes no step for WATCHDOG of virtual time has stalled */
		rc = dp_engine_run(&t->eng, t->eng.now + WATCHDOG, step_finished, &wt);
		if (rc != 0 || t->rec.steps_done == wt.seen)
			break;
		wt.seen = t->rec.steps_done;
		if (p->progress != NULL)
			p->progress(p->progress_arg, wt.seen, p->steps, t->rec.frames[wt.seen - 1]);
		if (wt.seen == p->steps) {
			/* the sync is done: background stops, what is in flight drains */
			dp_topo_stop(t);
			rc = dp_engine_run(&t->eng, DP_NEVER, NULL, NULL);
			break;
		}
	}
	if (p->bg_only == 0 && wt.seen != p->steps)
		dp_topo_stop(t);	/* stalled or failed: the background stops too */
	res->t_end = t->eng.now;
	res->events = t->eng.events;
	if (rc != 0) {
		snprintf(err, errlen, "%s", t->eng.errmsg);
	} else {
		rc = dp_topo_check(t, err, errlen);
	}
	module_res = prog->module_res;
	if (t->mod != NULL) {
		dp_time_t busy[SM_STAGE_COUNT] = { 0 };
		uint32_t w;
		int s;

		for (w = 0; w < t->w_count; w++)
			for (s = 0; s < SM_STAGE_COUNT; s++)
				busy[s] += t->mod[w].stage_busy[s];
		res->has_module = true;
		res->binding = SM_STAGE_OPTICS;
		for (s = 1; s < SM_STAGE_COUNT; s++)
			if (busy[s] > busy[res->binding])
				res->binding = (enum sm_stage)s;
		module_res = stage_res[res->binding];
	}
	res->steps = t->rec.steps_done;
	fill_steps(t, prog, p->t0, module_res, res);
	for (uint32_t s = 0; s < res->steps; s++)
		res->frames += res->step[s].frames;
	take_background(t, res);
	if (summarise(t, res) != 0 && rc == 0) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	dp_topo_free(t);
out:
	free(prog);
	free(t);
	if (rc != 0)
		dp_run_result_free(res);
	return rc;
}

void
dp_run_result_free(struct dp_run_result *res)
{
	free(res->step);
	free(res->elems);
	free(res->q_t);
	free(res->q_bytes);
	dp_bgstats_free(&res->bg);
	res->step = NULL;
	res->elems = NULL;
	res->q_t = NULL;
	res->q_bytes = NULL;
}

uint32_t
dp_run_pool_need(const struct dp_run_params *p)
{
	struct sm_program *prog = malloc(sizeof(*prog));
	uint32_t w_count = sm_workers(p->model), n = p->model->topo.per_dc;
	uint64_t need = 0, frame = SM_HDR_BYTES + p->pk->payload, wan_round = 0, dense = 0;
	uint32_t i;

	if (prog == NULL || sm_program_build(p->model, p->var, p->budget, prog) != 0) {
		free(prog);
		return 0;
	}
	for (i = 0; i < prog->n; i++) {
		uint64_t k = sm_frames(prog->r[i].bytes, p->pk->payload, NULL);

		if (prog->r[i].hop == SM_HOP_WAN && k * n > wan_round)
			wan_round = k * n;
		if (prog->r[i].hop == SM_HOP_MODULE && prog->plan.placement == SM_PLACE_NETWORK)
			dense = k;
	}
	free(prog);
	/* a round of the sync in each WAN queue (above the limit if its class is lossless) and
	 * background up to the limit */
	if (!p->bg.fg_lossless && wan_round > p->q_wan / frame + 1)
		wan_round = p->q_wan / frame + 1;
	if (p->bg.load > 0)
		wan_round += p->q_wan / frame + 1;
	/* bursts and frames in flight on each worker's hops, rounds overlapping without sync */
	need = (uint64_t)w_count * (4 * p->pk->burst + 64);
	need += wan_round * p->model->topo.n_dc + (uint64_t)w_count * dense;
	need += need / 4 + 1024;
	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}
