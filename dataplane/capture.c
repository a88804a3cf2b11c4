/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture points over the pcapng writer of traces/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../traces/pcapng.h"
#include "capture.h"

static const char *const kind_names[DP_CAP_COUNT] = {
	"tx", "rx", "nic", "switch", "wan", "module", "port", "bg",
};

const char *
dp_capture_kind_name(enum dp_cap_kind k)
{
	return (unsigned int)k < DP_CAP_COUNT ? kind_names[k] : "?";
}

int
dp_capture_parse(const char *s, uint32_t *mask, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int k;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "capture list too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		if (strcmp(tok, "none") == 0)
			continue;
		if (strcmp(tok, "all") == 0) {
			*mask = (1u << DP_CAP_COUNT) - 1;
			continue;
		}
		for (k = 0; k < DP_CAP_COUNT; k++)
			if (strcmp(tok, kind_names[k]) == 0)
				break;
		if (k == DP_CAP_COUNT) {
			snprintf(err, errlen, "unknown capture point '%s' (allowed: tx, rx, nic, "
				 "switch, wan, module, port, bg, all, none)", tok);
			return -EINVAL;
		}
		*mask |= 1u << k;
	}
	return 0;
}

int
dp_capture_point(struct dp_capture *c, enum dp_cap_kind kind, const char *name)
{
	uint32_t i;
	int id;

	if (c == NULL || c->w == NULL || !(c->mask & (1u << kind)))
		return -1;
	for (i = 0; i < c->nif; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int)i;
	if (c->nif == DP_CAP_IF_MAX)
		return -1;
	id = tr_pcapng_add_if(c->w, name, kind_names[kind]);
	if (id < 0)
		return -1;
	snprintf(c->names[c->nif], DP_CAP_NAME_MAX, "%s", name);
	return (int)c->nif++;
}

void
dp_capture_frame(struct dp_engine *eng, int ifid, const struct rte_mbuf *m, dp_time_t t)
{
	struct dp_capture *c = eng->cap_ctx;
	uint32_t len;
	int rc;

	if (ifid < 0 || c == NULL)
		return;
	len = rte_pktmbuf_data_len(m);
	rc = tr_pcapng_write(c->w, (uint32_t)ifid, t / 1000, rte_pktmbuf_mtod(m, const void *),
			     len < c->snaplen ? len : c->snaplen, rte_pktmbuf_pkt_len(m));
	if (rc != 0)
		dp_engine_fail(eng, rc, "trace: writing interface %s failed: %s", c->names[ifid],
			       strerror(-rc));
	else
		c->frames[ifid]++;
}
