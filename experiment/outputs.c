/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A command's outputs, checked together, then opened (see outputs.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "capture.h"
#include "outputs.h"
#include "pcapng.h"
#include "scenario.h"

void
outputs_abort(struct output *o, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		outfile_abort(o[i].f);
		o[i].f = NULL;
	}
}

/* The first output that is the same file as another or as an input: its code, else 0. */
static int
clash(struct output *o, unsigned int n, const struct input *in, unsigned int n_in, char *err,
      size_t errlen)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (o[i].f == NULL)
			continue;
		for (j = 0; j < n_in; j++)
			if (outfile_is_file(o[i].f, in[j].path)) {
				snprintf(err, errlen, "%s %s is %s %s: refused, it would be "
					 "overwritten", o[i].what, o[i].path, in[j].what,
					 in[j].path);
				return o[i].code;
			}
		for (j = 0; j < i; j++)
			if (outfile_same(o[i].f, o[j].f)) {
				snprintf(err, errlen, "%s %s and %s %s are the same file%s",
					 o[j].what, o[j].path, o[i].what, o[i].path,
					 outfile_kind(o[i].f) == OUTFILE_STDOUT ?
					 " (the standard output)" : "");
				return o[i].code;
			}
	}
	return 0;
}

int
outputs_open(struct output *o, unsigned int n, const struct input *in, unsigned int n_in,
	     const char *cmd, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		o[i].f = NULL;
		if (o[i].path == NULL)
			continue;
		o[i].f = outfile_new(o[i].path, o[i].what, err, errlen);
		if (o[i].f == NULL) {
			rc = errno == ENOMEM ? CLI_EXIT_FAIL : o[i].code;
			outputs_abort(o, n);
			return rc;
		}
	}
	rc = clash(o, n, in, n_in, err, errlen);
	for (i = 0; rc == 0 && i < n; i++) {
		if (o[i].f == NULL)
			continue;
		rc = outfile_open(o[i].f, false, err, errlen);
		if (rc == -EAGAIN) {
			fprintf(stderr, "%s: waiting for a reader on %s (%s)\n", cmd, o[i].path,
				o[i].what);
			do
				rc = outfile_open(o[i].f, true, err, errlen);
			while (rc == -EINTR && (stop == NULL || !*stop));
		}
		if (rc == -EINTR && stop != NULL && *stop)
			rc = CLI_EXIT_INTERRUPTED;
		else if (rc != 0)
			rc = rc == -ENOMEM ? CLI_EXIT_FAIL : o[i].code;
	}
	if (rc != 0)
		outputs_abort(o, n);
	return rc;
}

const char *
outputs_trace_file(const struct sc_scenario *sc)
{
	uint32_t mask;

	if (sc->trace.file[0] == '\0' || strcmp(sc->trace.file, "none") == 0 ||
	    dp_capture_parse(sc->trace.capture, &mask, NULL, 0) != 0 || mask == 0)
		return NULL;
	return sc->trace.file;
}

int
outputs_open_trace(const struct sc_scenario *sc, struct outfile *out, const char *path,
		   const char *comment, struct dp_capture **capp, char *err, size_t errlen)
{
	struct tr_pcapng_params tp = { .app = "syncemu " SYNCEMU_VERSION,
				       .snaplen = sc->trace.snaplen, .out = out,
				       .comment = comment };
	struct dp_capture *cap = calloc(1, sizeof(*cap));
	uint32_t mask;

	*capp = NULL;
	if (cap == NULL) {
		outfile_abort(out);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (dp_capture_parse(sc->trace.capture, &mask, err, errlen) != 0) {
		free(cap);
		outfile_abort(out);
		return -EINVAL;		/* the scenario checked it: cannot happen */
	}
	cap->mask = mask;
	cap->snaplen = sc->trace.snaplen ? sc->trace.snaplen : UINT32_MAX;
	cap->w = tr_pcapng_open(&tp);
	if (cap->w == NULL) {
		snprintf(err, errlen, "cannot write the trace %s: %s", path, strerror(errno));
		free(cap);
		return -EIO;
	}
	*capp = cap;
	return 0;
}
