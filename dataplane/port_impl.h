/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the port: what port.c (the element: sending, receiving, the control messages) and
 * port_dev.c (its device: opening, counts, closing) share.
 */
#ifndef DP_PORT_IMPL_H
#define DP_PORT_IMPL_H

#include <stdint.h>

#include "port.h"

#define DP_PORT_BURST 32

/** RTE_MBUF_DYNFLAG_RX_TIMESTAMP's bit, once a port registered it. */
extern uint64_t dp_port_ts_flag;

/** Room for one more arrival (the ring doubles when full); 0 or -ENOMEM. */
int dp_port_fifo_room(struct dp_port_fifo *f);

/** Free the frames that wait, and the ring. */
void dp_port_fifo_fini(struct dp_port_fifo *f);

/** The device's counts as they are (struct dp_port_dev's order), not since the run began. */
void dp_port_dev_raw(const struct dp_port *p, uint64_t v[5]);

#endif /* DP_PORT_IMPL_H */
