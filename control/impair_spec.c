/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [impair] keys: tc-netem's words for a link's losses and jitter, read into struct sm_impair.
 * Validate then commit: the result is written only when the whole text is good.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impair_files.h"
#include "impair_spec.h"
#include "units.h"

#define WORDS_MAX 32
#define WORD_LEN 256		/* a file's path is a word */

struct words {
	char w[WORDS_MAX][WORD_LEN];
	size_t off[WORDS_MAX];		/* byte offset in the text */
	int n;
};

static int
split(const char *text, struct words *ws, char *why, size_t len)
{
	const char *s = text;

	ws->n = 0;
	for (;;) {
		size_t k;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return 0;
		k = strcspn(s, " \t");
		if (ws->n == WORDS_MAX) {
			snprintf(why, len, "too many words at byte %zu (at most %d)",
				 (size_t)(s - text), WORDS_MAX);
			return -EINVAL;
		}
		if (k >= WORD_LEN) {
			snprintf(why, len, "the word at byte %zu is too long", (size_t)(s - text));
			return -EINVAL;
		}
		memcpy(ws->w[ws->n], s, k);
		ws->w[ws->n][k] = '\0';
		ws->off[ws->n] = (size_t)(s - text);
		ws->n++;
		s += k;
	}
}

/* Is word @i a percentage (a number and '%')? */
static bool
is_percent(const struct words *ws, int i)
{
	size_t k;

	if (i >= ws->n)
		return false;
	k = strlen(ws->w[i]);
	return k >= 2 && ws->w[i][k - 1] == '%' && strchr("0123456789.", ws->w[i][0]) != NULL;
}

static int
percent(const struct words *ws, int i, const char *what, double *p, char *why, size_t len)
{
	char *end;
	double v;

	if (!is_percent(ws, i)) {
		if (i < ws->n)
			snprintf(why, len, "'%s' at byte %zu: %s must be a percentage (e.g. 1%%, "
				 "0.05%%)", ws->w[i], ws->off[i], what);
		else
			snprintf(why, len, "%s is missing at the end (a percentage, e.g. 1%%)",
				 what);
		return -EINVAL;
	}
	v = strtod(ws->w[i], &end);
	if (*end != '%' || end[1] != '\0' || !isfinite(v) || v < 0.0 || v > 100.0) {
		snprintf(why, len, "'%s' at byte %zu: %s must be 0%% to 100%%", ws->w[i],
			 ws->off[i], what);
		return -EINVAL;
	}
	*p = v / 100.0;
	return 0;
}

static const char *const ge_names[] = { "p (good to bad)", "r", "1-h", "1-k" };
static const char *const st_names[] = { "p13", "p31", "p32", "p23", "p14" };

/*
 * A model's probabilities from word *@k + 1: the first given, the rest as far as they are (the
 * second defaults to 1 - the first, as tc's do, the others to @def); *@k left after them.
 */
static int
probs(const struct words *ws, int *k, const char *const *names, int n, const double *def,
      double *p, char *why, size_t len)
{
	int i, at = *k + 1, rc = percent(ws, at, names[0], &p[0], why, len);

	if (rc != 0)
		return rc;
	p[1] = 1.0 - p[0];
	for (i = 2; i < n; i++)
		p[i] = def[i];
	for (i = 1, at++; i < n && is_percent(ws, at); i++, at++) {
		rc = percent(ws, at, names[i], &p[i], why, len);
		if (rc != 0)
			return rc;
	}
	*k = at;
	return 0;
}

/* "loss MODEL P...": from word @i; *@i is left after it */
static int
parse_loss(const struct words *ws, int *i, struct sm_impair *im, char *why, size_t len)
{
	const char *model;
	int k = *i + 1, rc;

	if (k >= ws->n) {
		snprintf(why, len, "'loss' at byte %zu needs a model: random, gemodel or state",
			 ws->off[*i]);
		return -EINVAL;
	}
	model = ws->w[k];
	if (strcmp(model, "random") == 0) {
		im->loss = SM_LOSS_RANDOM;
		rc = percent(ws, k + 1, "the loss probability", &im->p[0], why, len);
		if (rc != 0)
			return rc;
		k += 2;
		if (is_percent(ws, k)) {
			snprintf(why, len, "'%s' at byte %zu: a correlation is not taken (netem's is "
				 "not a correlation; use gemodel or state for bursts)", ws->w[k],
				 ws->off[k]);
			return -EINVAL;
		}
	} else if (strcmp(model, "gemodel") == 0) {
		static const double ge_def[4] = { 0, 0, 1.0, 0.0 };

		im->loss = SM_LOSS_GE;
		rc = probs(ws, &k, ge_names, 4, ge_def, im->p, why, len);
		if (rc != 0)
			return rc;
	} else if (strcmp(model, "state") == 0) {
		static const double st_def[5] = { 0, 0, 0.0, 1.0, 0.0 };

		im->loss = SM_LOSS_4STATE;
		rc = probs(ws, &k, st_names, 5, st_def, im->p, why, len);
		if (rc != 0)
			return rc;
		if (im->p[0] + im->p[4] > 1.0 + 1e-12 || im->p[1] + im->p[2] > 1.0 + 1e-12) {
			snprintf(why, len, "'loss state' at byte %zu: p13 + p14 and p31 + p32 must "
				 "each be at most 100%% (they leave one state)", ws->off[*i]);
			return -EINVAL;
		}
	} else {
		snprintf(why, len, "'%s' at byte %zu: the loss model is random, gemodel or state",
			 model, ws->off[k]);
		return -EINVAL;
	}
	*i = k;
	return 0;
}

static int
parse_jitter(const struct words *ws, int *i, struct sm_impair *im, char *why, size_t len)
{
	static const char *const dists[] = { NULL, "uniform", "normal", "pareto", "paretonormal" };
	bool explicit = false, found = false;
	char err[512];
	int k = *i + 1;
	double j;

	if (k >= ws->n || sc_unit_parse(SC_UNIT_TIME, ws->w[k], &j, err, sizeof(err)) != 0 ||
	    !(j >= 0.0) || !isfinite(j)) {
		if (k >= ws->n)
			snprintf(why, len, "'jitter' at byte %zu needs a time (e.g. 5ms)",
				 ws->off[*i]);
		else
			snprintf(why, len, "'%s' at byte %zu: the jitter must be a time of 0 s or "
				 "more (e.g. 5ms)", ws->w[k], ws->off[k]);
		return -EINVAL;
	}
	im->jitter = j;
	im->dist = SM_JITTER_UNIFORM;
	im->reorder = false;
	k++;
	if (k < ws->n && strcmp(ws->w[k], "distribution") == 0) {
		explicit = true;
		if (++k >= ws->n) {
			snprintf(why, len, "'distribution' at byte %zu needs one of uniform, normal, "
				 "pareto, paretonormal", ws->off[k - 1]);
			return -EINVAL;
		}
	}
	for (int d = 1; k < ws->n && d < 5; d++)
		if (strcmp(ws->w[k], dists[d]) == 0) {
			im->dist = (enum sm_jitter_dist)d;
			found = true;
			k++;
			break;
		}
	if (!found && k < ws->n && (explicit || strchr(ws->w[k], '/') != NULL)) {
		/* netem's empirical table: a path, or tc's name of one (experimental) */
		im->table = sc_jtable_load(ws->w[k], err, sizeof(err));
		if (im->table == NULL) {
			snprintf(why, len, "'%s' at byte %zu: the distribution is uniform, normal, "
				 "pareto, paretonormal or a netem table: %s", ws->w[k], ws->off[k],
				 err);
			return -EINVAL;
		}
		im->dist = SM_JITTER_TABLE;
		k++;
	}
	if (k < ws->n && (strcmp(ws->w[k], "reorder") == 0 || strcmp(ws->w[k], "fifo") == 0)) {
		im->reorder = ws->w[k][0] == 'r';
		k++;
	}
	if (j == 0.0)
		im->dist = SM_JITTER_NONE;
	*i = k;
	return 0;
}

/* A size word (30kB, 1500B, 64KiB) at word @i for @what. */
static int
size_word(const struct words *ws, int i, const char *what, double *v, char *why, size_t len)
{
	char err[256] = "out of range";

	if (i >= ws->n || sc_unit_parse(SC_UNIT_BYTES, ws->w[i], v, err, sizeof(err)) != 0 ||
	    !(*v >= 0) || !isfinite(*v) || *v > 1e12) {
		if (i >= ws->n)
			snprintf(why, len, "%s is missing at the end (a size, e.g. 30kB)", what);
		else
			snprintf(why, len, "'%s' at byte %zu: %s must be a size (e.g. 30kB, "
				 "1500B): %s", ws->w[i], ws->off[i], what, err);
		return -EINVAL;
	}
	return 0;
}

/*
 * "red min SIZE max SIZE probability P [burst N] [avpkt SIZE] [ecn] [harddrop] [gentle]" (tc-red's
 * words; P a fraction or a percentage) and "mark SIZE" (a step threshold): from word @i.
 */
static int
parse_aqm(const struct words *ws, int *i, struct sm_impair *im, char *why, size_t len)
{
	struct sm_red r = { .kind = SM_AQM_STEP };
	bool seen[3] = { false, false, false };
	int k = *i + 1, rc;
	char err[200];

	if (strcmp(ws->w[*i], "mark") == 0) {
		rc = size_word(ws, k, "mark's threshold", &r.min, why, len);
		if (rc != 0)
			return rc;
		k++;
		goto done;
	}
	r.kind = SM_AQM_RED;
	while (k < ws->n) {
		const char *w = ws->w[k];
		int at = -1;

		if (strcmp(w, "min") == 0)
			at = 0;
		else if (strcmp(w, "max") == 0)
			at = 1;
		else if (strcmp(w, "probability") == 0)
			at = 2;
		if (at >= 0) {
			if (seen[at]) {
				snprintf(why, len, "'%s' at byte %zu: given twice", w, ws->off[k]);
				return -EINVAL;
			}
			seen[at] = true;
			if (at < 2) {
				rc = size_word(ws, k + 1, at == 0 ? "red's min" : "red's max",
					       at == 0 ? &r.min : &r.max, why, len);
			} else if (is_percent(ws, k + 1)) {
				rc = percent(ws, k + 1, "red's probability", &r.max_p, why, len);
			} else {
				char *end = NULL;

				if (k + 1 < ws->n)
					r.max_p = strtod(ws->w[k + 1], &end);
				rc = end != NULL && end != ws->w[k + 1] && *end == '\0' ? 0 : -EINVAL;
				if (rc != 0 && k + 1 < ws->n)
					snprintf(why, len, "'%s' at byte %zu: red's probability must "
						 "be a fraction (0.02) or a percentage (2%%)",
						 ws->w[k + 1], ws->off[k + 1]);
				else if (rc != 0)
					snprintf(why, len, "red's probability is missing at the end "
						 "(a fraction, 0.02, or a percentage, 2%%)");
			}
			if (rc != 0)
				return rc;
			k += 2;
		} else if (strcmp(w, "burst") == 0) {
			if (k + 1 >= ws->n || sc_unit_parse(SC_UNIT_NUMBER, ws->w[k + 1], &r.burst,
							    err, sizeof(err)) != 0 ||
			    !(r.burst >= 1 && r.burst <= 1e9)) {
				snprintf(why, len, "red's burst at byte %zu must be a number of "
					 "frames, 1 or more", ws->off[k]);
				return -EINVAL;
			}
			k += 2;
		} else if (strcmp(w, "avpkt") == 0) {
			rc = size_word(ws, k + 1, "red's avpkt", &r.avpkt, why, len);
			if (rc != 0)
				return rc;
			k += 2;
		} else if (strcmp(w, "ecn") == 0 || strcmp(w, "harddrop") == 0 ||
			   strcmp(w, "gentle") == 0) {
			*(w[0] == 'e' ? &r.ecn : w[0] == 'h' ? &r.harddrop : &r.gentle) = true;
			k++;
		} else {
			break;
		}
	}
	if (!seen[0] || !seen[1] || !seen[2]) {
		snprintf(why, len, "'red' at byte %zu needs min, max and probability (e.g. 'red min "
			 "30kB max 90kB probability 2%% ecn')", ws->off[*i]);
		return -EINVAL;
	}
done:
	rc = sm_red_finish(&r, err, sizeof(err));
	if (rc != 0) {
		snprintf(why, len, "'%s' at byte %zu: %s", ws->w[*i], ws->off[*i], err);
		return rc;
	}
	im->aqm = r;
	*i = k;
	return 0;
}

int
sc_impair_parse(const char *text, struct sm_impair *out, char *why, size_t len)
{
	struct sm_impair im = { .loss = SM_LOSS_NONE, .dist = SM_JITTER_NONE };
	bool loss = false, jitter = false, duplicate = false, corrupt = false, aqm = false;
	struct words ws;
	int i = 0, rc;

	rc = split(text, &ws, why, len);
	if (rc != 0)
		return rc;
	if (ws.n == 1 && strcmp(ws.w[0], "none") == 0) {
		*out = im;
		return 0;
	}
	if (ws.n == 0) {
		snprintf(why, len, "empty: 'none', or loss and jitter as tc-netem writes them (e.g. "
			 "'loss random 1%% jitter 5ms normal')");
		return -EINVAL;
	}
	while (i < ws.n) {
		bool *seen;

		if (strcmp(ws.w[i], "loss") == 0)
			seen = &loss;
		else if (strcmp(ws.w[i], "jitter") == 0)
			seen = &jitter;
		else if (strcmp(ws.w[i], "red") == 0 || strcmp(ws.w[i], "mark") == 0)
			seen = &aqm;
		else if (strcmp(ws.w[i], "trace") == 0) {
			char err[512];

			if (im.trace != NULL) {
				snprintf(why, len, "'trace' at byte %zu: given twice", ws.off[i]);
				return -EINVAL;
			}
			if (i + 1 >= ws.n) {
				snprintf(why, len, "'trace' at byte %zu needs a file (Mahimahi's format: "
					 "one delivery opportunity per line, in ms)", ws.off[i]);
				return -EINVAL;
			}
			im.trace = sc_ltrace_load(ws.w[i + 1], err, sizeof(err));
			if (im.trace == NULL) {
				snprintf(why, len, "'%s' at byte %zu: %s", ws.w[i + 1], ws.off[i + 1],
					 err);
				return -EINVAL;
			}
			i += 2;
			continue;
		}
		else if (strcmp(ws.w[i], "duplicate") == 0 || strcmp(ws.w[i], "corrupt") == 0) {
			bool dup = ws.w[i][0] == 'd';

			seen = dup ? &duplicate : &corrupt;
			if (*seen) {
				snprintf(why, len, "'%s' at byte %zu: given twice", ws.w[i], ws.off[i]);
				return -EINVAL;
			}
			*seen = true;
			rc = percent(&ws, i + 1, dup ? "the duplicate probability" :
				     "the corrupt probability", dup ? &im.duplicate : &im.corrupt, why,
				     len);
			if (rc != 0)
				return rc;
			i += 2;
			if (is_percent(&ws, i)) {
				snprintf(why, len, "'%s' at byte %zu: a correlation is not taken",
					 ws.w[i], ws.off[i]);
				return -EINVAL;
			}
			continue;
		} else {
			snprintf(why, len, "'%s' at byte %zu: expected loss, jitter, duplicate, "
				 "corrupt, red, mark or trace%s", ws.w[i],
				 ws.off[i], strcmp(ws.w[i], "delay") == 0 ?
				 " (the link's latency is its delay: give the variation as "
				 "'jitter TIME')" : "");
			return -EINVAL;
		}
		if (*seen) {
			snprintf(why, len, "'%s' at byte %zu: given twice%s", ws.w[i], ws.off[i],
				 seen == &aqm ? " (a queue has red or mark, one of them)" : "");
			return -EINVAL;
		}
		*seen = true;
		rc = seen == &loss ? parse_loss(&ws, &i, &im, why, len) :
		     seen == &aqm ? parse_aqm(&ws, &i, &im, why, len) :
				    parse_jitter(&ws, &i, &im, why, len);
		if (rc != 0)
			return rc;
	}
	*out = im;
	return 0;
}

int
sc_impair_parse_link(const char *text, char *name, size_t name_len, struct sm_impair *im,
		     char *why, size_t len)
{
	size_t at = strspn(text, " \t"), k = strcspn(text + at, " \t");
	char spec[512];

	if (k == 0) {
		snprintf(why, len, "no link named: 'LINK SPEC' (e.g. 'wan0>1 loss random 1%%')");
		return -EINVAL;
	}
	if (k >= name_len || strlen(text) >= sizeof(spec)) {
		snprintf(why, len, "the link name at byte %zu is too long", at);
		return -EINVAL;
	}
	if (text[at + k] == '\0') {
		snprintf(why, len, "'%.*s' has no impairment after it (e.g. '%.*s loss random 1%%')",
			 (int)k, text + at, (int)k, text + at);
		return -EINVAL;
	}
	/* the name blanked out: the spec's byte offsets are the whole text's */
	snprintf(spec, sizeof(spec), "%s", text);
	memset(spec + at, ' ', k);
	if (sc_impair_parse(spec, im, why, len) != 0)
		return -EINVAL;
	memcpy(name, text + at, k);
	name[k] = '\0';
	return 0;
}
