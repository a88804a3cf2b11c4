/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring that doubles: a power-of-two array of slots with free-running head and tail indices
 * (slot i at i & mask), grown to twice its slots when full, keeping the order.  The elements'
 * queues (links, modules, far ends of cut links, ports, background hosts) and the packet model's
 * per-source queues all use it.
 */
#ifndef SM_RING_H
#define SM_RING_H

#include <stddef.h>
#include <stdint.h>

/**
 * Double the ring @a of *@mask + 1 slots of @size bytes (or make one of @first slots, a power
 * of two, if @a is NULL), keeping the order: the *@tail - *@head slots from *@head move to the
 * start of the new array, which is aligned to @align bytes (0: malloc's alignment); @a is freed,
 * *@head becomes 0, *@tail their count and *@mask the new one's.
 *
 * @return the new array, or NULL (errno ENOMEM) with the ring unchanged
 */
void *sm_ring_grow(void *a, uint32_t *mask, uint32_t *head, uint32_t *tail, size_t size,
		   uint32_t first, size_t align);

#endif /* SM_RING_H */
