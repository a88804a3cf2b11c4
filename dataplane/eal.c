/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start-up.  Without hugepages or NICs (as on a laptop or a CI machine) the EAL runs with
 * --no-huge --no-pci and the frames live in ordinary memory; on a host with hugepages and NICs
 * the user passes their own flags (--eal "...").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "eal.h"
#include "frame.h"

#define MAX_ARGS 64

static int eal_up;

int
dp_eal_init(const char *args, uint32_t mem_mb, char *err, size_t errlen)
{
	char *buf, *argv[MAX_ARGS + 1], *tok, *save = NULL, mem[32];
	int argc = 0, rc;

	if (eal_up)
		return -EALREADY;
	buf = strdup(args != NULL ? args : DP_EAL_DEFAULT);
	if (buf == NULL)
		return -ENOMEM;
	argv[argc++] = (char *)"syncemu";
	for (tok = strtok_r(buf, " \t", &save); tok != NULL && argc < MAX_ARGS - 2;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	if (tok != NULL) {
		snprintf(err, errlen, "--eal: more than %d arguments", MAX_ARGS - 3);
		free(buf);
		return -E2BIG;
	}
	if (args == NULL && mem_mb > 0) {
		snprintf(mem, sizeof(mem), "%u", mem_mb);
		argv[argc++] = (char *)"-m";
		argv[argc++] = mem;
	}
	argv[argc] = NULL;
	rc = rte_eal_init(argc, argv);
	free(buf);
	if (rc < 0) {
		snprintf(err, errlen, "the EAL did not start (%s); flags: %s%s", rte_strerror(rte_errno),
			 args != NULL ? args : DP_EAL_DEFAULT,
			 args != NULL ? "" : " (override with --eal)");
		return -(rte_errno ? rte_errno : EINVAL);
	}
	eal_up = 1;
	return 0;
}

void
dp_eal_fini(void)
{
	if (eal_up)
		rte_eal_cleanup();
	eal_up = 0;
}

static uint32_t
data_room(uint32_t frame_max)
{
	return RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(frame_max, 64);
}

struct rte_mempool *
dp_pool_create(const char *name, uint32_t n, uint32_t frame_max, char *err, size_t errlen)
{
	struct rte_mempool *mp;
	uint32_t room = data_room(frame_max);

	if (room > UINT16_MAX) {
		snprintf(err, errlen, "frames of %u bytes do not fit an mbuf", frame_max);
		return NULL;
	}
	mp = rte_pktmbuf_pool_create(name, n, n >= 4096 ? 256 : 0, DP_MBUF_PRIV, (uint16_t)room,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		snprintf(err, errlen, "no mbuf pool of %u mbufs of %u bytes (%s): give the EAL more "
			 "memory (-m) or lower run.steps' queues", n, room,
			 rte_strerror(rte_errno));
	return mp;
}

uint32_t
dp_pool_mem_mb(uint32_t n, uint32_t frame_max)
{
	uint64_t per = data_room(frame_max) + sizeof(struct rte_mbuf) + DP_MBUF_PRIV + 128;

	return (uint32_t)(((uint64_t)n * per) >> 20) + 128;
}
