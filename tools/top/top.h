/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What top.bpf.c and top.c share: plain types of the BPF maps and the ring buffer's records.
 * (No includes: the BPF side takes __u64 from vmlinux.h, the user side from <linux/types.h>.)
 */
#ifndef SYNCEMU_TOP_H
#define SYNCEMU_TOP_H

#define TOP_RES_COUNT 7		/* enum sm_resource: compute, intra, wan, port, optics, ... */
#define TOP_HIST_BUCKETS 48	/* bucket 0: 0 bytes; bucket k: [2^(k-1), 2^k) bytes */
#define TOP_MAX_RUNS 1024
#define TOP_MAX_ELEMS 16384	/* (run, element) pairs */

/**
 * Per run (map "runs", keyed by run_id): sums over the steps seen while attached, since the
 * module's budget last changed (a change through the control socket starts the sums again: the
 * step it happened in, part old and part new, counts in neither).
 */
struct top_run {
	__u64 span_ps[TOP_RES_COUNT];	/* step_end: time each resource held the steps */
	__u64 step_ps;			/* step_end: sum of the steps' times */
	__u64 steps;			/* step_end probes seen */
	__u64 first_step, last_step;	/* their step numbers */
	__u64 first_ns, last_ns;	/* bpf_ktime_get_ns() at the first and last step_end */
	__u64 variant, budget_mflops;	/* step_info or run_start */
	__s64 binding;			/* step_info: the modules' binding stage, -1: none */
	__u64 binding_changes;		/* module_binding with a previous stage */
	__u64 budget_changes;		/* step_info with another budget than the last */
	__u64 skip_step;		/* 1 + the step whose step_end not to count; 0: none */
	__u64 steps_planned, n_workers;	/* run_start (0 if attached later) */
	__u64 started, ended;		/* run_start, run_end seen */
	__u64 end_ps;			/* run_end: its last event */
	__u64 q_hist[TOP_HIST_BUCKETS];	/* queue_sample: WAN queue depth */
	__u64 q_samples, q_max;
	__u64 busy_periods;		/* busy_start */
	__u64 drops, drop_bytes, bg_drops;
};

/** Map "elems": per element of a run. */
struct top_elem_key {
	__u32 run_id;
	__u32 elem_id;
};

struct top_elem {
	__u64 busy_periods;
	__u64 drops, drop_bytes, bg_drops;
	__u64 q_samples, q_max;		/* WAN links */
};

/** Rare events, through the ring buffer. */
enum top_event_kind {
	TOP_EV_RUN_START,	/* a: variant, budget_mflops, steps, n_workers */
	TOP_EV_RUN_END,		/* a: t_ps */
	TOP_EV_BINDING,		/* a: worker, old_stage, new_stage, t_ps */
	TOP_EV_BUDGET,		/* a: step, old_mflops, new_mflops */
};

struct top_event {
	__u32 kind;
	__u32 run_id;
	__u64 ktime_ns;
	__s64 a[4];
};

#endif /* SYNCEMU_TOP_H */
