/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time split over two processes (rt.h): the control messages over the ports, HELLO and the
 * clocks' offset at start, ARRIVED during a run, DONE and the follower's record at its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "ranks.h"
#include "rt_impl.h"

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

/* ---- messages ---- */

int
rt_send_msg(struct dp_rt *rt, uint8_t type, uint32_t run_id, uint32_t gen, uint64_t a, uint64_t b,
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

/* Every control message, in the engine (at @p now) or outside it (now 0). */
void
rt_on_msg(void *arg, struct dp_port *p, const uint8_t *raw, uint32_t len, dp_time_t now)
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
			rt_send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
			snprintf(rt->why, sizeof(rt->why), "the peer runs another scenario or other "
				 "options (its hash %016llx, ours %016llx): give both the same "
				 "scenario, --set, steps, variants and budgets",
				 (unsigned long long)m.a, (unsigned long long)rt->config);
			return;
		}
		if ((m.b & rt->local) != 0 || ((m.b | rt->local) != (1u << rt->n_dc) - 1)) {
			rt_send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
			snprintf(rt->why, sizeof(rt->why), "the data centres here (mask %#x) and the "
				 "peer's (%#llx) must split the %u of the scenario between them",
				 rt->local, (unsigned long long)m.b, rt->n_dc);
			return;
		}
		if (!rt->got_hello || m.c == 0)	/* let it hear ours */
			rt_send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, 1, NULL, 0);
		rt->got_hello = true;
		if (m.c != 0)
			rt->peer_has_ours = true;
		break;
	case RT_PING:
		rt_send_msg(rt, RT_PONG, 0, 0, m.a, dp_clock_ns(&rt->clk), 0, NULL, 0);
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
			rt_send_msg(rt, RT_START_ACK, m.run_id, 0, 0, 0, 0, NULL, 0);
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
			rt_portrep_unpack(&rt->peer_port[rt->n_peer_ports++], m.gen, m.v, m.count);
		break;
	case RT_RESULT:
		if (m.run_id != rt->run_id || rt->topo == NULL || m.gen >= A_COUNT)
			break;
		for (i = 0; i < m.count; i++)
			if (m.a + i < rt_array_len(&rt->topo->rec, (int)m.gen))
				rt_array_merge(&rt->topo->rec, (int)m.gen, m.a + i, m.v[i]);
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
	case RT_TCP:
		for (i = 0; m.run_id == rt->run_id && i < m.count && i < DP_RT_TCP_VALS; i++)
			rt->peer_tcp[i] += m.v[i];
		break;
	default:
		rt->seen_other++;
	}
}

/*
 * Outside the engine: control messages for up to @p ms, or until *@p flag, from every port (the
 * peer sends on its first port, which may be the far end of any of ours).
 */
void
rt_wait_for(struct dp_rt *rt, int ms, const volatile bool *flag)
{
	static const volatile bool never;
	const volatile bool *stop = flag != NULL ? flag : &never;
	uint64_t end = dp_clock_raw_ns() + (uint64_t)ms * 1000000;
	uint32_t d;

	do {
		for (d = 0; d < rt->n_dc && !*stop; d++)
			if (rt->opened[d])
				dp_port_ctl_wait(&rt->port[d], 0, rt_on_msg, rt, stop);
	} while (!*stop && dp_clock_raw_ns() < end);
}

void
rt_arrived(void *arg, uint32_t generation, dp_time_t now)
{
	struct dp_rt *rt = arg;
	int rc;

	(void)now;
	if (!rt->mpi) {
		rt_send_msg(rt, RT_ARRIVED, rt->run_id, generation, 0, 0, 0, NULL, 0);
		return;
	}
	rc = dp_ranks_post(rt->run_id, generation);
	if (rc != 0)
		dp_engine_fail(&rt->topo->eng, rc, "MPI: telling the other ranks that this one's "
			       "workers are in failed: %s", strerror(-rc));
}

/* The peer's clock less ours: from the ping-pong of @p n with the smallest round trip. */
int
rt_measure_offset(struct dp_rt *rt, int n, uint64_t end, char *err, size_t errlen)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < n && dp_clock_raw_ns() < end; i++) {
		uint64_t t0 = dp_clock_ns(&rt->clk), t1;

		rt->got_pong = false;
		rt->pong_sent = t0;
		rt_send_msg(rt, RT_PING, 0, 0, t0, 0, 0, NULL, 0);
		rt_wait_for(rt, 50, &rt->got_pong);
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

int
rt_hello(struct dp_rt *rt, char *err, size_t errlen)
{
	uint64_t end = dp_clock_raw_ns() + (uint64_t)rt->wait_ms * 1000000;

	while (!(rt->got_hello && rt->peer_has_ours) && rt->why[0] == '\0') {
		if (dp_clock_raw_ns() > end) {
			snprintf(err, errlen, "no word from the peer process on %s in %d ms (start "
				 "the other side with the same scenario; check [ports])",
				 rt->ctl->dev, rt->wait_ms);
			return -ETIMEDOUT;
		}
		rt_send_msg(rt, RT_HELLO, 0, 0, rt->config, rt->local, rt->got_hello, NULL, 0);
		rt_wait_for(rt, 20, NULL);
	}
	if (rt->why[0] != '\0') {
		snprintf(err, errlen, "%s", rt->why);
		return -EPROTO;
	}
	if (!rt->leader)
		return 0;
	return rt_measure_offset(rt, RT_PINGS, end, err, errlen);
}

int
rt_send_results(struct dp_rt *rt, const struct dp_topo *t)
{
	uint64_t v[RT_VALS], total = 0;
	uint32_t d;
	int a, rc;

	for (d = 0; d < rt->n_dc; d++)
		if (rt->dc_port[d] != NULL) {
			struct dp_rt_port_report r;
			uint16_t n;

			rt_port_report(rt->dc_port[d], &r);
			n = rt_portrep_pack(&r, v);
			rt_send_msg(rt, RT_PORTREP, rt->run_id, d, 0, 0, 0, v, n);
		}
	for (a = 0; a < A_COUNT; a++) {
		uint64_t len = rt_array_len(&t->rec, a), i = 0;

		while (i < len) {
			uint16_t n = 0;

			while (n < RT_VALS && i + n < len) {
				v[n] = rt_array_get(&t->rec, a, i + n);
				n++;
			}
			rc = rt_send_msg(rt, RT_RESULT, rt->run_id, (uint32_t)a, i, 0, 0, v, n);
			if (rc != 0)
				return rc;
			i += n;
			total += n;
		}
	}
	rt_tcp_pack(t, v);
	rc = rt_send_msg(rt, RT_TCP, rt->run_id, 0, 0, 0, 0, v, DP_RT_TCP_VALS);
	if (rc != 0)
		return rc;
	return rt_send_msg(rt, RT_RESULT_END, rt->run_id, 0, total, 0, 0, NULL, 0);
}
