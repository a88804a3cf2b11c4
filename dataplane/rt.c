/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time: the clock, the ports, and the control of a run split over MPI ranks or two
 * processes (rt.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "capture.h"
#include "parallel.h"
#include "ranks.h"
#include "record.h"
#include "rt.h"
#include "topology.h"

#define RT_MAGIC 0x54524553u	/* "SERT" little-endian */
#define RT_VERSION 1
#define RT_HDR 48
#define RT_VALS ((DP_CTL_MAX - RT_HDR) / 8)
#define RT_PINGS 32

enum rt_type {
	RT_HELLO = 1,		/* a: config hash, b: DCs here, c: 1 if the peer's HELLO was heard */
	RT_PING,		/* a: sender's clock */
	RT_PONG,		/* a: the PING's a, b: responder's clock */
	RT_START,		/* a: real start, on the receiver's clock */
	RT_START_ACK,
	RT_ARRIVED,		/* gen: barrier generation */
	RT_DONE,		/* a: data frames sent through the ports this run */
	RT_PORTREP,		/* gen: DC, v: a port's figures */
	RT_RESULT,		/* gen: array, a: offset, count: values in v */
	RT_RESULT_END,		/* a: values sent */
	RT_RESULT_ACK,
};

struct rt_msg {
	uint32_t magic;
	uint8_t version;
	uint8_t type;
	uint16_t count;
	uint32_t run_id;
	uint32_t gen;
	uint64_t a, b, c, d;
	uint64_t v[RT_VALS];
};

_Static_assert(offsetof(struct rt_msg, v) == RT_HDR, "rt_msg header");

/* ---- the engine's hooks ---- */

static dp_time_t
rt_now(void *arg)
{
	const struct dp_rt *rt = arg;

	return dp_clock_emu(&rt->clk, dp_clock_ns(&rt->clk));
}

static void mpi_take(struct dp_rt *rt, dp_time_t now);

static void
rt_poll(void *arg, dp_time_t now)
{
	struct dp_rt *rt = arg;
	uint32_t i;

	for (i = 0; i < DP_RT_PORT_MAX; i++)
		if (rt->opened[i] && rt->port[i].e.eng != NULL)
			dp_port_poll(&rt->port[i], now);
	if (rt->mpi && rt->topo != NULL)
		mpi_take(rt, now);
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

/* ---- messages ---- */

static int
send_msg(struct dp_rt *rt, uint8_t type, uint32_t run_id, uint32_t gen, uint64_t a, uint64_t b,
	 uint64_t c, const uint64_t *v, uint16_t count)
{
	struct rt_msg m;
	uint16_t i;

	memset(&m, 0, RT_HDR);
	m.magic = rte_cpu_to_le_32(RT_MAGIC);
	m.version = RT_VERSION;
	m.type = type;
	m.count = rte_cpu_to_le_16(count);
	m.run_id = rte_cpu_to_le_32(run_id);
	m.gen = rte_cpu_to_le_32(gen);
	m.a = rte_cpu_to_le_64(a);
	m.b = rte_cpu_to_le_64(b);
	m.c = rte_cpu_to_le_64(c);
	for (i = 0; i < count && i < RT_VALS; i++)
		m.v[i] = rte_cpu_to_le_64(v[i]);
	return dp_port_send_ctl(rt->ctl, &m, RT_HDR + 8u * count);
}

/* Decode @p raw into @p m; false if it is not one of ours. */
static bool
decode(const uint8_t *raw, uint32_t len, struct rt_msg *m)
{
	uint16_t i;

	if (len < RT_HDR)
		return false;
	memcpy(m, raw, RT_HDR);
	if (rte_le_to_cpu_32(m->magic) != RT_MAGIC || m->version != RT_VERSION)
		return false;
	m->count = rte_le_to_cpu_16(m->count);
	m->run_id = rte_le_to_cpu_32(m->run_id);
	m->gen = rte_le_to_cpu_32(m->gen);
	m->a = rte_le_to_cpu_64(m->a);
	m->b = rte_le_to_cpu_64(m->b);
	m->c = rte_le_to_cpu_64(m->c);
	if (m->count > RT_VALS || len < RT_HDR + 8u * m->count)
		return false;
	for (i = 0; i < m->count; i++) {
		uint64_t x;

		memcpy(&x, raw + RT_HDR + 8u * i, 8);
		m->v[i] = rte_le_to_cpu_64(x);
	}
	return true;
}

static uint64_t
dbits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

static double
bitsd(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

/* The record's arrays, as the follower sends them and the leader merges them. */
enum rt_array { A_COMPUTE, A_ROUND, A_STEP, A_FRAMES, A_GATHERED, A_FINISHED, A_COUNT };

/* A split run's record holds every step (record.h): slot i is step i. */
static uint64_t
array_len(const struct dp_record *r, int a)
{
	return a == A_ROUND ? (uint64_t)r->slots * r->rounds : r->slots;
}

static uint64_t
array_get(const struct dp_record *r, int a, uint64_t i)
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
static void
array_merge(struct dp_record *r, int a, uint64_t i, uint64_t v)
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

static void
port_report(const struct dp_port *p, struct dp_rt_port_report *r)
{
	struct dp_lateness l = p->late;	/* sorted in place: a copy of the pointer is fine */

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
	r->late_n = l.seen;
	dp_lateness_stats(&l, &r->late_median_ns, &r->late_p99_ns, &r->late_p999_ns,
			  &r->late_max_ns);
}

/* A port's figures as RT_PORTREP values, and back. */
static uint16_t
portrep_pack(const struct dp_rt_port_report *r, uint64_t *v)
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
	v[n++] = dbits(r->late_median_ns);
	v[n++] = dbits(r->late_p99_ns);
	v[n++] = dbits(r->late_p999_ns);
	v[n++] = dbits(r->late_max_ns);
	v[n++] = r->hw_ts;
	v[n++] = r->dev_rx_dropped;
	v[n++] = r->dev_tx_errors;
	return n;
}

static void
portrep_unpack(struct dp_rt_port_report *r, uint32_t dc, const uint64_t *v, uint16_t n)
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
	r->late_median_ns = bitsd(v[8]);
	r->late_p99_ns = bitsd(v[9]);
	r->late_p999_ns = bitsd(v[10]);
	r->late_max_ns = bitsd(v[11]);
	r->hw_ts = v[12] != 0;
	r->dev_rx_dropped = v[13];
	r->dev_tx_errors = v[14];
}

/* Every control message, in the engine (at @p now) or outside it (now 0). */
static void
on_msg(void *arg, struct dp_port *p, const uint8_t *raw, uint32_t len, dp_time_t now)
{
	struct dp_rt *rt = arg;
	struct rt_msg m;
	uint16_t i;

	(void)p;
	if (!decode(raw, len, &m)) {
		rt->seen_other++;
		return;
	}
	switch (m.type) {
	case RT_HELLO:
		if (m.a != rt->config) {
			/* let the peer see the difference too before this side gives up */
			send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
			snprintf(rt->why, sizeof(rt->why), "the peer runs another scenario or other "
				 "options (its hash %016llx, ours %016llx): give both the same "
				 "scenario, --set, steps, variants and budgets",
				 (unsigned long long)m.a, (unsigned long long)rt->config);
			return;
		}
		if ((m.b & rt->local) != 0 || ((m.b | rt->local) != (1u << rt->n_dc) - 1)) {
			send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
			snprintf(rt->why, sizeof(rt->why), "the data centres here (mask %#x) and the "
				 "peer's (%#llx) must split the %u of the scenario between them",
				 rt->local, (unsigned long long)m.b, rt->n_dc);
			return;
		}
		if (!rt->got_hello || m.c == 0)	/* let it hear ours */
			send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
		rt->got_hello = true;
		if (m.c != 0)
			rt->peer_has_ours = true;
		break;
	case RT_PING:
		send_msg(rt, RT_PONG, 0, 0, m.a, dp_clock_ns(&rt->clk), 0, NULL, 0);
		break;
	case RT_PONG:
		if (m.a == rt->pong_sent) {
			rt->got_pong = true;
			rt->pong_peer = m.b;
		}
		break;
	case RT_START:
		if (m.run_id == rt->run_id) {
			rt->got_start = true;
			rt->start_ns = m.a;
			send_msg(rt, RT_START_ACK, m.run_id, 0, 0, 0, 0, NULL, 0);
		}
		break;
	case RT_START_ACK:
		if (m.run_id == rt->run_id)
			rt->got_ack = true;
		break;
	case RT_ARRIVED:
		if (m.run_id == rt->run_id && rt->topo != NULL)
			dp_barrier_peer(&rt->topo->barrier, m.gen, now);
		break;
	case RT_DONE:
		if (m.run_id == rt->run_id) {
			rt->peer_done = true;
			rt->peer_tx = m.a;
		}
		break;
	case RT_PORTREP:
		if (m.run_id == rt->run_id && rt->n_peer_ports < DP_RT_DC_MAX)
			portrep_unpack(&rt->peer_port[rt->n_peer_ports++], m.gen, m.v, m.count);
		break;
	case RT_RESULT:
		if (m.run_id != rt->run_id || rt->topo == NULL || m.gen >= A_COUNT)
			break;
		for (i = 0; i < m.count; i++)
			if (m.a + i < array_len(&rt->topo->rec, (int)m.gen))
				array_merge(&rt->topo->rec, (int)m.gen, m.a + i, m.v[i]);
		rt->results += m.count;
		break;
	case RT_RESULT_END:
		if (m.run_id == rt->run_id) {
			rt->results_end = true;
			rt->results_want = m.a;
		}
		break;
	case RT_RESULT_ACK:
		if (m.run_id == rt->run_id)
			rt->got_ack = true;
		break;
	default:
		rt->seen_other++;
	}
}

/*
 * Outside the engine: control messages for up to @p ms, or until *@p flag, from every port (the
 * peer sends on its first port, which may be the far end of any of ours).
 */
static void
wait_for(struct dp_rt *rt, int ms, const volatile bool *flag)
{
	static const volatile bool never;
	const volatile bool *stop = flag != NULL ? flag : &never;
	uint64_t end = dp_clock_raw_ns() + (uint64_t)ms * 1000000;
	uint32_t d;

	do {
		for (d = 0; d < rt->n_dc && !*stop; d++)
			if (rt->opened[d])
				dp_port_ctl_wait(&rt->port[d], 0, on_msg, rt, stop);
	} while (!*stop && dp_clock_raw_ns() < end);
}

static void
arrived(void *arg, uint32_t generation, dp_time_t now)
{
	struct dp_rt *rt = arg;
	int rc;

	(void)now;
	if (!rt->mpi) {
		send_msg(rt, RT_ARRIVED, rt->run_id, generation, 0, 0, 0, NULL, 0);
		return;
	}
	rc = dp_ranks_post(rt->run_id, generation);
	if (rc != 0)
		dp_engine_fail(&rt->topo->eng, rc, "MPI: telling the other ranks that this one's "
			       "workers are in failed: %s", strerror(-rc));
}

/* ---- the control over MPI (rt.h) ---- */

/* The other ranks' ARRIVED: those of this run (an earlier run's late word is dropped). */
static void
mpi_take(struct dp_rt *rt, dp_time_t now)
{
	uint64_t run, gen;
	int rc;

	while ((rc = dp_ranks_take(&run, &gen)) == 1)
		if (run == rt->run_id)
			dp_barrier_peer(&rt->topo->barrier, (uint32_t)gen, now);
	if (rc < 0)
		dp_engine_fail(&rt->topo->eng, rc, "MPI: taking another rank's word failed: %s",
			       strerror(-rc));
}

/* Every rank gives @p len bytes at @p mine and gets all of them, rank by rank, in @p *all
 * (freed by the caller); 0 or -errno. */
static int
mpi_all(const void *mine, size_t len, void **all)
{
	size_t cap = 0, *lens = calloc((size_t)dp_ranks_size(), sizeof(*lens));
	uint8_t *buf = NULL;
	int rc = lens != NULL ? dp_ranks_allgatherv(mine, len, &buf, &cap, lens) : -ENOMEM;

	for (int r = 0; rc == 0 && r < dp_ranks_size(); r++)
		if (lens[r] != len)
			rc = -EPROTO;
	free(lens);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*all = buf;
	return 0;
}

struct mpi_hello {
	int32_t rc;			/* this rank's start: 0 or -errno, why */
	uint32_t local;
	uint64_t config;
	char why[256];
};

/*
 * After the ports: every rank's start-up, scenario and data centres, gathered by every rank; the
 * same verdict everywhere.  @p rc: this rank's start so far (its message in @p err).
 */
static int
mpi_hello(struct dp_rt *rt, int rc, char *err, size_t errlen)
{
	struct mpi_hello me = { .rc = rc, .local = rt->local, .config = rt->config }, *all = NULL;
	uint32_t seen = 0, every = (1u << rt->n_dc) - 1;
	int r, rc2;

	if (rc != 0)
		snprintf(me.why, sizeof(me.why), "%s", err);
	rc2 = mpi_all(&me, sizeof(me), (void **)&all);
	if (rc2 != 0) {
		snprintf(err, errlen, "gathering the ranks' start over MPI failed: %s",
			 strerror(-rc2));
		return rc2;
	}
	/* the cause first: a rank that timed out waiting (for a port) may have waited for the
	 * one that failed for a reason of its own */
	for (int bad = 0, pick = -1, pass = 0; pass < 2; pass++) {
		for (r = 0; r < rt->nranks; r++) {
			bad += pass == 0 && all[r].rc != 0;
			if (pick < 0 && all[r].rc != 0 && (pass == 1 || (all[r].rc != -ETIMEDOUT &&
								     all[r].rc != -ENOLINK)))
				pick = r;
		}
		if (pick >= 0) {
			rc = all[pick].rc;
			snprintf(err, errlen, "rank %d: %s%s", pick, all[pick].why,
				 bad > 1 ? " (and more ranks failed, waiting for it)" : "");
			goto out;
		}
	}
	for (r = 1; r < rt->nranks; r++)
		if (all[r].config != all[0].config) {
			rc = -EPROTO;
			snprintf(err, errlen, "rank %d runs another scenario or other options than "
				 "rank 0 (its hash %016llx, rank 0's %016llx): give every rank the "
				 "same scenario, --set, steps, variants and budgets", r,
				 (unsigned long long)all[r].config, (unsigned long long)all[0].config);
			goto out;
		}
	for (r = 0; r < rt->nranks; r++) {
		if (all[r].local & seen) {
			rc = -EINVAL;
			snprintf(err, errlen, "[ports] local: data centres %#x of rank %d run on an "
				 "earlier rank too: each data centre runs on one rank",
				 all[r].local & seen, r);
			goto out;
		}
		seen |= all[r].local;
	}
	if (seen != every) {
		rc = -EINVAL;
		snprintf(err, errlen, "[ports] local: the ranks run data centres %#x of the "
			 "scenario's %u (mask %#x): give every data centre a rank", seen, rt->n_dc,
			 every);
	}
out:
	free(all);
	return rc;
}

static uint64_t
clock_of(void *arg)
{
	struct dp_rt *rt = arg;

	return dp_clock_ns(&rt->clk);
}

struct mpi_clock {
	int64_t off;			/* rank 0's clock minus this rank's */
	uint64_t rtt, late;
};

/* Before run @p run_id: the clocks compared with rank 0's, the start from rank 0, on our clock. */
static int
mpi_start(struct dp_rt *rt, uint32_t run_id, uint64_t *start, char *err, size_t errlen)
{
	struct mpi_clock me = { 0 }, *all = NULL;
	uint64_t s0 = 0, now, margin, rtt_max = 0;
	int64_t far = 0;
	int r, rc;

	/* the offsets again: the clocks drift apart between runs */
	dp_clock_rebase(&rt->clk);
	rc = dp_ranks_offset(clock_of, rt, 8, &me.off, &me.rtt);
	rt->off0 = me.off;
	if (rc == 0)
		rc = mpi_all(&me, sizeof(me), (void **)&all);
	if (rc != 0) {
		snprintf(err, errlen, "comparing the ranks' clocks over MPI before run %u failed: "
			 "%s", run_id, strerror(-rc));
		return rc;
	}
	for (r = 1; r < rt->nranks; r++) {
		if (all[r].rtt > rtt_max)
			rtt_max = all[r].rtt;
		if (llabs(all[r].off) >= llabs(far))
			far = all[r].off;
	}
	free(all);
	all = NULL;
	rt->rtt_ns = rtt_max;
	rt->offset_ns = -far;	/* the report's: the peer's clock minus ours (rank 0's) */
	margin = 100000000 + 20 * rtt_max;
	if (rt->rank == 0)
		s0 = dp_clock_ns(&rt->clk) + margin;
	rc = dp_ranks_bcast(&s0, sizeof(s0));
	if (rc != 0) {
		snprintf(err, errlen, "the start of run %u over MPI failed: %s", run_id,
			 strerror(-rc));
		return rc;
	}
	*start = rt->clk.realtime ? s0 : (uint64_t)((int64_t)s0 - rt->off0);
	now = dp_clock_ns(&rt->clk);
	me.late = now > *start ? now - *start : 0;
	rc = mpi_all(&me, sizeof(me), (void **)&all);
	if (rc != 0) {
		snprintf(err, errlen, "the start of run %u over MPI failed: %s", run_id,
			 strerror(-rc));
		return rc;
	}
	for (r = 0; r < rt->nranks; r++)
		if (all[r].late > 0) {
			snprintf(err, errlen, "run %u was to start %.3f ms before rank %d had word "
				 "of it: the clocks disagree or the start came late", run_id,
				 all[r].late / 1e6, r);
			rc = -ETIME;
			break;
		}
	free(all);
	return rc;
}

/*
 * The end of a run over MPI: once idle, the ranks sum the data frames sent and received through
 * their ports, round after round (an all-reduce that does not stop the engine); done when two
 * rounds in a row have the same sums and as many received as sent (no frame was in flight at
 * either: the four-counter rule).  Every rank reads the same sums, so all end at the same round.
 */
static bool
mpi_drained(struct dp_rt *rt, struct dp_engine *eng, bool idle, uint64_t tx, uint64_t rx)
{
	uint64_t v[2] = { tx, rx }, sum[2];
	int rc;

	if (rt->sum_pending) {
		rc = dp_ranks_sum_done(sum);
		if (rc == 0)
			return false;
		rt->sum_pending = false;
		if (rc < 0) {
			dp_engine_fail(eng, rc, "MPI: summing the ranks' frames failed: %s",
				       strerror(-rc));
			return false;
		}
		if (sum[0] == sum[1] && rt->sum_valid && sum[0] == rt->sum_last[0]) {
			rt->drain_done = true;
			return true;
		}
		rt->sum_valid = sum[0] == sum[1];
		rt->sum_last[0] = sum[0];
		rt->sum_last[1] = sum[1];
	}
	if (!idle)
		return false;
	rc = dp_ranks_sum_start(v, 2);
	if (rc != 0)
		dp_engine_fail(eng, rc, "MPI: summing the ranks' frames failed: %s", strerror(-rc));
	rt->sum_pending = rc == 0;
	return false;
}

/* A rank's trace interfaces, as sent to rank 0 before its held records. */
struct mpi_if {
	uint32_t kind;
	char name[DP_CAP_NAME_MAX];
	uint32_t pad;
};

/* One rank's held records, read in time order. */
struct mpi_stream {
	const uint8_t *p, *end;
	int *map;			/* its interface ids as rank 0's; -1: not traced there */
	uint32_t nif;
};

/* Rank 0: the ranks' held records merged in time order into the trace. */
static int
mpi_merge_trace(struct dp_rt *rt, struct dp_capture *c, const uint8_t *buf, const size_t *lens,
		char *err, size_t errlen)
{
	struct mpi_stream *st = calloc((size_t)rt->nranks, sizeof(*st));
	size_t off = 0;
	int r, rc = 0;

	if (st == NULL) {
		snprintf(err, errlen, "trace: out of memory merging the ranks' records");
		return -ENOMEM;
	}
	for (r = 0; r < rt->nranks && rc == 0; off += lens[r], r++) {
		const uint8_t *b = buf + off;
		uint64_t nif;

		if (r == 0) {	/* ours: its own numbering */
			st[0] = (struct mpi_stream){ c->held, c->held + c->held_len, NULL, c->nif };
			continue;
		}
		memcpy(&nif, b, sizeof(nif));
		if (lens[r] < 8 || nif > DP_CAP_IF_MAX || 8 + nif * sizeof(struct mpi_if) > lens[r]) {
			snprintf(err, errlen, "trace: rank %d's records of run %u are malformed", r,
				 rt->run_id);
			rc = -EPROTO;
			break;
		}
		st[r].map = malloc((nif ? nif : 1) * sizeof(int));
		if (st[r].map == NULL) {
			snprintf(err, errlen, "trace: out of memory merging the ranks' records");
			rc = -ENOMEM;
			break;
		}
		for (uint64_t i = 0; i < nif; i++) {
			struct mpi_if f;

			memcpy(&f, b + 8 + i * sizeof(f), sizeof(f));
			f.name[DP_CAP_NAME_MAX - 1] = '\0';
			/* the same name, or a new interface here (another rank's port) */
			st[r].map[i] = dp_capture_point(c, (enum dp_cap_kind)f.kind, f.name);
		}
		st[r].nif = (uint32_t)nif;
		st[r].p = b + 8 + nif * sizeof(struct mpi_if);
		st[r].end = b + lens[r];
	}
	while (rc == 0) {
		const struct dp_cap_held *best = NULL;
		int from = -1, id;

		for (r = 0; r < rt->nranks; r++) {
			struct dp_cap_held h;

			if (st[r].p >= st[r].end)
				continue;
			memcpy(&h, st[r].p, sizeof(h));
			if ((size_t)(st[r].end - st[r].p) < sizeof(h) || h.ifid >= st[r].nif ||
			    dp_cap_held_size(&h) > (size_t)(st[r].end - st[r].p)) {
				snprintf(err, errlen, "trace: rank %d's records of run %u are "
					 "malformed", r, rt->run_id);
				rc = -EPROTO;
				break;
			}
			if (best == NULL || h.ts_ns < best->ts_ns) {
				best = (const struct dp_cap_held *)(const void *)st[r].p;
				from = r;
			}
		}
		if (rc != 0 || best == NULL)
			break;
		id = st[from].map != NULL ? st[from].map[best->ifid] : (int)best->ifid;
		if (id >= 0)
			rc = dp_capture_put(c, (uint32_t)id, best->ts_ns, best + 1, best->len,
					    best->orig);
		if (rc != 0)
			snprintf(err, errlen, "trace: writing interface %s failed: %s",
				 c->names[id], strerror(-rc));
		st[from].p += dp_cap_held_size(best);
	}
	for (r = 0; r < rt->nranks; r++)
		free(st[r].map);
	free(st);
	return rc;
}

/*
 * The trace of a run over ranks: every rank's held records (and its interfaces' names, for
 * its ports are not rank 0's) to rank 0, which merges them in time order.  Every rank takes part,
 * with or without a trace of its own.
 */
static int
mpi_trace(struct dp_rt *rt, struct dp_capture *c, char *err, size_t errlen)
{
	uint64_t nif = c != NULL && c->hold ? c->nif : 0;
	size_t held = c != NULL && c->hold ? c->held_len : 0, cap = 0;
	size_t len = 8 + nif * sizeof(struct mpi_if) + held;
	size_t *lens = calloc((size_t)rt->nranks, sizeof(*lens));
	uint8_t *mine = rt->rank != 0 ? malloc(len) : NULL, *buf = NULL;
	int rc;

	if (lens == NULL || (rt->rank != 0 && mine == NULL)) {
		free(lens);
		free(mine);
		snprintf(err, errlen, "trace: out of memory for the records of run %u", rt->run_id);
		return -ENOMEM;
	}
	if (mine != NULL) {	/* (rank 0 keeps its own where they are) */
		memcpy(mine, &nif, 8);
		for (uint64_t i = 0; i < nif; i++) {
			struct mpi_if f = { .kind = c->kinds[i] };

			snprintf(f.name, sizeof(f.name), "%s", c->names[i]);
			memcpy(mine + 8 + i * sizeof(f), &f, sizeof(f));
		}
		if (held > 0)
			memcpy(mine + 8 + nif * sizeof(struct mpi_if), c->held, held);
	}
	rc = dp_ranks_gatherv(mine != NULL ? mine : (const void *)&nif, mine != NULL ? len : 8,
			      &buf, &cap, lens);
	if (rc != 0)
		snprintf(err, errlen, "gathering the ranks' trace records of run %u over MPI "
			 "failed: %s", rt->run_id, strerror(-rc));
	else if (rt->rank == 0 && c != NULL && c->hold && c->w != NULL)
		rc = mpi_merge_trace(rt, c, buf, lens, err, errlen);
	if (c != NULL)
		c->held_len = 0;
	free(buf);
	free(lens);
	free(mine);
	return rc;
}

/* Rank 0 gathers every rank's port figures and per-step record, and merges them. */
static int
mpi_results(struct dp_rt *rt, struct dp_topo *t, char *err, size_t errlen)
{
	uint64_t alen = 0, *mine, *v, np = 0, k = 0;
	size_t cap = 0, *lens = calloc((size_t)rt->nranks, sizeof(*lens)), off = 0;
	uint8_t *buf = NULL;
	uint32_t d;
	int a, r, rc;

	for (a = 0; a < A_COUNT; a++)
		alen += array_len(&t->rec, a);
	for (d = 0; d < rt->n_dc; d++)
		np += rt->dc_port[d] != NULL;
	mine = malloc((1 + 16 * np + alen) * sizeof(*mine));
	if (mine == NULL || lens == NULL) {
		free(mine);
		free(lens);
		snprintf(err, errlen, "out of memory for the record of run %u", rt->run_id);
		return -ENOMEM;
	}
	mine[k++] = np;
	for (d = 0; d < rt->n_dc; d++)
		if (rt->dc_port[d] != NULL) {
			struct dp_rt_port_report pr;

			port_report(rt->dc_port[d], &pr);
			mine[k++] = d;
			portrep_pack(&pr, mine + k);
			k += 15;
		}
	for (a = 0; a < A_COUNT; a++)
		for (uint64_t i = 0; i < array_len(&t->rec, a); i++)
			mine[k++] = array_get(&t->rec, a, i);
	rc = dp_ranks_gatherv(mine, k * sizeof(*mine), &buf, &cap, lens);
	if (rc != 0)
		snprintf(err, errlen, "gathering the ranks' records of run %u over MPI failed: %s",
			 rt->run_id, strerror(-rc));
	for (r = 0; rc == 0 && rt->rank == 0 && r < rt->nranks; off += lens[r], r++) {
		uint64_t n, want;

		if (r == 0)
			continue;	/* ours is the record merged into */
		v = (uint64_t *)(void *)(buf + off);
		n = lens[r] >= 8 ? v[0] : UINT64_MAX;
		want = n <= DP_RT_DC_MAX ? 8 * (1 + 16 * n + alen) : 0;
		if (lens[r] != want) {
			snprintf(err, errlen, "rank %d's record of run %u is %zu bytes, not the %llu "
				 "of its %llu ports and %llu values", r, rt->run_id, lens[r],
				 (unsigned long long)want, (unsigned long long)n,
				 (unsigned long long)alen);
			rc = -EPROTO;
			break;
		}
		v++;
		for (uint64_t i = 0; i < n; i++, v += 16)
			if (rt->n_peer_ports < DP_RT_DC_MAX) {
				struct dp_rt_port_report *pr = &rt->peer_port[rt->n_peer_ports++];

				portrep_unpack(pr, (uint32_t)v[0], v + 1, 15);
				snprintf(pr->dev, sizeof(pr->dev), "(rank %d's)", r);
			}
		for (a = 0; a < A_COUNT; a++)
			for (uint64_t i = 0; i < array_len(&t->rec, a); i++)
				array_merge(&t->rec, a, i, *v++);
	}
	free(buf);
	free(lens);
	free(mine);
	return rc;
}

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

/* The peer's clock less ours: from the ping-pong of @p n with the smallest round trip. */
static int
measure_offset(struct dp_rt *rt, int n, uint64_t end, char *err, size_t errlen)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < n && dp_clock_raw_ns() < end; i++) {
		uint64_t t0 = dp_clock_ns(&rt->clk), t1;

		rt->got_pong = false;
		rt->pong_sent = t0;
		send_msg(rt, RT_PING, 0, 0, t0, 0, 0, NULL, 0);
		wait_for(rt, 50, &rt->got_pong);
		t1 = dp_clock_ns(&rt->clk);
		if (rt->got_pong && t1 - t0 < best) {
			best = t1 - t0;
			rt->rtt_ns = best;
			rt->offset_ns = (int64_t)rt->pong_peer - (int64_t)(t0 + (t1 - t0) / 2);
		}
	}
	if (best == UINT64_MAX) {
		snprintf(err, errlen, "the peer does not answer PING on %s", rt->ctl->dev);
		return -ETIMEDOUT;
	}
	return 0;
}

static int
hello(struct dp_rt *rt, char *err, size_t errlen)
{
	uint64_t end = dp_clock_raw_ns() + (uint64_t)rt->wait_ms * 1000000;

	while (!(rt->got_hello && rt->peer_has_ours) && rt->why[0] == '\0') {
		if (dp_clock_raw_ns() > end) {
			snprintf(err, errlen, "no word from the peer process on %s in %d ms (start "
				 "the other side with the same scenario; check [ports])",
				 rt->ctl->dev, rt->wait_ms);
			return -ETIMEDOUT;
		}
		send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, rt->got_hello, NULL, 0);
		wait_for(rt, 20, NULL);
	}
	if (rt->why[0] != '\0') {
		snprintf(err, errlen, "%s", rt->why);
		return -EPROTO;
	}
	if (!rt->leader)
		return 0;
	return measure_offset(rt, RT_PINGS, end, err, errlen);
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
		rt->port[d].on_ctl = on_msg;
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
		rc = mpi_hello(rt, rc, err, errlen);
		rt->clean = true;
		if (p->agreed != NULL)
			*p->agreed = rc != 0;	/* (a later failure may be this rank's alone) */
	}
	else if (rc == 0 && rt->split)
		rc = hello(rt, err, errlen);
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
	rt->results = rt->results_want = 0;
	rt->results_end = false;
	rt->got_start = rt->got_ack = false;
	rt->why[0] = '\0';
	rt->sum_pending = rt->sum_valid = rt->drain_done = false;
	rt->clean = false;	/* (until the run ends well: a rank that failed alone closes alone) */
	if (rt->split) {
		t->barrier.peers = rt->mpi ? (uint32_t)rt->nranks - 1 : 1;
		t->barrier.arrived = arrived;
		t->barrier.peer_arg = rt;
	}
	if (!rt->split) {
		dp_clock_rebase(&rt->clk);
		start = dp_clock_ns(&rt->clk) + 20000000;	/* 20 ms to settle */
	} else if (rt->mpi) {
		int rc = mpi_start(rt, run_id, &start, err, errlen);

		if (rc != 0)
			return rc;
	} else if (rt->leader) {
		uint64_t margin;
		int64_t off;
		int rc;

		/* the offset again: the two clocks drift apart between runs */
		dp_clock_rebase(&rt->clk);
		rc = measure_offset(rt, 8, dp_clock_raw_ns() + (uint64_t)rt->wait_ms * 1000000,
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
			send_msg(rt, RT_START, run_id, 0, (uint64_t)((int64_t)start + off), 0, 0,
				 NULL, 0);
			wait_for(rt, 10, &rt->got_ack);
		}
	} else {
		dp_clock_rebase(&rt->clk);
		wait_for(rt, rt->wait_ms, &rt->got_start);
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
		return rt->drain_done || mpi_drained(rt, &dr->t->eng, idle, tx, rx);
	if (!idle)
		return false;
	if (!rt->split)
		return rx == tx;	/* the ports are each other's ends */
	if (!rt->sent_done) {
		send_msg(rt, RT_DONE, rt->run_id, 0, tx, 0, 0, NULL, 0);
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

static int
send_results(struct dp_rt *rt, const struct dp_topo *t)
{
	uint64_t v[RT_VALS], total = 0;
	uint32_t d;
	int a, rc;

	for (d = 0; d < rt->n_dc; d++)
		if (rt->dc_port[d] != NULL) {
			struct dp_rt_port_report r;
			uint16_t n;

			port_report(rt->dc_port[d], &r);
			n = portrep_pack(&r, v);
			send_msg(rt, RT_PORTREP, rt->run_id, d, 0, 0, 0, v, n);
		}
	for (a = 0; a < A_COUNT; a++) {
		uint64_t len = array_len(&t->rec, a), i = 0;

		while (i < len) {
			uint16_t n = 0;

			while (n < RT_VALS && i + n < len) {
				v[n] = array_get(&t->rec, a, i + n);
				n++;
			}
			rc = send_msg(rt, RT_RESULT, rt->run_id, (uint32_t)a, i, 0, 0, v, n);
			if (rc != 0)
				return rc;
			i += n;
			total += n;
		}
	}
	return send_msg(rt, RT_RESULT_END, rt->run_id, 0, total, 0, 0, NULL, 0);
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
		rc = mpi_results(rt, t, err, errlen);
		if (rc == 0)
			rc = mpi_trace(rt, t->eng.cap_ctx, err, errlen);
		if (rc != 0)
			return rc;
	} else if (rt->split && !rt->leader) {
		rc = send_results(rt, t);
		if (rc == 0) {
			rt->got_ack = false;
			wait_for(rt, rt->wait_ms, &rt->got_ack);
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
			want += array_len(&t->rec, a);
		wait_for(rt, rt->wait_ms, &rt->results_end);
		while (rt->results_end && rt->results < rt->results_want)
			wait_for(rt, 10, NULL);	/* cannot happen on a FIFO link; be sure */
		if (!rt->results_end || rt->results != want) {
			snprintf(err, errlen, "the follower's record of run %u did not arrive (%llu "
				 "of %llu values)", rt->run_id, (unsigned long long)rt->results,
				 (unsigned long long)want);
			return -EPROTO;
		}
		send_msg(rt, RT_RESULT_ACK, rt->run_id, 0, 0, 0, 0, NULL, 0);
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
	rep->merged = rt->split && rt->leader;
	rt->clean = true;
	for (d = 0; d < DP_RT_PORT_MAX; d++)
		if (rt->opened[d])
			port_report(&rt->port[d], &rep->port[rep->n_ports++]);
	rep->n_peer_ports = rt->n_peer_ports;
	memcpy(rep->peer_port, rt->peer_port, sizeof(rep->peer_port));
	rt->topo = NULL;
	return 0;
}
