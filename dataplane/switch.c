/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch element: output-queued, forwarding by destination.
 *
 * The queues are the output links (dataplane/link.c); the switch itself holds nothing and takes
 * no time, so a frame arriving at `now` is queued on its output at `now`.  Destinations in this
 * data centre go to their down link (or module link); any other goes to the WAN link the WAN's
 * shape routes it by (models/collective.h sm_wan_next(): on a ring of DCs the next DC, which
 * forwards it on around the ring; on a mesh the DC's own; on a star the core's).
 */
#include <errno.h>
#include <stdlib.h>

#include "ffwd.h"
#include "frame.h"
#include "switch.h"

static void
switch_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_switch *s = (struct dp_switch *)e;
	const struct dp_meta *meta = &p->meta;
	struct dp_elem *out = NULL;

	e->c.rx++;
	e->c.rx_bytes += p->len;
	if (meta->dst < s->n_workers) {
		uint32_t dc = meta->dst / s->per_dc, i = meta->dst % s->per_dc;

		if (dc != s->dc)
			out = s->to_dc[dc];
		else if (meta->kind == DP_KIND_MODULE)
			out = s->to_module[i];
		else if (meta->kind == DP_KIND_WORKER)
			out = s->to_worker[i];
		else if (meta->kind == DP_KIND_SINK)
			out = s->to_sink;
		else if (meta->kind == DP_KIND_BULK)
			out = s->to_bulk;
	}
	if (out == NULL) {
		s->no_route++;
		e->c.drop++;
		e->c.drop_bytes += p->len;
		dp_frame_end(e->eng, p);
		return;
	}
	e->c.tx++;
	e->c.tx_bytes += p->len;
	out->ops->rx(out, p, now);
}

static void
switch_event(struct dp_elem *e, dp_time_t now)
{
	dp_sched(e, DP_NEVER);	/* a switch has no events of its own */
}

static uint64_t
switch_held(const struct dp_elem *e)
{
	return 0;
}

static bool switch_settled(const struct dp_elem *e);

static const struct dp_ffwd_field switch_moving[] = {
	DP_FFWD_FIELD(struct dp_switch, no_route),
};
static const struct dp_ffwd_layout switch_ffwd = {
	.size = sizeof(struct dp_switch),
	.moving = switch_moving, .n_moving = RTE_DIM(switch_moving),
	.settled = switch_settled,
};

static const struct dp_elem_ops switch_ops = {
	.kind = "switch",
	.event = switch_event,
	.rx = switch_rx,
	.held = switch_held,
	.ffwd = &switch_ffwd,
};

int
dp_switch_init(struct dp_switch *s, struct dp_engine *eng, const char *name, uint32_t dc,
	       uint32_t per_dc, uint32_t n_workers, uint32_t n_dc)
{
	int rc = dp_engine_add(eng, &s->e, &switch_ops, name);

	if (rc != 0)
		return rc;
	s->dc = dc;
	s->per_dc = per_dc;
	s->n_workers = n_workers;
	s->n_dc = n_dc;
	s->to_sink = NULL;
	s->no_route = 0;
	s->to_worker = calloc(per_dc, sizeof(*s->to_worker));
	s->to_module = calloc(per_dc, sizeof(*s->to_module));
	s->to_dc = calloc(n_dc, sizeof(*s->to_dc));
	if (s->to_worker == NULL || s->to_module == NULL || s->to_dc == NULL)
		return -ENOMEM;
	return 0;
}

void
dp_switch_fini(struct dp_switch *s)
{
	free(s->to_worker);
	free(s->to_module);
	free(s->to_dc);
	s->to_worker = s->to_module = NULL;
	s->to_dc = NULL;
}

static bool
switch_settled(const struct dp_elem *e)
{
	(void)e;
	return true;
}
