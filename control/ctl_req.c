/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's requests (control/ctl.h): status, keys, get KEY, set KEY VALUE, each
 * answered with one line of JSON.
 *
 * A change is checked the way a scenario file is (the scenario is loaded again with the change as
 * one more override, so a bad value gets the same message that names the key, the value and what
 * is allowed), then queued to the data plane through a ring; the server answers it when the data
 * plane's answer comes back (ctl_change_answer()), and serves the other connections meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/bits.h"
#include "../models/kernel.h"
#include "../models/variant.h"
#include "ctl_impl.h"
#include "scenario.h"
#include "tune_keys.h"

/* Escape @p s for a JSON string (whole, or cut at a character when @p len is short). */
static void
json_str(char *out, size_t len, const char *s)
{
	size_t k = 0;

	for (; *s != '\0' && k + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[k++] = '\\';
			out[k++] = (char)c;
		} else if (c < 0x20) {
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = '\0';
}

void
ctl_answer_error(char *out, size_t len, const char *why)
{
	char e[CTL_ANSWER_LEN - 32];

	json_str(e, sizeof(e), why);
	snprintf(out, len, "{\"ok\": false, \"error\": \"%s\"}\n", e);
}

static void
do_status(const struct ctl_params *p, char *out, size_t len)
{
	struct dp_status *st = p->status;
	uint32_t var = atomic_load(&st->var), budget = atomic_load(&st->budget);
	int32_t binding = atomic_load(&st->binding);
	size_t k;
	int i;

	k = (size_t)snprintf(out, len, "{\"ok\": true, \"running\": %u, \"run\": %u, "
			     "\"variant\": \"%s\", \"budget\": \"%s\", \"budget_flops\": %lu, "
			     "\"binding\": \"%s\", "
			     "\"steps_done\": %lu, \"steps\": %lu, \"frames\": %lu, \"drops\": %lu, "
			     "\"events\": %lu, \"time_ms\": %.9g, \"changes\": %lu",
			     atomic_load(&st->running), atomic_load(&st->run_id),
			     var < SM_VAR_COUNT ? sm_variant_name((enum sm_variant)var) : "-",
			     budget < SM_BUDGET_COUNT ? sm_budget_name((enum sm_budget)budget) : "-",
			     (unsigned long)atomic_load(&st->budget_flops),
			     binding >= 0 && binding < SM_STAGE_COUNT ?
			     sm_stage_name((enum sm_stage)binding) : "-",
			     (unsigned long)atomic_load(&st->steps_done),
			     (unsigned long)atomic_load(&st->steps),
			     (unsigned long)atomic_load(&st->frames),
			     (unsigned long)atomic_load(&st->drops),
			     (unsigned long)atomic_load(&st->events),
			     atomic_load(&st->now_ps) / 1e9,
			     (unsigned long)atomic_load(&st->changes));
	for (i = 0; i < DP_P_COUNT && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, ", \"%s\": %.12g", ctl_param_key(i),
				      sm_bits_double(atomic_load(&st->value_bits[i])));
	if (k < len)
		snprintf(out + k, len - k, "}\n");
}

static void
do_keys(char *out, size_t len)
{
	size_t k = (size_t)snprintf(out, len, "{\"ok\": true, \"keys\": [");
	int i;

	for (i = 0; i < DP_P_COUNT && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "%s\"%s\"", i ? ", " : "", ctl_param_key(i));
	if (k < len)
		snprintf(out + k, len - k, "]}\n");
}

double
ctl_scenario_value(const struct sc_scenario *sc, enum dp_param p)
{
	if (p == DP_P_BG_LOAD)
		return sc->background.load;
	if (p == DP_P_WAN_QUEUE)
		return sc->queues.wan;
	if (p == DP_P_IMP_LOSS || p == DP_P_IMP_JITTER) {
		double v = p == DP_P_IMP_LOSS ? sc->impair.loss : sc->impair.jitter;

		return v == SC_AUTO ? 0 : v;
	}
	return dp_param_get(&sc->model, p);
}

/* The value of @key=@value in SI units, checked by the scenario loader. */
static int
check_value(const struct ctl_params *p, enum dp_param prm, const char *key, const char *value,
	    double *si, char *why, size_t len)
{
	struct sc_scenario *sc = malloc(sizeof(*sc));
	const char **sets = calloc(p->nsets + 1, sizeof(*sets));
	char *kv = NULL;
	int rc = -ENOMEM;

	if (sc != NULL && sets != NULL && asprintf(&kv, "%s=%s", key, value) >= 0) {
		if (p->nsets > 0)
			memcpy(sets, p->sets, p->nsets * sizeof(*sets));
		sets[p->nsets] = kv;
		rc = p->variants == 0 ?
			/* a bridge: no sync runs, so no run's limits to hold */
			sc_scenario_load_link(sc, p->scenario, sets, NULL, p->nsets + 1, why, len) :
			sc_scenario_load_run(sc, p->scenario, sets, NULL, p->nsets + 1, p->variants,
					     p->budgets, why, len);
		if (rc == 0)
			*si = ctl_scenario_value(sc, prm);
	} else {
		kv = NULL;
		snprintf(why, len, "out of memory");
	}
	free(kv);
	free(sets);
	free(sc);
	return rc;
}

/* Check a change and queue it to the data plane: 1 (queued, @p pend), or 0 with a refusal. */
static int
do_set(struct ctl_req_ctx *c, const char *key, const char *value, char *out, size_t len,
       struct ctl_pending *pend)
{
	struct dp_tune_req *req;
	char why[CTL_ANSWER_LEN / 2];
	enum dp_param prm;
	double si;

	if (ctl_param_parse(key, &prm) != 0) {
		snprintf(why, sizeof(why), "%s cannot change during a run (see 'keys')", key);
		ctl_answer_error(out, len, why);
		return 0;
	}
	if (check_value(c->p, prm, key, value, &si, why, sizeof(why)) != 0) {
		ctl_answer_error(out, len, why);
		return 0;
	}
	if (!atomic_load(&c->p->status->running) &&
	    !(c->p->before_run && atomic_load(&c->p->status->run_id) == 0)) {
		ctl_answer_error(out, len, "no run is in progress");
		return 0;
	}
	req = malloc(sizeof(*req));
	if (req == NULL) {
		ctl_answer_error(out, len, "out of memory");
		return 0;
	}
	req->id = ++c->next_id;	/* the data plane owns (and frees) req once it is queued */
	req->param = prm;
	req->key = ctl_param_key(prm);
	req->value = si;
	if (rte_ring_enqueue(c->p->req, req) != 0) {
		free(req);
		ctl_answer_error(out, len, "the data plane's request ring is full");
		return 0;
	}
	pend->id = c->next_id;
	json_str(pend->key, sizeof(pend->key), key);
	pend->si = si;
	return 1;
}

void
ctl_change_answer(const struct ctl_pending *pend, const struct dp_tune_resp *resp, char *out,
		  size_t len)
{
	char why[CTL_ANSWER_LEN / 2];

	if (resp->rc != 0)
		ctl_answer_error(out, len, ctl_tune_message(resp, why, sizeof(why)));
	else
		snprintf(out, len, "{\"ok\": true, \"key\": \"%s\", \"value\": %.12g, "
			 "\"old\": %.12g, \"run\": %u, \"at_ms\": %.9f}\n", pend->key, pend->si,
			 resp->old, resp->run_id, resp->at / 1e9);
}

static void
do_get(const struct ctl_params *p, const char *key, char *out, size_t len)
{
	enum dp_param prm;
	char k2[80];

	if (ctl_param_parse(key, &prm) != 0) {
		ctl_answer_error(out, len, "not a runtime key (see 'keys')");
		return;
	}
	json_str(k2, sizeof(k2), key);
	snprintf(out, len, "{\"ok\": true, \"key\": \"%s\", \"value\": %.12g, \"running\": %u}\n",
		 k2, sm_bits_double(atomic_load(&p->status->value_bits[prm])),
		 atomic_load(&p->status->running));
}

/* The first byte of @line that is not printable ASCII (or a tab), as a message; NULL: none. */
static const char *
not_text(const char *line, size_t len, char *why, size_t whylen)
{
	const unsigned char *b = (const unsigned char *)line;
	size_t i;

	for (i = 0; i < len; i++)
		if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\r') || b[i] > 0x7e) {
			snprintf(why, whylen, "request byte %zu is 0x%02x, not printable text",
				 i, b[i]);
			return why;
		}
	return NULL;
}

int
ctl_request(struct ctl_req_ctx *c, char *line, size_t n, char *out, size_t len,
	    struct ctl_pending *pend)
{
	char *cmd, *key, *value, *save = NULL, why[96];

	if (not_text(line, n, why, sizeof(why)) != NULL) {
		ctl_answer_error(out, len, why);
		return 0;
	}
	line[strcspn(line, "\r")] = '\0';
	cmd = strtok_r(line, " \t", &save);
	key = cmd ? strtok_r(NULL, " \t", &save) : NULL;
	value = key ? strtok_r(NULL, "", &save) : NULL;
	if (value != NULL)
		value += strspn(value, " \t");
	if (cmd == NULL) {
		ctl_answer_error(out, len, "empty request (try 'status', 'keys', 'get KEY', "
				 "'set KEY VALUE')");
	} else if (strcmp(cmd, "status") == 0 && key == NULL) {
		do_status(c->p, out, len);
	} else if (strcmp(cmd, "keys") == 0 && key == NULL) {
		do_keys(out, len);
	} else if (strcmp(cmd, "get") == 0 && key != NULL && value == NULL) {
		do_get(c->p, key, out, len);
	} else if (strcmp(cmd, "set") == 0 && key != NULL && value != NULL && *value != '\0') {
		return do_set(c, key, value, out, len, pend);
	} else {
		ctl_answer_error(out, len, "unknown request (try 'status', 'keys', 'get KEY', "
				 "'set KEY VALUE')");
	}
	return 0;
}
