/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints: read-only statistics of the run in progress, for
 * `dpdk-telemetry.py` (or any client of DPDK's telemetry socket).
 *
 *   /syncemu/status   run, variant, budget (its name and the FLOP/s charged now), the
 *                     modules' binding stage, steps done of steps, frames, drops, events,
 *                     virtual time (ps), changes applied
 *   /syncemu/params   every runtime key's current value, by section, as an integer in the unit
 *                     its name ends with: {"wan": {"bandwidth_bytes_per_s": 6000000000,
 *                     "latency_ns": 20000, ...}, "background": {"load_ppm": 500000}, ...}
 *   /syncemu/links    each WAN link (a bridge's direction): {"link0": {"name": "wan0>1",
 *                     "sent_frames": ..., "drops": ..., "queue_bytes": ..., ...}, ...}
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
 * Each key's value as an integer in a unit small enough for it (DPDK 22.11's telemetry has no
 * floating-point type), the unit named in the value's name.
 */
static const struct {
	const char *suffix;
	double scale;
} tel_unit[DP_P_COUNT] = {
	[DP_P_BUDGET_LOW] = { "_flops", 1 },		[DP_P_BUDGET_HIGH] = { "_flops", 1 },
	[DP_P_PLANES] = { "", 1 },			[DP_P_LAT_PLUGGABLE] = { "_ns", 1e9 },
	[DP_P_LAT_NETWORK] = { "_ns", 1e9 },		[DP_P_MOD_PORT] = { "_bytes_per_s", 1 },
	[DP_P_FPGA_RATE] = { "_ops_per_s", 1 },		[DP_P_WAN_BW] = { "_bytes_per_s", 1 },
	[DP_P_WAN_LAT] = { "_ns", 1e9 },		[DP_P_BG_LOAD] = { "_ppm", 1e6 },
	[DP_P_WAN_QUEUE] = { "_bytes", 1 },		[DP_P_IMP_LOSS] = { "_ppb", 1e9 },
	[DP_P_IMP_JITTER] = { "_ns", 1e9 },
};

/*
 * Telemetry names are letters, digits and '_' (no '.'), so the keys "section.name" become
 * {"section": {"name_unit": value}}.
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
		char v[48], section[32];

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
		snprintf(v, sizeof(v), "%s%s", dot + 1, tel_unit[i].suffix);
		rte_tel_data_add_dict_u64(sec[j], v, isfinite(x) && x > 0 ?
					  (uint64_t)llround(x * tel_unit[i].scale) : 0);
	}
	for (j = 0; j < n; j++)
		if (rte_tel_data_add_dict_container(d, names[j], sec[j], 0) != 0)
			rte_tel_data_free(sec[j]);
	return 0;
}

static int
tel_links(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint32_t n, i;

	if (status == NULL)
		return -ENOENT;
	n = atomic_load_explicit(&status->n_link, memory_order_acquire);
	/* (a dict of dicts: 22.11 nests only arrays in an array, and a name is letters, digits
	 * and '_', so each link is "linkN" with its name inside) */
	rte_tel_data_start_dict(d);
	for (i = 0; i < n && i < DP_STATUS_LINKS; i++) {
		const struct dp_status_link *l = &status->link[i];
		struct rte_tel_data *x = rte_tel_data_alloc();
		char key[16];

		if (x == NULL)
			break;
		rte_tel_data_start_dict(x);
		rte_tel_data_add_dict_string(x, "name", l->name);
		rte_tel_data_add_dict_u64(x, "sent_frames", atomic_load(&l->frames));
		rte_tel_data_add_dict_u64(x, "sent_bytes", atomic_load(&l->bytes));
		rte_tel_data_add_dict_u64(x, "drops", atomic_load(&l->drops));
		rte_tel_data_add_dict_u64(x, "drops_background", atomic_load(&l->drops_bg));
		rte_tel_data_add_dict_u64(x, "drops_tcp", atomic_load(&l->drops_tcp));
		rte_tel_data_add_dict_u64(x, "drops_aqm", atomic_load(&l->drops_aqm));
		rte_tel_data_add_dict_u64(x, "lost", atomic_load(&l->lost));
		rte_tel_data_add_dict_u64(x, "ce_marked", atomic_load(&l->marked));
		rte_tel_data_add_dict_u64(x, "queue_bytes", atomic_load(&l->qbytes));
		rte_tel_data_add_dict_u64(x, "queue_max_bytes", atomic_load(&l->max_qbytes));
		rte_tel_data_add_dict_u64(x, "busy_ps", atomic_load(&l->busy_ps));
		snprintf(key, sizeof(key), "link%u", i);
		if (rte_tel_data_add_dict_container(d, key, x, 0) != 0)
			rte_tel_data_free(x);
	}
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
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/syncemu/links", tel_links,
						"The WAN links of the syncemu run in progress. "
						"Takes no parameters");
	return rc;
}
