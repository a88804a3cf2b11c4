/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run's report of its runs, as text or JSON, on the standard output.
 */
#ifndef SYNCEMU_RUN_REPORT_H
#define SYNCEMU_RUN_REPORT_H

#include <jansson.h>

#include <stdbool.h>

#include "runner.h"
#include "scenario.h"

/**
 * Print the report of @p n runs of scenario @p sc as text tables: each run's steps (every one
 * with @p every, else up to 20), the summary against the models and its status, the background
 * and the WAN queues under load, the real-time ports; then the trace @p trace_path (NULL: none
 * written) with its frames per capture point.
 */
void run_report_text(struct outcome *runs, unsigned int n, const struct sc_scenario *sc,
		     bool every, const struct dp_capture *cap, const char *trace_path);

/** The same as one JSON document.  @return 0, or -EIO if it could not be written. */
int run_report_json(struct outcome *runs, unsigned int n, const struct sc_scenario *sc,
		    const struct dp_capture *cap, const char *trace_path);

/**
 * The scenario's settings every chart states: name, description, path, seed, load, steps,
 * warmup, WAN rate and latency, queue limits in bytes (null: unlimited); NULL: out of memory.
 */
json_t *run_report_scenario_json(const struct sc_scenario *sc);

/** "seed 1, 200 steps (20 warm-up), queues: NIC 2 MB, port 2 MB, switch 16 MB, WAN 64 MB" */
void run_report_settings(const struct sc_scenario *sc, char *buf, size_t len);

#endif /* SYNCEMU_RUN_REPORT_H */
