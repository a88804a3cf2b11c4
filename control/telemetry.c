/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints: read-only statistics of the run in progress, for
 * `dpdk-telemetry.py` (or any client of DPDK's telemetry socket).
 *
 *   /syncemu/status   run, variant, budget (its name and the FLOP/s charged now), the
 *                     modules' binding stage, steps done of steps, frames, drops, events,
 *                     virtual time (ps), changes applied
 *   /syncemu/params   every runtime key's current value (SI units), by section:
 *                     {"wan": {"bandwidth": "6000000000", ...}, "module": {...}, ...}
 *
 * The data plane publishes into a struct dp_status with atomic stores; DPDK's telemetry thread
 * reads it here.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_telemetry.h>

#include "../models/bits.h"
#include "../models/kernel.h"
#include "../models/variant.h"
#include "ctl.h"
#include "tune_keys.h"

static struct dp_status *status;

static int
tel_status(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint32_t var, budget;
	int32_t binding;

	if (status == NULL)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "running", atomic_load(&status->running));
	rte_tel_data_add_dict_u64(d, "run", atomic_load(&status->run_id));
	var = atomic_load(&status->var);
	budget = atomic_load(&status->budget);
	binding = atomic_load(&status->binding);
	rte_tel_data_add_dict_string(d, "variant", var < SM_VAR_COUNT ?
				     sm_variant_name((enum sm_variant)var) : "-");
	rte_tel_data_add_dict_string(d, "budget", budget < SM_BUDGET_COUNT ?
				     sm_budget_name((enum sm_budget)budget) : "-");
	rte_tel_data_add_dict_u64(d, "budget_flops", atomic_load(&status->budget_flops));
	rte_tel_data_add_dict_string(d, "binding", binding >= 0 && binding < SM_STAGE_COUNT ?
				     sm_stage_name((enum sm_stage)binding) : "-");
	rte_tel_data_add_dict_u64(d, "steps_done", atomic_load(&status->steps_done));
	rte_tel_data_add_dict_u64(d, "steps", atomic_load(&status->steps));
	rte_tel_data_add_dict_u64(d, "frames", atomic_load(&status->frames));
	rte_tel_data_add_dict_u64(d, "drops", atomic_load(&status->drops));
	rte_tel_data_add_dict_u64(d, "events", atomic_load(&status->events));
	rte_tel_data_add_dict_u64(d, "time_ps", atomic_load(&status->now_ps));
	rte_tel_data_add_dict_u64(d, "changes", atomic_load(&status->changes));
	return 0;
}

/*
 * Telemetry names are letters, digits and '_' (no '.'), so the keys "section.name" become
 * {"section": {"name": value}}; values are strings of the SI value (%.12g), as DPDK 22.11's
 * telemetry has no floating-point type.
 */
static int
tel_params(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *sec[DP_P_COUNT];
	char names[DP_P_COUNT][32];
	int i, j, n = 0;

	if (status == NULL)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	for (i = 0; i < DP_P_COUNT; i++) {
		const char *key = ctl_param_key(i), *dot = strchr(key, '.');
		double x = sm_bits_double(atomic_load(&status->value_bits[i]));
		char v[40], section[32];

		if (dot == NULL || (size_t)(dot - key) >= sizeof(section))
			continue;
		snprintf(section, sizeof(section), "%.*s", (int)(dot - key), key);
		for (j = 0; j < n && strcmp(names[j], section) != 0; j++)
			;
		if (j == n) {
			sec[n] = rte_tel_data_alloc();
			if (sec[n] == NULL)
				break;
			rte_tel_data_start_dict(sec[n]);
			snprintf(names[n++], sizeof(names[0]), "%s", section);
		}
		snprintf(v, sizeof(v), "%.12g", x);
		rte_tel_data_add_dict_string(sec[j], dot + 1, v);
	}
	for (j = 0; j < n; j++)
		if (rte_tel_data_add_dict_container(d, names[j], sec[j], 0) != 0)
			rte_tel_data_free(sec[j]);
	return 0;
}

int
ctl_telemetry_register(struct dp_status *st)
{
	int rc;

	status = st;
	rc = rte_telemetry_register_cmd("/syncemu/status", tel_status,
					"The syncemu run in progress. Takes no parameters");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/syncemu/params", tel_params,
						"Runtime parameters of the syncemu run in progress. "
						"Takes no parameters");
	return rc;
}
