/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results' tables as CSV: one table on a stream, or every table in a directory, a file
 * each (see results.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcodes.h"
#include "outputs.h"
#include "results_impl.h"

void
results_csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
csv_cell(FILE *f, const struct tcol *col, const struct table_cell *c)
{
	if (c->kind == TABLE_STR)
		results_csv_str(f, c->s);
	else if (c->kind == TABLE_INT)
		fprintf(f, "%" PRId64, c->i);
	else if (isnan(c->num))
		return;
	else if (isinf(c->num))
		fputs(c->num > 0 ? "inf" : "-inf", f);
	else if (col->decimals == 0 && c->num == floor(c->num) &&
		 fabs(c->num) < 9007199254740992.0)
		fprintf(f, "%.0f", c->num);	/* a count, exact as in JSON */
	else
		fprintf(f, "%.10g", c->num);
}

int
results_csv_write_table(const struct table *t, FILE *f)
{
	unsigned int ncols = table_ncols(t), nrows = table_nrows(t), i, j;
	struct table_cell c;

	for (j = 0; j < ncols; j++)
		fprintf(f, "%s%s", j ? "," : "", table_col(t, j)->key);
	fputc('\n', f);
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < ncols && table_cell(t, i, j, &c) == 0; j++) {
			if (j > 0)
				fputc(',', f);
			csv_cell(f, table_col(t, j), &c);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

int
results_csv_dir_check(const char *dir, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (dir == NULL || dir[0] == '\0') {
		snprintf(err, errlen, "--tables: an empty directory name");
		return -EINVAL;
	}
	if (strlen(dir) >= sizeof(parent)) {
		snprintf(err, errlen, "--tables %s: the name is too long", dir);
		return -ENAMETOOLONG;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "--tables %s: not a directory (%s)", dir,
				 outfile_kind_name(st.st_mode));
			return -ENOTDIR;
		}
		if (access(dir, W_OK | X_OK) != 0) {
			snprintf(err, errlen, "--tables %s: the directory is not writable: %s",
				 dir, strerror(errno));
			return -EACCES;
		}
		return 0;
	}
	if (errno != ENOENT) {
		int e = errno;

		snprintf(err, errlen, "--tables %s: %s", dir, strerror(e));
		if (e == EACCES)		/* the kernel's reason, where it is one of its rules */
			outfile_dir_reach(dir, "--tables", err, errlen);
		return -e;
	}
	/* not there: made in its parent */
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) != NULL && slash[1] == '\0' && slash != parent)
		*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash == NULL)
		snprintf(parent, sizeof(parent), ".");
	else
		slash[slash == parent] = '\0';
	if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--tables %s: its directory %s is not there", dir, parent);
		return -ENOENT;
	}
	if (access(parent, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "--tables %s: cannot be made, its directory %s is not "
			 "writable", dir, parent);
		return -EACCES;
	}
	return 0;
}

/* The file of item @p k: its name, with its rank if an item before it has the same name. */
static int
csv_path(const struct results *r, unsigned int k, const char *dir, char *buf, size_t len)
{
	const struct results_item *it = &r->items[k];
	const char *name = it->file != NULL ? it->file : table_id(it->t);
	unsigned int i, rank = 1;
	int n;

	for (i = 0; i < k; i++) {
		const struct results_item *p = &r->items[i];

		if (p->t != NULL && strcmp(p->file != NULL ? p->file : table_id(p->t), name) == 0)
			rank++;
	}
	if (rank > 1)
		n = snprintf(buf, len, "%s/%s-%u.csv", dir, name, rank);
	else
		n = snprintf(buf, len, "%s/%s.csv", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int
results_csv_write_dir(const struct results *r, const struct results_csv_dir *d, char *err,
		      size_t errlen)
{
	unsigned int n = results_ntables(r), i, k;
	const char *dir = d->dir;
	struct output *o;
	char (*paths)[PATH_MAX];
	int rc;

	rc = results_csv_dir_check(dir, err, errlen);
	if (rc != 0)
		return rc;
	rc = outfile_mkdir(dir);		/* removed again if no table is written in it */
	if (rc < 0) {
		snprintf(err, errlen, "--tables %s: cannot make the directory: %s", dir,
			 strerror(-rc));
		return rc;
	}
	rc = 0;
	if (n == 0) {
		outfile_mkdir_done(dir, false);
		return 0;
	}
	o = calloc(n, sizeof(*o));
	paths = calloc(n, sizeof(*paths));
	if (o == NULL || paths == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "--tables %s: out of memory", dir);
		goto out;
	}
	for (i = 0, k = 0; k < r->n; k++) {
		if (r->items[k].t == NULL)
			continue;
		if (csv_path(r, k, dir, paths[i], sizeof(paths[i])) != 0) {
			rc = -ENAMETOOLONG;
			snprintf(err, errlen, "--tables %s: the name is too long", dir);
			goto out;
		}
		o[i].path = paths[i];
		o[i].what = "--tables";
		o[i].code = CLI_EXIT_USAGE;
		i++;
	}
	rc = outputs_open(o, n, d->in, d->n_in, d->cmd != NULL ? d->cmd : "syncemu", d->stop, err,
			  errlen);
	if (rc != 0) {
		if (rc == CLI_EXIT_INTERRUPTED)
			snprintf(err, errlen, "--tables %s: interrupted while waiting for a reader: "
				 "nothing written", dir);
		rc = rc == CLI_EXIT_FAIL ? -ENOMEM : rc == CLI_EXIT_INTERRUPTED ? -EINTR : -EINVAL;
		goto out;
	}
	for (i = 0, k = 0; k < r->n; k++) {
		FILE *f;

		if (r->items[k].t == NULL)
			continue;
		f = outfile_fp(o[i].f);
		if (f == NULL || results_csv_write_table(r->items[k].t, f) != 0) {
			rc = f == NULL ? -ENOMEM : outfile_error(o[i].f) != 0 ?
			     outfile_error(o[i].f) : -EIO;
			snprintf(err, errlen, "--tables: cannot write %s: %s", o[i].path,
				 strerror(-rc));
			rc = rc == -ENOMEM ? rc : -EIO;
			goto out;
		}
		i++;
	}
	for (i = 0; i < n; i++) {
		rc = outfile_commit(o[i].f);
		o[i].f = NULL;
		if (rc != 0) {
			snprintf(err, errlen, "--tables: cannot write %s: %s", o[i].path,
				 strerror(-rc));
			rc = -EIO;
			goto out;
		}
	}
out:
	if (o != NULL)
		outputs_abort(o, n);
	outfile_mkdir_done(dir, rc != 0);	/* removed if no table is in it */
	free(o);
	free(paths);
	return rc;
}

int
results_csv_exit(int rc)
{
	if (rc == -EINTR)
		return CLI_EXIT_INTERRUPTED;
	return rc == -ENOMEM || rc == -EIO ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
}
