/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time: the engine's hooks (the clock, the ports), the ports' opening and a run's begin
 * and end (rt.h); a run split over two processes speaks rt_peer.c's protocol, over MPI ranks
 * rt_mpi.c's (rt_impl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "../models/bits.h"
#include "capture.h"
#include "parallel.h"
#include "ranks.h"
#include "record.h"
#include "rt.h"
#include "rt_impl.h"
#include "tcp.h"
#include "topology.h"

/* ---- the engine's hooks ---- */

static dp_time_t
rt_now(void *arg)
{
	const struct dp_rt *rt = arg;

	return dp_clock_emu(&rt->clk, dp_clock_ns(&rt->clk));
}

static void
rt_poll(void *arg, dp_time_t now)
{
	struct dp_rt *rt = arg;
	uint32_t i;

	for (i = 0; i < DP_RT_PORT_MAX; i++)
		if (rt->opened[i] && rt->port[i].e.eng != NULL)
			dp_port_poll(&rt->port[i], now);
	if (rt->mpi && rt->topo != NULL)
		rt_mpi_take(rt, now);
}

/* A partition's: its own ports alone (each port is polled by the lcore of its engine). */
static dp_time_t
scope_now(void *arg)
{
	const struct dp_rt_scope *sc = arg;

	return rt_now(sc->rt);
}

static void
scope_poll(void *arg, dp_time_t now)
{
	const struct dp_rt_scope *sc = arg;

	for (uint32_t i = 0; i < sc->n; i++)
		dp_port_poll(sc->port[i], now);
}

static bool
scope_busy(void *arg)
{
	const struct dp_rt_scope *sc = arg;

	for (uint32_t i = 0; i < sc->n; i++)
		if (dp_port_backlog(sc->port[i]) > 0)
			return true;
	return false;
}

/* A split run's record holds every step (record.h): slot i is step i. */
uint64_t
rt_array_len(const struct dp_record *r, int a)
{
	return a == A_ROUND ? (uint64_t)r->slots * r->rounds : r->slots;
}

uint64_t
rt_array_get(const struct dp_record *r, int a, uint64_t i)
{
	switch (a) {
	case A_COMPUTE: return r->compute_end[i];
	case A_ROUND: return r->round_end[i];
	case A_STEP: return r->step_end[i];
	case A_FRAMES: return r->frames[i];
	case A_GATHERED: return r->gathered[i];
	default: return r->finished[i];
	}
}

/* Both sides' figure: the latest time, the sum of counts. */
void
rt_array_merge(struct dp_record *r, int a, uint64_t i, uint64_t v)
{
	switch (a) {
	case A_COMPUTE: dp_record_max(&r->compute_end[i], v); break;
	case A_ROUND: dp_record_max(&r->round_end[i], v); break;
	case A_STEP: dp_record_max(&r->step_end[i], v); break;
	case A_FRAMES: r->frames[i] += v; break;
	case A_GATHERED: dp_record_max(&r->gathered[i], v); break;
	default: r->finished[i] += (uint32_t)v; break;
	}
}

void
rt_port_report(const struct dp_port *p, struct dp_rt_port_report *r)
{
	const struct dp_lateness *l = &p->late;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", p->name);
	snprintf(r->dev, sizeof(r->dev), "%s", p->dev);
	r->tx = p->tx;
	r->tx_bytes = p->tx_bytes;
	r->tx_deferred = p->tx_deferred;
	r->rx = p->rx;
	r->rx_bytes = p->rx_bytes;
	r->rx_other = p->rx_other;
	r->rx_stale = p->rx_stale;
	r->tx_ctl = p->tx_ctl;
	r->rx_ctl = p->rx_ctl;
	r->hw_ts = p->hw_ts;
	dp_port_dev_drops(p, &r->dev_rx_dropped, &r->dev_tx_errors);
	r->late_n = l->seen;
	dp_lateness_stats(l, &r->late_median_ns, &r->late_p99_ns, &r->late_p999_ns,
			  &r->late_max_ns);
}

/* A port's figures as RT_PORTREP values, and back. */
uint16_t
rt_portrep_pack(const struct dp_rt_port_report *r, uint64_t *v)
{
	uint16_t n = 0;

	v[n++] = r->tx;
	v[n++] = r->tx_bytes;
	v[n++] = r->tx_deferred;
	v[n++] = r->rx;
	v[n++] = r->rx_bytes;
	v[n++] = r->rx_other;
	v[n++] = r->rx_stale;
	v[n++] = r->late_n;
	v[n++] = sm_double_bits(r->late_median_ns);
	v[n++] = sm_double_bits(r->late_p99_ns);
	v[n++] = sm_double_bits(r->late_p999_ns);
	v[n++] = sm_double_bits(r->late_max_ns);
	v[n++] = r->hw_ts;
	v[n++] = r->dev_rx_dropped;
	v[n++] = r->dev_tx_errors;
	return n;
}

void
rt_portrep_unpack(struct dp_rt_port_report *r, uint32_t dc, const uint64_t *v, uint16_t n)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "dc%u.eth", dc);
	snprintf(r->dev, sizeof(r->dev), "(the peer's)");
	if (n < 15)
		return;
	r->tx = v[0];
	r->tx_bytes = v[1];
	r->tx_deferred = v[2];
	r->rx = v[3];
	r->rx_bytes = v[4];
	r->rx_other = v[5];
	r->rx_stale = v[6];
	r->late_n = v[7];
	r->late_median_ns = sm_bits_double(v[8]);
	r->late_p99_ns = sm_bits_double(v[9]);
	r->late_p999_ns = sm_bits_double(v[10]);
	r->late_max_ns = sm_bits_double(v[11]);
	r->hw_ts = v[12] != 0;
	r->dev_rx_dropped = v[13];
	r->dev_tx_errors = v[14];
}

/* Every control message, in the engine (at @p now) or outside it (now 0). */
/* ---- open, close ---- */

/* A memif port that connects to a server (the other end closes first, MPI below). */
static bool
is_client(const struct dp_port *p)
{
	return strstr(p->dev, "memif") != NULL && strstr(p->dev, "role=client") != NULL;
}

void
dp_rt_close(struct dp_rt *rt)
{
	uint32_t i;

	if (rt->mpi && rt->clean) {
		/*
		 * Ranks close together, in an order that leaves no memif end to learn of its peer's
		 * going while it sends or tears down (DPDK 22.11's memif handles a peer's
		 * disconnection on the interrupt thread, which races the lcore's own use or close
		 * of the port, and the EAL's end): the clients first while every rank waits, then,
		 * once each server has seen its client go, the servers; the EAL ends after both.
		 */
		uint64_t end = dp_clock_raw_ns() + (uint64_t)rt->wait_ms * 1000000;

		dp_ranks_barrier();
		for (i = 0; i < DP_RT_PORT_MAX; i++)
			if (rt->opened[i] && is_client(&rt->port[i])) {
				dp_port_close(&rt->port[i]);
				rt->opened[i] = false;
			}
		dp_ranks_barrier();
		for (i = 0; i < DP_RT_PORT_MAX; i++)
			while (rt->opened[i] && strstr(rt->port[i].dev, "memif") != NULL &&
			       dp_port_up(&rt->port[i]) && dp_clock_raw_ns() < end)
				rte_pause();
	}
	for (i = 0; i < DP_RT_PORT_MAX; i++)
		if (rt->opened[i]) {
			dp_port_close(&rt->port[i]);
			rt->opened[i] = false;
		}
	if (rt->mpi && rt->clean)
		dp_ranks_barrier();
	memset(rt->dc_port, 0, sizeof(rt->dc_port));
	memset(rt->link_tx, 0, sizeof(rt->link_tx));
	memset(rt->link_rx, 0, sizeof(rt->link_rx));
	rt->n_links = 0;
}

/* Open port @p i of @p rt on @p devargs, named @p name. */
static int
open_port(struct dp_rt *rt, const struct dp_rt_params *p, uint32_t i, const char *devargs,
	  const char *name, uint32_t rx_mbufs, char *err, size_t errlen)
{
	int rc = dp_port_open(&rt->port[i], devargs, name, p->pool, p->frame_max, rx_mbufs,
			      &rt->clk, p->wait_ms, err, errlen);

	rt->opened[i] = rc == 0;
	return rc;
}

/* Check the data centres and their ports, calibrate the clock, open the ports. */
static int
open_all(struct dp_rt *rt, const struct dp_rt_params *p, char *err, size_t errlen)
{
	uint32_t d, n_ring = 0;
	int rc;

	if (rt->local == 0) {
		snprintf(err, errlen, "[ports] local: no data centre of the scenario's %u", p->n_dc);
		return -EINVAL;
	}
	for (d = 0; d < p->n_dc; d++) {
		bool mapped = p->port[d] != NULL && p->port[d][0] != '\0';
		bool here = rt->local & (1u << d);
		uint32_t next = (d + 1) % p->n_dc, prev = (d + p->n_dc - 1) % p->n_dc;

		if (mapped && !here && !rt->mpi) {
			snprintf(err, errlen, "[ports] dc%u: data centre %u runs in the other process: "
				 "its port is mapped there", d, d);
			return -EINVAL;
		}
		if (here && rt->mpi && next != prev && !(rt->local & (1u << next)) &&
		    !(rt->local & (1u << prev))) {
			/* its one port would lead to two ranks: it takes frames from DC prev and
			 * sends them on to DC next */
			snprintf(err, errlen, "[ports] local: data centre %u runs alone between DC "
				 "%u and DC %u of other ranks, and its one port cannot be the end of "
				 "both crossings: give each rank runs of two or more neighbouring data "
				 "centres", d, prev, next);
			return -EINVAL;
		}
		if (here && !mapped && p->n_dc > 1 &&
		    (!(rt->local & (1u << next)) || !(rt->local & (1u << prev)))) {
			snprintf(err, errlen, "[ports] dc%u: data centre %u exchanges frames with DC "
				 "%u in %s: map it to a port", d, d,
				 !(rt->local & (1u << next)) ? next : prev,
				 rt->mpi ? "another rank" : "the other process");
			return -EINVAL;
		}
		n_ring += mapped && here && strncmp(p->port[d], "ring:", 5) == 0;
	}
	if (n_ring % 2 != 0) {
		snprintf(err, errlen, "[ports]: a ring:NAME port has two ends, one per data centre: "
			 "map the same name at two DCs%s", rt->mpi ? " of one rank" : "");
		return -EINVAL;
	}
	rt->clk.dilation = p->dilation;
	rt->clk.realtime = p->realtime;
	rc = dp_clock_calibrate(&rt->clk, p->calibrate_s);
	if (rc != 0) {
		snprintf(err, errlen, "calibrating the TSC against CLOCK_MONOTONIC_RAW failed: %s",
			 strerror(-rc));
		return rc;
	}
	rt->hooks.now = rt_now;
	rt->hooks.poll = rt_poll;
	rt->hooks.arg = rt;
	/* memif clients last: a rank's client waits for the server of the next rank, whose own
	 * client may wait for ours (a ring of ranks); the servers are all up first */
	for (uint32_t k = 0; k < 2 * p->n_dc; k++) {
		char name[24];

		d = k % p->n_dc;
		/* (MPI: every rank has the same command line; the ports of others' DCs are theirs) */
		if (p->port[d] == NULL || p->port[d][0] == '\0' || !(rt->local & (1u << d)) ||
		    (k < p->n_dc) == (strstr(p->port[d], "role=client") != NULL))
			continue;
		snprintf(name, sizeof(name), "dc%u.eth", d);
		rc = open_port(rt, p, d, p->port[d], name, 0, err, errlen);
		if (rc != 0)
			return rc;
		rt->dc_port[d] = &rt->port[d];
		rt->port[d].on_ctl = rt_on_msg;
		rt->port[d].ctl_arg = rt;
		if (rt->ctl == NULL)
			rt->ctl = &rt->port[d];
	}
	/* a link's ends: its TX end receives nothing (a few mbufs for the device's ring) */
	for (d = 0; d < p->n_links; d++) {
		const struct dp_rt_link *l = &p->link[d];
		uint32_t i = DP_RT_DC_MAX + 2 * d;
		char name[24];

		snprintf(name, sizeof(name), "%s.tx", l->name);
		rc = open_port(rt, p, i, l->tx, name, 1024, err, errlen);
		if (rc == 0) {
			snprintf(name, sizeof(name), "%s.rx", l->name);
			rc = open_port(rt, p, i + 1, l->rx, name, 0, err, errlen);
		}
		if (rc != 0)
			return rc;
		rt->link_tx[d] = &rt->port[i];
		rt->link_rx[d] = &rt->port[i + 1];
		snprintf(rt->link_name[d], sizeof(rt->link_name[d]), "%s", l->name);
		rt->n_links = d + 1;
	}
	for (d = 0; d < DP_RT_PORT_MAX; d++) {
		if (!rt->opened[d])
			continue;
		rc = dp_port_wait_link(&rt->port[d], p->wait_ms, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
dp_rt_open(struct dp_rt *rt, const struct dp_rt_params *p, char *err, size_t errlen)
{
	uint32_t all;
	int rc;

	memset(rt, 0, sizeof(*rt));
	if (p->n_dc == 0 || p->n_dc > DP_RT_DC_MAX || !(p->dilation >= 1) ||
	    p->n_links > DP_RT_LINK_MAX) {
		snprintf(err, errlen, "real time: bad parameters (%u data centres, dilation %g)",
			 p->n_dc, p->dilation);
		return -EINVAL;
	}
	all = (1u << p->n_dc) - 1;
	rt->n_dc = p->n_dc;
	rt->local = p->local & all;
	rt->mpi = dp_ranks_size() > 1;
	rt->rank = dp_ranks_rank();
	rt->nranks = dp_ranks_size();
	rt->split = rt->mpi || rt->local != all;
	rt->leader = rt->mpi ? rt->rank == 0 : (rt->local & 1u) != 0;
	rt->dilation = p->dilation;
	rt->wait_ms = p->wait_ms;
	rt->config = p->config;
	rc = open_all(rt, p, err, errlen);
	if (p->agreed != NULL)
		*p->agreed = false;
	if (rt->mpi) {	/* every rank learns every rank's start, and all agree on it */
		rc = rt_mpi_hello(rt, rc, err, errlen);
		rt->clean = true;
		if (p->agreed != NULL)
			*p->agreed = rc != 0;	/* (a later failure may be this rank's alone) */
	}
	else if (rc == 0 && rt->split)
		rc = rt_hello(rt, err, errlen);
	if (rc != 0)
		dp_rt_close(rt);
	return rc;
}

/* ---- a run ---- */

int
dp_rt_begin(struct dp_rt *rt, struct dp_topo *t, uint32_t run_id, char *err, size_t errlen)
{
	uint64_t start;

	rt->topo = t;
	rt->run_id = run_id;
	rt->sent_done = rt->peer_done = false;
	rt->peer_tx = 0;
	rt->n_peer_ports = 0;
	memset(rt->peer_tcp, 0, sizeof(rt->peer_tcp));
	rt->results = rt->results_want = 0;
	rt->results_end = false;
	rt->got_start = rt->got_ack = false;
	rt->why[0] = '\0';
	rt->sum_pending = rt->sum_valid = rt->drain_done = false;
	rt->clean = false;	/* (until the run ends well: a rank that failed alone closes alone) */
	if (rt->split) {
		t->barrier.peers = rt->mpi ? (uint32_t)rt->nranks - 1 : 1;
		t->barrier.arrived = rt_arrived;
		t->barrier.peer_arg = rt;
	}
	if (!rt->split) {
		dp_clock_rebase(&rt->clk);
		start = dp_clock_ns(&rt->clk) + 20000000;	/* 20 ms to settle */
	} else if (rt->mpi) {
		int rc = rt_mpi_start(rt, run_id, &start, err, errlen);

		if (rc != 0)
			return rc;
	} else if (rt->leader) {
		uint64_t margin;
		int64_t off;
		int rc;

		/* the offset again: the two clocks drift apart between runs */
		dp_clock_rebase(&rt->clk);
		rc = rt_measure_offset(rt, 8, dp_clock_raw_ns() + (uint64_t)rt->wait_ms * 1000000,
				    err, errlen);
		if (rc != 0)
			return rc;
		off = rt->clk.realtime ? 0 : rt->offset_ns;
		margin = 100000000 + 20 * rt->rtt_ns;
		start = dp_clock_ns(&rt->clk) + margin;
		while (!rt->got_ack) {
			if (dp_clock_ns(&rt->clk) + margin / 4 > start) {
				snprintf(err, errlen, "the peer did not acknowledge the start of run "
					 "%u in %.0f ms", run_id, margin / 1e6 * 0.75);
				return -ETIMEDOUT;
			}
			rt_send_msg(rt, RT_START, run_id, 0, (uint64_t)((int64_t)start + off), 0, 0,
				 NULL, 0);
			rt_wait_for(rt, 10, &rt->got_ack);
		}
	} else {
		dp_clock_rebase(&rt->clk);
		rt_wait_for(rt, rt->wait_ms, &rt->got_start);
		if (!rt->got_start) {
			snprintf(err, errlen, "the leading process did not start run %u in %d ms",
				 run_id, rt->wait_ms);
			return -ETIMEDOUT;
		}
		start = rt->start_ns;
		if (start < dp_clock_ns(&rt->clk)) {
			snprintf(err, errlen, "run %u was to start %.3f ms ago: the clocks disagree "
				 "or the start came late", run_id,
				 (dp_clock_ns(&rt->clk) - start) / 1e6);
			return -ETIME;
		}
	}
	dp_clock_epoch(&rt->clk, start, t->eng.now, rt->dilation);
	t->eng.rt = &rt->hooks;
	dp_lateness_reset(&t->eng.rt_lag);	/* (its histogram: a figure of the report) */
	for (uint32_t i = 0; t->par != NULL && i < t->par->n; i++) {
		/* partitions: each on its lcore, with the ports of its data centres (listed once:
		 * a turn touches no other partition's port) */
		struct dp_rt_scope *sc = &rt->scope[i];

		*sc = (struct dp_rt_scope){ .rt = rt };
		for (uint32_t k = 0; k < DP_RT_PORT_MAX; k++)
			if (rt->opened[k] && rt->port[k].e.eng == &t->par->p[i].eng)
				sc->port[sc->n++] = &rt->port[k];
		rt->part_hooks[i] = (struct dp_rt_hooks){ scope_now, scope_poll, scope_busy,
							  &rt->scope[i] };
		t->par->p[i].eng.rt = &rt->part_hooks[i];
		dp_lateness_reset(&t->par->p[i].eng.rt_lag);
	}
	return 0;
}

struct drain {
	struct dp_rt *rt;
	struct dp_topo *t;
};

static void
port_totals(const struct dp_rt *rt, uint64_t *tx, uint64_t *rx)
{
	uint32_t d;

	/* (partitions: the counters are written by their lcores; read whole, as they stand) */
	*tx = *rx = 0;
	for (d = 0; d < rt->n_dc; d++)
		if (rt->dc_port[d] != NULL) {
			*tx += __atomic_load_n(&rt->dc_port[d]->tx, __ATOMIC_RELAXED);
			*rx += __atomic_load_n(&rt->dc_port[d]->rx, __ATOMIC_RELAXED);
		}
}

/* The first link through ports whose frames have not all come in; -1: none. */
static int
link_short(const struct dp_rt *rt)
{
	uint32_t i;

	for (i = 0; i < rt->n_links; i++)
		if (__atomic_load_n(&rt->link_rx[i]->rx, __ATOMIC_RELAXED) !=
		    __atomic_load_n(&rt->link_tx[i]->tx, __ATOMIC_RELAXED))
			return (int)i;
	return -1;
}

/* Idle here, and every frame sent to us has arrived. */
static bool
drained(void *arg)
{
	struct drain *dr = arg;
	struct dp_rt *rt = dr->rt;
	uint64_t tx = 0, rx = 0;
	bool idle = dp_engine_next(&dr->t->eng) == DP_NEVER;
	uint32_t i;

	if (!idle && !(rt->mpi && rt->sum_pending))
		return false;	/* (after every event: the quick answer first) */
	for (i = 0; idle && i < DP_RT_PORT_MAX; i++)
		if (rt->opened[i] && dp_port_backlog(&rt->port[i]) > 0)
			idle = false;	/* still to be sent (the poll sends it) */
	idle = idle && link_short(rt) < 0;
	port_totals(rt, &tx, &rx);
	if (rt->mpi)
		return rt->drain_done || rt_mpi_drained(rt, &dr->t->eng, idle, tx, rx);
	if (!idle)
		return false;
	if (!rt->split)
		return rx == tx;	/* the ports are each other's ends */
	if (!rt->sent_done) {
		rt_send_msg(rt, RT_DONE, rt->run_id, 0, tx, 0, 0, NULL, 0);
		rt->sent_done = true;
	}
	return rt->peer_done && rx >= rt->peer_tx;
}

/* Partitions (one process: the ports are each other's ends): every partition idle, and every
 * frame sent through the ports arrived. */
static bool
par_drained(void *arg)
{
	struct drain *dr = arg;
	uint64_t tx, rx;

	if (!dp_par_rt_idle(dr->t->par) || link_short(dr->rt) >= 0)
		return false;
	port_totals(dr->rt, &tx, &rx);
	return rx == tx;
}

int
dp_rt_end(struct dp_rt *rt, struct dp_topo *t, struct dp_rt_report *rep, char *err,
	  size_t errlen)
{
	struct drain dr = { rt, t };
	dp_time_t wait = (dp_time_t)((double)rt->wait_ms * 1e9 / rt->dilation);
	uint64_t tx, rx;
	uint32_t d;
	int rc;

	/* (the steps are done here: TCP's delayed ACKs go now, not transport.delayed_ack later) */
	for (d = 0; t->tcp != NULL && t->par == NULL && d < t->n_local; d++)
		dp_tcp_ack_pending(&t->tcp[t->local_w[d]], t->eng.now);
	if (t->par != NULL) {
		/* the partitions run on until drained; then the lcores halt and the caller's merges */
		rc = dp_par_run_rt(t->par, wait, par_drained, &dr);
		dp_par_rt_halt(t->par);
		if (rc == 0)
			rc = t->par->error;
		if (rc != 0) {
			snprintf(err, errlen, "%s", t->par->errmsg);
			return rc;
		}
	} else {
		rc = dp_engine_run(&t->eng, t->eng.now + wait, drained, &dr);
		if (rc != 0) {
			snprintf(err, errlen, "%s", t->eng.errmsg);
			return rc;
		}
	}
	port_totals(rt, &tx, &rx);
	if (!(t->par != NULL ? par_drained(&dr) : rt->mpi ? rt->drain_done : drained(&dr))) {
		int l = link_short(rt);

		if (l >= 0)
			snprintf(err, errlen, "frames lost on link %s through ports: %llu sent, %llu "
				 "arrived", rt->link_name[l], (unsigned long long)rt->link_tx[l]->tx,
				 (unsigned long long)rt->link_rx[l]->rx);
		else if (rt->mpi)
			snprintf(err, errlen, "run %u did not end on every rank within %d ms of this "
				 "one's end ([ports] wait): a rank still busy, or frames lost between "
				 "the ports (the last round summed %llu sent, %llu received; here %llu "
				 "sent, %llu received)", rt->run_id, rt->wait_ms,
				 (unsigned long long)rt->sum_last[0],
				 (unsigned long long)rt->sum_last[1], (unsigned long long)tx,
				 (unsigned long long)rx);
		else if (rt->split && !rt->peer_done)
			snprintf(err, errlen, "the peer process did not finish run %u within %d ms "
				 "of this side", rt->run_id, rt->wait_ms);
		else
			snprintf(err, errlen, "frames lost between the ports: %llu sent to this "
				 "side, %llu arrived", (unsigned long long)(rt->split ? rt->peer_tx :
				 tx), (unsigned long long)rx);
		return -EPROTO;
	}
	if (rt->mpi) {
		rc = rt_mpi_results(rt, t, err, errlen);
		if (rc == 0)
			rc = rt_mpi_trace(rt, t->eng.cap_ctx, err, errlen);
		if (rc != 0)
			return rc;
	} else if (rt->split && !rt->leader) {
		rc = rt_send_results(rt, t);
		if (rc == 0) {
			rt->got_ack = false;
			rt_wait_for(rt, rt->wait_ms, &rt->got_ack);
			rc = rt->got_ack ? 0 : -ETIMEDOUT;
		}
		if (rc != 0) {
			snprintf(err, errlen, "handing the record of run %u to the leader failed: %s",
				 rt->run_id, strerror(-rc));
			return rc;
		}
	} else if (rt->split) {
		uint64_t want = 0;
		int a;

		for (a = 0; a < A_COUNT; a++)
			want += rt_array_len(&t->rec, a);
		rt_wait_for(rt, rt->wait_ms, &rt->results_end);
		while (rt->results_end && rt->results < rt->results_want)
			rt_wait_for(rt, 10, NULL);	/* cannot happen on a FIFO link; be sure */
		if (!rt->results_end || rt->results != want) {
			snprintf(err, errlen, "the follower's record of run %u did not arrive (%llu "
				 "of %llu values)", rt->run_id, (unsigned long long)rt->results,
				 (unsigned long long)want);
			return -EPROTO;
		}
		rt_send_msg(rt, RT_RESULT_ACK, rt->run_id, 0, 0, 0, 0, NULL, 0);
	}
	memset(rep, 0, sizeof(*rep));
	rep->on = true;
	rep->dilation = rt->dilation;
	rep->hz = rt->clk.hz;
	rep->hz_nominal = rt->clk.hz_nominal;
	rep->split = rt->split;
	rep->leader = rt->leader;
	rep->local = rt->local;
	rep->offset_ns = rt->offset_ns;
	rep->realtime = rt->clk.realtime;
	rep->rtt_ns = rt->rtt_ns;
	rep->ranks = rt->mpi ? (uint32_t)rt->nranks : 0;
	rep->behind = t->eng.rt_behind;
	rep->idle = t->eng.rt_spins;
	for (d = 0; t->par != NULL && d < t->par->n; d++) {
		rep->behind += t->par->p[d].eng.rt_behind;
		rep->idle += t->par->p[d].eng.rt_spins;
	}
	if (t->par != NULL)
		dp_par_rt_crossings(t->par, &rep->cross, &rep->cross_late, &rep->cross_late_max);
	{
		/* how late events ran, every engine's together */
		struct dp_lateness lag = { 0 };
		double med;

		dp_lateness_reset(&lag);
		dp_lateness_merge(&lag, &t->eng.rt_lag);
		for (d = 0; t->par != NULL && d < t->par->n; d++)
			dp_lateness_merge(&lag, &t->par->p[d].eng.rt_lag);
		rep->lag_events = lag.seen;
		dp_lateness_stats(&lag, &med, &rep->lag_p99_ps, &rep->lag_p999_ps,
				  &rep->lag_max_ps);
		dp_lateness_free(&lag);
	}
	rep->merged = rt->split && rt->leader;
	rt->clean = true;
	for (d = 0; d < DP_RT_PORT_MAX; d++)
		if (rt->opened[d])
			rt_port_report(&rt->port[d], &rep->port[rep->n_ports++]);
	rep->n_peer_ports = rt->n_peer_ports;
	memcpy(rep->peer_port, rt->peer_port, sizeof(rep->peer_port));
	memcpy(rep->peer_tcp, rt->peer_tcp, sizeof(rep->peer_tcp));
	rt->topo = NULL;
	return 0;
}
void
rt_tcp_pack(const struct dp_topo *t, uint64_t *v)
{
	struct dp_tcp_stats s;
	uint32_t i;

	memset(&s, 0, sizeof(s));
	for (i = 0; t->tcp != NULL && i < t->n_local; i++)
		dp_tcp_stats_add(&t->tcp[t->local_w[i]], &s);
	v[0] = s.segs;
	v[1] = s.retrans;
	v[2] = s.acks;
	v[3] = s.fast_rtx;
	v[4] = s.rtos;
	v[5] = s.dup_rx;
	v[6] = s.ooo_rx;
	v[7] = s.bytes_in;
}

void
dp_rt_tcp_add(const struct dp_rt_report *rep, struct dp_tcp_stats *s)
{
	const uint64_t *v = rep->peer_tcp;

	s->segs += v[0];
	s->retrans += v[1];
	s->acks += v[2];
	s->fast_rtx += v[3];
	s->rtos += v[4];
	s->dup_rx += v[5];
	s->ooo_rx += v[6];
	s->bytes_in += v[7];
}
