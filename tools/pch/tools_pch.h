/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The headers nearly every tools file reads, parsed once per build (meson's c_pch: GCC
 * includes it first in each file of the target).  DPDK's headers are most of a file's
 * compile time: 0.8 of 0.9 s under the sanitizers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include <jansson.h>
