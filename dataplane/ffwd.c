/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exact fast-forward (ffwd.h): the state at a step's end, read as words; a repeat found; the
 * steps replayed.
 *
 * An element's state is read as words: a hash of its bytes other than the moving and skipped
 * fields (which must not change), its counters (struct dp_counters), its next event's time,
 * and each moving field's value.  Three readings in a row at step ends (b0, b1, b2) repeat when
 * every hash is the same in all three and every other word moved as much from b1 to b2 as from
 * b0 to b1 (modulo its width: a 32-bit ring position wraps as it would).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "ffwd.h"
#include "link.h"
#include "probe.h"
#include "record.h"
#include "usdt.h"

enum word_kind {
	W_HASH,		/* must stay the same */
	W_NEXT,		/* the element's next event: moved by periods, through the calendar */
	W_MOVE,		/* moves by a fixed amount a step */
};

struct word {
	uint32_t el;		/* index into ff->el */
	uint32_t off;		/* in the element's struct */
	uint8_t width;		/* 4 or 8 */
	uint8_t kind;		/* enum word_kind */
};

struct reading {
	dp_time_t now;
	dp_time_t ahead;	/* the step's end less now (steady: its end came in a window) */
	uint64_t events;
	int64_t sync_wip;
	uint64_t *v;		/* [n_words] */
};

/* A step of the record, its times from its start (0: the point was not reached). */
struct rstep {
	uint32_t s;
	bool set;
	dp_time_t compute, end, gathered;
	uint64_t frames;
	uint32_t finished;
	dp_time_t *round_end;	/* [rounds] */
	uint32_t *round_in, *round_out;
};

struct dp_ffwd {
	struct dp_engine *eng;
	struct dp_record *rec;
	struct dp_elem **el;
	uint32_t n_el;
	struct word *w;
	uint32_t n_words;
	uint8_t *scratch;	/* the largest element's bytes, for its hash */
	size_t scratch_len;
	struct reading rd[3];
	uint32_t n_rd;		/* readings in a row (at most 3 kept: rd[i % 3]) */
	struct rstep st[2];	/* the last two steps retired (st[s & 1]) */
	struct rstep ref;	/* after a replay: the step replayed */
	bool replaying, differed, traced, tape_over;
	bool going;		/* a replay in progress, from rd[g_b2] (rd[g_b1] before it) */
	uint32_t g_b1, g_b2;
	uint64_t g_done;	/* steps it has replayed */
	uint32_t replayed, differed_step;
	uint64_t events, frames;
	dp_time_t *resched;	/* [n_el]: pending events moved */
	/* the queue probes (observers) and the trails of the links they read */
	struct dp_probe **probe;
	uint32_t n_probe;
	struct dp_link_trail *trail;	/* [n_trail] */
	struct dp_link **trail_link;
	uint32_t n_trail;
	/* the links that count their frames' waits (link.h: dp_link_wait), each logging its step's */
	struct dp_link **wlink;
	uint32_t n_wlink;
	struct dp_capture *cap;		/* the trace, and the step's records on its tape */
	struct dp_cap_tape tape;
	uint32_t reading_first;		/* the probe being replayed: its links' first trail, */
	dp_time_t back;			/* and how far back its samples read */
};

static uint64_t
fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static uint64_t
word_get(const struct dp_elem *e, const struct word *w)
{
	const uint8_t *b = (const uint8_t *)e + w->off;

	if (w->width == 4) {
		uint32_t v;

		memcpy(&v, b, 4);
		return v;
	}
	{
		uint64_t v;

		memcpy(&v, b, 8);
		return v;
	}
}

static void
word_set(struct dp_elem *e, const struct word *w, uint64_t v)
{
	uint8_t *b = (uint8_t *)e + w->off;

	if (w->width == 4) {
		uint32_t x = (uint32_t)v;

		memcpy(b, &x, 4);
	} else {
		memcpy(b, &v, 8);
	}
}

static uint64_t
delta(const struct word *w, uint64_t from, uint64_t to)
{
	return w->width == 4 ? (uint32_t)((uint32_t)to - (uint32_t)from) : to - from;
}

static int
add_word(struct dp_ffwd *ff, uint32_t *cap, uint32_t el, size_t off, size_t width,
	 enum word_kind kind)
{
	if (ff->n_words == *cap) {
		uint32_t c = *cap ? 2 * *cap : 64;
		struct word *n = realloc(ff->w, c * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		ff->w = n;
		*cap = c;
	}
	ff->w[ff->n_words++] = (struct word){ el, (uint32_t)off, (uint8_t)width, (uint8_t)kind };
	return 0;
}

/* An element's words: its hash, counters, next event, moving fields. */
static int
add_elem(struct dp_ffwd *ff, uint32_t *cap, uint32_t el)
{
	const struct dp_ffwd_layout *lay = ff->el[el]->ops->ffwd;
	size_t c = offsetof(struct dp_elem, c), i, k;
	int rc;

	if (lay->observer)
		return 0;
	rc = add_word(ff, cap, el, 0, 8, W_HASH);

	rc = rc ? rc : add_word(ff, cap, el, offsetof(struct dp_elem, next), 8, W_NEXT);
	for (k = 0; rc == 0 && k < sizeof(struct dp_counters) / 8; k++)
		rc = add_word(ff, cap, el, c + 8 * k, 8, W_MOVE);
	for (i = 0; rc == 0 && i < lay->n_moving; i++) {
		const struct dp_ffwd_field *f = &lay->moving[i];

		for (k = 0; rc == 0 && k < f->size / f->width; k++)
			rc = add_word(ff, cap, el, f->off + k * f->width, f->width, W_MOVE);
	}
	if (lay->size > ff->scratch_len)
		ff->scratch_len = lay->size;
	return rc;
}

static void
rstep_free(struct rstep *r)
{
	free(r->round_end);
	free(r->round_in);
	free(r->round_out);
}

void
dp_ffwd_free(struct dp_ffwd *ff)
{
	uint32_t i;

	if (ff == NULL)
		return;
	for (i = 0; i < 3; i++)
		free(ff->rd[i].v);
	for (i = 0; i < 2; i++)
		rstep_free(&ff->st[i]);
	rstep_free(&ff->ref);
	for (i = 0; i < ff->n_trail; i++)
		dp_link_trail_free(&ff->trail[i]);	/* (the links are gone: dp_ffwd_free()) */
	free(ff->trail);
	free(ff->trail_link);
	free(ff->wlink);
	if (ff->cap != NULL)
		ff->cap->tape = NULL;	/* (the trace is the caller's: it outlives this) */
	free(ff->tape.buf);
	free(ff->probe);
	free(ff->w);
	free(ff->el);
	free(ff->scratch);
	free(ff->resched);
	free(ff);
}

/* The probes, and a trail on each link they read (the trails are the fast-forward's). */
static int
watch_probes(struct dp_ffwd *ff)
{
	uint32_t i, k, n = 0;

	for (i = 0; i < ff->n_el; i++)
		if (ff->el[i]->ops->ffwd->observer)
			n++;
	if (n == 0)
		return 0;
	if (n > 1)
		return -EINVAL;	/* one engine has one probe: a sample's step is replayed whole */
	ff->probe = calloc(n, sizeof(*ff->probe));
	ff->trail = calloc((size_t)n * DP_PROBE_LINKS, sizeof(*ff->trail));
	ff->trail_link = calloc((size_t)n * DP_PROBE_LINKS, sizeof(*ff->trail_link));
	if (ff->probe == NULL || ff->trail == NULL || ff->trail_link == NULL)
		return -ENOMEM;
	for (i = 0; i < ff->n_el; i++) {
		struct dp_probe *p = (struct dp_probe *)ff->el[i];

		if (!ff->el[i]->ops->ffwd->observer)
			continue;
		ff->probe[ff->n_probe++] = p;
		for (k = 0; k < p->nlinks; k++) {
			if (p->links[k]->trail != NULL)
				return -EINVAL;	/* one probe a link */
			ff->trail_link[ff->n_trail] = p->links[k];
			p->links[k]->trail = &ff->trail[ff->n_trail++];
		}
	}
	return 0;
}

int
dp_ffwd_init(struct dp_ffwd **out, struct dp_engine *eng, struct dp_elem *const *all,
	     uint32_t n, struct dp_record *rec, const char *why, char *whybuf, size_t len)
{
	struct dp_ffwd *ff;
	uint32_t i, cap = 0, R = rec->rounds ? rec->rounds : 1;
	int rc = 0;

	*out = NULL;
	if (why == NULL && (rec->hold || rec->slots != 1))
		why = "no barrier between steps (run.sync = none)";
	for (i = 0; why == NULL && i < n; i++)
		if (all[i]->ops->ffwd == NULL) {
			snprintf(whybuf, len, "a %s element (%s) has no state it can replay",
				 all[i]->ops->kind, all[i]->name);
			return 0;
		}
	if (why != NULL) {
		snprintf(whybuf, len, "%s", why);
		return 0;
	}
	ff = calloc(1, sizeof(*ff));
	if (ff == NULL)
		return -ENOMEM;
	ff->eng = eng;
	ff->rec = rec;
	ff->n_el = n;
	ff->el = calloc(n ? n : 1, sizeof(*ff->el));
	ff->resched = calloc(n ? n : 1, sizeof(*ff->resched));
	if (ff->el == NULL || ff->resched == NULL)
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < n; i++) {
		ff->el[i] = all[i];
		rc = add_elem(ff, &cap, i);
	}
	for (i = 0; rc == 0 && i < 3; i++) {
		ff->rd[i].v = calloc(ff->n_words ? ff->n_words : 1, sizeof(uint64_t));
		if (ff->rd[i].v == NULL)
			rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && i < 3; i++) {
		struct rstep *r = i < 2 ? &ff->st[i] : &ff->ref;

		r->round_end = calloc(R, sizeof(dp_time_t));
		r->round_in = calloc(R, sizeof(uint32_t));
		r->round_out = calloc(R, sizeof(uint32_t));
		if (r->round_end == NULL || r->round_in == NULL || r->round_out == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = watch_probes(ff);
	if (rc == 0 && (ff->wlink = calloc(n ? n : 1, sizeof(*ff->wlink))) == NULL)
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < n; i++) {
		struct dp_link *l = (struct dp_link *)all[i];

		if (all[i]->ops == &dp_link_ops && l->wait != NULL) {
			dp_link_wait_log_on(l);
			ff->wlink[ff->n_wlink++] = l;
		}
	}
	if (rc == 0 && eng->cap_ctx != NULL) {
		ff->cap = eng->cap_ctx;
		ff->cap->tape = &ff->tape;	/* the trace's records of each step, kept */
	}
	if (rc == 0) {
		ff->scratch = malloc(ff->scratch_len ? ff->scratch_len : 1);
		if (ff->scratch == NULL)
			rc = -ENOMEM;
	}
	if (rc != 0) {
		dp_ffwd_free(ff);
		return rc;
	}
	*out = ff;
	return 0;
}

static dp_time_t
rel(dp_time_t t, dp_time_t prev)
{
	return t == 0 ? 0 : t - prev + 1;	/* 0: not reached; else 1 + the time from prev */
}

static dp_time_t
unrel(dp_time_t r, dp_time_t prev)
{
	return r == 0 ? 0 : prev + r - 1;
}

static void
rstep_take(struct rstep *r, const struct dp_record *rec, uint32_t s, dp_time_t prev)
{
	uint32_t k = dp_record_slot(rec, s), i;
	size_t R = rec->rounds;

	r->s = s;
	r->set = true;
	r->compute = rel(rec->compute_end[k], prev);
	r->end = rel(rec->step_end[k], prev);
	r->gathered = rel(rec->gathered[k], prev);
	r->frames = rec->frames[k];
	r->finished = rec->finished[k];
	for (i = 0; i < R; i++) {
		r->round_end[i] = rel(rec->round_end[k * R + i], prev);
		r->round_in[i] = rec->round_in[k * R + i];
		r->round_out[i] = rec->round_out[k * R + i];
	}
}

static bool
rstep_same(const struct rstep *a, const struct rstep *b, uint32_t rounds)
{
	return a->compute == b->compute && a->end == b->end && a->gathered == b->gathered &&
	       a->frames == b->frames && a->finished == b->finished &&
	       memcmp(a->round_end, b->round_end, rounds * sizeof(*a->round_end)) == 0 &&
	       memcmp(a->round_in, b->round_in, rounds * sizeof(*a->round_in)) == 0 &&
	       memcmp(a->round_out, b->round_out, rounds * sizeof(*a->round_out)) == 0;
}

void
dp_ffwd_retired(struct dp_ffwd *ff, const struct dp_record *rec, uint32_t s, dp_time_t prev)
{
	struct rstep *r;

	if (ff == NULL || ff->replaying)
		return;
	r = &ff->st[s & 1];
	rstep_take(r, rec, s, prev);
	/* after a replay: each emulated step must be the one replayed */
	if (ff->replayed > 0 && !rstep_same(r, &ff->ref, rec->rounds) && !ff->differed) {
		ff->differed = true;
		ff->differed_step = s;
	}
}

/* Every element between steps with no frame and nothing pending of its own. */
static bool
settled(const struct dp_ffwd *ff)
{
	uint32_t i;

	for (i = 0; i < ff->n_el; i++) {
		const struct dp_elem *e = ff->el[i];

		if (e->ops->held(e) != 0 || !e->ops->ffwd->settled(e))
			return false;
	}
	return true;
}

static uint64_t
elem_hash(struct dp_ffwd *ff, const struct dp_elem *e)
{
	const struct dp_ffwd_layout *lay = e->ops->ffwd;
	uint32_t i;

	memcpy(ff->scratch, e, lay->size);
	memset(ff->scratch + offsetof(struct dp_elem, next), 0, sizeof(e->next));
	memset(ff->scratch + offsetof(struct dp_elem, c), 0, sizeof(e->c));
	for (i = 0; i < lay->n_moving; i++)
		memset(ff->scratch + lay->moving[i].off, 0, lay->moving[i].size);
	for (i = 0; i < lay->n_skip; i++)
		memset(ff->scratch + lay->skip[i].off, 0, lay->skip[i].size);
	return fnv(ff->scratch, lay->size);
}

/* The events run but the probes' (they sample when they are due, not by the step). */
static uint64_t
events_of_step(const struct dp_ffwd *ff)
{
	uint64_t n = ff->eng->events;
	uint32_t i;

	for (i = 0; i < ff->n_probe; i++)
		n -= ff->probe[i]->taken;
	return n;
}

static void
read_state(struct dp_ffwd *ff, struct reading *r)
{
	uint32_t i;

	r->now = ff->eng->now;
	r->ahead = ff->rec->last_end - ff->eng->now;
	r->events = events_of_step(ff);
	r->sync_wip = ff->eng->sync_wip;
	for (i = 0; i < ff->n_words; i++) {
		const struct word *w = &ff->w[i];
		const struct dp_elem *e = ff->el[w->el];

		r->v[i] = w->kind == W_HASH ? elem_hash(ff, e) : word_get(e, w);
	}
}

/* b0, b1, b2: the state at b2 is b1's moved as b1 was from b0. */
static bool
repeats(const struct dp_ffwd *ff, const struct reading *b0, const struct reading *b1,
	const struct reading *b2)
{
	dp_time_t period = b2->now - b1->now;
	uint32_t i;

	if (b1->now - b0->now != period || b0->ahead != b1->ahead || b1->ahead != b2->ahead ||
	    b2->events - b1->events != b1->events - b0->events ||
	    b0->sync_wip != b1->sync_wip || b1->sync_wip != b2->sync_wip)
		return false;
	for (i = 0; i < ff->n_words; i++) {
		const struct word *w = &ff->w[i];

		if (w->kind == W_HASH) {
			if (b0->v[i] != b1->v[i] || b1->v[i] != b2->v[i])
				return false;
		} else if (w->kind == W_NEXT && b2->v[i] == DP_NEVER) {
			if (b0->v[i] != DP_NEVER || b1->v[i] != DP_NEVER)
				return false;
		} else if (w->kind == W_NEXT) {
			if (b2->v[i] - b1->v[i] != period || b1->v[i] - b0->v[i] != period)
				return false;
		} else if (delta(w, b1->v[i], b2->v[i]) != delta(w, b0->v[i], b1->v[i])) {
			return false;
		}
	}
	return true;
}

/* Retire step @s from the recorded step @r, moved to the record's last end. */
static void
replay_step(struct dp_ffwd *ff, const struct rstep *r, uint32_t s)
{
	struct dp_record *rec = ff->rec;
	uint32_t k = dp_record_slot(rec, s), i;
	dp_time_t prev = rec->last_end;
	size_t R = rec->rounds;

	rec->compute_end[k] = unrel(r->compute, prev);
	rec->step_end[k] = unrel(r->end, prev);
	rec->gathered[k] = unrel(r->gathered, prev);
	rec->frames[k] = r->frames;
	rec->finished[k] = r->finished;
	for (i = 0; i < R; i++) {
		rec->round_end[k * R + i] = unrel(r->round_end[i], prev);
		rec->round_in[k * R + i] = r->round_in[i];
		rec->round_out[k * R + i] = r->round_out[i];
	}
	dp_record_done(rec, s);
}

/* A probe's link @i at @t: what it held @back earlier, in the step recorded (-1: unknown). */
static int64_t
read_back(void *arg, uint32_t i, dp_time_t t)
{
	const struct dp_ffwd *ff = arg;

	return dp_link_trail_backlog(&ff->trail[ff->reading_first + i], t - ff->back);
}

/* The probes' samples in the step that ends at @until, read @back in the recorded one. */
static int
replay_probes(struct dp_ffwd *ff, dp_time_t until, dp_time_t back)
{
	uint32_t i, first = 0;
	int rc = 0;

	ff->back = back;
	for (i = 0; rc == 0 && i < ff->n_probe; i++) {	/* (one: watch_probes()) */
		ff->reading_first = first;
		rc = dp_probe_replay(ff->probe[i], until, read_back, ff);
		first += ff->probe[i]->nlinks;
	}
	return rc;
}

/* Move every moving word @m steps on, the pending events @m periods (the probes' are theirs). */
static void
advance(struct dp_ffwd *ff, const struct reading *b1, const struct reading *b2, uint64_t m)
{
	dp_time_t period = b2->now - b1->now;
	uint32_t i;

	for (i = 0; i < ff->n_el; i++) {
		struct dp_elem *e = ff->el[i];

		ff->resched[i] = DP_NEVER;
		if (e->next == DP_NEVER || e->ops->ffwd->observer)
			continue;
		ff->resched[i] = e->next + m * period;
		dp_sched(e, DP_NEVER);
	}
	for (i = 0; i < ff->n_words; i++) {
		const struct word *w = &ff->w[i];
		struct dp_elem *e = ff->el[w->el];

		if (w->kind == W_MOVE)
			word_set(e, w, word_get(e, w) + m * delta(w, b1->v[i], b2->v[i]));
	}
	ff->eng->now += m * period;
	ff->eng->events += m * (b2->events - b1->events);
	ff->events += m * (b2->events - b1->events);
	for (i = 0; i < ff->n_el; i++)
		if (ff->resched[i] != DP_NEVER)
			dp_sched(ff->el[i], ff->resched[i]);
}

static void
rstep_copy(struct rstep *to, const struct rstep *from, uint32_t rounds)
{
	dp_time_t *re = to->round_end;
	uint32_t *ri = to->round_in, *ro = to->round_out;

	*to = *from;
	to->round_end = re;
	to->round_in = ri;
	to->round_out = ro;
	memcpy(re, from->round_end, rounds * sizeof(*re));
	memcpy(ri, from->round_in, rounds * sizeof(*ri));
	memcpy(ro, from->round_out, rounds * sizeof(*ro));
}

/*
 * A replay in progress (ff->going: the steps to come repeat ff->ref, from reading b2 on, b1 the
 * one before): the next chunk of steps, each with its probes' samples and trace records (a step
 * with a sample on an instant a frame was queued ends the replay: it is emulated); the steps
 * replayed.  A chunk is at most CHUNK_STEPS steps or CHUNK_BYTES of trace, so that the run says
 * how far it is and sees a signal between chunks.
 */
#define CHUNK_STEPS 1024u
#define CHUNK_BYTES ((size_t)64 << 20)

static uint32_t
replay_chunk(struct dp_ffwd *ff, const volatile sig_atomic_t *stop)
{
	struct dp_record *rec = ff->rec;
	const struct reading *b1 = &ff->rd[ff->g_b1], *b2 = &ff->rd[ff->g_b2];
	dp_time_t period = b2->now - b1->now;
	uint32_t m = rec->steps - rec->steps_done - 1, n, k, i;	/* all but the last step */
	uint64_t taken = 0;

	n = m < CHUNK_STEPS ? m : CHUNK_STEPS;
	if (ff->cap != NULL && ff->tape.len > 0 && CHUNK_BYTES / ff->tape.len < n)
		n = CHUNK_BYTES / ff->tape.len > 0 ? (uint32_t)(CHUNK_BYTES / ff->tape.len) : 1;
	for (i = 0; i < ff->n_probe; i++)
		taken += ff->probe[i]->taken;
	ff->replaying = true;
	for (k = 0; k < n && !(stop != NULL && *stop) && ff->eng->error == 0; k++) {
		uint64_t j = ff->g_done + k + 1;	/* steps after the one recorded */
		dp_time_t until = b2->now + j * period, back = j * period;

		if (replay_probes(ff, until, back) != 0)
			break;
		if (ff->cap != NULL) {
			int rc = dp_capture_replay(ff->cap, &ff->tape, back, (uint32_t)j);

			if (rc != 0) {
				dp_engine_fail(ff->eng, rc, "trace: writing a replayed step failed: %s",
					       strerror(-rc));
				break;
			}
		}
		replay_step(ff, &ff->ref, rec->steps_done);
	}
	ff->replaying = false;
	if (k > 0)
		advance(ff, b1, b2, k);
	for (i = 0; k > 0 && i < ff->n_wlink; i++)	/* the waits of the steps replayed */
		dp_link_wait_repeat(ff->wlink[i], k);
	for (i = 0; i < ff->n_probe; i++)	/* the samples replayed are events too */
		taken -= ff->probe[i]->taken;
	ff->eng->events -= taken;
	ff->events -= taken;
	ff->replayed += k;
	ff->frames += (uint64_t)k * ff->ref.frames;
	ff->g_done += k;
	if (k < n || k == m) {
		ff->going = false;	/* done, stopped, or a step to emulate */
		ff->n_rd = 0;		/* (the readings' times are behind now) */
	}
	return k;
}

/* At b2 the steps to come repeat step @b (b1 to b2): a replay begins, if the trails and the
 * tape hold the whole step. */
static uint32_t
begin_replay(struct dp_ffwd *ff, const struct rstep *b, uint32_t b1, uint32_t b2,
	     const volatile sig_atomic_t *stop)
{
	uint32_t i;

	for (i = 0; i < ff->n_trail; i++)
		if (ff->trail[i].failed || dp_link_trail_sum(&ff->trail[i]) != 0)
			return 0;
	for (i = 0; i < ff->n_wlink; i++)
		if (!dp_link_wait_log_whole(ff->wlink[i]))
			return 0;
	if (ff->tape.failed) {
		ff->tape_over = true;
		return 0;
	}
	rstep_copy(&ff->ref, b, ff->rec->rounds);
	ff->g_b1 = b1;
	ff->g_b2 = b2;
	ff->g_done = 0;
	ff->going = true;
	return replay_chunk(ff, stop);
}

uint32_t
dp_ffwd_boundary(struct dp_ffwd *ff, const volatile sig_atomic_t *stop)
{
	struct dp_record *rec;
	const struct rstep *a, *b;
	struct reading *b0, *b1, *b2;
	uint32_t s, m = 0, i;

	if (ff == NULL)
		return 0;
	if (ff->going)
		return replay_chunk(ff, stop);	/* (the trails and the tape are the step's) */
	rec = ff->rec;
	if (dp_usdt_attached()) {
		ff->traced = true;	/* a tracer sees every step's probes */
		ff->n_rd = 0;
		goto out;
	}
	if (!settled(ff)) {
		ff->n_rd = 0;	/* the readings in a row start again */
		goto out;
	}
	b2 = &ff->rd[ff->n_rd % 3];
	read_state(ff, b2);
	ff->n_rd++;
	if (ff->n_rd < 3 || rec->steps_done < 2 || rec->steps_done + 1 >= rec->steps)
		goto out;
	b0 = &ff->rd[(ff->n_rd - 3) % 3];
	b1 = &ff->rd[(ff->n_rd - 2) % 3];
	s = rec->steps_done - 1;
	a = &ff->st[(s - 1) & 1];
	b = &ff->st[s & 1];
	if (!a->set || !b->set || a->s != s - 1 || b->s != s ||
	    !rstep_same(a, b, rec->rounds) || b->end == 0 || b->end - 1 != b2->now - b1->now ||
	    rec->last_end < b2->now || rec->last_end - b2->now > ff->eng->window ||
	    !repeats(ff, b0, b1, b2))
		goto out;
	m = begin_replay(ff, b, (ff->n_rd - 2) % 3, (ff->n_rd - 1) % 3, stop);
	if (ff->going)
		return m;	/* the trails and the tape stay the step's until it is over */
out:
	for (i = 0; i < ff->n_trail; i++)	/* the trails and the tape hold the step to come */
		ff->trail[i].n = 0;
	for (i = 0; i < ff->n_wlink; i++)	/* and the waits' logs */
		dp_link_wait_log_reset(ff->wlink[i]);
	ff->tape.len = 0;
	ff->tape.failed = false;
	return m;
}

bool
dp_ffwd_replaying(const struct dp_ffwd *ff)
{
	return ff != NULL && ff->going;
}

void
dp_ffwd_stats(const struct dp_ffwd *ff, struct dp_ffwd_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (ff == NULL)
		return;
	st->replayed = ff->replayed;
	st->events = ff->events;
	st->frames = ff->frames;
	st->differed = ff->differed;
	st->traced = ff->traced;
	st->tape_over = ff->tape_over;
	st->differed_step = ff->differed_step;
}
