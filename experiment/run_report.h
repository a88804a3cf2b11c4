/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run's report of its runs: its results (results.h), written as text, JSON or CSV.
 */
#ifndef SYNCEMU_RUN_REPORT_H
#define SYNCEMU_RUN_REPORT_H

#include <jansson.h>

#include <stdbool.h>

#include "runner.h"
#include "scenario.h"

struct results;

/**
 * The results of @p n runs of scenario @p sc (results.h), to write as text or JSON: the
 * scenario's header lines; each run's steps (in text every one with @p every, else runs of up
 * to 20 steps; in JSON, the run's "steps"), the summary against the models and its status
 * (JSON: "summary"), the live changes, the real-time ports, the runs interrupted, the
 * background and the WAN queues under load (these two tables in text only: the JSON has them in
 * each run's object); then the trace @p trace_path (NULL: none written) with its frames per
 * capture point.
 *
 * @return the results, or NULL with errno set (ENOMEM)
 */
struct results *run_report_results(struct outcome *runs, unsigned int n,
				   const struct sc_scenario *sc, bool every,
				   const struct dp_capture *cap, const char *trace_path);

/**
 * The scenario's settings every chart states: name, description, path, seed, load, steps,
 * warmup, WAN rate and latency, queue limits in bytes (null: unlimited); NULL: out of memory.
 */
json_t *run_report_scenario_json(const struct sc_scenario *sc);

/** "seed 1, 200 steps (20 warm-up), queues: NIC 2 MB, port 2 MB, switch 16 MB, WAN 64 MB" */
void run_report_settings(const struct sc_scenario *sc, char *buf, size_t len);

#endif /* SYNCEMU_RUN_REPORT_H */
