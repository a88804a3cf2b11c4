/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge (bridge.h): two ports, each direction a chain of the data plane's own elements,
 * paced by the engine's real-time loop.  Not an element itself: it owns the clock and the ports,
 * builds the graph, and between events polls the ports, applies runtime changes and samples the
 * WAN queues.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "bridge.h"
#include "capture.h"
#include "eal.h"
#include "frame.h"

#define SAMPLE_PS 100000000ull	/* the WAN queues are sampled every 100 us of emulated time */
#define POLLS_CTL 256
#define LATE_PS 100000000000ull	/* the status's lateness quantiles: every 0.1 s */		/* polls between looks at the control ring and the tick */
#define START_AHEAD_NS 2000000	/* emulated time 0 this far after the graph is ready */
#define MBUFS_MIN 8192u
#define MBUFS_MAX 32768u	/* auto: at most this many (bridge.mbufs can say more) */
#define MEAN_FRAME 1024u	/* bytes: what auto sizing expects of a queued frame */

static const char *const port_key[2] = { "bridge.a", "bridge.b" };
static const char *const dir_name[2] = { "ab", "ba" };

uint32_t
dp_bridge_mbufs(const struct dp_bridge_params *p)
{
	double n;
	int d;

	if (p->mbufs != 0)
		return p->mbufs;
	/* the queue full, and a flight of the WAN's rate x latency, in frames of MEAN_FRAME bytes,
	 * plus the device's descriptors */
	n = (double)p->queue_bytes;
	for (d = 0; d < 2; d++) {
		double flight = (double)p->bw[d] * (double)p->delay[d] / 1e12;

		if (flight > n - (double)p->queue_bytes)
			n = (double)p->queue_bytes + flight;
	}
	n = n / MEAN_FRAME + 2048;
	return n < MBUFS_MIN ? MBUFS_MIN : n > MBUFS_MAX ? MBUFS_MAX : (uint32_t)n;
}

uint32_t
dp_bridge_mem_mb(const struct dp_bridge_params *p)
{
	uint64_t per, bytes = 0;
	int d;

	for (d = 0; d < 2; d++) {
		per = dp_port_rx_room(p->dev[d], p->frame_max) + RTE_PKTMBUF_HEADROOM +
		      sizeof(struct rte_mbuf) + DP_MBUF_PRIV + 128;
		bytes += per * dp_bridge_mbufs(p);
	}
	/* each port's own pool, with 1/8 of room (rt.c's rule), and 32 MB for its rings */
	return (uint32_t)(bytes / (1 << 20) + bytes / (8 << 20) + 2 * 32);
}

/* ---- the real-time hooks ---- */

static dp_time_t
hook_now(void *arg)
{
	const struct dp_bridge *b = arg;

	return dp_clock_emu(&b->clk, dp_clock_ns(&b->clk));
}

static bool
hook_busy(void *arg)
{
	const struct dp_bridge *b = arg;

	return dp_port_backlog(&b->port[0]) + dp_port_backlog(&b->port[1]) > 0;
}

static void
publish_all(struct dp_bridge *b)
{
	struct dp_status *st = b->p.status;

	dp_status_publish(st, DP_P_WAN_BW, (double)b->wan[DP_AB].bw);
	dp_status_publish(st, DP_P_WAN_LAT, (double)b->wan[DP_AB].delay / 1e12);
	dp_status_publish(st, DP_P_BG_LOAD, b->load);
	dp_status_publish(st, DP_P_WAN_QUEUE, (double)b->wan[DP_AB].cap_bytes);
	dp_status_publish(st, DP_P_IMP_LOSS, b->imp_loss);
	dp_status_publish(st, DP_P_IMP_JITTER, b->imp_jitter);
}

/* The background hosts' rates for load @p load of the WAN rates in force. */
static void
retune_background(struct dp_bridge *b, double load, dp_time_t now)
{
	int d;

	b->load = load;
	for (d = 0; d < 2; d++)
		if (b->has_bg[d])
			dp_bghost_set_rate(&b->bg[d], load * (double)b->wan[d].bw /
					   b->p.sizes->mean, now);
}

/* Apply one change at @p now: 0, or -EINVAL / -ENOTSUP with the reason in *@p why. */
static int
tune(void *arg, enum dp_param p, double v, dp_time_t now, double *old, struct dp_tune_why *why)
{
	struct dp_bridge *b = arg;
	int d;

	why->named = true;	/* every reason but the first is about p */
	why->param = p;
	if (!isfinite(v)) {
		why->named = false;
		snprintf(why->msg, sizeof(why->msg), "not a value that can change during a run");
		return -EINVAL;
	}
	switch (p) {
	case DP_P_WAN_BW:
		*old = (double)b->wan[DP_AB].bw;
		if (!(v >= 1) || v > 0x1p62) {
			snprintf(why->msg, sizeof(why->msg), "%g B/s is not a rate", v);
			return -EINVAL;
		}
		for (d = 0; d < 2; d++) {
			/* frames already queued keep their times (netem's rule) */
			b->wan[d].bw = (uint64_t)v;
			b->wan[d].last_charge = UINT32_MAX;
			b->sink[d].wan_bw = (uint64_t)v;
		}
		retune_background(b, b->load, now);	/* the load is a fraction of the rate */
		return 0;
	case DP_P_WAN_LAT:
		*old = (double)b->wan[DP_AB].delay / 1e12;
		if (!(v >= 0) || v > 3600) {
			snprintf(why->msg, sizeof(why->msg), "%g s is not a latency", v);
			return -EINVAL;
		}
		for (d = 0; d < 2; d++) {
			b->wan[d].delay = sm_ps(v);
			b->sink[d].wan_delay = sm_ps(v);
		}
		return 0;
	case DP_P_BG_LOAD:
		*old = b->load;
		if (!(v >= 0 && v < 1)) {
			snprintf(why->msg, sizeof(why->msg), "%g not in [0, 1)", v);
			return -EINVAL;
		}
		retune_background(b, v, now);
		return 0;
	case DP_P_WAN_QUEUE:
		*old = (double)b->wan[DP_AB].cap_bytes;
		if (!(v >= 1) || v > 0x1p62) {
			snprintf(why->msg, sizeof(why->msg), "%g is not a queue limit in bytes", v);
			return -EINVAL;
		}
		for (d = 0; d < 2; d++)
			b->wan[d].cap_bytes = (uint64_t)v;
		return 0;
	case DP_P_IMP_LOSS:
	case DP_P_IMP_JITTER: {
		bool loss = p == DP_P_IMP_LOSS;

		*old = loss ? b->imp_loss : b->imp_jitter;
		if (!(v >= 0) || (loss && v > 1) || (!loss && v > 3600)) {
			snprintf(why->msg, sizeof(why->msg), loss ? "%g is not a probability" :
				 "%g s is not a jitter", v);
			return -EINVAL;
		}
		for (d = 0; d < 2; d++) {
			int rc = dp_link_impair_live(&b->wan[d], loss ? v : NAN, loss ? NAN : v,
						     b->p.seed);

			if (rc != 0) {
				snprintf(why->msg, sizeof(why->msg), "out of memory");
				return rc;
			}
			if (loss && b->wan[d].cap_loss < 0 && v > 0)
				b->wan[d].cap_loss = b->loss_point[d];
		}
		*(loss ? &b->imp_loss : &b->imp_jitter) = v;
		return 0;
	}
	default:
		snprintf(why->msg, sizeof(why->msg), "does not apply to a bridge (it has no module)");
		why->takes = 1u << DP_P_WAN_BW | 1u << DP_P_WAN_LAT | 1u << DP_P_BG_LOAD |
			     1u << DP_P_WAN_QUEUE | 1u << DP_P_IMP_LOSS | 1u << DP_P_IMP_JITTER;
		return -ENOTSUP;
	}
}

/* A change applied, for the report (noted even if out of memory for its record). */
static bool
bridge_keep(void *arg, enum dp_param p, double old, double v, dp_time_t now)
{
	struct dp_bridge *b = arg;

	dp_change_add(&b->changes, &b->nchanges, &b->chcap,
		      &(struct dp_change){ now, p, old, v, UINT32_MAX });
	return true;
}

static void
apply(struct dp_bridge *b, struct dp_tune_req *req, dp_time_t now)
{
	const struct dp_tune_target tg = {
		.tune = tune, .keep = bridge_keep, .arg = b, .eng = &b->eng,
		.status = b->p.status, .resp = b->p.ctl_resp, .run_id = 1, .where = "the bridge",
	};

	dp_tune_serve(&tg, req, now);
}

static void
status_update(struct dp_bridge *b, dp_time_t now)
{
	struct dp_status *st = b->p.status;
	uint64_t frames = 0, drops = 0;
	int d;

	for (d = 0; d < 2; d++) {
		frames += b->port[d].rx + b->port[d].tx;
		drops += b->wan[d].e.c.drop + (b->p.port_rate ? b->cap[d].e.c.drop : 0) +
			 b->port[d].rx_cut + b->port[d].tx_too_long;
	}
	atomic_store(&st->frames, frames);
	atomic_store(&st->drops, drops);
	atomic_store(&st->events, b->eng.events);
	atomic_store(&st->now_ps, now);
	for (d = 0; d < 2; d++) {
		struct dp_status_link *sl = &st->link[d];
		const struct dp_lateness *late = &b->port[1 - d].late;

		dp_status_link_update(sl, &b->wan[d], now);
		sl->drops += b->p.port_rate ? b->cap[d].e.c.drop : 0;
		if (now >= b->next_late) {	/* the quantiles: a walk of 4 k buckets */
			double q50, q99, q999, max;

			dp_lateness_stats(late, &q50, &q99, &q999, &max);
			atomic_store(&sl->late_n, late->seen);
			atomic_store(&sl->late_p50_ns, (uint64_t)q50);
			atomic_store(&sl->late_p99_ns, (uint64_t)q99);
			atomic_store(&sl->late_p999_ns, (uint64_t)q999);
			atomic_store(&sl->late_max_ns, (uint64_t)max);
		}
	}
	if (now >= b->next_late)
		b->next_late = now + LATE_PS;
	atomic_store(&st->bg_started, b->bgstats[0].started + b->bgstats[1].started);
	atomic_store(&st->bg_done, b->bgstats[0].done + b->bgstats[1].done);
	atomic_store(&st->bg_incomplete, b->bgstats[0].incomplete + b->bgstats[1].incomplete);
}

static void
hook_poll(void *arg, dp_time_t now)
{
	struct dp_bridge *b = arg;
	void *obj;

	/* (each poll first sends what the events since the last one handed the port, in one
	 * burst: the engine polls as soon as nothing is due, or every 64 events when behind) */
	if (now > b->last_poll) {
		/* the host kept the bridge from its ports this long (real ns) */
		double gap = (double)(now - b->last_poll) * b->p.dilation / 1000.0;

		if (gap > DP_BRIDGE_HOLD_NS) {
			b->held_ns += (uint64_t)gap;
			b->holds++;
			if (gap > (double)b->held_max_ns)
				b->held_max_ns = (uint64_t)gap;
			if (gap > (double)b->held_max_recent)
				b->held_max_recent = (uint64_t)gap;
		}
	}
	b->last_poll = now;
	dp_port_poll(&b->port[0], now);
	dp_port_poll(&b->port[1], now);
	if (now >= b->next_sample) {
		b->qsum[0] += (double)dp_link_backlog(&b->wan[0], now);
		b->qsum[1] += (double)dp_link_backlog(&b->wan[1], now);
		b->nsample++;
		b->next_sample = now + SAMPLE_PS;
	}
	if (++b->polls % POLLS_CTL != 0)
		return;
	if (b->p.ctl_req != NULL && rte_ring_dequeue(b->p.ctl_req, &obj) == 0)
		apply(b, obj, now);
	if (b->p.status != NULL)
		status_update(b, now);
}

/* ---- building ---- */

static int
add_link(struct dp_link *l, struct dp_engine *eng, const char *name, uint64_t bw, dp_time_t delay,
     uint64_t cap_bytes, enum sm_account account, struct dp_elem *next, struct dp_capture *cap,
     enum dp_cap_kind kind)
{
	char in[40], out[40];
	struct dp_link_params lp = {
		.name = name, .bw = bw, .delay = delay, .cap_bytes = cap_bytes,
		.account = account, .next = next, .cap_in = -1, .cap_out = -1,
	};

	if (cap != NULL) {
		snprintf(in, sizeof(in), "%s.in", name);
		snprintf(out, sizeof(out), "%s.out", name);
		lp.cap_in = dp_capture_point(cap, kind, in);
		lp.cap_out = dp_capture_point(cap, kind, out);
	}
	return dp_link_init(l, eng, &lp);
}

static int
point(struct dp_capture *cap, enum dp_cap_kind kind, const char *name)
{
	return cap != NULL ? dp_capture_point(cap, kind, name) : -1;
}

/* Direction @d: from port d to port 1 - d. */
static int
build_dir(struct dp_bridge *b, int d, char *err, size_t errlen)
{
	const struct dp_bridge_params *p = &b->p;
	struct dp_engine *eng = &b->eng;
	struct dp_elem *first;
	char name[32];
	int rc, to = 1 - d;

	snprintf(name, sizeof(name), "sink.%s", dir_name[d]);
	rc = dp_sink_init(&b->sink[d], eng, name, &b->bgstats[d], p->host_bw, 0, p->bw[d],
			  p->delay[d], p->account, point(p->cap, DP_CAP_BG, "sink.rx"));
	if (rc != 0)
		goto fail;
	snprintf(name, sizeof(name), "out.%s", dir_name[d]);
	rc = dp_bridge_out_init(&b->out[d], eng, name, &b->port[to].e, &b->sink[d].e, p->emit_bg);
	if (rc != 0)
		goto fail;
	snprintf(name, sizeof(name), "wan.%s", dir_name[d]);
	rc = add_link(&b->wan[d], eng, name, p->bw[d], p->delay[d], p->queue_bytes, p->account,
		  &b->out[d].e, p->cap, DP_CAP_WAN);
	if (rc != 0)
		goto fail;
	b->wan[d].burst = true;	/* what is due leaves in one event: the port sends a burst */
	{
		char drop[40];

		snprintf(drop, sizeof(drop), "%s.drop", name);
		b->wan[d].cap_drop = point(p->cap, DP_CAP_WAN, drop);	/* drop-tail, traced */
		/* (a loss point only with impairments: the trace of a bridge without them
		 * is as before; one turned on live has none) */
		b->loss_point[d] = -1;
		if (sm_impair_active(&p->impair[d])) {
			rc = dp_link_impair(&b->wan[d], &p->impair[d],
					    dp_link_stream(&b->wan[d], p->seed));
			if (rc != 0)
				goto fail;
			snprintf(drop, sizeof(drop), "%s.loss", name);
			b->loss_point[d] = point(p->cap, DP_CAP_WAN, drop);
			if (p->impair[d].loss != SM_LOSS_NONE)	/* (a bridge's corrupt frames go on) */
				b->wan[d].cap_loss = b->loss_point[d];
			if (p->impair[d].aqm.kind != SM_AQM_NONE) {
				snprintf(drop, sizeof(drop), "%s.mark", name);
				b->wan[d].cap_mark = point(p->cap, DP_CAP_WAN, drop);
			}
			if (p->impair[d].aqm.kind == SM_AQM_RED) {
				snprintf(drop, sizeof(drop), "%s.aqm", name);
				b->wan[d].cap_aqm = point(p->cap, DP_CAP_WAN, drop);
			}
		}
	}
	first = &b->wan[d].e;
	if (p->port_rate > 0) {
		snprintf(name, sizeof(name), "port.%s", dir_name[d]);
		rc = add_link(&b->cap[d], eng, name, p->port_rate, 0, p->port_queue_bytes, p->account,
			  &b->wan[d].e, p->cap, DP_CAP_PORT);
		if (rc != 0)
			goto fail;
		first = &b->cap[d].e;
	}
	b->port[d].raw = true;
	b->port[d].stamp_taken = true;	/* a frame never leaves before its time */
	b->port[d].tx_batch = true;	/* flushed at each poll (hook_poll()) */
	snprintf(name, sizeof(name), "%s", d == 0 ? "a" : "b");
	{
		char tx[40], rx[40];

		snprintf(tx, sizeof(tx), "%s.tx", name);
		snprintf(rx, sizeof(rx), "%s.rx", name);
		rc = dp_port_attach(&b->port[d], eng, name, first, point(p->cap, DP_CAP_ETH, tx),
				    point(p->cap, DP_CAP_ETH, rx));
	}
	if (rc != 0)
		goto fail;
	b->has_bg[d] = p->sizes != NULL && (d == DP_AB || p->both_ways);
	if (b->has_bg[d]) {
		struct dp_bghost_params hp = {
			.name = name, .id = (uint32_t)d, .dst_first = 0, .per_dc = 1, .run_id = 1,
			.rate = 1,	/* set below from the load */
			.sizes = p->sizes, .seed = sm_rng_stream_seed(p->seed, (uint32_t)d),
			.payload = p->payload, .burst = p->burst, .link = &b->bglink[d],
			.stats = &b->bgstats[d],
		};

		snprintf(name, sizeof(name), "bg.%s.nic", dir_name[d]);
		rc = add_link(&b->bglink[d], eng, name, p->host_bw, 0, 0, p->account, &b->wan[d].e,
			  p->cap, DP_CAP_BG);
		if (rc != 0)
			goto fail;
		snprintf(name, sizeof(name), "bg.%s", dir_name[d]);
		hp.cap_tx = point(p->cap, DP_CAP_BG, "bg.tx");
		rc = dp_bghost_init(&b->bg[d], eng, &hp);
		if (rc != 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "bridge: cannot build direction %s: %s", dir_name[d], strerror(-rc));
	return rc;
}

/*
 * A port on a kernel interface carries every frame its MTU allows whole, or is refused: a
 * longer frame would arrive cut (af_packet's ring frame) and leave short.  Its MTU then bounds
 * what it sends (tx_max), and its arrivals are checked (rawframe.h).
 */
static int
check_mtu(struct dp_port *port, char *err, size_t errlen)
{
	const struct dp_ifdev *ifd = port->ifd;
	uint32_t frame;

	if (ifd == NULL || ifd->mtu == 0)
		return 0;
	frame = ifd->mtu + RTE_ETHER_HDR_LEN;
	port->check_raw = true;
	port->tx_max = frame;
	if (port->rx_whole == 0 || frame <= port->rx_whole)
		return 0;
	if (strncmp(port->dev, "net_af_packet", 13) == 0) {
		/* a ring frame of whole 2 kB, in blocks of whole pages holding whole frames */
		uint32_t fs = RTE_ALIGN_CEIL(frame + dp_ifdev_af_packet_framesz(port->dev) -
					     port->rx_whole, 2048);

		snprintf(err, errlen, "port '%s': its interface %s has MTU %u (frames of up to %u "
			 "bytes), but af_packet hands over at most %u bytes of a frame (framesz=%u "
			 "less the kernel's %u-byte header): longer frames would arrive cut. Give "
			 "the port framesz=%u,blocksz=%u (or more), or lower the MTU to %u (ip link "
			 "set %s mtu %u)", port->dev, ifd->name, ifd->mtu, frame, port->rx_whole,
			 dp_ifdev_af_packet_framesz(port->dev), dp_ifdev_af_packet_framesz(port->dev) -
			 port->rx_whole, fs, fs % 4096 == 0 ? fs : 2 * fs,
			 port->rx_whole - RTE_ETHER_HDR_LEN, ifd->name, port->rx_whole -
			 RTE_ETHER_HDR_LEN);
	} else {
		snprintf(err, errlen, "port '%s': its interface %s has MTU %u (frames of up to %u "
			 "bytes), but the driver receives frames of at most %u bytes: lower the MTU "
			 "to %u (ip link set %s mtu %u)", port->dev, ifd->name, ifd->mtu, frame,
			 port->rx_whole, port->rx_whole - RTE_ETHER_HDR_LEN, ifd->name,
			 port->rx_whole - RTE_ETHER_HDR_LEN);
	}
	return -EMSGSIZE;
}

int
dp_bridge_open(struct dp_bridge *b, const struct dp_bridge_params *p, char *err, size_t errlen)
{
	uint32_t mbufs = dp_bridge_mbufs(p);
	char e2[512];
	int rc, d;

	memset(b, 0, sizeof(*b));
	b->p = *p;
	b->imp_loss = p->imp_loss;
	b->imp_jitter = p->imp_jitter;
	if (p->dev[0] == NULL || p->dev[0][0] == '\0' || p->dev[1] == NULL ||
	    p->dev[1][0] == '\0') {
		snprintf(err, errlen, "a bridge needs two ports: bridge.a and bridge.b");
		return -EINVAL;
	}
	if (!(p->dilation >= 1) || p->bw[0] == 0 || p->bw[1] == 0 || p->pool == NULL ||
	    !(p->load >= 0 && p->load < 1)) {
		snprintf(err, errlen, "bridge: bad parameters");
		return -EINVAL;
	}
	b->clk.realtime = true;		/* the trace's times are wall-clock (bridge.h) */
	rc = dp_clock_calibrate(&b->clk, p->calibrate_s);
	if (rc != 0) {
		snprintf(err, errlen, "cannot calibrate the TSC: %s", strerror(-rc));
		return rc;
	}
	for (d = 0; d < 2; d++) {
		rc = dp_port_open(&b->port[d], p->dev[d], d == 0 ? "a" : "b", p->pool,
				  p->frame_max, mbufs, &b->clk, p->wait_ms, e2, sizeof(e2));
		if (rc != 0) {
			snprintf(err, errlen, "%s: %s", port_key[d], e2);
			goto fail;
		}
		b->opened[d] = true;
	}
	for (d = 0; d < 2; d++) {
		rc = check_mtu(&b->port[d], e2, sizeof(e2));
		if (rc != 0) {
			snprintf(err, errlen, "%s: %s", port_key[d], e2);
			goto fail;
		}
	}
	for (d = 0; d < 2; d++) {
		rc = dp_port_wait_link(&b->port[d], p->wait_ms, e2, sizeof(e2));
		if (rc != 0) {
			snprintf(err, errlen, "%s: %s", port_key[d], e2);
			goto fail;
		}
	}
	rc = dp_engine_init(&b->eng, 32, p->pool, 0);
	if (rc != 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	b->eng.bytes = true;
	b->eng.cap_ctx = p->cap;
	for (d = 0; d < 2; d++) {
		rc = build_dir(b, d, err, errlen);
		if (rc != 0)
			goto fail;
	}
	b->hooks = (struct dp_rt_hooks){ .now = hook_now, .poll = hook_poll, .busy = hook_busy,
					 .arg = b };
	return 0;
fail:
	dp_bridge_close(b);
	return rc;
}

/* ---- running ---- */

struct run_ctx {
	struct dp_bridge *b;
	const volatile sig_atomic_t *stop;
	void (*tick)(void *arg, const struct dp_bridge *b);
	void *arg;
	uint64_t tick_ns, next_tick;
	uint32_t calls;
};

static bool
run_done(void *arg)
{
	struct run_ctx *x = arg;

	if (x->stop != NULL && *x->stop)
		return true;
	if (x->tick != NULL && ++x->calls % 4096 == 0) {
		uint64_t now = dp_clock_ns(&x->b->clk);

		if (now >= x->next_tick) {
			int d;

			for (d = 0; d < 2; d++) {
				struct dp_port *p = &x->b->port[d];

				if (p->ifd != NULL && p->tx_max != 0) {
					/* an MTU lowered during the run bounds what is sent */
					dp_ifdev_read_mtu(p->ifd);
					p->tx_max = p->ifd->mtu + RTE_ETHER_HDR_LEN;
				}
			}
			x->tick(x->arg, x->b);
			x->b->held_max_recent = 0;
			x->next_tick = now + x->tick_ns;
		}
	}
	return false;
}

int
dp_bridge_run(struct dp_bridge *b, double seconds, const volatile sig_atomic_t *stop,
	      void (*tick)(void *arg, const struct dp_bridge *b), void *arg, double tick_s,
	      char *err, size_t errlen)
{
	struct run_ctx x = { .b = b, .stop = stop, .tick = tick, .arg = arg,
			     .tick_ns = (uint64_t)(tick_s * 1e9) };
	dp_time_t until = seconds > 0 ? sm_ps(seconds) : DP_NEVER - 1;
	uint64_t start;
	int rc, d;

	b->stop = stop;
	if (b->p.status != NULL) {
		publish_all(b);
		for (d = 0; d < 2; d++) {
			memset(&b->p.status->link[d], 0, sizeof(b->p.status->link[d]));
			snprintf(b->p.status->link[d].name, sizeof(b->p.status->link[0].name), "%s",
				 b->wan[d].e.name);
		}
		atomic_store_explicit(&b->p.status->n_link, 2, memory_order_release);
		atomic_store(&b->p.status->running, 1);
		atomic_store(&b->p.status->run_id, 1);
	}
	start = dp_clock_ns(&b->clk) + START_AHEAD_NS;
	dp_clock_epoch(&b->clk, start, 0, b->p.dilation);
	if (b->p.cap != NULL)
		b->p.cap->ts_base_ns = start;
	x.next_tick = start + x.tick_ns;
	b->eng.rt = &b->hooks;
	b->load = b->p.load;
	for (d = 0; d < 2; d++) {
		if (!b->has_bg[d])
			continue;
		dp_bghost_set_rate(&b->bg[d], 0, 0);	/* none drawn until started */
		if (b->p.load > 0) {
			dp_bghost_set_rate(&b->bg[d], b->p.load * (double)b->p.bw[d] /
					   b->p.sizes->mean, 0);
		}
	}
	/* changes asked for while the bridge was starting (its clock, its ports) apply from its
	 * start, before any frame */
	if (b->p.ctl_req != NULL) {
		void *obj;

		while (rte_ring_dequeue(b->p.ctl_req, &obj) == 0)
			apply(b, obj, 0);
	}
	b->last_poll = 0;
	rc = dp_engine_run(&b->eng, until, run_done, &x);
	b->end = hook_now(b);
	for (d = 0; d < 2; d++)
		if (b->has_bg[d])
			dp_bghost_stop(&b->bg[d]);
	if (b->p.status != NULL) {
		b->next_late = 0;	/* the quantiles of the whole run */
		status_update(b, b->eng.now);
		atomic_store(&b->p.status->running, 0);
	}
	if (rc != 0)
		snprintf(err, errlen, "%s", b->eng.errmsg);
	return rc;
}

/* ---- the figures ---- */

void
dp_bridge_report(struct dp_bridge *b, struct dp_bridge_report *r)
{
	dp_time_t now = b->end != 0 ? b->end : dp_clock_emu(&b->clk, dp_clock_ns(&b->clk));
	int d;

	memset(r, 0, sizeof(*r));
	r->seconds = (double)now / 1e12;
	r->behind = b->eng.rt_behind;
	r->idle = b->eng.rt_spins;
	r->changes = b->nchanges;
	r->hz = b->clk.hz;
	r->hz_nominal = b->clk.hz_nominal;
	r->held_ns = b->held_ns;
	r->holds = b->holds;
	r->held_max_ns = b->held_max_ns;
	for (d = 0; d < 2; d++) {
		struct dp_bridge_dir_report *x = &r->dir[d];
		struct dp_port *in = &b->port[d], *out = &b->port[1 - d];
		const struct dp_link *w = &b->wan[d];
		const struct dp_bgstats *st = &b->bgstats[d];
		struct dp_port_dev dev_out;
		uint64_t i;

		x->in = in->rx;
		x->in_bytes = in->rx_bytes;
		x->out = out->tx - b->out[d].bg_emitted;
		x->out_bytes = out->tx_bytes;
		x->drops = w->raw_drop;
		if (b->p.port_rate > 0)
			x->drops += b->cap[d].raw_drop;
		x->bg_drops = w->bg_drop;
		x->impaired = w->imp != NULL;
		x->lost = w->lost;
		x->reordered = w->reordered;
		x->corrupted = w->corrupted;
		x->duplicated = w->duplicated;
		x->marked = w->marked;
		x->aqm_drops = w->aqm_drop;
		x->bg_frames = st->frames;
		x->bg_bytes = st->bytes;
		x->bg_started = st->started;
		x->bg_done = st->done;
		x->bg_incomplete = st->incomplete;
		x->bg_emitted = b->out[d].bg_emitted;
		x->bg_fct_mean = NAN;
		if (st->done > 0 && st->fct != NULL) {
			double s = 0;

			for (i = 0; i < st->done; i++)
				s += st->fct[i];
			x->bg_fct_mean = s / (double)st->done;
		}
		x->left = w->e.ops->held(&w->e) + dp_port_backlog(out) +
			  (b->p.port_rate > 0 ? b->cap[d].e.ops->held(&b->cap[d].e) : 0);
		x->max_qbytes = w->max_qbytes;
		x->max_qframes = w->max_qframes;
		x->mean_qbytes = b->nsample ? b->qsum[d] / (double)b->nsample : 0;
		x->busy = now > 0 ? (double)w->busy_ps / (double)now : 0;
		if (x->busy > 1)
			x->busy = 1;	/* the last frame's serialisation runs past now */
		x->tx_deferred = out->tx_deferred;
		x->cut = in->rx_cut;
		x->csum_finished = in->rx_csum;
		x->too_long = out->tx_too_long;
		dp_port_dev_counts(in, &x->dev_in);
		x->dev_rx_dropped = x->dev_in.rx_missed + x->dev_in.rx_nombuf + x->dev_in.rx_errors;
		dp_port_dev_counts(out, &dev_out);
		x->dev_tx_errors = dev_out.tx_errors;
		x->late_n = out->late.seen;
		x->late_over = out->late.over;
		x->early_n = out->late.early;
		x->early_max_ns = out->late.early_max;
		dp_lateness_stats(&out->late, &x->late_median_ns, &x->late_p99_ns,
				  &x->late_p999_ns, &x->late_max_ns);
		x->bw = w->bw;
		x->delay = w->delay;
		x->queue_bytes = w->cap_bytes;
		x->load = b->has_bg[d] ? b->load : 0;
	}
}

void
dp_bridge_close(struct dp_bridge *b)
{
	int d;

	for (d = 0; d < 2; d++) {
		if (b->wan[d].ring != NULL)
			dp_link_fini(&b->wan[d]);
		if (b->cap[d].ring != NULL)
			dp_link_fini(&b->cap[d]);
		if (b->bglink[d].ring != NULL)
			dp_link_fini(&b->bglink[d]);
		if (b->has_bg[d])
			dp_bghost_fini(&b->bg[d]);
		dp_bgstats_free(&b->bgstats[d]);
	}
	for (d = 0; d < 2; d++) {
		if (b->opened[d]) {
			if (b->port[d].e.eng != NULL)
				dp_port_detach(&b->port[d]);
			dp_port_close(&b->port[d]);
		}
		b->opened[d] = false;
	}
	if (b->eng.elems != NULL)
		dp_engine_fini(&b->eng);
	free(b->changes);
	b->changes = NULL;
}
