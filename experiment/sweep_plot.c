/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sweep's plot (see sweep_plot.h): the data and the script as text, then gnuplot on them.
 *
 * gnuplot reads the script and the data from memory files (memfd) and writes the outputs'
 * temporaries, all through /proc/PID/fd/N; its standard error goes to a memory file too, read
 * back for the message when it fails.  It runs in a process group of its own, so that Ctrl-C at
 * the terminal (the first signal: the sweep writes what it has) does not cut the plot short; a
 * second signal ends it with the sweep (sweep_plot_signal_kill()).  A full disk leaves gnuplot's
 * outputs short with exit status 0, so each is read back: an SVG must end with </svg>, a PNG
 * with its IEND chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep_plot.h"

extern char **environ;

static volatile sig_atomic_t gp_pid;	/* gnuplot while it runs, else 0 */

void
sweep_plot_signal_kill(void)
{
	pid_t pid = (pid_t)gp_pid;

	if (pid > 0)
		kill(pid, SIGTERM);
}

static void
say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- the text ---- */

/* Text for a comment: control characters (a line break would end it) as spaces. */
static void
put_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

void
plot_put_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("''", f);
		else
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
	}
	fputc('\'', f);
}

static void
put_head(FILE *f, const struct sweep_plot *p)
{
	fprintf(f, "# syncemu sweep of ");
	put_text(f, p->key);
	fprintf(f, " over %u values (", p->nvalues);
	put_text(f, p->scenario);
	fputc(')', f);
	if (p->mark != NULL) {
		fputs(", ", f);
		put_text(f, p->mark);
	}
	fputc('\n', f);
}

void
sweep_plot_data(FILE *f, const struct sweep_plot *p)
{
	unsigned int i, k, nc = 0;

	put_head(f, p);
	fprintf(f, "# one block per run (gnuplot's index 0, 1, ...); columns: x, mean_ms, ci95_ms, "
		   "model_ms, model_fifo_ms (the model: %s), ok (1: the status is ok)\n",
		p->loaded ? "processor sharing, and FIFO" : "the packet-level closed form");
	for (k = 0; k < p->ns; k++) {
		fprintf(f, "%s# index %u: ", k ? "\n\n" : "", k);
		put_text(f, p->s[k].label);
		fputc('\n', f);
		for (i = 0; i < p->s[k].n; i++) {
			const struct plot_point *q = &p->s[k].p[i];

			fprintf(f, "%.10g %.9g %.9g %.9g %.9g %d\n", q->x, q->mean,
				isfinite(q->ci95) ? q->ci95 : 0.0, q->model, q->fifo, q->ok);
		}
	}
	/* then the models at many values, a block per run with a curve */
	for (k = 0; k < p->ns; k++) {
		if (p->s[k].cn == 0)
			continue;
		fprintf(f, "\n\n# index %u: ", p->ns + nc++);
		put_text(f, p->s[k].label);
		fprintf(f, ", the models at %u values: x, %s\n", p->s[k].cn,
			p->loaded ? "model_ms (PS), model_fifo_ms" : "packet_ms, fluid_ms");
		for (i = 0; i < p->s[k].cn; i++)
			fprintf(f, "%.10g %.9g %.9g\n", p->s[k].cx[i], p->s[k].ca[i], p->s[k].cb[i]);
	}
}

/* title 'LABEL SUFFIX' */
static void
put_title(FILE *f, const char *label, const char *suffix)
{
	char t[160];

	snprintf(t, sizeof(t), "%s %s", label, suffix);
	fputs(" title ", f);
	plot_put_string(f, t);
	fputs(" noenhanced", f);
}

/* The step times drawn: log where the positive ones span 20 x or more. */
static bool
log_y(const struct sweep_plot *p)
{
	double lo = INFINITY, hi = 0;
	unsigned int i, k;

	for (k = 0; k < p->ns; k++) {
		for (i = 0; i < p->s[k].n; i++) {
			const struct plot_point *q = &p->s[k].p[i];
			const double v[3] = { q->mean, q->model, q->fifo };
			int j;

			for (j = 0; j < 3; j++) {
				if (!isfinite(v[j]))
					continue;
				if (v[j] <= 0)
					return false;
				lo = fmin(lo, v[j]);
				hi = fmax(hi, v[j]);
			}
		}
	}
	return hi > 0 && hi / lo >= 20;
}

/* the range of the swept values */
static void
x_range(const struct sweep_plot *p, double *lo, double *hi)
{
	unsigned int i, k;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (k = 0; k < p->ns; k++)
		for (i = 0; i < p->s[k].n; i++) {
			*lo = fmin(*lo, p->s[k].p[i].x);
			*hi = fmax(*hi, p->s[k].p[i].x);
		}
}

void
sweep_plot_script(FILE *f, const struct sweep_plot *p)
{
	char *t = NULL;
	unsigned int k, nc = 0;
	bool ly = log_y(p);
	double lo, hi;

	put_head(f, p);
	fputs("# The emulated mean step time of each run with its 95 % CI (points), the\n"
	      "# model beside it (lines, drawn from its values at many points of the key).\n"
	      "# Drawn again (after an edit, say) in the directory of this file:\n"
	      "#   gnuplot sweep.gp\n"
	      "# It reads dat and writes svg and png: the files beside it, unless set\n"
	      "# before it, as in  gnuplot -e \"svg='other.svg'\" sweep.gp\n"
	      "if (!exists(\"dat\")) { dat = 'sweep.dat' }\n"
	      "if (!exists(\"svg\")) { svg = 'sweep.svg' }\n"
	      "if (!exists(\"png\")) { png = 'sweep.png' }\n"
	      "set terminal svg size 960,600 dynamic font 'sans,11'\n"
	      "set output svg\n"
	      "set key outside below center horizontal height 2\n"
	      "set grid\n"
	      "set datafile missing 'nan'\n"
	      "set title ", f);
	if (asprintf(&t, "syncemu sweep of %s (%s)%s%s", p->key, p->scenario,
		     p->mark != NULL ? ", " : "", p->mark != NULL ? p->mark : "") < 0)
		t = NULL;
	plot_put_string(f, t != NULL ? t : p->key);
	free(t);
	if (p->settings != NULL) {
		fputs(".\"\\n\".", f);
		plot_put_string(f, p->settings);
	}
	fputs(" noenhanced\nset xlabel ", f);
	if (strcmp(p->key, "background.load") == 0 && p->unit[0] == '\0')
		t = strdup("background.load, fraction of the WAN rate");
	else if (asprintf(&t, "%s%s%s", p->key, p->unit[0] ? ", " : " (no unit)", p->unit) < 0)
		t = NULL;
	if (t != NULL && p->log_x) {
		char *u = NULL;

		if (asprintf(&u, "%s (log scale)", t) >= 0) {
			free(t);
			t = u;
		}
	}
	plot_put_string(f, t != NULL ? t : p->key);
	free(t);
	fprintf(f, " noenhanced\nset ylabel 'mean step time, ms%s'\n", ly ? " (log scale)" : "");
	x_range(p, &lo, &hi);
	if (p->log_x)
		fputs("set logscale x\n", f);
	if (ly)
		fputs("set logscale y\n", f);
	else
		fputs("set yrange [0:*]\n", f);
	/* the axis ends just past the swept values, a point's marker whole at either end: 2 % of
	 * the span (of its logarithm), less than a tic's step, so no tic beyond them (a load
	 * below 0, say) */
	if (isfinite(lo) && hi > lo && p->log_x && lo > 0)
		fprintf(f, "set xrange [%.10g:%.10g]\n", lo / pow(hi / lo, 0.02),
			hi * pow(hi / lo, 0.02));
	else if (isfinite(lo) && hi > lo)
		fprintf(f, "set xrange [%.10g:%.10g]\n", lo - 0.02 * (hi - lo),
			hi + 0.02 * (hi - lo));
	else
		fputs("set offsets graph 0.05, graph 0.05, 0, 0\n", f);
	fputs("set clip two\nplot ", f);
	for (k = 0; k < p->ns; k++) {
		const char *l = p->s[k].label;
		unsigned int idx = k, ca = 4, cb = 5;

		fprintf(f, "%sdat index %u using 1:($6 > 0 ? $2 : NaN):3 with yerrorbars lc %u pt 7",
			k ? ", \\\n     " : "", k, k + 1);
		put_title(f, l, "emulated");
		if (p->s[k].not_ok[0] != '\0') {	/* an open marker: no model column applies */
			char what[128];

			snprintf(what, sizeof(what), "emulated, %s", p->s[k].not_ok);
			fprintf(f, ", \\\n     dat index %u using 1:($6 > 0 ? NaN : $2):3 with yerrorbars "
				"lc %u pt 6 ps 1.5", k, k + 1);
			put_title(f, l, what);
		}
		if (p->s[k].cn > 0) {	/* the dense block */
			idx = p->ns + nc++;
			ca = 2;
			cb = 3;
		}
		fprintf(f, ", \\\n     dat index %u using 1:%u with lines lc %u dt 2", idx, ca, k + 1);
		put_title(f, l, p->loaded ? "model PS" : "packet model");
		if (p->loaded || p->s[k].cn > 0) {
			fprintf(f, ", \\\n     dat index %u using 1:%u with lines lc %u dt 3", idx, cb,
				k + 1);
			put_title(f, l, p->loaded ? "model FIFO" : "fluid model");
		}
	}
	fputs("\n# and the same as a PNG\n"
	      "set terminal pngcairo size 960,600 font 'sans,10'\n"
	      "set output png\n"
	      "replot\n"
	      "set output\n", f);
}

/* ---- gnuplot ---- */

/* A memory file holding @p len bytes of @p buf: its descriptor, or -errno. */
static int
mem_file(const char *name, const char *buf, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), rc;
	ssize_t k;

	if (fd < 0)
		return -errno;
	while (len > 0) {
		k = write(fd, buf, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			close(fd);
			return rc;
		}
		buf += k;
		len -= (size_t)k;
	}
	return fd;
}

/* The paths gnuplot was given, and how the user knows them. */
struct rename {
	const char *from, *to;
};

/*
 * What gnuplot wrote on its standard error (the last 4 KiB of it), with the paths it was given
 * renamed to the user's, control characters as spaces and every line indented.
 */
static void
read_said(int fd, const struct rename *rn, unsigned int n, char *out, size_t outlen)
{
	char buf[4096];
	off_t size = lseek(fd, 0, SEEK_END), start;
	size_t o = 0, i, len, k;
	ssize_t got;
	unsigned int r;

	start = size > (off_t)sizeof(buf) - 1 ? size - ((off_t)sizeof(buf) - 1) : 0;
	got = size > 0 ? pread(fd, buf, sizeof(buf) - 1, start) : 0;
	len = got > 0 ? (size_t)got : 0;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\r'))
		len--;
	for (i = 0; i < len && (buf[i] == '\n' || buf[i] == '\r'); i++)
		;
	out[0] = '\0';
	for (; i < len && o + 1 < outlen; i++) {
		const char *put = NULL;
		char c[2] = { buf[i], '\0' };

		for (r = 0; r < n && put == NULL; r++) {
			k = strlen(rn[r].from);
			if (k > 0 && len - i >= k && memcmp(buf + i, rn[r].from, k) == 0 &&
			    (i + k == len || buf[i + k] < '0' || buf[i + k] > '9')) {
				put = rn[r].to;
				i += k - 1;
			}
		}
		if (put == NULL) {
			if (c[0] == '\n')
				put = "\n    ";
			else {
				if ((unsigned char)c[0] < 0x20 || c[0] == 0x7f)
					c[0] = ' ';
				put = c;
			}
		}
		k = strlen(put);
		if (o + k >= outlen)
			break;
		memcpy(out + o, put, k);
		o += k;
		out[o] = '\0';
	}
}

/*
 * Is what gnuplot wrote into @p o whole?  0, or -ENOSPC with the message.  A stream cannot be
 * read back, nor a temporary that keeps a replaced file's mode without read permission: gnuplot's
 * exit status is all there is then.
 */
static int
check_whole(struct outfile *o, bool svg, char *err, size_t errlen)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60,
						0x82 };
	unsigned char tail[32];
	struct statvfs vfs;
	struct stat st;
	size_t n = 0;
	ssize_t got;
	bool whole = false, full;
	int fd;

	if (outfile_streams(o))
		return 0;
	fd = open(outfile_child_path(o), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		n = st.st_size < (off_t)sizeof(tail) ? (size_t)st.st_size : sizeof(tail);
		got = pread(fd, tail, n, st.st_size - (off_t)n);
		n = got > 0 ? (size_t)got : 0;
		if (svg) {
			while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' ' ||
					 tail[n - 1] == '\r' || tail[n - 1] == '\t'))
				n--;
			whole = n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
		} else {
			whole = n >= sizeof(iend) && memcmp(tail + n - sizeof(iend), iend,
							    sizeof(iend)) == 0;
		}
	}
	full = fstatvfs(fd, &vfs) == 0 && (vfs.f_bavail == 0 || vfs.f_bfree == 0);
	close(fd);
	if (whole)
		return 0;
	say(err, errlen, "gnuplot exited 0 but left %s %s (%lld bytes, %s)%s: neither plot "
	    "written", outfile_path(o), st.st_size > 0 ? "short" : "empty", (long long)st.st_size,
	    svg ? "no closing </svg>" : "no IEND chunk",
	    full ? "; its file system is full" : "; was its file system full?");
	return -ENOSPC;
}

/* Start gnuplot; its pid or -errno. */
static pid_t
spawn(char *const argv[], int efd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t block, old, dfl;
	pid_t pid;
	int rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);	/* a reader of a FIFO output that goes away ends it */
	/* the signals that would kill it are held until its pid is known */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, efd, 2);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETSIGMASK);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &dfl);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &old);
	if (rc == 0)
		rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	if (rc == 0)
		gp_pid = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc == 0 ? pid : -rc;
}

int
plot_draw(const char *script, size_t script_len, const char *data, size_t data_len,
	  struct plot_out *outs, unsigned int n, const char *gp_path, const char *dat_path,
	  char *err, size_t errlen)
{
	char sp[64], dp[64], vars[1024], said[1200], how[48], files[2 * PATH_MAX + 8];
	char *argv[] = { "gnuplot", "-e", vars, sp, NULL };
	int sfd, dfd, efd = -1, rc, st = 0;
	size_t k = 0;
	unsigned int i;
	pid_t pid;

	for (i = 0; i < n; i++)
		k += (size_t)snprintf(files + k, k < sizeof(files) ? sizeof(files) - k : 0, "%s%s",
				      i == 0 ? "" : i + 1 == n ? " and " : ", ",
				      outfile_path(outs[i].f));
	sfd = mem_file("plot.gp", script, script_len);
	dfd = mem_file("plot.dat", data, data_len);
	if (sfd >= 0 && dfd >= 0)
		efd = memfd_create("gnuplot-stderr", MFD_CLOEXEC);
	rc = sfd < 0 ? sfd : dfd < 0 ? dfd : efd < 0 ? -errno : 0;
	if (rc != 0) {
		say(err, errlen, "cannot give gnuplot its script: %s: %s not drawn", strerror(-rc),
		    files);
		goto fail;
	}
	snprintf(sp, sizeof(sp), "/proc/%d/fd/%d", (int)getpid(), sfd);
	snprintf(dp, sizeof(dp), "/proc/%d/fd/%d", (int)getpid(), dfd);
	k = 0;
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(vars + k, k < sizeof(vars) ? sizeof(vars) - k : 0, "%s='%s'; ",
				      outs[i].var, outfile_child_path(outs[i].f));
	snprintf(vars + k, k < sizeof(vars) ? sizeof(vars) - k : 0, "dat='%s'", dp);
	pid = spawn(argv, efd);
	if (pid < 0) {
		rc = (int)pid;
		if (rc == -ENOENT)
			say(err, errlen, "gnuplot is not installed (apt-get install gnuplot-nox): "
			    "%s not drawn", files);
		else
			say(err, errlen, "cannot run gnuplot: %s: %s not drawn", strerror(-rc),
			    files);
		goto fail;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			gp_pid = 0;
			say(err, errlen, "waiting for gnuplot: %s: %s not written", strerror(-rc),
			    files);
			goto fail;
		}
	}
	gp_pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		struct rename rn[2 + 2 * PLOT_OUTS_MAX];
		unsigned int nr = 0;

		rn[nr++] = (struct rename){ sp, gp_path };
		rn[nr++] = (struct rename){ dp, dat_path };
		for (i = 0; i < n && i < PLOT_OUTS_MAX; i++)
			rn[nr++] = (struct rename){ outfile_child_path(outs[i].f),
						    outfile_path(outs[i].f) };
		read_said(efd, rn, nr, said, sizeof(said));
		if (WIFEXITED(st))
			snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(st));
		else
			snprintf(how, sizeof(how), "ended by signal %d", WIFSIGNALED(st) ?
				 WTERMSIG(st) : 0);
		say(err, errlen, "gnuplot failed on %s (%s), %s written; gnuplot said:\n    %s",
		    files, how, n > 1 ? "none" : "not", said[0] ? said : "(nothing)");
		rc = -EIO;
		goto fail;
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = check_whole(outs[i].f, outs[i].svg, err, errlen);
	if (rc != 0)
		goto fail;
	close(sfd);
	close(dfd);
	close(efd);
	for (i = 0; i < n; i++) {
		int rc2 = rc == 0 ? outfile_commit(outs[i].f) : (outfile_abort(outs[i].f), 0);

		outs[i].f = NULL;
		if (rc == 0 && rc2 != 0) {
			say(err, errlen, "cannot write %s: %s", outs[i].var, strerror(-rc2));
			rc = rc2;
		}
	}
	return rc;
fail:
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	if (efd >= 0)
		close(efd);
	for (i = 0; i < n; i++) {
		outfile_abort(outs[i].f);
		outs[i].f = NULL;
	}
	return rc;
}

int
sweep_plot_draw(const char *script, size_t script_len, const char *data, size_t data_len,
		struct outfile *svg, struct outfile *png, const char *gp_path,
		const char *dat_path, char *err, size_t errlen)
{
	struct plot_out o[2] = { { "svg", svg, true }, { "png", png, false } };

	return plot_draw(script, script_len, data, data_len, o, 2, gp_path, dat_path, err,
			 errlen);
}
