/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exact fast-forward of a virtual-time run (run.fast_forward = exact).
 *
 * At the end of each step of a run with a barrier (phase or step sync) the fast-forward reads
 * the state of every element: the fields that move from step to step (times, counters, step
 * indices, ring positions), listed by each kind of element in its ops (dp_elem_ops.ffwd), and a
 * hash of all its other bytes.  When the last two steps moved every such field by the same
 * amount, left every other byte as it was, ended with nothing in the network, and recorded the
 * same step (its times from its start, its frames), the state now is the state a step ago moved
 * by one step's amounts.  The engine is deterministic, so each step to come repeats the last one
 * shifted, until the last step (the workers stop there instead of meeting at the barrier).
 *
 * The steps but the last are then replayed, not emulated: each is retired from the recorded
 * step moved to its start (the run's result, sink and CSV see it as they see an emulated one),
 * every moving field is advanced by as many steps' amounts, the pending events by as many
 * periods, and the engine's event count by the events they would have run.  The last step is
 * emulated, and must record the same step as the one replayed: if it does not, the run fails
 * (run.fast_forward = off runs every step).
 *
 * It applies to runs whose every element has a layout here and whose state has no random
 * stream, no frame and nothing outside the engine: no background, TCP, impairments, trace,
 * queue probe, link-kernel program, partitions, live control or real time (dp_ffwd_init() says
 * which one keeps it off).
 */
#ifndef DP_FFWD_H
#define DP_FFWD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct dp_record;

/** A field of an element's struct: @c size bytes at @c off, words of @c width (4 or 8) bytes. */
struct dp_ffwd_field {
	uint32_t off, size, width;
};

#define DP_FFWD_FIELD(type, member)							\
	{ offsetof(type, member), sizeof(((type *)0)->member), sizeof(((type *)0)->member) }
#define DP_FFWD_ARRAY(type, member)							\
	{ offsetof(type, member), sizeof(((type *)0)->member),				\
	  sizeof(((type *)0)->member[0]) }

/** What the fast-forward reads of a kind of element (struct dp_elem_ops.ffwd). */
struct dp_ffwd_layout {
	size_t size;				/**< the element's struct */
	const struct dp_ffwd_field *moving;	/**< may move by a fixed amount a step */
	uint32_t n_moving;
	const struct dp_ffwd_field *skip;	/**< written before they are read in a step:
						 *   any value (NULL: none) */
	uint32_t n_skip;
	bool observer;				/**< it reads others and changes none (the
						 *   queue probe): not compared, its samples
						 *   replayed (dp_probe_replay()) */
	/** Nothing of its own is pending besides frames (held()). */
	bool (*settled)(const struct dp_elem *e);
};

struct dp_ffwd;

/**
 * The fast-forward of a run over the elements of @p eng (those of @p all, @p n of them) with
 * @p rec; @p why names what keeps it off if the caller knows already (NULL: nothing).
 * *@p ff is NULL when it is off, and then @p whybuf says why.  0 or -ENOMEM.
 */
int dp_ffwd_init(struct dp_ffwd **ff, struct dp_engine *eng, struct dp_elem *const *all,
		 uint32_t n, struct dp_record *rec, const char *why, char *whybuf, size_t len);

void dp_ffwd_free(struct dp_ffwd *ff);

/** Step @p s retires (from the record's retire hook, before its slot is cleared). */
void dp_ffwd_retired(struct dp_ffwd *ff, const struct dp_record *rec, uint32_t s, dp_time_t prev);

/**
 * A step has ended and the engine is between events: read the state, and if it repeats,
 * replay the steps but the last (their retire hooks run from here), a chunk at a time while
 * dp_ffwd_replaying() says so, until *@p stop (if not NULL) is set.  The number of steps
 * replayed (0: none).
 */
uint32_t dp_ffwd_boundary(struct dp_ffwd *ff, const volatile sig_atomic_t *stop);

/** A replay is in progress: dp_ffwd_boundary() goes on with it (no step is emulated between). */
bool dp_ffwd_replaying(const struct dp_ffwd *ff);

/** The steps replayed, the events they stand for; 0 or -EPROTO if the step after differed. */
struct dp_ffwd_stats {
	uint32_t replayed;
	uint64_t events;		/**< events the replayed steps would have run */
	uint64_t frames;		/**< frames they would have made */
	bool differed;			/**< an emulated step after the replay recorded another
					 *   step: the run fails */
	uint32_t differed_step;
	bool tape_over;			/**< a step's trace records were more than
					 *   DP_CAP_TAPE_MAX: not replayed */
	bool traced;			/**< a tracer was on the steps' probes at a step's
					 *   end: it was not replayed */
};

void dp_ffwd_stats(const struct dp_ffwd *ff, struct dp_ffwd_stats *st);

#endif /* DP_FFWD_H */
