/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * USDT probes of the data plane (provider "syncemu"), for tools that attach to a running syncemu:
 * `syncemu-top` (tools/top/), bpftrace, perf.
 *
 * With <sys/sdt.h> (Debian: systemtap-sdt-dev) meson defines SYNCEMU_USDT and each probe is a
 * single nop in the code plus a note in the ELF section .note.stapsdt (`readelf -n` lists them);
 * the arguments are read only by an attached tool.  Without it every macro compiles to nothing and
 * DP_USDT is 0, so code that exists only to compute a probe's arguments is removed too.
 *
 * Probes fire per event, never per frame: per run, step, phase or module stream, per busy period
 * of a link, per drop, per queue sample.  (A busy period can be as short as one frame on a link
 * fed by a slower one; a tool that counts them pays about 0.5 us per period while attached.)
 * Every argument is an integer: times in picoseconds of the run's virtual time, bytes, ids.
 * An elem_id is the element's id in its run (struct dp_elem.id), which is also its index in
 * the "elements" of `syncemu run --json`; it says nothing of the run, so a tool attributes it to
 * the run of the latest run_start or step_info.
 *
 *   run_start(run_id, variant, budget_mflops, steps, n_workers)
 *	a run begins: enum sm_variant, the module compute budget in MFLOP/s (0: not charged,
 *	[free]), the steps it will run, its workers.
 *   run_end(run_id, t_ps)
 *	the run is over (and every link's last busy_end was emitted); t_ps: its last event.
 *   step_info(run_id, step, variant, budget_mflops, binding_stage)
 *	just before each step_end: what the run is (as run_start gives it, for a tool that
 *	attached after the run began) and the modules' binding stage in this step (enum sm_stage;
 *	-1: no module).
 *   step_end(run_id, step, time_ps, span_compute_ps, span_intra_ps, span_wan_ps, span_port_ps,
 *	      span_optics_ps, span_mcompute_ps, span_fpga_ps)
 *	the last worker finished the step: its time (end minus the previous step's end) and the
 *	time each resource held it (enum sm_resource order), computed by dp_step_spans() as
 *	`syncemu run` computes its shares, with the module round charged to this step's binding
 *	stage.  With phase sync the spans add up to time_ps.
 *   sync_start(run_id, step, t_ps) / sync_end(run_id, step, t_ps)
 *	the first worker's compute of the step ends / the last worker ends the step's sync.
 *   phase_start(run_id, step, phase, t_ps) / phase_end(run_id, step, phase, t_ps)
 *	the first worker begins / the last worker ends a phase of the collective (struct
 *	sm_round.phase: an index into the variant's plan), aggregated over the workers.
 *   busy_start(elem_id, t_ps) / busy_end(elem_id, t_ps)
 *	a link's serialiser starts a busy period (a frame is queued on an idle serialiser) / the
 *	period ended at t_ps: emitted lazily, when the next push finds the link idle (just before
 *	that push's busy_start), and for the last period when the link is freed at the run's end.
 *   drop(elem_id, background, bytes, t_ps)
 *	a link's queue dropped a frame at its tail: 1 if it was background traffic, frame bytes.
 *   module_binding(worker, old_stage, new_stage, t_ps)
 *	the binding stage of the module of @worker (the stage with the most work over the step's
 *	stream, enum sm_stage) differs from the previous step's; old_stage is -1 at its first
 *	stream of the run.  t_ps: when the stream leaves the last stage.
 *   queue_sample(elem_id, bytes, t_ps)
 *	the WAN queue probe (dataplane/probe.c) read a link's queue: frame bytes waiting.
 *
 * Try: bpftrace -e 'usdt:build/tools/syncemu:syncemu:step_end { @[arg0] = count(); }'
 */
#ifndef DP_USDT_H
#define DP_USDT_H

#include <stdint.h>

#include <stdbool.h>

/**
 * A tracer is attached to one of the probes a step fires (all but run_start and run_end): the
 * probes' semaphores, which the kernel counts up as uprobes attach (libbpf, bpftrace).  A run
 * that replays steps (ffwd.h) does not while one is.
 */
bool dp_usdt_attached(void);

#ifdef SYNCEMU_USDT

/* every probe has a semaphore (usdt.c), for dp_usdt_attached() */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define DP_USDT_PROBES(X)								\
	X(run_start) X(run_end) X(step_info) X(step_end) X(sync_start) X(sync_end)	\
	X(phase_start) X(phase_end) X(busy_start) X(busy_end) X(drop)			\
	X(module_binding) X(queue_sample)
#define DP_USDT_SEMA_DECL(n) extern unsigned short syncemu_##n##_semaphore;
DP_USDT_PROBES(DP_USDT_SEMA_DECL)

#define DP_USDT 1

/* every argument is a 64-bit integer: signed where it may be -1 */
#define DP_USDT_U(x) ((uint64_t)(x))
#define DP_USDT_S(x) ((int64_t)(x))

#define DP_USDT_RUN_START(run, var, mflops, steps, workers)				\
	STAP_PROBE5(syncemu, run_start, DP_USDT_U(run), DP_USDT_U(var),			\
		DP_USDT_U(mflops), DP_USDT_U(steps), DP_USDT_U(workers))
#define DP_USDT_RUN_END(run, t)								\
	STAP_PROBE2(syncemu, run_end, DP_USDT_U(run), DP_USDT_U(t))
#define DP_USDT_STEP_INFO(run, step, var, mflops, stage)				\
	STAP_PROBE5(syncemu, step_info, DP_USDT_U(run), DP_USDT_U(step),		\
		DP_USDT_U(var), DP_USDT_U(mflops), DP_USDT_S(stage))
#define DP_USDT_STEP_END(run, step, time, sp)						\
	STAP_PROBE10(syncemu, step_end, DP_USDT_U(run), DP_USDT_U(step),		\
		DP_USDT_U(time), DP_USDT_U((sp)[0]), DP_USDT_U((sp)[1]),		\
		DP_USDT_U((sp)[2]), DP_USDT_U((sp)[3]), DP_USDT_U((sp)[4]),		\
		DP_USDT_U((sp)[5]), DP_USDT_U((sp)[6]))
#define DP_USDT_SYNC_START(run, step, t)						\
	STAP_PROBE3(syncemu, sync_start, DP_USDT_U(run), DP_USDT_U(step), DP_USDT_U(t))
#define DP_USDT_SYNC_END(run, step, t)							\
	STAP_PROBE3(syncemu, sync_end, DP_USDT_U(run), DP_USDT_U(step), DP_USDT_U(t))
#define DP_USDT_PHASE_START(run, step, phase, t)					\
	STAP_PROBE4(syncemu, phase_start, DP_USDT_U(run), DP_USDT_U(step),		\
		DP_USDT_U(phase), DP_USDT_U(t))
#define DP_USDT_PHASE_END(run, step, phase, t)						\
	STAP_PROBE4(syncemu, phase_end, DP_USDT_U(run), DP_USDT_U(step),		\
		DP_USDT_U(phase), DP_USDT_U(t))
#define DP_USDT_BUSY_START(elem, t)							\
	STAP_PROBE2(syncemu, busy_start, DP_USDT_U(elem), DP_USDT_U(t))
#define DP_USDT_BUSY_END(elem, t)							\
	STAP_PROBE2(syncemu, busy_end, DP_USDT_U(elem), DP_USDT_U(t))
#define DP_USDT_DROP(elem, bg, bytes, t)						\
	STAP_PROBE4(syncemu, drop, DP_USDT_U(elem), DP_USDT_U(bg), DP_USDT_U(bytes),	\
		DP_USDT_U(t))
#define DP_USDT_MODULE_BINDING(worker, old, new, t)					\
	STAP_PROBE4(syncemu, module_binding, DP_USDT_U(worker), DP_USDT_S(old),		\
		DP_USDT_S(new), DP_USDT_U(t))
#define DP_USDT_QUEUE_SAMPLE(elem, bytes, t)						\
	STAP_PROBE3(syncemu, queue_sample, DP_USDT_U(elem), DP_USDT_U(bytes),		\
		DP_USDT_U(t))

#else /* !SYNCEMU_USDT */

#define DP_USDT 0

#define DP_USDT_RUN_START(run, var, mflops, steps, workers)	do { } while (0)
#define DP_USDT_RUN_END(run, t)					do { } while (0)
#define DP_USDT_STEP_INFO(run, step, var, mflops, stage)	do { } while (0)
#define DP_USDT_STEP_END(run, step, time, sp)			do { } while (0)
#define DP_USDT_SYNC_START(run, step, t)			do { } while (0)
#define DP_USDT_SYNC_END(run, step, t)				do { } while (0)
#define DP_USDT_PHASE_START(run, step, phase, t)		do { } while (0)
#define DP_USDT_PHASE_END(run, step, phase, t)			do { } while (0)
#define DP_USDT_BUSY_START(elem, t)				do { } while (0)
#define DP_USDT_BUSY_END(elem, t)				do { } while (0)
#define DP_USDT_DROP(elem, bg, bytes, t)			do { } while (0)
#define DP_USDT_MODULE_BINDING(worker, old, new, t)		do { } while (0)
#define DP_USDT_QUEUE_SAMPLE(elem, bytes, t)			do { } while (0)

#endif /* SYNCEMU_USDT */

/** The module compute budget as the probes give it: MFLOP/s, rounded (0: not charged). */
static inline uint64_t
dp_usdt_mflops(double budget)
{
	return budget > 0 ? (uint64_t)(budget / 1e6 + 0.5) : 0;
}

#endif /* DP_USDT_H */
