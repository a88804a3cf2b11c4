/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the control socket: what ctl.c (the server: the socket, its connections, the poll
 * loop) and ctl_req.c (the requests and their answers) share.
 */
#ifndef SC_CTL_IMPL_H
#define SC_CTL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ctl.h"

#define CTL_LINE_MAX 1024		/**< longest request line, without its newline */
#define CTL_ANSWER_LEN 8192		/**< longest answer line */

/** A change sent to the data plane, waiting for its answer. */
struct ctl_pending {
	uint64_t id;			/**< of the request, in the data plane's answer */
	char key[80];			/**< the key, for the answer */
	double si;			/**< the new value, SI units */
};

/** What the request handlers need of the server. */
struct ctl_req_ctx {
	const struct ctl_params *p;
	uint64_t next_id;		/**< the last change's id */
};

/** Write {"ok": false, "error": @p why} and a newline into @p out. */
void ctl_answer_error(char *out, size_t len, const char *why);

/**
 * Answer the request @p line (its newline removed, @p n bytes: a NUL is a byte of it) into
 * @p out, or send a change to the data plane.
 *
 * @return 0: answered; 1: a change is queued, waiting for the data plane's answer (@p pend)
 */
int ctl_request(struct ctl_req_ctx *c, char *line, size_t n, char *out, size_t len,
		struct ctl_pending *pend);

/** The answer to the change @p pend from the data plane's @p resp. */
void ctl_change_answer(const struct ctl_pending *pend, const struct dp_tune_resp *resp,
		       char *out, size_t len);

#endif /* SC_CTL_IMPL_H */
