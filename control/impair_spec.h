/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text of a link's impairments ([impair] keys), in tc-netem's words:
 *
 *   SPEC := none | [ LOSS ] [ JITTER ] [ duplicate P ] [ corrupt P ] [ AQM ] [ trace FILE ]
 *   LOSS := loss { random P | gemodel P [ R [ 1-H [ 1-K ]]] | state P13 [ P31 [ P32 [ P23
 *           [ P14 ]]]] }                                     (each a percentage: 1%, 0.05%)
 *   JITTER := jitter TIME [ [ distribution ] { uniform | normal | pareto | paretonormal } |
 *             distribution TABLE ] [ reorder | fifo ]        (TIME: 5ms, 200 us)
 *   AQM := red min SIZE max SIZE probability P [ burst N ] [ avpkt SIZE ] [ ecn ] [ harddrop ]
 *          [ gentle ] | mark SIZE
 *
 * TABLE is a netem .dist file (a path, or tc's name of one: experimental); FILE a Mahimahi
 * trace (impair_files.h).
 *
 * models/impair.h defines what each does.  A link's key is "LINK SPEC".
 */
#ifndef SC_IMPAIR_SPEC_H
#define SC_IMPAIR_SPEC_H

#include <stddef.h>

#include "../models/impair.h"

/**
 * Parse @p text into @p im.  On error @p why names the word (by its byte offset in @p text)
 * and what was expected; @p im is then untouched.
 *
 * @return 0 or -EINVAL
 */
int sc_impair_parse(const char *text, struct sm_impair *im, char *why, size_t len);

/**
 * Parse a link key's "LINK SPEC": @p name receives LINK (at most @p name_len - 1 characters).
 *
 * @return 0 or -EINVAL (@p why as sc_impair_parse's; an empty text is "no link named")
 */
int sc_impair_parse_link(const char *text, char *name, size_t name_len, struct sm_impair *im,
			 char *why, size_t len);

#endif /* SC_IMPAIR_SPEC_H */
