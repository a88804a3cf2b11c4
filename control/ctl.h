/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runtime control: a local UNIX socket (mode 0600) that takes one request per connection and
 * answers with one line of JSON, and DPDK telemetry endpoints for read-only statistics.
 *
 * Protocol (a line of text in, a line of JSON out):
 *   status                      the run in progress: run, variant, steps done, frames, drops,
 *                               virtual time, and every runtime key's current value
 *   get KEY                     {"ok": true, "key": KEY, "value": V} (SI units)
 *   set KEY VALUE               validated like the scenario file ("--set KEY=VALUE"), then applied
 *                               by the data plane between two events:
 *                               {"ok": true, "key", "value", "old", "run", "at_ms"}; a refused
 *                               value: {"ok": false, "error": "why"}
 *   keys                        the keys that can change during a run
 * KEY is one of module.budget_low, module.budget_high, module.planes, module.latency_pluggable,
 * module.latency_network, module.port, module.fpga_rate, wan.bandwidth, wan.latency,
 * background.load, queues.wan.  A change lasts for the rest of the run in progress.
 *
 * The server holds up to 64 connections at once; each must send its line within 2 s of
 * connecting and take its answer within 2 s, or it is answered with an error (if it can be)
 * and closed; a change waits up to 3 s for the data plane, while the others are served.  Past 64,
 * new connections wait in the socket's queue, in their order; a held one that has gone 200 ms
 * without its whole line is closed, with an error answer, to make room for one that waits.
 */
#ifndef SC_CTL_H
#define SC_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include <rte_ring.h>

#include "../dataplane/tune.h"

struct ctl_server;

/** What the server needs to validate values: the scenario as loaded. */
struct ctl_params {
	const char *path;		/**< socket path */
	const char *scenario;		/**< scenario file, NULL: the built-in default */
	const char *const *sets;	/**< its overrides */
	unsigned int nsets;
	unsigned int variants, budgets;	/**< what the invocation runs (a change is checked
					 *   against these runs' limits: sc_scenario_load_run());
					 *   variants 0: no run (a bridge), the scenario's checks alone */
	struct rte_ring *req;		/**< to the data plane (struct dp_tune_req *) */
	struct rte_ring *resp;		/**< from it (struct dp_tune_resp *) */
	struct dp_status *status;	/**< what the data plane publishes */
	bool before_run;		/**< a change before the run waits for it and applies from
					 *   its start (a bridge: its one run is on its way); else
					 *   refused */
};

/**
 * Whether the server can listen at @p path, before it starts: 0 if nothing is there, or a stale
 * socket (nothing answers on it: it will be replaced); -EADDRINUSE a socket that answers (another
 * process serves it); -EEXIST anything else (a file, a directory, a FIFO, a symlink, a device:
 * refused, never replaced); -ENAMETOOLONG; -errno.  The message names the path and what is there.
 */
int ctl_path_check(const char *path, char *err, size_t errlen);

/**
 * Listen on the socket (a stale one is replaced; one in use, or anything that is not a socket,
 * is an error: ctl_path_check()) and serve requests from a thread of its own.
 *
 * @return the server, or NULL with a message
 */
struct ctl_server *ctl_server_start(const struct ctl_params *p, char *err, size_t errlen);

/**
 * Stop serving and remove the socket if it is still the one this server bound (another server
 * may have replaced it); NULL is a no-op.
 */
void ctl_server_stop(struct ctl_server *s);

/**
 * Register the telemetry endpoints /syncemu/status and /syncemu/params over @p status (read by
 * DPDK's telemetry thread: `dpdk-telemetry.py`).  0 or -errno.
 */
int ctl_telemetry_register(struct dp_status *status);

struct sc_scenario;

/** The value of runtime key @p p in a loaded scenario, SI units. */
double ctl_scenario_value(const struct sc_scenario *sc, enum dp_param p);

/**
 * The client: connect to the socket at @p path (waiting while its queue is full), send @p line
 * and read the whole answer line (it can be long) into *@p answer (allocated, with its newline;
 * the caller frees it), all within @p timeout_ms.
 *
 * @return 0, or -errno with a message: what the kernel said on connect() and what is at
 *	   @p path (nothing, a directory missing, not a socket, a socket nobody listens on, no
 *	   permission, the socket's queue full for the whole deadline), or no answer in time
 */
int ctl_client(const char *path, const char *line, char **answer, int timeout_ms, char *err,
	       size_t errlen);

#endif /* SC_CTL_H */
