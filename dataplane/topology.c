/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the element graph and checking it at the end of a run.
 *
 * Elements are added in a fixed order (workers, port caps, NICs, switches, down links, module
 * links, WAN links, modules); their ids order events that fall on the same picosecond, so frames
 * reaching a switch at the same time from several NICs are queued in worker order, which is the
 * order the packet-level closed form assumes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mempool.h>

#include "kernel_prog.h"
#include "portcap.h"
#include "topology.h"
#include "wan.h"

static void
release(void *arg, uint32_t who, dp_time_t now)
{
	struct dp_topo *t = arg;

	dp_worker_release(&t->workers[t->local_w[who]], now);
}

/* Bytes each module takes per step: those of the program's module round. */
static uint64_t
module_bytes(const struct sm_program *prog)
{
	uint32_t i;

	for (i = 0; i < prog->n; i++)
		if (prog->r[i].hop == SM_HOP_MODULE)
			return prog->r[i].bytes;
	return 0;
}

/* The capture interface "<base><suffix>" of @kind, or -1. */
static int
point(struct dp_capture *cap, enum dp_cap_kind kind, const char *base, const char *suffix)
{
	char name[DP_CAP_NAME_MAX + 8];

	snprintf(name, sizeof(name), "%s%s", base, suffix);
	return dp_capture_point(cap, kind, name);
}

static int
add_link(struct dp_topo *t, struct dp_link *l, const struct dp_topo_params *p,
	 enum dp_cap_kind kind, const char *name, uint64_t bw, dp_time_t delay, uint64_t cap,
	 struct dp_elem *next)
{
	struct dp_link_params lp = {
		.name = name,
		.bw = bw,
		.delay = delay,
		.cap_bytes = cap,
		.account = p->pk->account,
		.next = next,
	};

	/* one after the other: the order of the trace's interfaces is part of the trace */
	lp.cap_in = point(p->cap, kind, name, ".in");
	lp.cap_out = point(p->cap, kind, name, ".out");
	return dp_link_init(l, &t->eng, &lp);
}

/* The link named @p name (wN.nic, wN.port, dcD>wN, dcD>mN); NULL: none in this run. */
static struct dp_link *
find_link(struct dp_topo *t, const char *name)
{
	char buf[32];
	uint32_t w;

	for (w = 0; w < t->w_count; w++) {
		snprintf(buf, sizeof(buf), "w%u.nic", w);
		if (strcmp(buf, name) == 0)
			return &t->nic[w];
		snprintf(buf, sizeof(buf), "dc%u>w%u", w / t->n, w);
		if (strcmp(buf, name) == 0)
			return &t->down[w];
		snprintf(buf, sizeof(buf), "dc%u>m%u", w / t->n, w);
		if (t->mlink != NULL && strcmp(buf, name) == 0)
			return &t->mlink[w];
		snprintf(buf, sizeof(buf), "w%u.port", w);
		if (t->port != NULL && strcmp(buf, name) == 0)
			return &t->port[w];
	}
	return NULL;
}

/*
 * Real time: what link @p lp->name delivers (when a frame reaches its far end) goes out of
 * port @p lp->tx; what comes in through @p lp->rx goes on to where the link led.  0, -ENOENT
 * (no such link), or -errno.
 */
static int
link_through_ports(struct dp_topo *t, const struct dp_topo_params *p,
		   const struct dp_topo_link_port *lp)
{
	struct dp_link *l = find_link(t, lp->name);
	struct dp_elem *to;
	char name[40];
	int rc;

	if (l == NULL)
		return -ENOENT;
	to = l->next;
	snprintf(name, sizeof(name), "%s.eth", lp->name);
	rc = dp_port_attach(lp->tx, &t->eng, lp->tx->name, NULL,
			    point(p->cap, DP_CAP_ETH, name, ".tx"), -1);
	if (rc == 0)
		rc = dp_port_attach(lp->rx, &t->eng, lp->rx->name, to, -1,
				    point(p->cap, DP_CAP_ETH, name, ".rx"));
	if (rc != 0)
		return rc;
	lp->tx->run_id = lp->rx->run_id = p->run_id;
	l->next = &lp->tx->e;
	return 0;
}

/* Background hosts on the loaded WAN directions, their sinks, and the WAN queue probe. */
static int
build_background(struct dp_topo *t, const struct dp_topo_params *p)
{
	const struct dp_bg_params *bg = &p->bg;
	struct dp_link *wl[DP_PROBE_LINKS];
	char name[32];
	uint32_t d, nl = 0;
	int rc;

	for (d = 0; t->wan != NULL && d < t->n_wan; d++)
		t->wan[d].fg_lossless = bg->fg_lossless;
	if (t->d > 1 && bg->probe_every > 0) {
		for (d = 0; d < t->n_wan && nl < DP_PROBE_LINKS; d++)
			wl[nl++] = &t->wan[d];
		t->probe = calloc(1, sizeof(*t->probe));
		if (t->probe == NULL)
			return -ENOMEM;
		rc = dp_probe_init(t->probe, &t->eng, "wanprobe", bg->probe_every, wl, nl);
		if (rc != 0)
			return rc;
	}
	t->bg_load = bg->load;
	if (t->d < 2 || !(bg->load > 0))
		return 0;
	t->bg = calloc(t->d, sizeof(*t->bg));
	t->bglink = calloc(t->d, sizeof(*t->bglink));
	t->sink = calloc(t->d, sizeof(*t->sink));
	if (t->bg == NULL || t->bglink == NULL || t->sink == NULL)
		return -ENOMEM;
	for (d = 0; d < t->d; d++) {
		uint32_t to = (d + 1) % t->d;
		struct dp_bghost_params hp = {
			.name = name, .id = d, .dst_first = to * t->n, .per_dc = t->n,
			.run_id = p->run_id,
			.rate = bg->load * (double)t->links.wan_bw / bg->sizes->mean,
			.sizes = bg->sizes, .seed = sm_rng_stream_seed(bg->seed, d),
			.payload = p->pk->payload, .burst = p->pk->burst, .link = &t->bglink[d],
			.stats = &t->bgstats,
		};
		int cin;

		snprintf(name, sizeof(name), "dc%u.sink", d);
		cin = point(p->cap, DP_CAP_BG, name, ".rx");
		rc = dp_sink_init(&t->sink[d], &t->eng, name, &t->bgstats, bg->host_bw,
				  t->links.nic_delay, t->links.wan_bw, t->links.wan_delay,
				  p->pk->account, cin);
		if (rc != 0)
			return rc;
		t->sw[d].to_sink = &t->sink[d].e;
		if (d >= bg->directions)
			continue;	/* this direction carries no background */
		snprintf(name, sizeof(name), "bg%u.nic", d);
		rc = add_link(t, &t->bglink[d], p, DP_CAP_BG, name, bg->host_bw,
			      t->links.nic_delay, p->q_nic, &t->sw[d].e);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "bg%u", d);
		hp.cap_tx = point(p->cap, DP_CAP_BG, name, ".tx");
		rc = dp_bghost_init(&t->bg[d], &t->eng, &hp);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Real time: WAN link @d leaves through DC d's port when the DC it goes to runs in the other
 * process, or has a port here too (the two ends of a pair in one process).  A port for a DC whose
 * next DC is here without one only brings frames in (the far end of a split's other crossing).
 */
static bool
through_port(const struct dp_topo *t, uint32_t d)
{
	uint32_t next = (d + 1) % t->d;

	return t->dc_port != NULL && t->dc_port[d] != NULL &&
	       (!dp_topo_here(t, next) || t->dc_port[next] != NULL);
}

int
dp_topo_build(struct dp_topo *t, const struct dp_topo_params *p, char *err, size_t errlen)
{
	const struct sm_program *prog = p->prog;
	bool pluggable = prog->plan.n_modules > 0 && prog->plan.placement == SM_PLACE_PORT;
	bool in_net = prog->plan.n_modules > 0 && prog->plan.placement == SM_PLACE_NETWORK;
	uint32_t w, d, n_elems;
	char name[32];
	int rc;

	memset(t, 0, sizeof(*t));
	rc = sm_links_build(p->model, prog->budget, &t->links, err, errlen);
	if (rc != 0)
		return rc;
	t->n = p->model->topo.per_dc;
	t->d = p->model->topo.n_dc;
	t->w_count = t->n * t->d;
	t->pool = p->pool;
	t->local = p->local != 0 ? p->local : (t->d >= 32 ? UINT32_MAX : (1u << t->d) - 1);
	t->shape = p->model->topo.wan;
	t->n_wan = sm_wan_count(t->shape, t->d);
	t->n_sw = t->d + (t->shape == SM_WAN_STAR && t->d > 1);
	if (t->shape != SM_WAN_RING && (p->dc_port != NULL || p->local != 0)) {
		snprintf(err, errlen, "[topology] wan = %s: a run through ports or split over "
			 "processes needs wan = ring", sm_wan_shape_name(t->shape));
		return -EINVAL;
	}
	t->dc_port = p->dc_port;
	if (p->n_link_ports > 0) {	/* a copy: the caller's may not outlive the build */
		t->link_port = calloc(p->n_link_ports, sizeof(*t->link_port));
		if (t->link_port == NULL)
			goto nomem;
		memcpy(t->link_port, p->link_port, p->n_link_ports * sizeof(*t->link_port));
		t->n_link_ports = p->n_link_ports;
	}
	t->local_w = calloc(t->w_count, sizeof(*t->local_w));
	if (t->local_w == NULL)
		goto nomem;
	for (w = 0; w < t->w_count; w++)
		if (dp_topo_here(t, w / t->n))
			t->local_w[t->n_local++] = w;
	n_elems = 6 * t->w_count + 6 * t->d + 3 + t->n_wan + 2 * t->n_link_ports;
	rc = dp_engine_init(&t->eng, n_elems, p->pool, p->t0);
	if (rc == 0)	/* split over two processes: every step, merged with the other's at the end */
		rc = dp_record_init(&t->rec, p->steps, prog->n, t->n_local,
				    p->hold_record || t->n_local < t->w_count,
				    p->pk->sync != SM_SYNC_NONE);
	if (rc != 0)
		goto nomem;
	t->rec.t0 = p->t0;
	t->rec.last_end = p->t0;
	t->rec.budget = prog->budget;
	t->eng.cap_ctx = p->cap;
	/* bytes only where something reads them: a trace, a DPDK port */
	t->eng.bytes = p->cap != NULL || p->dc_port != NULL || p->n_link_ports > 0 || p->bytes;
	t->workers = calloc(t->w_count, sizeof(*t->workers));
	t->nic = calloc(t->w_count, sizeof(*t->nic));
	t->down = calloc(t->w_count, sizeof(*t->down));
	t->sw = calloc(t->n_sw, sizeof(*t->sw));
	t->wan = t->n_wan > 0 ? calloc(t->n_wan, sizeof(*t->wan)) : NULL;
	t->port = pluggable ? calloc(t->w_count, sizeof(*t->port)) : NULL;
	t->mlink = in_net ? calloc(t->w_count, sizeof(*t->mlink)) : NULL;
	t->mod = pluggable || in_net ? calloc(t->w_count, sizeof(*t->mod)) : NULL;
	if (t->workers == NULL || t->nic == NULL || t->down == NULL || t->sw == NULL ||
	    (t->d > 1 && t->wan == NULL) || (pluggable && t->port == NULL) ||
	    (in_net && t->mlink == NULL) || ((pluggable || in_net) && t->mod == NULL))
		goto nomem;

	t->barrier.need = t->n_local;
	t->barrier.release = release;
	t->barrier.arg = t;
	for (w = 0; w < t->w_count; w++) {
		struct dp_worker_params wp = {
			.id = w,
			.per_dc = t->n,
			.run_id = p->run_id,
			.steps = p->steps,
			.prog = prog,
			.pk = p->pk,
			.nic = &t->nic[w],
			.port = pluggable ? &t->port[w] : NULL,
			.module = pluggable ? &t->mod[w] : NULL,
			.barrier = p->pk->sync == SM_SYNC_NONE ? NULL : &t->barrier,
			.rec = &t->rec,
		};

		snprintf(name, sizeof(name), "w%u", w);
		wp.cap_tx = point(p->cap, DP_CAP_TX, name, ".tx");
		wp.cap_rx = point(p->cap, DP_CAP_RX, name, ".rx");
		rc = dp_worker_init(&t->workers[w], &t->eng, name, &wp);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; pluggable && w < t->w_count; w++) {
		int cin, cout;

		snprintf(name, sizeof(name), "w%u.port", w);
		cin = point(p->cap, DP_CAP_PORT, name, ".in");
		cout = point(p->cap, DP_CAP_PORT, name, ".out");
		rc = dp_portcap_init(&t->port[w], &t->eng, name, t->links.port_bw, p->q_port,
				     p->pk->account, &t->nic[w], cin, cout);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; w < t->w_count; w++) {
		snprintf(name, sizeof(name), "w%u.nic", w);
		rc = add_link(t, &t->nic[w], p, DP_CAP_NIC, name, t->links.intra_bw,
			      t->links.nic_delay, p->q_nic, &t->sw[w / t->n].e);
		if (rc != 0)
			goto fail;
	}
	for (d = 0; d < t->n_sw; d++) {		/* the star's core: "core", of no DC */
		if (d < t->d)
			snprintf(name, sizeof(name), "dc%u", d);
		else
			snprintf(name, sizeof(name), "core");
		rc = dp_switch_init(&t->sw[d], &t->eng, name, d, t->n, t->w_count, t->d);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; w < t->w_count; w++) {
		snprintf(name, sizeof(name), "dc%u>w%u", w / t->n, w);
		rc = add_link(t, &t->down[w], p, DP_CAP_SWITCH, name, t->links.intra_bw,
			      t->links.down_delay, p->q_sw, &t->workers[w].e);
		if (rc != 0)
			goto fail;
		t->sw[w / t->n].to_worker[w % t->n] = &t->down[w].e;
	}
	for (w = 0; in_net && w < t->w_count; w++) {
		snprintf(name, sizeof(name), "dc%u>m%u", w / t->n, w);
		rc = add_link(t, &t->mlink[w], p, DP_CAP_SWITCH, name, t->links.intra_bw,
			      t->links.mlink_delay, p->q_sw, &t->mod[w].e);
		if (rc != 0)
			goto fail;
		t->sw[w / t->n].to_module[w % t->n] = &t->mlink[w].e;
	}
	for (d = 0; d < t->n_wan; d++) {
		uint32_t from, to;
		int cin, cout;

		sm_wan_ends(t->shape, t->d, d, &from, &to);
		if (from == t->d)
			snprintf(name, sizeof(name), "wancore>%u", to);
		else if (to == t->d)
			snprintf(name, sizeof(name), "wan%u>core", from);
		else
			snprintf(name, sizeof(name), "wan%u>%u", from, to);
		cin = point(p->cap, DP_CAP_WAN, name, ".in");
		cout = point(p->cap, DP_CAP_WAN, name, ".out");
		rc = dp_wan_init(&t->wan[d], &t->eng, name, t->links.wan_bw,
				 sm_wan_link_delay(t->shape, t->d, d, t->links.wan_delay),
				 p->q_wan, p->pk->account, t->shape == SM_WAN_RING &&
				 through_port(t, d) ? &t->dc_port[d]->e : &t->sw[to].e, cin, cout);
		if (rc != 0)
			goto fail;
	}
	/* each switch's first WAN link towards each other DC */
	for (d = 0; t->n_wan > 0 && d < t->n_sw; d++) {
		uint32_t e;

		for (e = 0; e < t->d; e++)
			if (e != d)
				t->sw[d].to_dc[e] = &t->wan[sm_wan_next(t->shape, t->d, d, e)].e;
	}
	/* real time: what leaves a DC's WAN link goes out of its port, what arrives on it in */
	for (d = 0; t->dc_port != NULL && d < t->d; d++) {
		if (t->dc_port[d] == NULL)
			continue;
		snprintf(name, sizeof(name), "dc%u.eth", d);
		rc = dp_port_attach(t->dc_port[d], &t->eng, name, &t->sw[d].e,
				    point(p->cap, DP_CAP_ETH, name, ".tx"),
				    point(p->cap, DP_CAP_ETH, name, ".rx"));
		if (rc != 0)
			goto fail;
		t->dc_port[d]->run_id = p->run_id;
	}
	for (d = 0; d < t->n_link_ports; d++) {
		rc = link_through_ports(t, p, &t->link_port[d]);
		if (rc == -ENOENT) {
			snprintf(err, errlen, "[ports] link: this run has no link %s (dcD>mN exists "
				 "only with a module on the network, wN.port with a pluggable module)",
				 t->link_port[d].name);
			dp_topo_free(t);
			return -EINVAL;
		}
		if (rc != 0)
			goto fail;
	}
	rc = build_background(t, p);
	if (rc != 0)
		goto fail;
	for (w = 0; t->mod != NULL && w < t->w_count; w++) {
		struct dp_module_params mp = {
			.name = name,
			.latency = pluggable ? t->links.mod_latency_port :
					       t->links.mod_latency_network,
			.gather = in_net,
			.expect = module_bytes(prog),
			.done = dp_worker_module_done,
			.arg = &t->workers[w],
			.rec = &t->rec,
			.index = w,
		};

		memcpy(mp.stage_bw, t->links.stage_bw, sizeof(mp.stage_bw));
		if (p->kernel != NULL) {
			mp.kernel = p->kernel;
			mp.compute_mask = p->model->mod.compute_ops;
			dp_kernel_rates(&p->model->mod, prog->budget, mp.op_rate);
			mp.value_bytes = (uint32_t)(p->model->job.value_bytes + 0.5);
			mp.planes = (uint32_t)(p->model->mod.planes + 0.5);
		}
		snprintf(name, sizeof(name), "m%u", w);
		mp.cap_in = point(p->cap, DP_CAP_MODULE, name, ".in");
		mp.cap_out = point(p->cap, DP_CAP_MODULE, name, ".out");
		rc = dp_module_init(&t->mod[w], &t->eng, &mp);
		if (rc != 0)
			goto fail;
	}
	return 0;
nomem:
	rc = -ENOMEM;
fail:
	snprintf(err, errlen, "building the topology: %s", strerror(-rc));
	dp_topo_free(t);
	return rc;
}

void
dp_topo_start(struct dp_topo *t, bool no_sync)
{
	uint32_t w, d;

	for (w = 0; !no_sync && w < t->n_local; w++)
		dp_worker_start(&t->workers[t->local_w[w]], t->eng.now);
	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL && dp_topo_here(t, d))	/* a host here */
			dp_bghost_start(&t->bg[d], t->eng.now);
	if (t->probe != NULL)
		dp_probe_start(t->probe, t->eng.now);
}

void
dp_topo_stop(struct dp_topo *t)
{
	uint32_t d;

	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL)
			dp_bghost_stop(&t->bg[d]);
	if (t->probe != NULL)
		dp_probe_stop(t->probe);
}

struct advance {
	const struct dp_topo *t;
	uint32_t seen;		/* steps done when it began */
	bool exact;		/* virtual time: stop when nothing of the sync is in progress */
	uint64_t ev_end;	/* virtual time: return after this many events, for progress */
};

static bool
advanced(void *arg)
{
	const struct advance *a = arg;

	return a->t->rec.steps_done != a->seen ||
	       (a->exact && (a->t->eng.sync_wip == 0 || a->t->eng.events >= a->ev_end));
}

int
dp_topo_advance(struct dp_topo *t, dp_time_t watchdog)
{
	struct advance a = { .t = t, .seen = t->rec.steps_done, .exact = t->eng.rt == NULL,
			     .ev_end = t->eng.events + DP_ADVANCE_EVENTS };
	dp_time_t until = DP_NEVER;
	int rc;

	if (!a.exact)
		until = t->eng.now < DP_NEVER - watchdog ? t->eng.now + watchdog : DP_NEVER;
	rc = dp_engine_run(&t->eng, until, advanced, &a);
	if (rc != 0)
		return rc;
	if (t->rec.steps_done != a.seen)
		return 1;
	/* the sync goes on (a long step): not a stall */
	return a.exact && t->eng.sync_wip != 0 && t->eng.events >= a.ev_end ? 2 : 0;
}

uint64_t
dp_topo_frames_made(const struct dp_topo *t)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < t->w_count; i++)
		n += t->workers[i].frames_made;
	return n;
}

int
dp_topo_waiting(const struct dp_topo *t, char *buf, size_t len)
{
	const struct dp_worker *first = NULL, *in_round = NULL;
	uint32_t i, left = 0;
	char where[200];

	for (i = 0; i < t->w_count; i++) {
		const struct dp_worker *w = &t->workers[i];

		if (!dp_topo_here(t, i / t->n) || w->state == DP_W_DONE)
			continue;	/* another process runs it, or it is done */
		left++;
		if (first == NULL)
			first = w;
		if (in_round == NULL && w->state == DP_W_ROUND)
			in_round = w;
	}
	if (first == NULL)
		return snprintf(buf, len, "every worker is done");
	dp_worker_describe(in_round != NULL ? in_round : first, where, sizeof(where));
	if (left == 1)
		return snprintf(buf, len, "%s", where);
	return snprintf(buf, len, "%s (%u workers not done)", where, left);
}

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
		if (w->state != DP_W_DONE) {
			char where[240];

			dp_topo_waiting(t, where, sizeof(where));
			snprintf(err, errlen, "the run stalled: %s", where);
			return -EPROTO;
		}
		made += w->e.c.tx;
		got += w->e.c.rx - w->e.c.drop;
		dropped += w->e.c.drop;
	}
	for (i = 0; i < t->eng.n; i++) {
		const struct dp_elem *e = t->eng.elems[i];

		if (strcmp(e->ops->kind, "worker") == 0)
			continue;
		if (strcmp(e->ops->kind, "bghost") == 0) {
			made += e->c.tx;	/* a source */
			continue;
		}
		rc = check_elem(e, err, errlen);
		if (rc != 0)
			return rc;
		dropped += e->c.drop;
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
	if (t->pool != NULL && rte_mempool_avail_count(t->pool) != t->pool->size) {
		snprintf(err, errlen, "invariant: the mbuf pool has %u of %u mbufs back",
			 rte_mempool_avail_count(t->pool), t->pool->size);
		return -EPROTO;
	}
	return 0;
}

void
dp_topo_free(struct dp_topo *t)
{
	uint32_t i;

	for (i = 0; t->nic != NULL && i < t->w_count; i++)
		if (t->nic[i].ring != NULL)
			dp_link_fini(&t->nic[i]);
	for (i = 0; t->down != NULL && i < t->w_count; i++)
		if (t->down[i].ring != NULL)
			dp_link_fini(&t->down[i]);
	for (i = 0; t->port != NULL && i < t->w_count; i++)
		if (t->port[i].ring != NULL)
			dp_link_fini(&t->port[i]);
	for (i = 0; t->mlink != NULL && i < t->w_count; i++)
		if (t->mlink[i].ring != NULL)
			dp_link_fini(&t->mlink[i]);
	for (i = 0; t->wan != NULL && i < t->n_wan; i++)
		if (t->wan[i].ring != NULL)
			dp_link_fini(&t->wan[i]);
	for (i = 0; t->mod != NULL && i < t->w_count; i++)
		if (t->mod[i].ring != NULL)
			dp_module_fini(&t->mod[i]);
	for (i = 0; t->sw != NULL && i < t->n_sw; i++)
		dp_switch_fini(&t->sw[i]);
	for (i = 0; t->bglink != NULL && i < t->d; i++)
		if (t->bglink[i].ring != NULL)
			dp_link_fini(&t->bglink[i]);
	for (i = 0; t->bg != NULL && i < t->d; i++)
		dp_bghost_fini(&t->bg[i]);
	if (t->probe != NULL)
		dp_probe_fini(t->probe);
	free(t->bg);
	free(t->bglink);
	free(t->sink);
	free(t->probe);
	dp_bgstats_free(&t->bgstats);
	for (i = 0; t->dc_port != NULL && i < t->d; i++)
		if (t->dc_port[i] != NULL && t->dc_port[i]->e.eng == &t->eng)
			dp_port_detach(t->dc_port[i]);
	for (i = 0; i < t->n_link_ports; i++) {
		if (t->link_port[i].tx->e.eng == &t->eng)
			dp_port_detach(t->link_port[i].tx);
		if (t->link_port[i].rx->e.eng == &t->eng)
			dp_port_detach(t->link_port[i].rx);
	}
	free(t->local_w);
	for (i = 0; t->workers != NULL && i < t->w_count; i++)
		dp_worker_fini(&t->workers[i]);
	free(t->workers);
	free(t->nic);
	free(t->down);
	free(t->port);
	free(t->link_port);
	free(t->mlink);
	free(t->wan);
	free(t->mod);
	free(t->sw);
	dp_record_free(&t->rec);
	dp_engine_fini(&t->eng);
	memset(t, 0, sizeof(*t));
}
