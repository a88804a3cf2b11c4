/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bulk host (bulk.h): its TCP keeps each flow's send buffer full.  A flow is written a send
 * buffer's worth at a time, and again whenever every flow's writes are within their send
 * buffers (the TCP's "sent"), so TCP always has data to send: the flows are limited by their
 * windows alone, as iperf3's are.  What arrives from the previous data centre's host is only
 * counted (the TCP element's bytes in).
 */
#include <errno.h>
#include <string.h>

#include "bulk.h"
#include "link.h"

static void
write_all(struct dp_bulk *b, dp_time_t now)
{
	uint32_t k;

	for (k = 0; k < b->flows && !b->tcp.stopped; k++)
		if (dp_tcp_write(&b->tcp, b->nic, b->to * DP_BULK_FLOWS_MAX + k, b->chunk, 0, 0,
				 0, 0, now) < 0) {
			dp_engine_fail(b->tcp.e.eng, -ENOMEM, "%s: out of memory for its flows",
				       b->tcp.e.name);
			return;
		}
}

static void
bulk_sent(void *arg, dp_time_t now)
{
	write_all(arg, now);
}

static void
bulk_got(void *arg, uint32_t src, uint32_t step, uint16_t round, bool ctl, uint64_t bytes,
	 dp_time_t now)
{
	(void)arg, (void)src, (void)step, (void)round, (void)ctl, (void)bytes, (void)now;
}

int
dp_bulk_init(struct dp_bulk *b, struct dp_engine *eng, const struct dp_bulk_params *p)
{
	struct dp_tcp_params tp = {
		.id = p->dc,
		.per_dc = p->per_dc,
		.mult = DP_BULK_FLOWS_MAX,
		.dst_mult = p->per_dc,
		.kind = DP_KIND_BULK,
		.addr_base = 220,
		.bg = true,
		.conf = p->conf,
		.mss = p->mss,
		.burst = p->burst,
		.nic = p->nic,
		.app = { .sent = bulk_sent, .got = bulk_got, .arg = b },
		.cap_tx = p->cap_tx,
		.cap_rx = p->cap_rx,
	};
	int rc;

	if (p->flows > DP_BULK_FLOWS_MAX)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	rc = dp_tcp_init(&b->tcp, eng, p->name, &tp);
	if (rc != 0)
		return rc;
	b->to = p->to;
	b->flows = p->flows;
	b->nic = p->nic;
	/* past the send buffer: the write waits, and "sent" comes when it has room again */
	b->chunk = 2 * (uint64_t)p->conf->sndbuf + p->mss;
	return 0;
}

void
dp_bulk_start(struct dp_bulk *b, dp_time_t now)
{
	write_all(b, now);
}

void
dp_bulk_stop(struct dp_bulk *b)
{
	dp_tcp_stop(&b->tcp);
}

void
dp_bulk_fini(struct dp_bulk *b)
{
	dp_tcp_fini(&b->tcp);
}
