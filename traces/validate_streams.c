/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate on a real job's capture: the tables and the summary of the steps found in
 * the application's byte streams (traces/streams.h), and the application's own step times held
 * against the wire's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "validate.h"

/* The directions are said to take turns below this overlap, to carry data at once above the
 * next (percent of the steps' time). */
#define TURNS_PCT 20.0
#define DUPLEX_PCT 60.0

static double
median_of(double *v, uint32_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), sm_cmp_double);
	return sm_median_sorted(v, n);
}

static bool
step_seen(const struct tr_step_span *x)
{
	return x->end_ns > x->start_ns;
}

void
validate_stream_summary(const struct tr_streams *s, double rate_Bps, struct stream_summary *m)
{
	double *v = calloc(s->nsteps ? s->nsteps : 1, sizeof(*v)), b_max = 0;
	double *b = calloc(s->nmajor ? s->nmajor : 1, sizeof(*b));
	uint64_t wire = 0, busy = 0, bg = 0;
	size_t len;
	uint32_t i, k, n = 0;
	char *p;

	memset(m, 0, sizeof(*m));
	m->steps = s->nsteps;
	m->median_ms = m->duplex_ms = m->serial_ms = m->x_b_rate = m->rate_Bps = NAN;
	m->overlap_pct = s->span_ns ? 100.0 * s->overlap_ns / s->span_ns : NAN;
	m->one_way_pct = s->span_ns ? 100.0 * (s->some_ns - s->overlap_ns) / s->span_ns : NAN;
	m->idle_pct = s->span_ns ? 100.0 * (s->span_ns - s->some_ns) / s->span_ns : NAN;
	if (v == NULL || b == NULL) {
		free(v);
		free(b);
		return;
	}
	for (k = 0; k < s->nsteps; k++) {
		const struct tr_step_span *x = &s->step[k];

		if (step_seen(x))
			v[n++] = (x->end_ns - x->start_ns) / 1e6;
		m->stalls += x->stalls;
		if (x->longest_idle_ns / 1e6 > m->longest_idle_ms)
			m->longest_idle_ms = x->longest_idle_ns / 1e6;
	}
	m->median_ms = median_of(v, n);
	/* B: each direction's frame bytes in a step (median); the background's share of each */
	for (i = 0; i < s->nmajor; i++) {
		const struct tr_dir *d = &s->dir[i];
		uint64_t dbg = 0, dfg = 0;

		for (k = 0; k < s->nsteps; k++) {
			v[k] = (double)d->step[k].wire;
			if (d->step[k].last_ns > d->step[k].first_ns) {
				wire += d->step[k].wire;
				busy += d->step[k].last_ns - d->step[k].first_ns - d->step[k].idle_ns;
			}
			dbg += d->step[k].bg_wire;
			dfg += d->step[k].span_wire;
		}
		b[i] = median_of(v, s->nsteps);
		if (b[i] > b_max)
			b_max = b[i];
		bg += dbg;
		if (dbg + dfg > 0 && 100.0 * dbg / (dbg + dfg) > m->bg_share_pct) {
			m->bg_share_pct = 100.0 * dbg / (dbg + dfg);
			m->bg_dir = d->name;
		}
	}
	m->rate_given = rate_Bps > 0;
	m->rate_Bps = rate_Bps > 0 ? rate_Bps : busy > 0 ? wire / (busy / 1e9) : NAN;
	if (isfinite(m->rate_Bps) && m->rate_Bps > 0 && b_max > 0) {
		/* the directions all at once (duplex), or one after another (serialised), at the
		 * link's rate: the model's view; what the background took is said apart */
		m->duplex_ms = m->serial_ms = 0;
		for (i = 0; i < s->nmajor; i++) {
			double t = b[i] / m->rate_Bps * 1e3;

			m->serial_ms += t;
			if (t > m->duplex_ms)
				m->duplex_ms = t;
		}
		m->x_b_rate = m->median_ms / (b_max / m->rate_Bps * 1e3);
		if (s->nmajor > 1)
			m->matches = fabs(log(m->median_ms / m->duplex_ms)) <
				     fabs(log(m->median_ms / m->serial_ms)) ? "duplex" : "serialised";
	}
	m->background = bg > 0;
	free(v);
	free(b);
	if (s->nmajor == 1)
		m->turns = "one direction carried the job";
	else if (m->overlap_pct < TURNS_PCT)
		m->turns = "the directions took turns";
	else if (m->overlap_pct > DUPLEX_PCT)
		m->turns = "the directions carried data at once";
	else
		m->turns = "the directions partly overlapped";
	/* the line */
	p = m->line;
	len = sizeof(m->line);
#define ADD(...) do { \
		int w_ = snprintf(p, len, __VA_ARGS__); \
		if (w_ > 0 && (size_t)w_ < len) { p += w_; len -= (size_t)w_; } else { len = 0; } \
	} while (0)
	ADD("%u steps, median %.3f ms: %s", n, m->median_ms, m->turns);
	if (s->nmajor > 1)
		ADD(" (both carried data %.1f %% of the time, one %.1f %%)", m->overlap_pct,
		    m->one_way_pct);
	if (isfinite(m->x_b_rate)) {
		ADD("; step = %.2f x B/rate", m->x_b_rate);
		if (m->matches != NULL)
			ADD(", %s (the %s prediction %.3f ms, the %s %.3f ms",
			    strcmp(m->matches, "duplex") == 0 ? "as if full duplex" :
			    "as if the directions were serialised", m->matches,
			    strcmp(m->matches, "duplex") == 0 ? m->duplex_ms : m->serial_ms,
			    strcmp(m->matches, "duplex") == 0 ? "serialised" : "duplex",
			    strcmp(m->matches, "duplex") == 0 ? m->serial_ms : m->duplex_ms);
		else
			ADD(" (%.3f ms", m->duplex_ms);
		ADD(" at %.4g Mbit/s%s)", m->rate_Bps * 8 / 1e6, m->rate_given ? "" :
		    ", the rate the directions had while busy: give --rate for the link's");
	}
	ADD("; no byte of the job on the link %.1f %% of the steps' time, %u time%s over %g ms "
	    "(longest %.3f ms)", m->idle_pct, m->stalls, m->stalls == 1 ? "" : "s",
	    TR_STALL_S * 1e3, m->longest_idle_ms);
	if (m->background)
		ADD("; beside the background, which took %.1f %% of %s in the steps", m->bg_share_pct,
		    m->bg_dir);
#undef ADD
}

json_t *
validate_stream_summary_json(const struct stream_summary *m)
{
	json_t *o = json_object();

#define NUM(x) (isfinite(x) ? json_real(x) : json_null())
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "text", json_string(m->line));
	json_object_set_new(o, "steps", json_integer(m->steps));
	json_object_set_new(o, "median_ms", NUM(m->median_ms));
	json_object_set_new(o, "directions", json_string(m->turns));
	json_object_set_new(o, "overlap_pct", NUM(m->overlap_pct));
	json_object_set_new(o, "one_way_pct", NUM(m->one_way_pct));
	json_object_set_new(o, "idle_pct", NUM(m->idle_pct));
	json_object_set_new(o, "rate_Bps", NUM(m->rate_Bps));
	json_object_set_new(o, "rate_from", json_string(m->rate_given ? "given" : "busy"));
	json_object_set_new(o, "duplex_ms", NUM(m->duplex_ms));
	json_object_set_new(o, "serialised_ms", NUM(m->serial_ms));
	json_object_set_new(o, "step_per_b_rate", NUM(m->x_b_rate));
	json_object_set_new(o, "matches", m->matches ? json_string(m->matches) : json_null());
	json_object_set_new(o, "stalls", json_integer(m->stalls));
	json_object_set_new(o, "longest_idle_ms", NUM(m->longest_idle_ms));
	json_object_set_new(o, "background_share_pct", NUM(m->bg_share_pct));
	json_object_set_new(o, "background_direction", m->bg_dir ? json_string(m->bg_dir) :
			    json_null());
#undef NUM
	return o;
}

struct table *
validate_dirs_table(const struct tr_streams *s)
{
	static const struct tcol cols[] = {
		{ "direction", "direction", -1 }, { "job", "job", -1 },
		{ "bytes", "bytes", 0 }, { "per step", "step_bytes", 0 },
		{ "flows", "flows", -1 }, { "data packets", "data_packets", 0 },
		{ "retrans B", "retrans_bytes", 0 }, { "reordered", "reordered", 0 },
		{ "missing B", "missing_bytes", 0 }, { "holes", "holes", 0 },
		{ "jumps", "jumps", 0 },
		{ "cut short", "cut_payload", 0 }, { "before B", "before_bytes", 0 },
		{ "after B", "after_bytes", 0 }, { "cuts at gaps", "cuts_at_gaps", -1 },
		{ "idle over ms", "idle_over_ms", 3 }, { "median gap us", "median_gap_us", 1 },
		{ "bg bytes", "bg_bytes", 0 },
	};
	struct table *t = table_create("directions", "The job's streams: what each host sent "
				       "another (every connection between them)", cols,
				       sizeof(cols) / sizeof(cols[0]));
	uint32_t i;

	for (i = 0; t != NULL && i < s->ndirs; i++) {
		const struct tr_dir *d = &s->dir[i];
		char flows[64];

		snprintf(flows, sizeof(flows), "%u%s%s%s", d->flows,
			 d->tcp ? " tcp" : "", d->udp ? " udp" : "", d->roce ? " roce" : "");
		table_str(t, d->name);
		table_str(t, d->major ? "yes" : d->bytes > 0 ? "minor" : "no data");
		table_int(t, (int64_t)d->bytes);
		table_num(t, d->major && s->nsteps ?
			  (double)(d->cut[s->nsteps] - d->cut[0]) / s->nsteps : NAN);
		table_str(t, flows);
		table_int(t, (int64_t)d->data_packets);
		table_int(t, (int64_t)d->retrans_bytes);
		table_int(t, (int64_t)d->reordered);
		table_int(t, (int64_t)d->missing_bytes);
		table_int(t, (int64_t)d->holes);
		table_int(t, (int64_t)d->jumps);
		table_int(t, (int64_t)d->cut_payload);
		table_num(t, d->major && s->nsteps ? (double)d->before : NAN);
		table_num(t, d->major && s->nsteps ? (double)d->after : NAN);
		if (d->major && s->nsteps > 1)
			table_strf(t, "%u of %u", d->snapped, s->nsteps - 1);
		else
			table_str(t, "-");
		table_num(t, d->idle_s * 1e3);
		table_num(t, d->median_gap_s * 1e6);
		table_int(t, (int64_t)d->bg_bytes);
	}
	if (t == NULL)
		return NULL;
	table_note(t, "bytes: the application's, from TCP sequence numbers (a retransmission adds "
		   "none, a segment the capture missed still counts), RoCE v2 PSNs or UDP lengths; "
		   "a direction below %g %% of the largest is not the job's", TR_MINOR_SHARE * 100);
	for (i = 0; i < s->ndirs && s->dir[i].jumps == 0; i++)
		;
	if (i < s->ndirs)
		table_note(t, "jumps: a flow's sequence number moved further than a sender "
			   "could (over %u bytes, or %u RoCE PSNs, or faster than %.3g Tbit/s "
			   "since its last packet): not loss, a new stream from there (a new "
			   "connection on the same ports, or a capture that missed that much); the "
			   "bytes across it are not counted", TR_SEQ_WINDOW_MAX, 1u << 23,
			   TR_LINK_RATE_MAX * 8 / 1e12);
	if (s->nsteps > 0)
		table_note(t, "%s", s->how);
	for (i = 0; i < s->ndirs; i++)
		if (s->dir[i].gaps_thinned)
			table_note(t, "%s had more than %u idle gaps: the shortest were dropped, so "
				   "its overlap and idle times count some idle time as busy",
				   s->dir[i].name, TR_GAPS_MAX);
	return t;
}

struct table *
validate_steps_table(const struct tr_streams *s, double model_s, struct verdict *v)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "start", "start_ns", 0 }, { "end", "end_ns", 0 },
		{ "at s", "at_s", 6 }, { "duration ms", "duration_ns", 3 },
		{ "bytes", "bytes", 0 }, { "overlap %", "overlap_pct", 1 },
		{ "one way %", "one_way_pct", 1 }, { "idle %", "idle_pct", 1 },
		{ "longest idle ms", "longest_idle_ns", 3 }, { "stalls", "stalls", 0 },
		{ "model ms", "model_ms", 3 }, { "vs model %", "vs_model_pct", 2 },
	};
	unsigned int nc = sizeof(cols) / sizeof(cols[0]) - (isfinite(model_s) ? 0 : 2);
	struct table *t = table_create("steps", "Steps: the first and last packet of each step's "
				       "bytes in any direction", cols, nc);
	uint32_t k, i;

	if (t == NULL)
		return NULL;
	table_col_format(t, 1, 0, TCOL_JSON_ONLY);
	table_col_format(t, 2, 0, TCOL_JSON_ONLY);
	table_col_format(t, 4, 1e-6, 0);
	table_col_format(t, 9, 1e-6, 0);
	for (k = 0; k < s->nsteps; k++) {
		const struct tr_step_span *x = &s->step[k];
		double span = (double)(x->end_ns - x->start_ns), e;
		uint64_t bytes = 0;

		for (i = 0; i < s->nmajor; i++)
			bytes += s->dir[i].step[k].bytes;
		table_int(t, k);
		table_int(t, (int64_t)x->start_ns);
		table_int(t, (int64_t)x->end_ns);
		table_num(t, step_seen(x) ? (x->start_ns - s->first_ns) / 1e9 : NAN);
		table_int(t, (int64_t)(x->end_ns - x->start_ns));
		table_int(t, (int64_t)bytes);
		table_num(t, span > 0 ? 100 * x->overlap_ns / span : NAN);
		table_num(t, span > 0 ? 100 * (x->some_ns - x->overlap_ns) / span : NAN);
		table_num(t, span > 0 ? 100 * (span - x->some_ns) / span : NAN);
		table_int(t, (int64_t)x->longest_idle_ns);
		table_int(t, x->stalls);
		if (nc == sizeof(cols) / sizeof(cols[0])) {
			e = 100 * (span / 1e9 - model_s) / model_s;
			if (step_seen(x))
				verdict_add(v, e);
			table_num(t, model_s * 1e3);
			table_num(t, step_seen(x) ? e : NAN);
		}
	}
	for (k = 0; k < s->nsteps; k++)
		if (!step_seen(&s->step[k])) {
			table_note(t, "a step with no packet of its own: the capture missed its bytes");
			break;
		}
	table_note(t, "overlap: every direction carried data; one way: some did; idle: none did "
		   "(a gap between a direction's data packets over its idle threshold); a stall is "
		   "an idle time over %g ms", TR_STALL_S * 1e3);
	return t;
}

struct table *
validate_step_dirs_table(const struct tr_streams *s)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "direction", "direction", -1 },
		{ "start", "start_ns", 0 }, { "end", "end_ns", 0 },
		{ "from ms", "from_step_start_ns", 3 }, { "duration ms", "duration_ns", 3 },
		{ "bytes", "bytes", 0 }, { "Mbit/s", "rate_Bps", 1 },
		{ "idle ms", "idle_ns", 3 }, { "longest gap ms", "longest_gap_ns", 3 },
		{ "packets", "packets", 0 }, { "retrans B", "retrans_bytes", 0 },
		{ "bg bytes", "bg_bytes", 0 }, { "bg share %", "bg_share_pct", 1 },
	};
	struct table *t = table_create("step_directions", "Steps by direction: the first and last "
				       "packet of each direction's share of the step", cols,
				       sizeof(cols) / sizeof(cols[0]));
	uint32_t k, i;

	if (t == NULL)
		return NULL;
	table_col_format(t, 2, 0, TCOL_JSON_ONLY);
	table_col_format(t, 3, 0, TCOL_JSON_ONLY);
	table_col_format(t, 4, 1e-6, 0);
	table_col_format(t, 5, 1e-6, 0);
	table_col_format(t, 7, 8e-6, 0);
	table_col_format(t, 8, 1e-6, 0);
	table_col_format(t, 9, 1e-6, 0);
	for (k = 0; k < s->nsteps; k++)
		for (i = 0; i < s->nmajor; i++) {
			const struct tr_dir_step *d = &s->dir[i].step[k];
			bool seen = d->first_ns != UINT64_MAX;
			uint64_t dur = seen ? d->last_ns - d->first_ns : 0;

			table_int(t, k);
			table_str(t, s->dir[i].name);
			if (seen) {
				table_int(t, (int64_t)d->first_ns);
				table_int(t, (int64_t)d->last_ns);
			} else {
				table_num(t, NAN);
				table_num(t, NAN);
			}
			if (seen) {
				table_int(t, (int64_t)(d->first_ns - s->step[k].start_ns));
				table_int(t, (int64_t)dur);
			} else {
				table_num(t, NAN);
				table_num(t, NAN);
			}
			table_int(t, (int64_t)d->bytes);
			table_num(t, dur > 0 ? d->bytes / (dur / 1e9) : NAN);
			table_int(t, (int64_t)d->idle_ns);
			table_int(t, (int64_t)d->longest_gap_ns);
			table_int(t, (int64_t)d->packets);
			table_int(t, (int64_t)d->retrans_bytes);
			table_int(t, (int64_t)d->bg_bytes);
			table_num(t, d->bg_wire + d->span_wire > 0 ?
				  100.0 * d->bg_wire / (d->bg_wire + d->span_wire) : NAN);
		}
	table_note(t, "bg share: the background's frame bytes in this direction during the step, "
		   "of all frame bytes in it");
	return t;
}

json_t *
validate_steps_json(const struct table *steps, const struct table *dirs)
{
	json_t *o = table_json(steps), *d = table_json(dirs), *rows, *drows, *row;
	size_t i, j;

	if (o == NULL || d == NULL) {
		json_decref(o);
		json_decref(d);
		return NULL;
	}
	rows = json_object_get(o, "rows");
	drows = json_object_get(d, "rows");
	json_array_foreach(rows, i, row)
		json_object_set_new(row, "directions", json_array());
	json_array_foreach(drows, j, row) {
		json_t *k = json_object_get(row, "step");
		json_t *target = json_array_get(rows, (size_t)json_integer_value(k));

		if (target != NULL)
			json_array_append(json_object_get(target, "directions"), row);
	}
	json_decref(d);
	return o;
}

struct table *
validate_stream_fit_table(const struct tr_streams *s)
{
	static const struct tcol cols[] = {
		{ "direction", "direction", -1 }, { "steps", "steps", 0 },
		{ "sizes", "sizes", 0 }, { "alpha ms", "alpha_ms", 6 },
		{ "beta Mbit/s", "beta_mbps", 1 }, { "R^2", "r2", 4 },
		{ "fit", "fit", -1 },
	};
	struct table *t = table_create("fit", "Alpha-beta per direction over its steps (step = "
				       "alpha + bytes / beta)", cols,
				       sizeof(cols) / sizeof(cols[0]));
	double *x = malloc((s->nsteps ? s->nsteps : 1) * sizeof(*x));
	double *y = malloc((s->nsteps ? s->nsteps : 1) * sizeof(*y));
	uint32_t i, k;

	if (t == NULL || x == NULL || y == NULL) {
		free(x);
		free(y);
		table_free(t);
		return NULL;
	}
	for (i = 0; i < s->nmajor; i++) {
		struct tr_fit f;
		uint32_t n = 0, sizes = 0, j;

		for (k = 0; k < s->nsteps; k++) {
			const struct tr_dir_step *d = &s->dir[i].step[k];

			if (d->first_ns == UINT64_MAX || d->last_ns <= d->first_ns)
				continue;
			x[n] = (double)d->bytes;
			y[n] = (d->last_ns - d->first_ns) / 1e9;
			for (j = 0; j < n && x[j] != x[n]; j++)
				;
			sizes += j == n;
			n++;
		}
		table_str(t, s->dir[i].name);
		table_int(t, n);
		table_int(t, sizes);
		if (n == 0 || tr_fit_points(x, y, n, &f) != 0) {
			table_num(t, NAN);
			table_num(t, NAN);
			table_num(t, NAN);
			table_str(t, "no step to fit");
			continue;
		}
		table_num(t, f.alpha_fixed ? NAN : f.alpha * 1e3);
		table_num(t, f.beta * 8 / 1e6);
		table_num(t, f.r2);
		if (n < 3)
			table_str(t, "not a fit: fewer than 3 steps");
		else if (f.alpha_fixed && sizes < 3)
			table_str(t, "not identifiable: steps of one size (beta = bytes / time)");
		else if (f.alpha_fixed)
			table_str(t, "no slope: time does not grow with bytes");
		else if (!(f.r2 >= 0.9))
			table_str(t, "poor: R^2 below 0.9");
		else
			table_str(t, "good");
	}
	free(x);
	free(y);
	table_note(t, "steps of one size cannot tell alpha from beta: their ratio of bytes to time "
		   "is all they give (beta with alpha 0); steps of several sizes are needed for both");
	return t;
}

/* The wire step each application step is held against: in order when the counts agree, else
 * the wire step whose span overlaps it most. */
static int64_t
match(const struct wire_span *w, uint32_t nw, const struct tr_appsteps *a, uint32_t i,
      bool by_order)
{
	int64_t best = -1, best_ov = 0;
	uint32_t k;

	if (by_order)
		return i < nw ? (int64_t)i : -1;
	for (k = 0; k < nw; k++) {
		int64_t lo = a->s[i].start_ns > (int64_t)w[k].start_ns ? a->s[i].start_ns :
			     (int64_t)w[k].start_ns;
		int64_t hi = a->s[i].end_ns < (int64_t)w[k].end_ns ? a->s[i].end_ns :
			     (int64_t)w[k].end_ns;

		if (hi - lo > best_ov) {
			best_ov = hi - lo;
			best = k;
		}
	}
	return best;
}

struct table *
validate_app_table(const struct wire_span *w, uint32_t nw, uint64_t t0,
		   const struct tr_appsteps *a, struct verdict *v)
{
	static const struct tcol cols[] = {
		{ "app step", "app_step", 0 }, { "wire step", "wire_step", 0 },
		{ "start", "app_start_ns", 0 }, { "at s", "at_s", 6 },
		{ "app ms", "app_ns", 3 }, { "wire ms", "wire_ns", 3 },
		{ "wire vs app %", "wire_vs_app_pct", 2 }, { "before wire ms", "before_wire_ns", 3 },
		{ "after wire ms", "after_wire_ns", 3 }, { "outside %", "outside_pct", 2 },
	};
	struct table *t = table_create("app_steps", "The application's steps (--steps-csv) against "
				       "the wire's", cols, sizeof(cols) / sizeof(cols[0]));
	bool by_order = a->n == nw;
	uint32_t i, unmatched = 0;

	if (t == NULL)
		return NULL;
	table_col_format(t, 2, 0, TCOL_JSON_ONLY);
	for (i = 4; i <= 8; i++)
		if (i != 6)
			table_col_format(t, i, 1e-6, 0);
	for (i = 0; i < a->n; i++) {
		const struct tr_appstep *x = &a->s[i];
		int64_t k = match(w, nw, a, i, by_order), app = x->end_ns - x->start_ns, wire, e;
		double pct;

		table_int(t, (int64_t)x->step);
		if (k < 0) {
			unmatched++;
			table_num(t, NAN);
			table_int(t, x->start_ns);
			table_num(t, (x->start_ns - (int64_t)t0) / 1e9);
			table_int(t, app);
			for (int c = 0; c < 5; c++)
				table_num(t, NAN);
			continue;
		}
		wire = (int64_t)(w[k].end_ns - w[k].start_ns);
		pct = app > 0 ? 100.0 * (double)(wire - app) / (double)app : NAN;
		if (isfinite(pct) && !v->uncertain)
			verdict_add(v, pct);
		e = x->end_ns - (int64_t)w[k].end_ns;
		table_int(t, k);
		table_int(t, x->start_ns);
		table_num(t, (x->start_ns - (int64_t)t0) / 1e9);
		table_int(t, app);
		table_int(t, wire);
		table_num(t, pct);
		table_int(t, (int64_t)w[k].start_ns - x->start_ns);
		table_int(t, e);
		table_num(t, app > 0 ? 100.0 * (double)(app - wire) / (double)app : NAN);
	}
	table_note(t, "%s; before (after) the wire: from the application's start to the step's "
		   "first packet (from its last packet to the application's end); outside: the "
		   "application's time the wire does not show", by_order ?
		   "held in order (as many steps on the wire as in the file)" :
		   "each held against the wire step it overlaps most (the counts differ)");
	if (unmatched > 0)
		table_note(t, "%u application steps overlap no step on the wire", unmatched);
	if (v->uncertain)
		table_note(t, "UNCERTAIN, not measurements: %s", v->reason);
	return t;
}
