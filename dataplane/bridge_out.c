/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's far end: sorts what leaves the WAN.  It holds nothing and has no events of its
 * own; a frame passes through at the time it reached the far end.
 */
#include <errno.h>

#include "bridge_out.h"
#include "frame.h"

static void
out_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_bridge_out *o = (struct dp_bridge_out *)e;

	e->c.rx++;
	e->c.rx_bytes += p->len;
	e->c.tx++;
	e->c.tx_bytes += p->len;
	if (!(p->meta.flags & DP_SE_F_BG)) {
		o->port->ops->rx(o->port, p, now);
		return;
	}
	if (o->emit_bg && p->m != NULL) {
		/* the sink takes the frame's fields (its transfer's times), the port its bytes */
		struct dp_pkt fields = *p;

		fields.m = NULL;
		o->sink->ops->rx(o->sink, &fields, now);
		o->bg_emitted++;
		o->port->ops->rx(o->port, p, now);
		return;
	}
	o->sink->ops->rx(o->sink, p, now);
}

static void
out_event(struct dp_elem *e, dp_time_t now)
{
	(void)e;
	(void)now;
}

static uint64_t
out_held(const struct dp_elem *e)
{
	(void)e;
	return 0;
}

static const struct dp_elem_ops bridge_out_ops = {
	.kind = "bridge_out",
	.event = out_event,
	.rx = out_rx,
	.held = out_held,
};

int
dp_bridge_out_init(struct dp_bridge_out *o, struct dp_engine *eng, const char *name,
		   struct dp_elem *port, struct dp_elem *sink, bool emit_bg)
{
	if (port == NULL || sink == NULL)
		return -EINVAL;
	o->port = port;
	o->sink = sink;
	o->emit_bg = emit_bg;
	o->bg_emitted = 0;
	return dp_engine_add(eng, &o->e, &bridge_out_ops, name);
}
