/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time split over MPI ranks (rt.h, ranks.h): every rank's start-up agreed, the clocks and
 * the start, ARRIVED between ranks, the end summed, and the records and trace gathered to rank 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "rt_impl.h"

/* ---- the control over MPI (rt.h) ---- */

/* The other ranks' ARRIVED: those of this run (an earlier run's late word is dropped). */
void
rt_mpi_take(struct dp_rt *rt, dp_time_t now)
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
int
rt_mpi_hello(struct dp_rt *rt, int rc, char *err, size_t errlen)
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
int
rt_mpi_start(struct dp_rt *rt, uint32_t run_id, uint64_t *start, char *err, size_t errlen)
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
bool
rt_mpi_drained(struct dp_rt *rt, struct dp_engine *eng, bool idle, uint64_t tx, uint64_t rx)
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
int
rt_mpi_trace(struct dp_rt *rt, struct dp_capture *c, char *err, size_t errlen)
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
int
rt_mpi_results(struct dp_rt *rt, struct dp_topo *t, char *err, size_t errlen)
{
	uint64_t alen = 0, *mine, *v, np = 0, k = 0;
	size_t cap = 0, *lens = calloc((size_t)rt->nranks, sizeof(*lens)), off = 0;
	uint8_t *buf = NULL;
	uint32_t d;
	int a, r, rc;

	for (a = 0; a < A_COUNT; a++)
		alen += rt_array_len(&t->rec, a);
	for (d = 0; d < rt->n_dc; d++)
		np += rt->dc_port[d] != NULL;
	mine = malloc((1 + 16 * np + alen + DP_RT_TCP_VALS) * sizeof(*mine));
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

			rt_port_report(rt->dc_port[d], &pr);
			mine[k++] = d;
			rt_portrep_pack(&pr, mine + k);
			k += 15;
		}
	for (a = 0; a < A_COUNT; a++)
		for (uint64_t i = 0; i < rt_array_len(&t->rec, a); i++)
			mine[k++] = rt_array_get(&t->rec, a, i);
	rt_tcp_pack(t, mine + k);
	k += DP_RT_TCP_VALS;
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
		want = n <= DP_RT_DC_MAX ? 8 * (1 + 16 * n + alen + DP_RT_TCP_VALS) : 0;
		if (lens[r] != want) {
			snprintf(err, errlen, "rank %d's record of run %u is %zu bytes, not the %llu "
				 "of its %llu ports, %llu values and its TCP counts", r, rt->run_id, lens[r],
				 (unsigned long long)want, (unsigned long long)n,
				 (unsigned long long)alen);
			rc = -EPROTO;
			break;
		}
		v++;
		for (uint64_t i = 0; i < n; i++, v += 16)
			if (rt->n_peer_ports < DP_RT_DC_MAX) {
				struct dp_rt_port_report *pr = &rt->peer_port[rt->n_peer_ports++];

				rt_portrep_unpack(pr, (uint32_t)v[0], v + 1, 15);
				snprintf(pr->dev, sizeof(pr->dev), "(rank %d's)", r);
			}
		for (a = 0; a < A_COUNT; a++)
			for (uint64_t i = 0; i < rt_array_len(&t->rec, a); i++)
				rt_array_merge(&t->rec, a, i, *v++);
		for (a = 0; a < DP_RT_TCP_VALS; a++)
			rt->peer_tcp[a] += *v++;
	}
	free(buf);
	free(lens);
	free(mine);
	return rc;
}
