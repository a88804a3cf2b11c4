/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the element graph (cutting it into partitions: topo_part.c; advancing a run and
 * telling a stall: topo_advance.c; the checks at its end: topo_check.c).
 *
 * Elements are added in a fixed order (workers, port caps, NICs, switches, down links, module
 * links, WAN links, modules); their ids order events that fall on the same picosecond, so frames
 * reaching a switch at the same time from several NICs are queued in worker order, which is the
 * order the packet-level closed form assumes.  dp_topo_build() is that order, step by step, each
 * reading what the one before made: it stays one function of about 270 lines so that the order
 * reads top to bottom.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "fpool.h"
#include "kernel_prog.h"
#include "portcap.h"
#include "ranks.h"
#include "bulk.h"
#include "tcp.h"
#include "topo_impl.h"
#include "topology.h"
#include "wan.h"

/*
 * @n zeroed elements of @size bytes, on a cache line of their own each (the element types are
 * cache-line aligned): elements run by different partitions, on different lcores, then never
 * share a line, which each would take from the other's cache at every frame.
 */
void *
dp_topo_zalloc_lines(size_t n, size_t size)
{
	size_t len = RTE_ALIGN_CEIL(n * size, RTE_CACHE_LINE_SIZE);
	void *p;

	if (n == 0 || size % RTE_CACHE_LINE_SIZE != 0 || n > SIZE_MAX / size)
		return NULL;
	p = aligned_alloc(RTE_CACHE_LINE_SIZE, len);
	if (p != NULL)
		memset(p, 0, len);
	return p;
}

/* The engine of partition @part (one engine: the topology's). */
static inline struct dp_engine *
eng_of(struct dp_topo *t, uint32_t part)
{
	return t->par != NULL ? &t->par->p[part].eng : &t->eng;
}

/* The mask of @d data centres (dp_topo.local): every one here. */
static inline uint32_t
all_dcs(uint32_t d)
{
	return d >= 32 ? UINT32_MAX : (1u << d) - 1;
}

/* Is @eng this topology's engine or one of its partitions'? */
static bool
ours(const struct dp_topo *t, const struct dp_engine *eng)
{
	if (eng == &t->eng)
		return true;
	for (uint32_t i = 0; t->par != NULL && i < t->par->n; i++)
		if (eng == &t->par->p[i].eng)
			return true;
	return false;
}

/*
 * Link @l runs in partition @from and leads to partition @to: if they differ, its far end
 * (xin.h) goes into @to with the link's gid, and the link hands its frames over as it queues
 * them.
 */
static int
cut(struct dp_topo *t, struct dp_link *l, uint32_t from, uint32_t to)
{
	struct dp_xin *x;
	uint32_t g;
	int rc;

	if (t->par == NULL || from == to)
		return 0;
	if (t->n_xin == t->cap_xin || l->delay == 0)
		return -EINVAL;
	x = &t->xin[t->n_xin];
	g = t->par->gid_next;
	rc = dp_xin_init(x, &t->par->p[to].eng, l->e.name, l->e.gid, l->next);
	t->par->gid_next = g;		/* the far end has the link's id */
	if (rc != 0)
		return rc;
	t->n_xin++;
	l->xbox = &t->par->p[from].out[to];
	l->xbox->used = true;
	l->xin = x->e.id;
	if (l->delay < t->par->lookahead)
		t->par->lookahead = l->delay;
	return 0;
}

static struct dp_link *find_link(struct dp_topo *t, const char *name);
static int point(struct dp_capture *cap, enum dp_cap_kind kind, const char *base,
		 const char *suffix);

/* Give link @l impairments @im (inactive: nothing), its loss capture point beside its others. */
static int
impair_one(struct dp_link *l, const struct dp_topo_params *p, const struct sm_impair *im,
	   char *err, size_t errlen)
{
	int rc;

	if (!sm_impair_active(im))
		return 0;
	rc = dp_link_impair(l, im, dp_link_stream(l, p->impair->seed));
	if (rc == -EINVAL) {
		snprintf(err, errlen, "[impair]: %s is cut between partitions and its far end's "
			 "partition runs ahead by its latency and takes its frames as they are "
			 "queued: jitter, duplicates and corruption need the link whole; run it in "
			 "one partition (run.partitions = 1)", l->e.name);
		return rc;
	}
	if (rc != 0) {
		snprintf(err, errlen, "[impair]: %s: %s", l->e.name, strerror(-rc));
		return rc;
	}
	if (im->loss != SM_LOSS_NONE || im->corrupt > 0)	/* frames that never arrive */
		l->cap_loss = point(p->cap, DP_CAP_WAN, l->e.name, ".loss");
	if (im->aqm.kind != SM_AQM_NONE) {
		/* the run's TCP (the workers' and the bulk flows' share transport.ecn) */
		l->tcp_ect = p->pk->tcp.ecn != 0 || (p->bg.tcp != NULL && p->bg.tcp->ecn != 0);
		l->cap_mark = point(p->cap, DP_CAP_WAN, l->e.name, ".mark");
		if (im->aqm.kind == SM_AQM_RED)
			l->cap_aqm = point(p->cap, DP_CAP_WAN, l->e.name, ".aqm");
	}
	return 0;
}

/* The run's impairments on its links: [impair] wan on each WAN link, then the named ones. */
static int
impair_links(struct dp_topo *t, const struct dp_topo_params *p, char *err, size_t errlen)
{
	const struct dp_topo_impair *ip = p->impair;
	uint32_t d, i;
	int rc;

	t->imp_seed = ip != NULL ? ip->seed : 0;
	t->imp_loss = ip != NULL ? ip->live_loss : 0;
	t->imp_jitter = ip != NULL ? ip->live_jitter : 0;
	if (ip == NULL)
		return 0;
	for (d = 0; d < t->n_wan; d++) {
		const struct sm_impair *im = &ip->wan;

		for (i = 0; i < ip->n_link; i++)
			if (strcmp(ip->link[i].name, t->wan[d].e.name) == 0)
				im = &ip->link[i].im;
		rc = impair_one(&t->wan[d], p, im, err, errlen);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < ip->n_link; i++) {
		struct dp_link *l = find_link(t, ip->link[i].name);
		bool wan = false;

		for (d = 0; d < t->n_wan; d++)
			wan |= strcmp(ip->link[i].name, t->wan[d].e.name) == 0;
		if (wan)
			continue;
		if (l == NULL) {
			snprintf(err, errlen, "[impair]: this run has no link %s (its WAN links "
				 "are %s%s; the others wN.nic, dcD>wN, and wN.port or dcD>mN with a "
				 "module)", ip->link[i].name, t->n_wan > 0 ? t->wan[0].e.name : "none",
				 t->n_wan > 1 ? " and the like" : "");
			return -EINVAL;
		}
		rc = impair_one(l, p, &ip->link[i].im, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
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
	 struct dp_elem *next, uint32_t from, uint32_t to)
{
	int rc;

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
	rc = dp_link_init(l, eng_of(t, from), &lp);
	return rc != 0 ? rc : cut(t, l, from, to);
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
	lp->tx->tcp_per_dc = lp->rx->tcp_per_dc = t->tcp != NULL ? t->n : 0;
	l->next = &lp->tx->e;
	return 0;
}

/* A probe of the WAN links @wl[0 .. nl) in each partition that queues into some of them. */
static int
probes_apart(struct dp_topo *t, const struct dp_bg_params *bg, struct dp_link *const *wl,
	     uint32_t nl)
{
	struct dp_par *x = t->par;
	uint32_t i, j, g = x->gid_next;
	uint64_t max;
	int rc;

	x->q_links = nl;
	for (j = 0; j < nl; j++)
		x->q_names[j] = wl[j]->e.name;
	/* as many samples as one probe of all the links keeps (probe.c), thinned alike */
	max = DP_PROBE_MEM / (sizeof(dp_time_t) + nl * sizeof(uint64_t)) & ~UINT64_C(1);
	for (i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];
		struct dp_link *mine[DP_PROBE_LINKS];
		uint32_t n = 0;

		for (j = 0; j < nl; j++)
			if (wl[j]->e.eng == &pt->eng) {
				pt->probe_at[n] = j;
				mine[n++] = wl[j];
			}
		if (n == 0)
			continue;
		pt->probe = dp_topo_zalloc_lines(1, sizeof(*pt->probe));
		if (pt->probe == NULL)
			return -ENOMEM;
		x->gid_next = g;	/* every copy has the one probe's id */
		rc = dp_probe_init(pt->probe, &pt->eng, "wanprobe", bg->probe_every, mine, n);
		if (rc != 0)
			return rc;
		pt->probe->max = max;
		pt->probe->e.aux = pt->probe != NULL && i > 0 && g != pt->probe->e.gid;
	}
	/* the first copy's events are counted, as the one probe's would be */
	for (i = 0; i < x->n; i++)
		if (x->p[i].probe != NULL) {
			for (j = i + 1; j < x->n; j++)
				if (x->p[j].probe != NULL)
					x->p[j].probe->e.aux = true;
			break;
		}
	x->gid_next = g + 1;
	return 0;
}

/* The background statistics a DC's hosts and sink count into. */
static struct dp_bgstats *
bgstats_of(struct dp_topo *t, uint32_t d)
{
	return t->par != NULL ? &t->par->p[t->part_sw[d]].bg : &t->bgstats;
}

/* background.bulk: a bulk host in every DC, its flows to the next on the loaded directions. */
static int
build_bulk(struct dp_topo *t, const struct dp_topo_params *p)
{
	const struct dp_bg_params *bg = &p->bg;
	char name[32];
	uint32_t d;
	int rc;

	if (t->d < 2 || (bg->bulk == 0 && !(bg->xfer_tcp && bg->load > 0)))
		return 0;
	if (t->par != NULL || bg->tcp == NULL)
		return -EINVAL;
	t->bulk = dp_topo_zalloc_lines(t->d, sizeof(*t->bulk));
	t->bulk_up = dp_topo_zalloc_lines(t->d, sizeof(*t->bulk_up));
	t->bulk_down = dp_topo_zalloc_lines(t->d, sizeof(*t->bulk_down));
	if (t->bulk == NULL || t->bulk_up == NULL || t->bulk_down == NULL)
		return -ENOMEM;
	for (d = 0; d < t->d; d++) {
		struct dp_bulk_params bp = {
			.name = name, .dc = d, .to = (d + 1) % t->d,
			.flows = d < bg->directions ? bg->bulk : 0,
			.conns = bg->xfer_tcp && d < bg->directions ? bg->connections : 0,
			.stats = bgstats_of(t, d), .per_dc = t->n, .conf = bg->tcp,
			.mss = bg->tcp->mss != 0 ? bg->tcp->mss : p->pk->mtu - DP_TCP_MSS_LESS,
			.burst = p->pk->burst, .nic = &t->bulk_up[d],
		};

		snprintf(name, sizeof(name), "bulk%u", d);
		bp.cap_tx = point(p->cap, DP_CAP_BG, name, ".tx");
		bp.cap_rx = point(p->cap, DP_CAP_BG, name, ".rx");
		rc = dp_bulk_init(&t->bulk[d], &t->eng, &bp);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "bulk%u.nic", d);
		rc = add_link(t, &t->bulk_up[d], p, DP_CAP_BG, name, bg->host_bw,
			      t->links.nic_delay, p->q_nic, &t->sw[d].e, 0, 0);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "dc%u>bulk%u", d, d);
		rc = add_link(t, &t->bulk_down[d], p, DP_CAP_BG, name, bg->host_bw,
			      t->links.down_delay, p->q_sw, &t->bulk[d].tcp.e, 0, 0);
		if (rc != 0)
			return rc;
		t->sw[d].to_bulk = &t->bulk_down[d].e;
	}
	for (d = 0; d < t->d; d++)	/* each takes what the previous one sends */
		t->bulk[(d + 1) % t->d].from = &t->bulk[d];
	t->bulk_lead = bg->bulk_lead;
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
		if (t->par != NULL) {
			rc = probes_apart(t, bg, wl, nl);
			if (rc != 0)
				return rc;
		} else {
			t->probe = dp_topo_zalloc_lines(1, sizeof(*t->probe));
			if (t->probe == NULL)
				return -ENOMEM;
			rc = dp_probe_init(t->probe, &t->eng, "wanprobe", bg->probe_every, wl, nl);
			if (rc != 0)
				return rc;
		}
	}
	t->bg_load = bg->load;
	rc = build_bulk(t, p);
	if (rc != 0)
		return rc;
	if (t->d < 2 || !(bg->load > 0))
		return 0;
	t->bg = dp_topo_zalloc_lines(t->d, sizeof(*t->bg));
	t->bglink = dp_topo_zalloc_lines(t->d, sizeof(*t->bglink));
	t->sink = dp_topo_zalloc_lines(t->d, sizeof(*t->sink));
	if (t->bg == NULL || t->bglink == NULL || t->sink == NULL)
		return -ENOMEM;
	for (d = 0; d < t->d; d++) {
		uint32_t to = (d + 1) % t->d, part = t->part_sw[d];
		struct dp_bghost_params hp = {
			.name = name, .id = d, .dst_first = to * t->n, .per_dc = t->n,
			.run_id = p->run_id,
			.rate = bg->load * (double)t->links.wan_bw / bg->sizes->mean,
			.sizes = bg->sizes, .seed = sm_rng_stream_seed(bg->seed, d),
			.payload = p->pk->payload, .burst = p->pk->burst, .link = &t->bglink[d],
			.stats = bgstats_of(t, d), .tcp = bg->xfer_tcp ? &t->bulk[d] : NULL,
		};
		int cin;

		snprintf(name, sizeof(name), "dc%u.sink", d);
		cin = point(p->cap, DP_CAP_BG, name, ".rx");
		rc = dp_sink_init(&t->sink[d], eng_of(t, part), name, bgstats_of(t, d),
				  bg->host_bw, t->links.nic_delay, t->links.wan_bw,
				  t->links.wan_delay, p->pk->account, cin);
		if (rc != 0)
			return rc;
		t->sw[d].to_sink = &t->sink[d].e;
		if (d >= bg->directions)
			continue;	/* this direction carries no background */
		snprintf(name, sizeof(name), "bg%u.nic", d);
		rc = bg->xfer_tcp ? 0 : add_link(t, &t->bglink[d], p, DP_CAP_BG, name, bg->host_bw,
						 t->links.nic_delay, p->q_nic, &t->sw[d].e, part,
						 part);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "bg%u", d);
		hp.cap_tx = point(p->cap, DP_CAP_BG, name, ".tx");
		rc = dp_bghost_init(&t->bg[d], eng_of(t, part), &hp);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Real time: WAN link @d leaves through DC d's port when the DC it goes to runs in another
 * process, or, with every DC in this one, has a port too (the two ends of a pair).  Split, a link
 * between two DCs here stays inside even if both have ports (each the end of another crossing),
 * and a port for a DC whose next DC is here only brings frames in.
 */
static bool
through_port(const struct dp_topo *t, uint32_t d)
{
	uint32_t next = (d + 1) % t->d;

	return t->dc_port != NULL && t->dc_port[d] != NULL &&
	       (!dp_topo_here(t, next) || (t->dc_port[next] != NULL && t->local == all_dcs(t->d)));
}

/*
 * WAN link @i's ends: sm_wan_ends()'s, and with ring_back links d..2d-1 after the ring's, each
 * from DC i - d + 1 back to DC i - d.
 */
static void
wan_ends(const struct dp_topo *t, uint32_t i, uint32_t *from, uint32_t *to)
{
	if (t->ring_back && i >= t->d) {
		*to = i - t->d;
		*from = (*to + 1) % t->d;
		return;
	}
	sm_wan_ends(t->shape, t->d, i, from, to);
}

/* The record and the barrier worker @w reports to. */
static struct dp_record *
rec_of(struct dp_topo *t, uint32_t w)
{
	return t->par != NULL ? &t->par->p[t->part_w[w]].rec : &t->rec;
}

static struct dp_barrier *
barrier_of(struct dp_topo *t, uint32_t w)
{
	return t->par != NULL ? &t->par->p[t->part_w[w]].bar : &t->barrier;
}

int
dp_topo_build(struct dp_topo *t, const struct dp_topo_params *p, char *err, size_t errlen)
{
	const struct sm_program *prog = p->prog;
	bool pluggable = prog->plan.n_modules > 0 && prog->plan.placement == SM_PLACE_PORT;
	bool in_net = prog->plan.n_modules > 0 && prog->plan.placement == SM_PLACE_NETWORK;
	uint32_t w, d, n_elems, np;
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
	t->local = p->local != 0 ? p->local : all_dcs(t->d);
	t->shape = p->model->topo.wan;
	/* a ring's TCP returns its ACKs on the link's other direction, not round the ring; through
	 * ports or split over processes, the ring is as the ports are wired */
	t->ring_back = t->shape == SM_WAN_RING && t->d > 2 && p->dc_port == NULL &&
		       p->local == 0 && (p->pk->tcp.transport == SM_TRANSPORT_TCP ||
					 p->bg.bulk > 0 || p->bg.xfer_tcp);
	t->n_wan = sm_wan_count(t->shape, t->d) * (t->ring_back ? 2 : 1);
	t->n_sw = t->d + (t->shape == SM_WAN_STAR && t->d > 1);
	if (t->shape != SM_WAN_RING && (p->dc_port != NULL || p->local != 0)) {
		snprintf(err, errlen, "[topology] wan = %s: a run through ports or split over "
			 "processes needs wan = ring", sm_wan_shape_name(t->shape));
		return -EINVAL;
	}
	if (p->partitions > 1 && (t->local != all_dcs(t->d) || p->n_link_ports > 0)) {
		snprintf(err, errlen, "[run] partitions = %u: a real-time run split over processes "
			 "or with links through ports runs in one partition in this release",
			 p->partitions);
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
	t->part_w = calloc(t->w_count, sizeof(*t->part_w));
	t->part_sw = calloc(t->n_sw, sizeof(*t->part_sw));
	if (t->local_w == NULL || t->part_w == NULL || t->part_sw == NULL)
		goto nomem;
	for (w = 0; w < t->w_count; w++)
		if (dp_topo_here(t, w / t->n))
			t->local_w[t->n_local++] = w;
	/* real time: whole data centres, cut only where their WAN links cross ports */
	np = dp_topo_assign(t, p->partitions <= 1 ? 1 : p->realtime && p->partitions > t->d ? t->d :
		    p->partitions, in_net);
	if (p->pk->tcp.transport == SM_TRANSPORT_TCP && !p->realtime &&
	    t->local != all_dcs(t->d)) {
		/* (ranks in virtual time pass frames as syncemu's headers alone) */
		snprintf(err, errlen, "[job] transport = tcp: in virtual time a run is not split "
			 "over ranks in this release (real time over ports is)");
		dp_topo_free(t);
		return -EINVAL;
	}
	t->lcores = p->lcores;
	n_elems = 7 * t->w_count + 9 * t->d + 4 + t->n_wan + 2 * t->n_link_ports;
	rc = dp_engine_init(&t->eng, np > 1 ? 1 : n_elems, p->pool, p->t0);
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
	if (np > 1) {
		rc = dp_topo_partitions_make(t, p, np);
		if (rc != 0)
			goto fail;
	}
	t->workers = dp_topo_zalloc_lines(t->w_count, sizeof(*t->workers));
	t->nic = dp_topo_zalloc_lines(t->w_count, sizeof(*t->nic));
	t->down = dp_topo_zalloc_lines(t->w_count, sizeof(*t->down));
	t->sw = dp_topo_zalloc_lines(t->n_sw, sizeof(*t->sw));
	t->wan = t->n_wan > 0 ? dp_topo_zalloc_lines(t->n_wan, sizeof(*t->wan)) : NULL;
	t->port = pluggable ? dp_topo_zalloc_lines(t->w_count, sizeof(*t->port)) : NULL;
	t->mlink = in_net ? dp_topo_zalloc_lines(t->w_count, sizeof(*t->mlink)) : NULL;
	t->mod = pluggable || in_net ? dp_topo_zalloc_lines(t->w_count, sizeof(*t->mod)) : NULL;
	if (p->pk->tcp.transport == SM_TRANSPORT_TCP) {
		t->tcp = dp_topo_zalloc_lines(t->w_count, sizeof(*t->tcp));
		if (t->tcp == NULL)
			goto nomem;
	}
	if (t->workers == NULL || t->nic == NULL || t->down == NULL || t->sw == NULL ||
	    (t->d > 1 && t->wan == NULL) || (pluggable && t->port == NULL) ||
	    (in_net && t->mlink == NULL) || ((pluggable || in_net) && t->mod == NULL))
		goto nomem;

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
			.barrier = p->pk->sync == SM_SYNC_NONE ? NULL : barrier_of(t, w),
			.fin = barrier_of(t, w),
			.rec = rec_of(t, w),
			.tcp = t->tcp != NULL ? &t->tcp[w] : NULL,
		};

		snprintf(name, sizeof(name), "w%u", w);
		wp.cap_tx = point(p->cap, DP_CAP_TX, name, ".tx");
		wp.cap_rx = point(p->cap, DP_CAP_RX, name, ".rx");
		rc = dp_worker_init(&t->workers[w], eng_of(t, t->part_w[w]), name, &wp);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; t->tcp != NULL && w < t->w_count; w++) {
		const struct sm_tcp_conf *tc = &p->pk->tcp;
		struct dp_tcp_params tp = {
			.id = w,
			.per_dc = t->n,
			.conf = tc,
			.mss = tc->mss != 0 ? tc->mss : p->pk->mtu - DP_TCP_MSS_LESS,
			.burst = p->pk->burst,
			.nic = &t->nic[w],
			.mult = 1,
			.dst_mult = 1,
			.kind = DP_KIND_WORKER,
			.cap_tx = t->workers[w].cap_tx,
			.cap_rx = t->workers[w].cap_rx,
		};

		dp_worker_tcp_app(&t->workers[w], &tp.app);
		snprintf(name, sizeof(name), "w%u.tcp", w);
		rc = dp_tcp_init(&t->tcp[w], eng_of(t, t->part_w[w]), name, &tp);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; pluggable && w < t->w_count; w++) {
		int cin, cout;

		snprintf(name, sizeof(name), "w%u.port", w);
		cin = point(p->cap, DP_CAP_PORT, name, ".in");
		cout = point(p->cap, DP_CAP_PORT, name, ".out");
		rc = dp_portcap_init(&t->port[w], eng_of(t, t->part_w[w]), name, t->links.port_bw,
				     p->q_port, p->pk->account, &t->nic[w], cin, cout);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; w < t->w_count; w++) {
		snprintf(name, sizeof(name), "w%u.nic", w);
		rc = add_link(t, &t->nic[w], p, DP_CAP_NIC, name, t->links.intra_bw,
			      t->links.nic_delay, p->q_nic, &t->sw[w / t->n].e, t->part_w[w],
			      t->part_sw[w / t->n]);
		if (rc != 0)
			goto fail;
	}
	for (d = 0; d < t->n_sw; d++) {		/* the star's core: "core", of no DC */
		if (d < t->d)
			snprintf(name, sizeof(name), "dc%u", d);
		else
			snprintf(name, sizeof(name), "core");
		rc = dp_switch_init(&t->sw[d], eng_of(t, t->part_sw[d]), name, d, t->n, t->w_count,
				    t->d);
		if (rc != 0)
			goto fail;
	}
	for (w = 0; w < t->w_count; w++) {
		snprintf(name, sizeof(name), "dc%u>w%u", w / t->n, w);
		rc = add_link(t, &t->down[w], p, DP_CAP_SWITCH, name, t->links.intra_bw,
			      t->links.down_delay, p->q_sw,
			      t->tcp != NULL ? &t->tcp[w].e : &t->workers[w].e, t->part_sw[w / t->n],
			      t->part_w[w]);
		if (rc != 0)
			goto fail;
		t->sw[w / t->n].to_worker[w % t->n] = &t->down[w].e;
	}
	for (w = 0; in_net && w < t->w_count; w++) {
		snprintf(name, sizeof(name), "dc%u>m%u", w / t->n, w);
		rc = add_link(t, &t->mlink[w], p, DP_CAP_SWITCH, name, t->links.intra_bw,
			      t->links.mlink_delay, p->q_sw, &t->mod[w].e, t->part_sw[w / t->n],
			      t->part_w[w]);
		if (rc != 0)
			goto fail;
		t->sw[w / t->n].to_module[w % t->n] = &t->mlink[w].e;
	}
	for (d = 0; d < t->n_wan; d++) {
		uint32_t from, to;
		int cin, cout;

		wan_ends(t, d, &from, &to);
		if (from == t->d)
			snprintf(name, sizeof(name), "wancore>%u", to);
		else if (to == t->d)
			snprintf(name, sizeof(name), "wan%u>core", from);
		else
			snprintf(name, sizeof(name), "wan%u>%u", from, to);
		cin = point(p->cap, DP_CAP_WAN, name, ".in");
		cout = point(p->cap, DP_CAP_WAN, name, ".out");
		bool via = t->shape == SM_WAN_RING && through_port(t, d);

		rc = dp_wan_init(&t->wan[d], eng_of(t, t->part_sw[from]), name, t->links.wan_bw,
				 sm_wan_link_delay(t->shape, t->d, d, t->links.wan_delay),
				 p->q_wan, p->pk->account, via ? &t->dc_port[d]->e : &t->sw[to].e,
				 cin, cout);
		if (rc == 0)	/* through a port: it leads to its own DC's port, no cut */
			rc = cut(t, &t->wan[d], t->part_sw[from], t->part_sw[via ? from : to]);
		if (rc != 0)
			goto fail;
	}
	/* each switch's first WAN link towards each other DC */
	for (d = 0; t->n_wan > 0 && d < t->n_sw; d++) {
		uint32_t e;

		for (e = 0; e < t->d; e++)
			if (e != d)
				t->sw[d].to_dc[e] = &t->wan[sm_wan_next(t->shape, t->d, d, e)].e;
		if (t->ring_back) {	/* the DC before: back on the link from this one */
			uint32_t before = (d + t->d - 1) % t->d;

			t->sw[d].to_dc[before] = &t->wan[t->d + before].e;
		}
	}
	/* real time: what leaves a DC's WAN link goes out of its port, what arrives on it in */
	for (d = 0; t->dc_port != NULL && d < t->d; d++) {
		if (t->dc_port[d] == NULL)
			continue;
		snprintf(name, sizeof(name), "dc%u.eth", d);
		rc = dp_port_attach(t->dc_port[d], eng_of(t, t->part_sw[d]), name, &t->sw[d].e,
				    point(p->cap, DP_CAP_ETH, name, ".tx"),
				    point(p->cap, DP_CAP_ETH, name, ".rx"));
		if (rc != 0)
			goto fail;
		t->dc_port[d]->run_id = p->run_id;
		t->dc_port[d]->tcp_per_dc = t->tcp != NULL ? t->n : 0;
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
	rc = impair_links(t, p, err, errlen);
	if (rc != 0) {
		dp_topo_free(t);
		return rc;
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
			.rec = rec_of(t, w),
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
		rc = dp_module_init(&t->mod[w], eng_of(t, t->part_w[w]), &mp);
		if (rc != 0)
			goto fail;
	}
	rc = dp_topo_barriers_make(t);
	if (rc == 0)
		rc = dp_topo_all_make(t);
	if (rc != 0)
		goto fail;
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

	if (t->bulk_lead > 0)		/* the first step begins then (bulk: one partition) */
		t->rec.t0 = t->rec.last_end = t->eng.now + t->bulk_lead;
	for (w = 0; !no_sync && w < t->n_local; w++)
		dp_worker_start(&t->workers[t->local_w[w]], t->eng.now + t->bulk_lead);
	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL && dp_topo_here(t, d))	/* a host here */
			dp_bghost_start(&t->bg[d], t->eng.now);
	for (d = 0; t->bulk != NULL && d < t->d; d++)
		dp_bulk_start(&t->bulk[d], t->eng.now);
	if (t->probe != NULL)
		dp_probe_start(t->probe, t->eng.now);
	for (d = 0; t->par != NULL && d < t->par->n; d++)
		if (t->par->p[d].probe != NULL)
			dp_probe_start(t->par->p[d].probe, t->eng.now);
	if (t->par != NULL)
		dp_par_start(t->par, t->lcores);
}

void
dp_topo_stop(struct dp_topo *t)
{
	uint32_t d;

	if (t->par != NULL)
		dp_par_rt_halt(t->par);	/* real time: the lcores stop before the hosts do */
	for (d = 0; t->bg != NULL && d < t->d; d++)
		if (t->bg[d].link != NULL)
			dp_bghost_stop(&t->bg[d]);
	for (d = 0; t->bulk != NULL && d < t->d; d++)
		dp_bulk_stop(&t->bulk[d]);
	if (t->probe != NULL)
		dp_probe_stop(t->probe);
	for (d = 0; t->par != NULL && d < t->par->n; d++)
		if (t->par->p[d].probe != NULL)
			dp_probe_stop(t->par->p[d].probe);
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
	for (i = 0; t->bulk_up != NULL && i < t->d; i++) {
		if (t->bulk_up[i].ring != NULL)
			dp_link_fini(&t->bulk_up[i]);
		if (t->bulk_down[i].ring != NULL)
			dp_link_fini(&t->bulk_down[i]);
	}
	if (t->probe != NULL)
		dp_probe_fini(t->probe);
	free(t->bg);
	free(t->bglink);
	free(t->sink);
	free(t->probe);
	dp_bgstats_free(&t->bgstats);
	if (t->par != NULL)
		dp_par_stop(t->par);	/* before what the lcores run goes */
	for (i = 0; t->dc_port != NULL && i < t->d; i++)
		if (t->dc_port[i] != NULL && ours(t, t->dc_port[i]->e.eng))
			dp_port_detach(t->dc_port[i]);
	for (i = 0; i < t->n_link_ports; i++) {
		if (t->link_port[i].tx->e.eng == &t->eng)
			dp_port_detach(t->link_port[i].tx);
		if (t->link_port[i].rx->e.eng == &t->eng)
			dp_port_detach(t->link_port[i].rx);
	}
	free(t->local_w);
	if (t->par != NULL) {
		dp_par_stop(t->par);
		for (i = 0; i < t->par->n; i++)
			if (t->par->p[i].probe != NULL) {
				dp_probe_fini(t->par->p[i].probe);
				free(t->par->p[i].probe);
			}
	}
	for (i = 0; i < t->n_xin; i++)
		dp_xin_fini(&t->xin[i]);
	if (t->par != NULL)
		dp_par_fini(t->par);	/* frames never taken go back too */
	free(t->par);
	free(t->xin);
	free(t->part_w);
	free(t->part_sw);
	free(t->all);
	for (i = 0; t->workers != NULL && i < t->w_count; i++)
		dp_worker_fini(&t->workers[i]);
	for (i = 0; t->tcp != NULL && i < t->w_count; i++)
		dp_tcp_fini(&t->tcp[i]);
	free(t->tcp);
	for (i = 0; t->bulk != NULL && i < t->d; i++)
		dp_bulk_fini(&t->bulk[i]);
	free(t->bulk);
	free(t->bulk_up);
	free(t->bulk_down);
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
