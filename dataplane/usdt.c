/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The USDT probes' semaphores (usdt.h): in .probes, as <sys/sdt.h> expects them.
 */
#include "usdt.h"

#ifdef SYNCEMU_USDT

#define DP_USDT_SEMA_DEF(n)								\
	__extension__ unsigned short syncemu_##n##_semaphore				\
		__attribute__((unused)) __attribute__((section(".probes")));
DP_USDT_PROBES(DP_USDT_SEMA_DEF)

#define DP_USDT_SEMA_SUM(n) + (unsigned int)*(volatile unsigned short *)&syncemu_##n##_semaphore

bool
dp_usdt_attached(void)
{
	return (0 DP_USDT_PROBES(DP_USDT_SEMA_SUM)) - syncemu_run_start_semaphore -
	       syncemu_run_end_semaphore > 0;
}

#else

bool
dp_usdt_attached(void)
{
	return false;
}

#endif
