/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scenario keys of the parameters that change during a run, and the messages of refused
 * changes that name them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tune_keys.h"

static const char *const keys[DP_P_COUNT] = {
	[DP_P_BUDGET_LOW] = "module.budget_low",
	[DP_P_BUDGET_HIGH] = "module.budget_high",
	[DP_P_PLANES] = "module.planes",
	[DP_P_LAT_PLUGGABLE] = "module.latency_pluggable",
	[DP_P_LAT_NETWORK] = "module.latency_network",
	[DP_P_MOD_PORT] = "module.port",
	[DP_P_FPGA_RATE] = "module.fpga_rate",
	[DP_P_WAN_BW] = "wan.bandwidth",
	[DP_P_WAN_LAT] = "wan.latency",
	[DP_P_BG_LOAD] = "background.load",
	[DP_P_WAN_QUEUE] = "queues.wan",
	[DP_P_IMP_LOSS] = "impair.loss",
	[DP_P_IMP_JITTER] = "impair.jitter",
};

const char *
ctl_param_key(enum dp_param p)
{
	return (unsigned int)p < DP_P_COUNT ? keys[p] : "?";
}

int
ctl_param_parse(const char *key, enum dp_param *p)
{
	int i;

	for (i = 0; i < DP_P_COUNT; i++) {
		if (strcmp(key, keys[i]) == 0) {
			*p = (enum dp_param)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The keys of the parameters in @p takes, "a, b and c", into @p out. */
static void
key_list(uint32_t takes, char *out, size_t len)
{
	size_t k = 0;
	int i, n = 0, left = __builtin_popcount(takes);

	out[0] = '\0';
	for (i = 0; i < DP_P_COUNT && k < len; i++) {
		if (!(takes & (1u << i)))
			continue;
		k += (size_t)snprintf(out + k, len - k, "%s%s", n == 0 ? "" :
				      n == left - 1 ? " and " : ", ", keys[i]);
		n++;
	}
}

const char *
ctl_tune_message(const struct dp_tune_resp *resp, char *out, size_t len)
{
	char list[160];

	if (!resp->named || (unsigned int)resp->param >= DP_P_COUNT) {
		snprintf(out, len, "%s", resp->msg);
	} else if (resp->takes != 0) {
		key_list(resp->takes, list, sizeof(list));
		snprintf(out, len, "%s %s: it takes %s", keys[resp->param], resp->msg, list);
	} else {
		snprintf(out, len, "%s: %s", keys[resp->param], resp->msg);
	}
	return out;
}
