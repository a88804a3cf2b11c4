/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selecting packets with a libpcap filter expression, whatever the link type of each packet's
 * interface: a pcapng file may hold interfaces of several link types, and a BPF program is
 * compiled for one, so the filter is compiled again for each link type met (at most
 * TR_SELECT_LINKTYPES), when it is first met.
 */
#ifndef TR_SELECT_H
#define TR_SELECT_H

#include <stddef.h>

#include "reader.h"

/** Link types one selection compiles its filter for, at most. */
#define TR_SELECT_LINKTYPES 8

/** A filter being applied (opaque). */
struct tr_select;

/**
 * A selection by @p filter (libpcap syntax; NULL or "" selects every packet).  Nothing is
 * compiled yet: a filter that does not compile is found at the first packet.
 *
 * @return the selection, or NULL with errno ENOMEM
 */
struct tr_select *tr_select_create(const char *filter);

/**
 * Whether @p p passes the filter.
 *
 * @return 1 it does, 0 it does not, or
 *   - -EINVAL: the filter does not compile for the packet's link type (the message in @p err
 *     has libpcap's words and the filter); every later call returns it again
 *   - -ENOMEM: more link types than TR_SELECT_LINKTYPES, or no memory
 */
int tr_select_match(struct tr_select *s, const struct tr_packet *p, char *err, size_t errlen);

/** The filter's text ("" for none); "" if @p s is NULL. */
const char *tr_select_filter(const struct tr_select *s);

/** Free a selection; NULL is a no-op. */
void tr_select_free(struct tr_select *s);

#endif /* TR_SELECT_H */
