/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring that doubles (ring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

void *
sm_ring_grow(void *a, uint32_t *mask, uint32_t *head, uint32_t *tail, size_t size,
	     uint32_t first, size_t align)
{
	uint32_t slots = a == NULL ? first : 2 * (*mask + 1), n = *tail - *head, i;
	size_t bytes = (size_t)slots * size;
	uint8_t *r;

	if (slots == 0 || slots < n) {	/* (at 2^32 slots it cannot double) */
		errno = ENOMEM;
		return NULL;
	}
	r = align != 0 ? aligned_alloc(align, bytes) : malloc(bytes);
	if (r == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		memcpy(r + (size_t)i * size, (const uint8_t *)a + (size_t)((*head + i) & *mask) * size,
		       size);
	free(a);
	*head = 0;
	*tail = n;
	*mask = slots - 1;
	return r;
}
