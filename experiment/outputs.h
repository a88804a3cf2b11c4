/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files a command writes, decided together before anything runs: each path classified
 * (traces/outfile.h: a device, a directory or a socket refused), an output that is the same file
 * as another or as one of the command's inputs refused, then every output opened (saying so
 * when a FIFO waits for its reader).
 */
#ifndef SYNCEMU_OUTPUTS_H
#define SYNCEMU_OUTPUTS_H

#include <signal.h>
#include <stddef.h>

#include "outfile.h"

/** One file a command writes. */
struct output {
	const char *path;	/**< as the user gave it; NULL: not written */
	const char *what;	/**< how messages name it: "the trace", "--queue-csv" */
	int code;		/**< exit code when it is refused or cannot be opened */
	struct outfile *f;	/**< set by outputs_open(); the caller commits or aborts it */
};

/** A file a command reads. */
struct input {
	const char *path;	/**< NULL or "": none */
	const char *what;	/**< "the scenario file", "background.sizes_csv" */
};

/**
 * Classify the @p n outputs of @p o, refuse one that is another's file or one of the @p n_in
 * @p in, then open them in order.  A FIFO without a reader is waited for, after a line on
 * stderr ("CMD: waiting for a reader on PATH"); a signal that sets *@p stop ends the wait.
 *
 * @return 0 with every o[i].f of a path set, or an exit code with the message in @p err: the
 *         o[i].code of the output refused or not opened, CLI_EXIT_INTERRUPTED if *@p stop was
 *         set while waiting; then no output is left open (every f NULL)
 */
int outputs_open(struct output *o, unsigned int n, const struct input *in, unsigned int n_in,
		 const char *cmd, const volatile sig_atomic_t *stop, char *err, size_t errlen);

/** outfile_abort() every output still open. */
void outputs_abort(struct output *o, unsigned int n);

struct sc_scenario;
struct dp_capture;

/** The trace file the scenario asks for ([trace] file with capture points), or NULL: none. */
const char *outputs_trace_file(const struct sc_scenario *sc);

/**
 * The trace (a dp_capture with its pcapng writer) on the opened output @p out of @p path, which
 * it takes over, with @p comment in its header ([trace] capture and snaplen of @p sc).
 * 0, or -errno with a message (the output is then aborted).
 */
int outputs_open_trace(const struct sc_scenario *sc, struct outfile *out, const char *path,
		       const char *comment, struct dp_capture **capp, char *err, size_t errlen);

#endif /* SYNCEMU_OUTPUTS_H */
