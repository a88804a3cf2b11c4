/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live metrics over HTTP in Prometheus's text format (version 0.0.4): `GET /metrics` answers
 * what the data plane publishes in struct dp_status (the run in progress, its steps, frames,
 * drops, events, emulated time, the last steps' mean time, the runtime keys' values).  One
 * connection at a time: each must send its request within 2 s; the answer is written whole,
 * then the connection closed.  Anything but GET /metrics (or GET /) gets 404 or 405.
 */
#ifndef CTL_METRICS_H
#define CTL_METRICS_H

#include <stddef.h>

#include "../dataplane/tune.h"

struct metrics_server;

/**
 * Serve @p st at @p spec: "PORT" (127.0.0.1), "HOST:PORT" or "[V6]:PORT"; HOST a numeric
 * address or a name.  @p cmd names the command in the metrics (syncemu_info).  NULL with the
 * reason in @p err (the spec named).
 */
struct metrics_server *metrics_server_start(const char *spec, const struct dp_status *st,
					    const char *cmd, char *err, size_t errlen);

/** The port it listens on (the one asked, or the one given for 0). */
unsigned int metrics_server_port(const struct metrics_server *s);

/** Where it answers: "http://HOST:PORT/metrics". */
const char *metrics_server_url(const struct metrics_server *s);

/** Stop it (NULL: nothing). */
void metrics_server_stop(struct metrics_server *s);

/** The page @p st gives, into @p buf (@p len bytes): its length, or -ENOSPC. */
int metrics_render(const struct dp_status *st, const char *cmd, char *buf, size_t len);

#endif /* CTL_METRICS_H */
