/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files (traces/outfile.c): what each kind of path becomes.  A new name and a regular
 * file appear whole at commit (nothing in the directory meanwhile, the replaced file's mode
 * kept, an abort leaving it as it was); a link stays a link and its target (also at the end of a
 * chain, or missing) gets the data; a FIFO is streamed (no reader: -EAGAIN; a reader that goes
 * away: -EPIPE, and SIGPIPE does not end the process); "-" streams to the standard output and
 * moves whatever else is printed to the standard error; a device node, a directory, a socket, a
 * missing directory and a loop of links are refused with the path and what it is, and are left
 * as they were.  With SYNCEMU_OUTFILE_NAMED=1 the named temporary is visible while writing and
 * outfile_signal_cleanup() removes it.  Everything happens in a mkdtemp() directory; the device
 * node is a scratch one made there with mknod (as root; skipped otherwise).
 * The kernel resolves the path: a link's target is written in its own directory (the named
 * temporary appears there, not beside the link), a dangling link's hops are followed across
 * directories to the name created, a link into /proc and a name ending in '/' are refused, and
 * what comes at the name between outfile_new() and the commit decides then: a link or a FIFO
 * that appeared is left as it is (-EEXIST, its target untouched), a FIFO replaced by a file is
 * not written into.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "outfile.h"

static char dir[256];		/* the group's mkdtemp() directory */
static char err[1024];

static char *
path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

/* Entries of the group's directory whose name has @p part. */
static unsigned int
entries_with(const char *part)
{
	unsigned int n = 0;
	struct dirent *e;
	DIR *dp = opendir(dir);

	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    strstr(e->d_name, part) != NULL)
			n++;
	closedir(dp);
	return n;
}

static void
spew(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void
assert_content(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* outfile_new() + outfile_open(), both expected to work. */
static struct outfile *
open_ok(const char *path, enum outfile_kind kind)
{
	struct outfile *o = outfile_new(path, "the test output", err, sizeof(err));

	if (o == NULL)
		fail_msg("outfile_new(%s): %s", path, err);
	assert_int_equal(outfile_kind(o), kind);
	if (outfile_open(o, false, err, sizeof(err)) != 0)
		fail_msg("outfile_open(%s): %s", path, err);
	return o;
}

/* outfile_new() refuses @p path with @p want_errno and a message holding @p part and the path. */
static void
refused(const char *path, int want_errno, const char *part)
{
	struct outfile *o;

	errno = 0;
	err[0] = '\0';
	o = outfile_new(path, "the test output", err, sizeof(err));
	assert_null(o);
	assert_int_equal(errno, want_errno);
	if (strstr(err, part) == NULL || strstr(err, path) == NULL)
		fail_msg("message '%s' lacks '%s' or the path", err, part);
}

static void
test_new_name(void **state)
{
	char path[PATH_MAX];
	struct outfile *o;
	struct stat st;
	mode_t mask = umask(022);

	(void)state;
	o = open_ok(path_in(path, "new.txt"), OUTFILE_NEW);
	assert_false(outfile_streams(o));
	assert_int_equal(outfile_write(o, "hello ", 6), 0);
	assert_int_equal(fprintf(outfile_fp(o), "world"), 5);
	assert_int_equal(access(path, F_OK), -1);		/* nothing until the commit */
	assert_int_equal(entries_with(".tmp."), 0);		/* an anonymous temporary */
	assert_int_equal(outfile_commit(o), 0);
	assert_content(path, "hello world");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	umask(mask);
}

static void
test_regular_kept_mode_and_abort(void **state)
{
	char path[PATH_MAX];
	struct outfile *o;
	struct stat st;

	(void)state;
	spew(path_in(path, "old.txt"), "the old one");
	assert_int_equal(chmod(path, 0604), 0);
	o = open_ok(path, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "discarded", 9), 0);
	outfile_abort(o);
	assert_content(path, "the old one");

	o = open_ok(path, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "the new one", 11), 0);
	assert_content(path, "the old one");		/* still, until the commit */
	assert_int_equal(outfile_commit(o), 0);
	assert_content(path, "the new one");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	assert_int_equal(entries_with(".tmp."), 0);
}

static void
test_links(void **state)
{
	char link[PATH_MAX], target[PATH_MAX], buf[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	struct outfile *o;
	struct stat st;
	ssize_t n;

	(void)state;
	/* a link to a file: the link stays, the file gets the data */
	spew(path_in(target, "target.txt"), "before");
	assert_int_equal(symlink("target.txt", path_in(link, "link.txt")), 0);
	o = open_ok(link, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "after", 5), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(link, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "target.txt");
	assert_content(target, "after");

	/* a chain: a -> b -> target.txt */
	assert_int_equal(symlink(link, path_in(a, "a.lnk")), 0);
	assert_int_equal(symlink("a.lnk", path_in(b, "b.lnk")), 0);
	o = open_ok(b, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "chained", 7), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_int_equal(lstat(a, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(b, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content(target, "chained");

	/* a dangling link creates its target */
	assert_int_equal(symlink("made.txt", path_in(link, "dangling.lnk")), 0);
	o = open_ok(link, OUTFILE_NEW);
	assert_int_equal(outfile_write(o, "made", 4), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content(path_in(target, "made.txt"), "made");

	/* a loop */
	assert_int_equal(symlink("loop2", path_in(a, "loop1")), 0);
	assert_int_equal(symlink("loop1", path_in(b, "loop2")), 0);
	refused(a, ELOOP, "too many levels of symbolic links");
}

static void
test_fifo(void **state)
{
	char path[PATH_MAX], buf[64];
	struct outfile *o;
	struct stat st;
	int rd;

	(void)state;
	assert_int_equal(mkfifo(path_in(path, "fifo"), 0600), 0);
	o = outfile_new(path, "the test output", err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(outfile_kind(o), OUTFILE_FIFO);
	assert_true(outfile_streams(o));
	assert_int_equal(outfile_open(o, false, err, sizeof(err)), -EAGAIN);	/* no reader */
	assert_non_null(strstr(err, "no reader"));
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(outfile_open(o, false, err, sizeof(err)), 0);
	assert_int_equal(outfile_write(o, "live", 4), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 4);		/* before any commit */
	assert_memory_equal(buf, "live", 4);
	/* the reader goes away: an error, not the end of the process */
	close(rd);
	assert_int_equal(outfile_write(o, "more", 4), -EPIPE);
	assert_int_equal(outfile_write(o, "more", 4), -EPIPE);		/* sticky */
	assert_int_equal(outfile_commit(o), -EPIPE);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	/* a committed stream */
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	o = open_ok(path, OUTFILE_FIFO);
	assert_int_equal(outfile_write(o, "whole", 5), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 5);
	assert_int_equal(read(rd, buf, sizeof(buf)), 0);		/* the writer closed */
	close(rd);
}

static void
test_refused(void **state)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	(void)state;
	refused(dir, EINVAL, "is a directory");
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	refused(path_in(path, "no/such/dir/x"), ENOENT, "does not exist");
	refused("", EINVAL, "empty");

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	path_in(path, "sock");
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	refused(path, EINVAL, "is a socket");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	close(s);

	if (geteuid() != 0)
		return;			/* mknod needs root: the device node is skipped */
	assert_int_equal(mknod(path_in(path, "null"), S_IFCHR | 0666, makedev(1, 3)), 0);
	refused(path, EINVAL, "is a character device");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* also through a link, which is named */
	assert_int_equal(symlink(path, path_in(link, "null.lnk")), 0);
	refused(link, EINVAL, "a symbolic link to");
}

static void
test_same(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	struct outfile *x, *y, *z;

	(void)state;
	x = outfile_new(path_in(a, "same-new"), "x", err, sizeof(err));
	y = outfile_new(path_in(b, "./same-new"), "y", err, sizeof(err));
	z = outfile_new(path_in(c, "other-new"), "z", err, sizeof(err));
	assert_true(x != NULL && y != NULL && z != NULL);
	assert_true(outfile_same(x, y));
	assert_false(outfile_same(x, z));
	outfile_abort(x);
	outfile_abort(y);
	outfile_abort(z);

	spew(path_in(a, "input.ini"), "[run]\n");
	assert_int_equal(symlink("input.ini", path_in(b, "input.lnk")), 0);
	x = outfile_new(b, "x", err, sizeof(err));
	y = outfile_new(a, "y", err, sizeof(err));
	assert_true(x != NULL && y != NULL);
	assert_true(outfile_same(x, y));
	assert_true(outfile_is_file(x, a));
	assert_false(outfile_is_file(x, path_in(c, "missing")));
	assert_false(outfile_is_file(x, NULL));
	outfile_abort(x);
	outfile_abort(y);
	assert_content(a, "[run]\n");
}

static void
test_named_temporary(void **state)
{
	char path[PATH_MAX];
	struct outfile *o;

	(void)state;
	assert_int_equal(setenv("SYNCEMU_OUTFILE_NAMED", "1", 1), 0);
	spew(path_in(path, "named.txt"), "kept");
	o = open_ok(path, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "new", 3), 0);
	assert_int_equal(entries_with("named.txt.tmp."), 1);		/* visible meanwhile */
	outfile_signal_cleanup();					/* as a signal would */
	assert_int_equal(entries_with("named.txt.tmp."), 0);
	assert_int_equal(outfile_commit(o), -ENOENT);			/* it is gone: nothing */
	assert_content(path, "kept");

	o = open_ok(path, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "new", 3), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_content(path, "new");
	assert_int_equal(entries_with(".tmp."), 0);
	assert_int_equal(unsetenv("SYNCEMU_OUTFILE_NAMED"), 0);
}

/* Another process (gnuplot, say) writes through outfile_child_path(); here, this one. */
static void
test_child_path(void **state)
{
	char path[PATH_MAX];
	struct outfile *o;
	FILE *f;

	(void)state;
	o = open_ok(path_in(path, "plot.svg"), OUTFILE_NEW);
	assert_non_null(outfile_child_path(o));
	f = fopen(outfile_child_path(o), "w");
	assert_non_null(f);
	assert_true(fputs("<svg/>", f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(outfile_commit(o), 0);
	assert_content(path, "<svg/>");
}

/* "-": the data to the standard output, anything printed after to the standard error. */
static void
test_stdout(void **state)
{
	int out[2], errp[2], status;
	char buf[64];
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(errp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct outfile *o;

		dup2(out[1], STDOUT_FILENO);
		dup2(errp[1], STDERR_FILENO);
		close(out[0]);
		close(errp[0]);
		o = outfile_new("-", "the test output", NULL, 0);
		if (o == NULL || outfile_kind(o) != OUTFILE_STDOUT ||
		    outfile_open(o, false, NULL, 0) != 0)
			_exit(2);
		printf("report");
		fflush(stdout);
		if (outfile_write(o, "data", 4) != 0 || outfile_commit(o) != 0)
			_exit(3);
		_exit(0);
	}
	close(out[1]);
	close(errp[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	n = read(out[0], buf, sizeof(buf));
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "data", 4);
	n = read(errp[0], buf, sizeof(buf));
	assert_int_equal(n, 6);
	assert_memory_equal(buf, "report", 6);
	close(out[0]);
	close(errp[0]);
}

/* "/dev/stdout" is the standard output too (only looked at: it is a real node). */
static void
test_dev_stdout(void **state)
{
	struct outfile *a = outfile_new("/dev/stdout", "a", err, sizeof(err));
	struct outfile *b = outfile_new("-", "b", err, sizeof(err));

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(outfile_kind(a), OUTFILE_STDOUT);
	assert_true(outfile_streams(a));
	assert_true(outfile_same(a, b));
	outfile_abort(a);
	outfile_abort(b);
}

/* A link's target in another directory: the temporary and the rename happen there. */
static void
test_link_elsewhere(void **state)
{
	char sub[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
	struct outfile *o;
	struct stat st;
	DIR *dp;
	struct dirent *e;
	unsigned int in_sub = 0;

	(void)state;
	assert_int_equal(mkdir(path_in(sub, "elsewhere"), 0755), 0);
	spew(path_in(target, "elsewhere/real.txt"), "before");
	assert_int_equal(symlink("elsewhere/real.txt", path_in(link, "far.lnk")), 0);
	assert_int_equal(setenv("SYNCEMU_OUTFILE_NAMED", "1", 1), 0);
	o = open_ok(link, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "after", 5), 0);
	dp = opendir(sub);
	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		in_sub += strstr(e->d_name, "real.txt.tmp.") != NULL;
	closedir(dp);
	assert_int_equal(in_sub, 1);				/* beside the target */
	assert_int_equal(entries_with("far.lnk.tmp."), 0);	/* not beside the link */
	assert_int_equal(outfile_commit(o), 0);
	assert_int_equal(unsetenv("SYNCEMU_OUTFILE_NAMED"), 0);
	assert_content(target, "after");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* a dangling chain across directories: link -> elsewhere/hop -> ../made-far.txt */
	assert_int_equal(symlink("../made-far.txt", path_in(target, "elsewhere/hop")), 0);
	assert_int_equal(symlink("elsewhere/hop", path_in(link, "chain.lnk")), 0);
	o = open_ok(link, OUTFILE_NEW);
	assert_int_equal(outfile_write(o, "far", 3), 0);
	assert_int_equal(outfile_commit(o), 0);
	assert_content(path_in(target, "made-far.txt"), "far");
}

/* What the kernel resolves and what it does not: /proc's links, a name that is a directory. */
static void
test_refused_paths(void **state)
{
	char path[PATH_MAX];

	(void)state;
	refused("/proc/self/fd/2", EINVAL, "leads through /proc");
	spew(path_in(path, "plain.txt"), "x");
	snprintf(path + strlen(path), 2, "/");
	refused(path, EINVAL, "ends in '/'");
	refused(path_in(path, "sub-dir/"), EINVAL, "ends in '/'");
	refused(path_in(path, "."), EINVAL, "is a directory");
}

/* What comes at the name before the commit is looked at then, and left as it is. */
static void
test_changed_meanwhile(void **state)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct outfile *o;
	struct stat st;

	(void)state;
	/* a new name where a link appears: the link and its target as they were */
	spew(path_in(target, "victim.txt"), "untouched");
	o = open_ok(path_in(path, "appears.txt"), OUTFILE_NEW);
	assert_int_equal(outfile_write(o, "data", 4), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(outfile_commit(o), -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content(target, "untouched");

	/* a regular file replaced by a FIFO meanwhile: left a FIFO */
	spew(path_in(path, "was-file.txt"), "old");
	o = open_ok(path, OUTFILE_REGULAR);
	assert_int_equal(outfile_write(o, "new", 3), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(outfile_commit(o), -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	/* a FIFO replaced by a regular file before it is opened: not written into */
	assert_int_equal(mkfifo(path_in(path, "was-fifo"), 0600), 0);
	o = outfile_new(path, "the test output", err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(outfile_kind(o), OUTFILE_FIFO);
	assert_int_equal(unlink(path), 0);
	spew(path, "a file now");
	assert_int_equal(outfile_open(o, false, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "changed"));
	outfile_abort(o);
	assert_content(path, "a file now");

	/* ... and by nothing: no file is left where it was */
	assert_int_equal(mkfifo(path_in(path, "gone-fifo"), 0600), 0);
	o = outfile_new(path, "the test output", err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(outfile_open(o, false, err, sizeof(err)), -EAGAIN);
	outfile_abort(o);
	assert_int_equal(access(path, F_OK), -1);
}

static int
group_setup(void **state)
{
	(void)state;
	return tc_tmpdir(dir, sizeof(dir), "test_outfile");
}

static int
group_teardown(void **state)
{
	(void)state;
	return tc_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_name),
		cmocka_unit_test(test_regular_kept_mode_and_abort),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_named_temporary),
		cmocka_unit_test(test_child_path),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_dev_stdout),
		cmocka_unit_test(test_link_elsewhere),
		cmocka_unit_test(test_refused_paths),
		cmocka_unit_test(test_changed_meanwhile),
	};

	return tc_group_result(cmocka_run_group_tests(tests, group_setup, group_teardown), dir);
}
