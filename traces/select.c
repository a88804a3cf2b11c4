/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet selection by a libpcap filter, compiled per link type (select.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "select.h"

/* The snap length the filter is compiled for: the largest libpcap accepts for any link type. */
#define SELECT_SNAPLEN 262144

struct compiled {
	int linktype;
	struct bpf_program prog;
};

struct tr_select {
	char *filter;				/* NULL: every packet */
	struct compiled c[TR_SELECT_LINKTYPES];
	unsigned int n;
	int failed;				/* the first error, sticky */
	char why[256];
};

struct tr_select *
tr_select_create(const char *filter)
{
	struct tr_select *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	if (filter != NULL && filter[0] != '\0') {
		s->filter = strdup(filter);
		if (s->filter == NULL) {
			free(s);
			errno = ENOMEM;
			return NULL;
		}
	}
	return s;
}

/* The program for @p linktype, compiled now if it is the first packet of that type. */
static const struct compiled *
program(struct tr_select *s, int linktype)
{
	struct compiled *c;
	pcap_t *dead;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->c[i].linktype == linktype)
			return &s->c[i];
	if (s->n == TR_SELECT_LINKTYPES) {
		s->failed = -ENOMEM;
		snprintf(s->why, sizeof(s->why), "filter '%s': more than %d link types in one "
			 "trace", s->filter, TR_SELECT_LINKTYPES);
		return NULL;
	}
	/* pcap_open_dead() takes a DLT_ value: tcpdump.org's LINKTYPE_ values are the same but
	 * for raw IP (LINKTYPE_RAW 101 is DLT_RAW, 12 on Linux) */
	dead = pcap_open_dead(linktype == TR_LINKTYPE_RAW ? DLT_RAW : linktype, SELECT_SNAPLEN);
	if (dead == NULL) {
		s->failed = -ENOMEM;
		snprintf(s->why, sizeof(s->why), "out of memory");
		return NULL;
	}
	c = &s->c[s->n];
	if (pcap_compile(dead, &c->prog, s->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		s->failed = -EINVAL;
		snprintf(s->why, sizeof(s->why), "filter '%s': %s", s->filter, pcap_geterr(dead));
		pcap_close(dead);
		return NULL;
	}
	pcap_close(dead);
	c->linktype = linktype;
	s->n++;
	return c;
}

int
tr_select_match(struct tr_select *s, const struct tr_packet *p, char *err, size_t errlen)
{
	const struct compiled *c;
	struct pcap_pkthdr h;

	if (s->filter == NULL)
		return 1;
	c = s->failed == 0 ? program(s, p->linktype) : NULL;
	if (c == NULL) {
		if (err != NULL)
			snprintf(err, errlen, "%s", s->why);
		return s->failed;
	}
	memset(&h, 0, sizeof(h));
	h.caplen = p->caplen;
	h.len = p->len;
	return pcap_offline_filter(&c->prog, &h, p->data) != 0;
}

const char *
tr_select_filter(const struct tr_select *s)
{
	return s != NULL && s->filter != NULL ? s->filter : "";
}

void
tr_select_free(struct tr_select *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		pcap_freecode(&s->c[i].prog);
	free(s->filter);
	free(s);
}
