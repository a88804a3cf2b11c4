/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module element.
 *
 * Deck: "The Module as a Link Kernel".  A frame's payload passes four stages in order; each is a
 * serialiser at its rate in payload bytes per second (optics: value bytes x lanes x lane rate /
 * bit planes; compute: budget / charged ops per byte; FPGA: rate / its ops per byte; port: the
 * module port), so the slowest stage sets the stream's rate and the others add their first-frame
 * time.  A module in the network (E') starts when the whole dense gradient has arrived, as the
 * model adds the dense hop and the module's time; a pluggable (E) streams frames as its worker
 * hands them over, and its worker hands them over at the pace of the slowest stage (it queues a
 * burst ahead and re-arms when the slowest stage starts the last one, less the time a frame takes
 * through the stages before it, so the slowest never runs dry), so the frames inside the
 * module stay few.  When the last frame of a step leaves the last stage, the module tells its
 * worker after its latency.  Frames end here (the band leaves from the worker).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ring.h"
#include "capture.h"
#include "ffwd.h"
#include "frame.h"
#include "kernel_prog.h"
#include "module.h"
#include "record.h"
#include "usdt.h"

#define RING_MIN 64

static void module_event(struct dp_elem *e, dp_time_t now);
static void module_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t module_held(const struct dp_elem *e);

static bool module_settled(const struct dp_elem *e);

static const struct dp_ffwd_field module_moving[] = {
	DP_FFWD_FIELD(struct dp_module, step), DP_FFWD_FIELD(struct dp_module, head),
	DP_FFWD_FIELD(struct dp_module, tail), DP_FFWD_FIELD(struct dp_module, started),
	DP_FFWD_ARRAY(struct dp_module, busy), DP_FFWD_FIELD(struct dp_module, got),
	DP_FFWD_FIELD(struct dp_module, streamed), DP_FFWD_FIELD(struct dp_module, done_at),
	DP_FFWD_ARRAY(struct dp_module, stage_busy), DP_FFWD_FIELD(struct dp_module, gathered_at),
	DP_FFWD_FIELD(struct dp_module, index), DP_FFWD_ARRAY(struct dp_module, stage_mark),
	DP_FFWD_FIELD(struct dp_module, step_binding), DP_FFWD_FIELD(struct dp_module, kernel_runs),
};
static const struct dp_ffwd_layout module_ffwd = {
	.size = sizeof(struct dp_module),
	.moving = module_moving, .n_moving = RTE_DIM(module_moving),
	.settled = module_settled,
};

static const struct dp_elem_ops module_ops = {
	.kind = "module",
	.event = module_event,
	.rx = module_rx,
	.held = module_held,
	.ffwd = &module_ffwd,
};

int
dp_module_init(struct dp_module *mod, struct dp_engine *eng, const struct dp_module_params *p)
{
	int rc, s;

	if (p->expect == 0 || p->done == NULL)
		return -EINVAL;
	memset(mod, 0, sizeof(*mod));
	rc = dp_engine_add(eng, &mod->e, &module_ops, p->name);
	if (rc != 0)
		return rc;
	for (s = 0; s < SM_STAGE_COUNT; s++)
		mod->stage_bw[s] = p->stage_bw[s];
	mod->latency = p->latency;
	mod->gather = p->gather;
	mod->expect = p->expect;
	mod->done = p->done;
	mod->arg = p->arg;
	mod->rec = p->rec;
	mod->index = p->index;
	mod->step_binding = -1;
	mod->cap_in = p->cap_in;
	mod->cap_out = p->cap_out;
	mod->kernel = p->kernel;
	mod->compute_mask = p->compute_mask;
	memcpy(mod->op_rate, p->op_rate, sizeof(mod->op_rate));
	mod->value_bytes = p->value_bytes;
	mod->planes = p->planes;
	mod->done_at = DP_NEVER;
	mod->slowest = SM_STAGE_PORT;
	for (s = 0; s < SM_STAGE_COUNT; s++)
		if (mod->stage_bw[s] > 0 && mod->stage_bw[s] < mod->stage_bw[mod->slowest])
			mod->slowest = s;
	mod->ring = malloc(RING_MIN * sizeof(*mod->ring));
	if (mod->ring == NULL)
		return -ENOMEM;
	mod->mask = RING_MIN - 1;
	return 0;
}

void
dp_module_fini(struct dp_module *mod)
{
	for (; mod->head != mod->tail; mod->head++) {
		const struct dp_module_slot *slot = &mod->ring[mod->head & mod->mask];

		if (slot->kept)
			rte_pktmbuf_free(slot->p.m);	/* NULL is fine */
	}
	free(mod->ring);
	mod->ring = NULL;
}

static uint64_t
module_held(const struct dp_elem *e)
{
	const struct dp_module *mod = (const struct dp_module *)e;

	return mod->e.c.rx - mod->e.c.tx;
}

enum sm_stage
dp_module_binding(const struct dp_module *mod)
{
	enum sm_stage b = SM_STAGE_OPTICS;
	int s;

	for (s = 1; s < SM_STAGE_COUNT; s++)
		if (mod->stage_busy[s] > mod->stage_busy[b])
			b = (enum sm_stage)s;
	return b;
}

static int
grow(struct dp_module *mod)
{
	uint32_t head = mod->head;
	struct dp_module_slot *r = sm_ring_grow(mod->ring, &mod->mask, &mod->head, &mod->tail,
						sizeof(*r), 0, 0);

	if (r == NULL)
		return -ENOMEM;
	mod->ring = r;
	mod->started -= head;
	return 0;
}

/*
 * A step's stream is through the stages (at @t): its binding stage is the one that worked most on
 * it; the record keeps it for the step's spans, and a change from the previous step is a probe.
 */
static void
stream_done(struct dp_module *mod, dp_time_t t)
{
	dp_time_t work[SM_STAGE_COUNT];
	int b = SM_STAGE_OPTICS, s;

	for (s = 0; s < SM_STAGE_COUNT; s++)
		work[s] = mod->stage_busy[s] - mod->stage_mark[s];
	for (s = 1; s < SM_STAGE_COUNT; s++)	/* the first on a tie, as sm_kernel_eval() */
		if (work[s] > work[b])
			b = s;
	memcpy(mod->stage_mark, mod->stage_busy, sizeof(mod->stage_mark));
	if (b != mod->step_binding) {
		DP_USDT_MODULE_BINDING(mod->index, mod->step_binding, b, t);
		mod->step_binding = b;
	}
	if (mod->rec != NULL)
		mod->rec->binding = b;
}

/*
 * The frame's time in the compute and FPGA stages from the link-kernel program: its ops of each
 * type at the rate of the stage the type is charged to.
 */
static void
kernel_times(struct dp_module *mod, uint32_t len, dp_time_t d[SM_STAGE_COUNT])
{
	struct syncemu_kernel_ctx ctx = {
		.payload = len,
		.value_bytes = mod->value_bytes,
		.planes = mod->planes,
		.module = mod->index,
		.offset = mod->streamed,
		.stream = mod->expect,
		.step = mod->step,
	};
	uint64_t rc, ops[SM_STAGE_COUNT] = { 0 };
	int i;

	rc = dp_kernel_run(mod->kernel, &ctx);
	mod->kernel_runs++;
	if (rc != 0) {
		dp_engine_fail(mod->e.eng, -EINVAL, "%s: the kernel program returned %llu (not 0) "
			       "on the frame at byte %llu of stream %llu", mod->e.name,
			       (unsigned long long)rc, (unsigned long long)ctx.offset,
			       (unsigned long long)ctx.step);
		return;
	}
	for (i = 0; i < SM_OP_COUNT; i++)
		ops[mod->compute_mask & (1u << i) ? SM_STAGE_COMPUTE : SM_STAGE_FPGA] += ctx.ops[i];
	d[SM_STAGE_COMPUTE] = dp_kernel_ps(ops[SM_STAGE_COMPUTE], mod->op_rate[SM_STAGE_COMPUTE]);
	d[SM_STAGE_FPGA] = dp_kernel_ps(ops[SM_STAGE_FPGA], mod->op_rate[SM_STAGE_FPGA]);
}

/*
 * Start the frame in @slot through the stages at @t; returns when the slowest stage starts it less
 * the frame's time in the stages before the slowest (at least @t): when the worker re-arms.
 */
static dp_time_t
stream(struct dp_module *mod, struct dp_module_slot *slot, dp_time_t t)
{
	uint32_t len = slot->len;
	dp_time_t first = DP_NEVER, kd[SM_STAGE_COUNT] = { 0 }, entry = t, upstream = 0;
	int s;

	if (mod->kernel != NULL)
		kernel_times(mod, len, kd);
	for (s = 0; s < SM_STAGE_COUNT; s++) {
		bool by_kernel = mod->kernel != NULL &&
				 (s == SM_STAGE_COMPUTE || s == SM_STAGE_FPGA);
		dp_time_t start, d;

		if (by_kernel ? kd[s] == 0 : mod->stage_bw[s] == 0)
			continue;
		start = t > mod->busy[s] ? t : mod->busy[s];
		d = by_kernel ? kd[s] : sm_ser_ps(len, mod->stage_bw[s]);
		if (s == mod->slowest)	/* less the stages before it (models/packet.c) */
			first = start - upstream > entry ? start - upstream : entry;
		else if (s < mod->slowest)
			upstream += d;
		mod->busy[s] = start + d;
		mod->stage_busy[s] += d;
		t = mod->busy[s];
	}
	slot->exit = t;
	mod->streamed += len;
	if (mod->streamed == mod->expect) {
		if (mod->done_at == DP_NEVER)
			dp_sync_hold(mod->e.eng);	/* until its worker is told */
		mod->done_at = t + mod->latency;
		mod->streamed = 0;
		stream_done(mod, t);
	}
	return first == DP_NEVER ? t : first;
}

static dp_time_t
next_event(const struct dp_module *mod)
{
	dp_time_t t = mod->done_at;

	if (mod->head != mod->started && mod->ring[mod->head & mod->mask].exit < t)
		t = mod->ring[mod->head & mod->mask].exit;
	return t;
}

int
dp_module_push(struct dp_module *mod, const struct dp_pkt *p, dp_time_t now, dp_time_t *start)
{
	struct dp_module_slot *slot;
	dp_time_t first = now;

	if (mod->tail - mod->head > mod->mask && grow(mod) != 0) {
		dp_engine_fail(mod->e.eng, -ENOMEM, "%s: out of memory for its queue", mod->e.name);
		dp_frame_end(mod->e.eng, p);
		return -ENOMEM;
	}
	mod->e.c.rx++;
	mod->e.c.rx_bytes += p->len;
	dp_capture_frame(mod->e.eng, mod->cap_in, p, now);
	slot = &mod->ring[mod->tail++ & mod->mask];
	slot->len = p->meta.payload;
	slot->exit = DP_NEVER;
	mod->got += slot->len;
	if (mod->cap_out >= 0) {
		slot->p = *p;
		slot->kept = true;
	} else {
		/* nothing will look at it again: the frame ends here */
		slot->kept = false;
		mod->e.c.tx++;
		mod->e.c.tx_bytes += p->len;
		dp_frame_end(mod->e.eng, p);
	}
	if (!mod->gather) {
		first = stream(mod, slot, now);
		mod->started = mod->tail;
	} else if (mod->got == mod->expect) {
		/* the whole input is in: stream it all from now */
		mod->gathered_at = now;
		if (mod->rec != NULL && mod->step < mod->rec->steps)
			dp_record_max(&mod->rec->gathered[dp_record_slot(mod->rec, mod->step)],
				      now);
		while (mod->started != mod->tail)
			stream(mod, &mod->ring[mod->started++ & mod->mask], now);
	}
	if (mod->got == mod->expect)
		mod->got = 0;
	if (mod->cap_out < 0)
		mod->head = mod->started;	/* no frame to let out: only lengths were kept */
	if (start != NULL)
		*start = first;
	dp_sched(&mod->e, next_event(mod));
	return 0;
}

static void
module_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	dp_module_push((struct dp_module *)e, p, now, NULL);
}

static void
module_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_module *mod = (struct dp_module *)e;

	while (mod->head != mod->started && mod->ring[mod->head & mod->mask].exit <= now) {
		struct dp_module_slot *slot = &mod->ring[mod->head++ & mod->mask];

		if (!slot->kept)
			continue;
		slot->kept = false;
		dp_capture_frame(e->eng, mod->cap_out, &slot->p, now);
		e->c.tx++;	/* consumed: the frame's journey ends here */
		e->c.tx_bytes += slot->p.len;
		dp_frame_end(e->eng, &slot->p);
	}
	if (mod->done_at <= now) {
		mod->done_at = DP_NEVER;
		dp_sync_release(e->eng);	/* the step's stream is done */
		mod->step++;
		mod->done(mod->arg, now);
	}
	dp_sched(e, next_event(mod));
}

static bool
module_settled(const struct dp_elem *e)
{
	return ((const struct dp_module *)e)->kernel == NULL;	/* a program's maps: its own */
}
