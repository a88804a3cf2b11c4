/* SPDX-License-Identifier: (BSD-3-Clause OR GPL-2.0-only) */
/*
 * syncemu-top, the BPF side: handlers of the data plane's USDT probes (dataplane/usdt.h).
 *
 * Per run (map "runs", keyed by run_id) it sums the step_end spans by resource, counts the steps
 * and their wall-clock pace, keeps the modules' binding stage (step_info), a log2 histogram of the
 * WAN queue depth (queue_sample), drops and busy periods; per element of a run (map "elems") the
 * drops, busy periods and queue samples.  Run start and end and binding changes, which are rare,
 * go through the ring buffer "events".  Every handler does O(1) work per probe hit, and the
 * probes fire per event (step, sample, busy period, drop), never per frame.  The elements' events
 * carry no run id: they belong to the run of the latest run_start or step_info (runs of one
 * process are sequential); those before the first are not counted.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "top.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set by top.c before load: the process attached to (the uprobes are already per process) */
const volatile __u32 target_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TOP_MAX_RUNS);
	__type(key, __u32);
	__type(value, struct top_run);
} runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TOP_MAX_ELEMS);
	__type(key, struct top_elem_key);
	__type(value, struct top_elem);
} elems SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} events SEC(".maps");

__u32 cur_run = 0;				/* the run of the latest run_start/step_info */
struct top_run zero_run = { .binding = -1 };	/* a new run's entry */
struct top_elem zero_elem = {};

static __always_inline bool
ours(void)
{
	return target_tgid == 0 || (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

/* An element's event, once a run is known (run ids start at 1). */
static __always_inline bool
ours_in_run(void)
{
	return cur_run != 0 && ours();
}

static __always_inline struct top_run *
run_of(__u32 id)
{
	struct top_run *r = bpf_map_lookup_elem(&runs, &id);

	if (r != NULL)
		return r;
	bpf_map_update_elem(&runs, &id, &zero_run, BPF_NOEXIST);
	return bpf_map_lookup_elem(&runs, &id);
}

static __always_inline struct top_elem *
elem_of(__u64 elem_id)
{
	struct top_elem_key k = { .run_id = cur_run, .elem_id = (__u32)elem_id };
	struct top_elem *e = bpf_map_lookup_elem(&elems, &k);

	if (e != NULL)
		return e;
	bpf_map_update_elem(&elems, &k, &zero_elem, BPF_NOEXIST);
	return bpf_map_lookup_elem(&elems, &k);
}

static __always_inline void
emit(__u32 kind, __u32 run_id, __s64 a0, __s64 a1, __s64 a2, __s64 a3)
{
	struct top_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (ev == NULL)
		return;
	ev->kind = kind;
	ev->run_id = run_id;
	ev->ktime_ns = bpf_ktime_get_ns();
	ev->a[0] = a0;
	ev->a[1] = a1;
	ev->a[2] = a2;
	ev->a[3] = a3;
	bpf_ringbuf_submit(ev, 0);
}

/* Bucket of a queue depth: 0 for 0 bytes, k for [2^(k-1), 2^k). */
static __always_inline __u32
bucket(__u64 v)
{
	__u32 k = 1;

	if (v == 0)
		return 0;
	if (v >> 32) {
		k += 32;
		v >>= 32;
	}
	if (v >> 16) {
		k += 16;
		v >>= 16;
	}
	if (v >> 8) {
		k += 8;
		v >>= 8;
	}
	if (v >> 4) {
		k += 4;
		v >>= 4;
	}
	if (v >> 2) {
		k += 2;
		v >>= 2;
	}
	if (v >> 1)
		k += 1;
	return k < TOP_HIST_BUCKETS ? k : TOP_HIST_BUCKETS - 1;
}

SEC("usdt")
int BPF_USDT(run_start, __u64 run_id, __u64 variant, __u64 mflops, __u64 steps, __u64 workers)
{
	struct top_run *r;

	if (!ours())
		return 0;
	cur_run = (__u32)run_id;
	r = run_of((__u32)run_id);
	if (r == NULL)
		return 0;
	r->variant = variant;
	r->budget_mflops = mflops;
	r->steps_planned = steps;
	r->n_workers = workers;
	r->started = 1;
	emit(TOP_EV_RUN_START, (__u32)run_id, variant, mflops, steps, workers);
	return 0;
}

SEC("usdt")
int BPF_USDT(run_end, __u64 run_id, __u64 t_ps)
{
	struct top_run *r;

	if (!ours())
		return 0;
	r = run_of((__u32)run_id);
	if (r != NULL) {
		r->ended = 1;
		r->end_ps = t_ps;
	}
	emit(TOP_EV_RUN_END, (__u32)run_id, t_ps, 0, 0, 0);
	return 0;
}

SEC("usdt")
int BPF_USDT(step_info, __u64 run_id, __u64 step, __u64 variant, __u64 mflops, __s64 stage)
{
	struct top_run *r;

	if (!ours())
		return 0;
	cur_run = (__u32)run_id;
	r = run_of((__u32)run_id);
	if (r == NULL)
		return 0;
	if (r->variant == variant && r->budget_mflops != 0 && r->budget_mflops != mflops) {
		/* the budget changed during step @step: sums start again after it */
		for (int i = 0; i < TOP_RES_COUNT; i++)
			r->span_ps[i] = 0;
		r->step_ps = 0;
		r->steps = 0;
		r->skip_step = step + 1;
		r->budget_changes++;
		emit(TOP_EV_BUDGET, (__u32)run_id, step, r->budget_mflops, mflops, 0);
	}
	r->variant = variant;
	r->budget_mflops = mflops;
	r->binding = stage;
	return 0;
}

SEC("usdt")
int BPF_USDT(step_end, __u64 run_id, __u64 step, __u64 time_ps, __u64 compute, __u64 intra,
	     __u64 wan, __u64 port, __u64 optics, __u64 mcompute, __u64 fpga)
{
	__u64 now = bpf_ktime_get_ns();
	struct top_run *r;

	if (!ours())
		return 0;
	r = run_of((__u32)run_id);
	if (r == NULL || r->skip_step == step + 1)
		return 0;
	r->span_ps[0] += compute;
	r->span_ps[1] += intra;
	r->span_ps[2] += wan;
	r->span_ps[3] += port;
	r->span_ps[4] += optics;
	r->span_ps[5] += mcompute;
	r->span_ps[6] += fpga;
	r->step_ps += time_ps;
	if (r->steps == 0) {
		r->first_step = step;
		r->first_ns = now;
	}
	r->last_step = step;
	r->last_ns = now;
	r->steps++;
	return 0;
}

SEC("usdt")
int BPF_USDT(module_binding, __u64 worker, __s64 old_stage, __s64 new_stage, __u64 t_ps)
{
	struct top_run *r;

	if (!ours_in_run())
		return 0;
	r = run_of(cur_run);
	if (r != NULL && old_stage >= 0)
		r->binding_changes++;
	emit(TOP_EV_BINDING, cur_run, worker, old_stage, new_stage, t_ps);
	return 0;
}

SEC("usdt")
int BPF_USDT(queue_sample, __u64 elem_id, __u64 bytes, __u64 t_ps)
{
	struct top_run *r;
	struct top_elem *e;
	__u32 k = bucket(bytes);

	if (!ours_in_run())
		return 0;
	r = run_of(cur_run);
	if (r != NULL && k < TOP_HIST_BUCKETS) {
		r->q_hist[k]++;
		r->q_samples++;
		if (bytes > r->q_max)
			r->q_max = bytes;
	}
	e = elem_of(elem_id);
	if (e != NULL) {
		e->q_samples++;
		if (bytes > e->q_max)
			e->q_max = bytes;
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(drop, __u64 elem_id, __u64 background, __u64 bytes, __u64 t_ps)
{
	struct top_run *r;
	struct top_elem *e;

	if (!ours_in_run())
		return 0;
	r = run_of(cur_run);
	if (r != NULL) {
		r->drops++;
		r->drop_bytes += bytes;
		r->bg_drops += background ? 1 : 0;
	}
	e = elem_of(elem_id);
	if (e != NULL) {
		e->drops++;
		e->drop_bytes += bytes;
		e->bg_drops += background ? 1 : 0;
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(busy_start, __u64 elem_id, __u64 t_ps)
{
	struct top_run *r;
	struct top_elem *e;

	if (!ours_in_run())
		return 0;
	r = run_of(cur_run);
	if (r != NULL)
		r->busy_periods++;
	e = elem_of(elem_id);
	if (e != NULL)
		e->busy_periods++;
	return 0;
}
