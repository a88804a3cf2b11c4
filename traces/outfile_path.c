/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files: what a path names (outfile_impl.h), found with the kernel doing the resolution,
 * so that syncemu never reaches a file through a path with more rights than open(2) has.
 *
 * The directory part is opened first (O_PATH, openat2() with RESOLVE_NO_MAGICLINKS where the
 * kernel has it): its last component is a trailing link there, so a link another user planted
 * in a sticky directory is refused as fs.protected_symlinks says.  The name is then opened in it
 * (O_PATH): a link is followed by the kernel, with the same check, and the file it leads to is
 * found again in its own directory from /proc/self/fd (a path without links, opened with
 * RESOLVE_NO_SYMLINKS and held to the same inode), where the temporary goes and the rename
 * happens.  A dangling link (ENOENT after the kernel allowed following it) is read hop by hop,
 * each hop's directory opened by the kernel, to the name it would create.  A regular file is
 * then opened O_WRONLY | O_CREAT (no O_TRUNC: nothing changes) for open(2)'s verdict on writing
 * it: its mode, fs.protected_regular; a FIFO gets the same verdict when it is opened to stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "outfile_impl.h"

#define LINKS_MAX 40			/* symbolic links followed, as the kernel's MAXSYMLINKS */
#define TRIES 3			/* a path that changes while it is looked at: looked at again */

static void
say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

char *
outfile_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static const char *
base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* "DIR/NAME", allocated ("NAME" for DIR "."). */
static char *
join(const char *dir, const char *name)
{
	char *s;

	if (strcmp(dir, ".") == 0)
		return strdup(name);
	if (asprintf(&s, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0)
		return NULL;
	return s;
}

/*
 * Open @p path relative to @p dirfd with the kernel resolving it: openat2() with @p resolve
 * (RESOLVE_*) and RESOLVE_NO_MAGICLINKS, or openat() where the kernel has no openat2().
 */
static int
kopen(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags,
				.resolve = resolve | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
	return openat(dirfd, path, flags);
}

static int
sysctl_fs(const char *name)
{
	char path[64], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return atoi(buf);
}

const char *
outfile_why(const char *dir, const char *entry, char *buf, size_t len)
{
	char *p = join(dir, entry);
	struct stat d, e;
	const char *knob, *kind;
	bool others;
	int level;

	buf[0] = '\0';
	if (p == NULL)
		return buf;
	if (stat(dir, &d) != 0 || lstat(p, &e) != 0 || !(d.st_mode & S_ISVTX) ||
	    e.st_uid == d.st_uid || e.st_uid == geteuid()) {
		free(p);
		return buf;
	}
	free(p);
	if (S_ISLNK(e.st_mode)) {
		knob = "protected_symlinks";
		kind = "follows no symbolic link";
	} else if (S_ISFIFO(e.st_mode)) {
		knob = "protected_fifos";
		kind = "opens with O_CREAT no FIFO";
	} else if (S_ISREG(e.st_mode)) {
		knob = "protected_regular";
		kind = "opens with O_CREAT no regular file";
	} else {
		return buf;
	}
	level = sysctl_fs(knob);
	others = (d.st_mode & S_IWOTH) || (level >= 2 && !S_ISLNK(e.st_mode) &&
					   (d.st_mode & S_IWGRP));
	if (level > 0 && others)
		snprintf(buf, len, " (the kernel's fs.%s = %d: it %s that another user owns in "
			 "a sticky directory others can write, such as /tmp)", knob, level, kind);
	return buf;
}

/* ---- classifying ---- */

/* Replace o->dirfd with @p fd (which it takes). */
static void
set_dir(struct outfile *o, int fd)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = fd;
}

/*
 * @p fd (O_PATH) is the file a link led to: find it in its own directory (o->dirfd, o->base,
 * o->target).  0, -EAGAIN if it moved meanwhile, or -errno.
 */
static int
find_home(struct outfile *o, int fd, const struct stat *st, char *err, size_t errlen)
{
	char proc[64], real[PATH_MAX], *dir;
	struct stat here;
	ssize_t n;
	int dfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/') {
		say(err, errlen, "%s %s: a symbolic link, and where it leads cannot be found "
		    "without /proc", o->what, o->path);
		return -ENOENT;
	}
	real[n] = '\0';
	dir = outfile_dir_of(real);
	if (dir == NULL)
		return -ENOMEM;
	dfd = kopen(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_SYMLINKS);
	free(dir);
	if (dfd < 0 || fstatat(dfd, base_of(real), &here, AT_SYMLINK_NOFOLLOW) != 0 ||
	    here.st_dev != st->st_dev || here.st_ino != st->st_ino) {
		if (dfd >= 0)
			close(dfd);
		return -EAGAIN;
	}
	set_dir(o, dfd);
	free(o->base);
	free(o->target);
	o->base = strdup(base_of(real));
	o->target = strdup(real);
	return o->base != NULL && o->target != NULL ? 0 : -ENOMEM;
}

/*
 * o->base in o->dirfd is a link the kernel follows to nothing: read it hop by hop, each hop's
 * directory opened by the kernel, to the name a write would create (o->dirfd, o->base,
 * o->target).  0, -EAGAIN if something appeared meanwhile, or -errno with a message.
 */
static int
follow_dangling(struct outfile *o, const char *dir, char *err, size_t errlen)
{
	char body[PATH_MAX], *shown = strdup(dir), *bdir, *next;
	const char *bbase;
	unsigned int hops;
	struct stat st;
	ssize_t n;
	int dfd, rc = -ELOOP;

	if (shown == NULL)
		return -ENOMEM;
	for (hops = 0; hops < LINKS_MAX; hops++) {
		n = readlinkat(o->dirfd, o->base, body, sizeof(body) - 1);
		if (n < 0) {
			rc = errno == EINVAL || errno == ENOENT ? -EAGAIN : -errno;
			break;
		}
		body[n] = '\0';
		bbase = base_of(body);
		if (bbase[0] == '\0' || strcmp(bbase, ".") == 0 || strcmp(bbase, "..") == 0) {
			say(err, errlen, "%s %s leads to the directory name %s: syncemu writes a "
			    "file", o->what, o->path, body);
			rc = -EINVAL;
			break;
		}
		if (strchr(body, '/') != NULL) {
			bdir = outfile_dir_of(body);
			next = bdir == NULL ? NULL : body[0] == '/' ? strdup(bdir) : join(shown, bdir);
			dfd = bdir == NULL ? -1 : kopen(o->dirfd, bdir, O_PATH | O_DIRECTORY |
							O_CLOEXEC, 0);
			rc = bdir == NULL || next == NULL ? -ENOMEM : dfd < 0 ? -errno : 0;
			free(bdir);
			free(shown);
			shown = next;
			if (rc != 0) {
				if (dfd >= 0)
					close(dfd);
				if (rc == -ENOENT || rc == -ENOTDIR)
					say(err, errlen, "%s %s (a symbolic link to %s): the "
					    "directory %s does not exist", o->what, o->path, body,
					    shown);
				else if (rc != -ENOMEM)
					say(err, errlen, "%s %s (a symbolic link to %s): the "
					    "directory %s: %s", o->what, o->path, body, shown,
					    strerror(-rc));
				break;
			}
			set_dir(o, dfd);
		}
		free(o->base);
		o->base = strdup(bbase);
		if (o->base == NULL) {
			rc = -ENOMEM;
			break;
		}
		if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = errno == ENOENT ? 0 : -errno;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			rc = -EAGAIN;		/* it is there now */
			break;
		}
	}
	if (rc == 0) {
		free(o->target);
		o->target = join(shown, o->base);
		rc = o->target != NULL ? 0 : -ENOMEM;
	} else if (rc == -ELOOP) {
		say(err, errlen, "%s %s: too many levels of symbolic links", o->what, o->path);
	}
	free(shown);
	return rc;
}

/* The directory the temporary goes in must be writable; its identity for a new name. */
static int
check_dir(struct outfile *o, const char *shown, char *err, size_t errlen)
{
	char *dir = outfile_dir_of(o->target);
	struct stat st;
	int rc = 0;

	if (dir == NULL)
		return -ENOMEM;
	if (faccessat(o->dirfd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
		rc = -errno;
		say(err, errlen, "%s %s%s: cannot write in the directory %s: %s", o->what,
		    o->path, shown, dir, strerror(-rc));
	} else if (!o->exists) {
		if (fstat(o->dirfd, &st) != 0) {
			rc = -errno;
			say(err, errlen, "%s %s%s: the directory %s: %s", o->what, o->path, shown,
			    dir, strerror(-rc));
		} else {
			o->dev = st.st_dev;
			o->ino = st.st_ino;
		}
	}
	free(dir);
	return rc;
}

int
outfile_may_write(const struct outfile *o, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd, rc = 0;

	/* mode 0: a file this call had to create (what was there went away) is known as such */
	fd = openat(o->dirfd, o->base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC, 0);
	if (fd < 0)
		return errno == EWOULDBLOCK ? 0 : -errno;	/* a lease: open(2) would wait */
	if (fstat(fd, &st) != 0) {
		rc = -errno;
	} else if (st.st_dev != dev || st.st_ino != ino) {
		if (S_ISREG(st.st_mode) && st.st_size == 0 && (st.st_mode & 07777) == 0 &&
		    st.st_uid == geteuid())
			unlinkat(o->dirfd, o->base, 0);
		rc = -EAGAIN;
	}
	close(fd);
	return rc;
}

/* Refused by open(2): the message, with the kernel's reason where it is one of its rules. */
static void
refused(const struct outfile *o, const char *shown, int rc, char *err, size_t errlen)
{
	char why[256], *dir = outfile_dir_of(o->target);

	say(err, errlen, "%s %s%s: %s%s", o->what, o->path, shown, strerror(-rc),
	    rc == -EACCES && dir != NULL ? outfile_why(dir, o->base, why, sizeof(why)) : "");
	free(dir);
}

/* The kind of what the kernel found (@p fd, O_PATH, @p st): a regular file or a FIFO. */
static int
take(struct outfile *o, const struct stat *st, const char *shown, char *err, size_t errlen)
{
	int rc;

	o->exists = true;
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	if (S_ISFIFO(st->st_mode)) {
		o->kind = OUTFILE_FIFO;		/* open(2)'s verdict when it is opened */
		return 0;
	}
	if (!S_ISREG(st->st_mode)) {
		say(err, errlen, "%s %s%s is %s: syncemu writes a regular file, a FIFO or '-' "
		    "(the standard output) and leaves anything else as it is%s", o->what, o->path,
		    shown, outfile_kind_name(st->st_mode), S_ISCHR(st->st_mode) ?
		    " (to write nothing, leave the output out)" : "");
		return -EINVAL;
	}
	o->kind = OUTFILE_REGULAR;
	o->mode = st->st_mode & 07777;
	o->uid = st->st_uid;
	o->gid = st->st_gid;
	rc = check_dir(o, shown, err, errlen);
	if (rc != 0)
		return rc;
	rc = outfile_may_write(o, o->dev, o->ino);
	if (rc != 0 && rc != -EAGAIN)
		refused(o, shown, rc, err, errlen);
	return rc;
}

/* The directory @p dir of the path could not be opened: why. */
static void
dir_refused(const struct outfile *o, const char *dir, int rc, char *err, size_t errlen)
{
	char why[256] = "", *parent = outfile_dir_of(dir);

	if (rc == -EACCES && parent != NULL)
		outfile_why(parent, base_of(dir), why, sizeof(why));
	say(err, errlen, "%s %s: the directory %s: %s%s", o->what, o->path, dir, strerror(-rc),
	    why);
	free(parent);
}

/* One look at o->path (not "-"): 0, -EAGAIN if it changed meanwhile, or -errno. */
static int
look(struct outfile *o, char *err, size_t errlen)
{
	char shown[PATH_MAX + 40] = "", why[256], *dir = outfile_dir_of(o->path);
	const char *base = base_of(o->path);
	struct stat st, lst;
	int fd, rc;

	o->exists = false;
	free(o->base);
	free(o->target);
	o->base = strdup(base);
	o->target = strdup(o->path);
	if (dir == NULL || o->base == NULL || o->target == NULL) {
		free(dir);
		return -ENOMEM;
	}
	if (base[0] == '\0') {
		say(err, errlen, "%s %s: a name that ends in '/' is a directory's: syncemu writes "
		    "a file", o->what, o->path);
		free(dir);
		return -EINVAL;
	}
	set_dir(o, kopen(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
	if (o->dirfd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			say(err, errlen, "%s %s: the directory %s does not exist", o->what, o->path,
			    dir);
		else if (rc == -ENOTDIR)
			say(err, errlen, "%s %s: %s is not a directory", o->what, o->path, dir);
		else
			dir_refused(o, dir, rc, err, errlen);
		free(dir);
		return rc;
	}
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		say(err, errlen, "%s %s is a directory: syncemu writes a regular file, a FIFO or "
		    "'-' (the standard output)", o->what, o->path);
		free(dir);
		return -EINVAL;
	}
	fd = kopen(o->dirfd, base, O_PATH | O_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT && fstatat(o->dirfd, base, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
			/* a new name */
			rc = errno == ENOENT ? 0 : -errno;
			o->kind = OUTFILE_NEW;
			if (rc == 0)
				rc = check_dir(o, "", err, errlen);
			else
				say(err, errlen, "%s %s: %s", o->what, o->path, strerror(-rc));
		} else if (rc == -ENOENT && S_ISLNK(lst.st_mode)) {
			/* a dangling link the kernel follows: its target is created */
			o->kind = OUTFILE_NEW;
			rc = follow_dangling(o, dir, err, errlen);
			if (rc == 0) {
				snprintf(shown, sizeof(shown), " (a symbolic link to %s)", o->target);
				rc = check_dir(o, shown, err, errlen);
			}
		} else if (rc == -ENOENT) {
			rc = -EAGAIN;		/* there now */
		} else if (rc == -ELOOP && (fd = openat(o->dirfd, base, O_PATH | O_CLOEXEC)) >= 0) {
			close(fd);
			say(err, errlen, "%s %s leads through /proc to what a process has open: "
			    "refused (give '-' for the standard output, or a FIFO)", o->what,
			    o->path);
			rc = -EINVAL;
		} else if (rc == -ELOOP) {
			say(err, errlen, "%s %s: too many levels of symbolic links", o->what,
			    o->path);
		} else {
			say(err, errlen, "%s %s: %s%s", o->what, o->path, strerror(-rc),
			    rc == -EACCES ? outfile_why(dir, base, why, sizeof(why)) : "");
		}
		free(dir);
		return rc;
	}
	free(dir);
	if (fstat(fd, &st) != 0 || fstatat(o->dirfd, base, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
		rc = errno == ENOENT ? -EAGAIN : -errno;
	} else if (S_ISLNK(lst.st_mode)) {
		rc = find_home(o, fd, &st, err, errlen);
		if (rc == 0)
			snprintf(shown, sizeof(shown), " (a symbolic link to %s)", o->target);
	} else {
		rc = lst.st_dev == st.st_dev && lst.st_ino == st.st_ino ? 0 : -EAGAIN;
	}
	close(fd);
	if (rc == 0)
		rc = take(o, &st, shown, err, errlen);
	return rc;
}

int
outfile_classify(struct outfile *o, char *err, size_t errlen)
{
	unsigned int t;
	int rc = -EAGAIN;

	for (t = 0; t < TRIES && rc == -EAGAIN; t++)
		rc = look(o, err, errlen);
	if (rc == -EAGAIN)
		say(err, errlen, "%s %s: it changes while it is looked at: left as it is",
		    o->what, o->path);
	return rc;
}

int
outfile_dir_reach(const char *path, const char *what, char *err, size_t errlen)
{
	char why[256] = "", *parent;
	int fd, rc;

	fd = kopen(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	rc = -errno;
	if (rc == -ENOENT)
		return rc;
	parent = outfile_dir_of(path);
	if (rc == -EACCES && parent != NULL)
		outfile_why(parent, base_of(path), why, sizeof(why));
	free(parent);
	say(err, errlen, "%s %s: %s%s", what, path, strerror(-rc), why);
	return rc;
}
