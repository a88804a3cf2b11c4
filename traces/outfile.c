/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files (see outfile.h): classify the path, write through a temporary or a stream, then
 * commit or abort.
 *
 * Named temporaries live in a fixed table of slots that a signal handler can walk without
 * locks: a slot is reserved (RESERVED) while its name is written, and only a LIVE slot's file is
 * removed by outfile_signal_cleanup().  A name is made live before the file is created and
 * dropped after it is renamed or removed, so a handler that runs at any point (in this thread or
 * another) removes at most a temporary, never the target: a rename that then fails because its
 * source is gone leaves the target as it was, and the process is ending anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

#define LINKS_MAX 40			/* symbolic links followed, as the kernel's MAXSYMLINKS */
#define SLOTS 32			/* named temporaries at once */
#define NAME_TRIES 100			/* random names tried before giving up */

enum { SLOT_FREE, SLOT_RESERVED, SLOT_LIVE };

static struct {
	atomic_int state;		/**< SLOT_* */
	char path[PATH_MAX];		/**< the temporary's name while LIVE */
} slots[SLOTS];

struct outfile {
	enum outfile_kind kind;
	int fd;				/**< the temporary or the stream, -1 until opened */
	int err;			/**< first write error (-errno), sticky */
	int slot;			/**< the named temporary's slot, -1: none */
	bool anon;			/**< the temporary is an O_TMPFILE */
	bool exists;			/**< dev, ino are the file's; else its directory's */
	dev_t dev;
	ino_t ino;
	mode_t mode;			/**< REGULAR: the replaced file's mode and owner */
	uid_t uid;
	gid_t gid;
	FILE *fp;			/**< outfile_fp(), or NULL */
	char *path;			/**< as given */
	char *target;			/**< the file written, links followed */
	const char *base;		/**< last component of target */
	char *what;			/**< how messages name it */
	char child[64];			/**< outfile_child_path() */
};

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

/* ---- the slots of named temporaries ---- */

static int
slot_take(void)
{
	int i, want;

	for (i = 0; i < SLOTS; i++) {
		want = SLOT_FREE;
		if (atomic_compare_exchange_strong(&slots[i].state, &want, SLOT_RESERVED))
			return i;
	}
	return -1;
}

static void
slot_drop(int i)
{
	if (i >= 0)
		atomic_store(&slots[i].state, SLOT_FREE);
}

void
outfile_signal_cleanup(void)
{
	int i;

	for (i = 0; i < SLOTS; i++)
		if (atomic_load(&slots[i].state) == SLOT_LIVE)
			unlink(slots[i].path);
}

static void
on_fatal(int sig)
{
	outfile_signal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
outfile_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		/* a signal ignored from the start (nohup, a script's background job) stays so */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/*
 * Reserve a slot and make it a fresh name "<target>.tmp.XXXXXX" (not yet created), LIVE.
 * Returns the slot or -errno.
 */
static int
slot_name(const struct outfile *o, unsigned int attempt)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	char suffix[7];
	int i, n;

	i = slot_take();
	if (i < 0)
		return -EMFILE;
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		unsigned int x = (unsigned int)getpid() * 2654435761u + attempt * 40503u;

		for (n = 0; n < 6; n++, x = x * 1103515245u + 12345u)
			rnd[n] = (unsigned char)(x >> 16);
	}
	for (n = 0; n < 6; n++)
		suffix[n] = abc[rnd[n] % (sizeof(abc) - 1)];
	suffix[6] = '\0';
	n = snprintf(slots[i].path, sizeof(slots[i].path), "%s.tmp.%s", o->target, suffix);
	if (n < 0 || (size_t)n >= sizeof(slots[i].path)) {
		slot_drop(i);
		return -ENAMETOOLONG;
	}
	atomic_store(&slots[i].state, SLOT_LIVE);
	return i;
}

/* ---- classifying the path ---- */

static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

const char *
outfile_kind_name(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "of an unknown kind";
}

/*
 * Follow @p path through symbolic links to what it names: *target (allocated) and, if it
 * exists, its lstat() in @p st (*exists).  0 or -errno.
 */
static int
resolve(const char *path, char **target, struct stat *st, bool *exists)
{
	char *cur = strdup(path), *next, *dir, buf[PATH_MAX];
	unsigned int hops;
	ssize_t n;
	int rc;

	for (hops = 0; cur != NULL; hops++) {
		if (lstat(cur, st) != 0) {
			rc = -errno;
			if (rc != -ENOENT) {
				free(cur);
				return rc;
			}
			*exists = false;
			*target = cur;
			return 0;
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = true;
			*target = cur;
			return 0;
		}
		if (hops == LINKS_MAX) {
			free(cur);
			return -ELOOP;
		}
		n = readlink(cur, buf, sizeof(buf) - 1);
		if (n < 0) {
			rc = -errno;
			free(cur);
			return rc;
		}
		buf[n] = '\0';
		if (buf[0] == '/' || strchr(cur, '/') == NULL) {
			next = strdup(buf);
		} else {
			dir = dir_of(cur);
			if (dir == NULL || asprintf(&next, "%s/%s", dir, buf) < 0)
				next = NULL;
			free(dir);
		}
		free(cur);
		cur = next;
	}
	return -ENOMEM;
}

/* The directory the temporary goes in must exist and be writable; its identity for a new name. */
static int
check_dir(struct outfile *o, const char *shown, char *err, size_t errlen)
{
	char *dir = dir_of(o->target);
	struct stat st;
	int rc = 0;

	if (dir == NULL)
		return -ENOMEM;
	if (stat(dir, &st) != 0) {
		rc = -errno;
		if (rc == -ENOENT)
			say(err, errlen, "%s %s%s: the directory %s does not exist", o->what,
			    o->path, shown, dir);
		else
			say(err, errlen, "%s %s%s: the directory %s: %s", o->what, o->path, shown,
			    dir, strerror(-rc));
	} else if (!S_ISDIR(st.st_mode)) {
		rc = -ENOTDIR;
		say(err, errlen, "%s %s%s: %s is not a directory", o->what, o->path, shown, dir);
	} else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
		rc = -errno;
		say(err, errlen, "%s %s%s: cannot write in the directory %s: %s", o->what, o->path,
		    shown, dir, strerror(-rc));
	} else if (!o->exists) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
	free(dir);
	return rc;
}

static int
classify(struct outfile *o, char *err, size_t errlen)
{
	char shown[PATH_MAX + 40] = "";
	struct stat st;
	int rc;

	if (strcmp(o->path, "-") == 0 || strcmp(o->path, "/dev/stdout") == 0) {
		o->kind = OUTFILE_STDOUT;
		if (fstat(STDOUT_FILENO, &st) != 0) {
			rc = -errno;
			say(err, errlen, "%s %s: the standard output: %s", o->what, o->path,
			    strerror(-rc));
			return rc;
		}
		o->exists = true;
		o->dev = st.st_dev;
		o->ino = st.st_ino;
		o->target = strdup(o->path);
		return o->target != NULL ? 0 : -ENOMEM;
	}
	rc = resolve(o->path, &o->target, &st, &o->exists);
	if (rc != 0) {
		say(err, errlen, "%s %s: %s", o->what, o->path,
		    rc == -ELOOP ? "too many levels of symbolic links" : strerror(-rc));
		return rc;
	}
	o->base = strrchr(o->target, '/') != NULL ? strrchr(o->target, '/') + 1 : o->target;
	if (strcmp(o->target, o->path) != 0)
		snprintf(shown, sizeof(shown), " (a symbolic link to %s)", o->target);
	if (!o->exists) {
		o->kind = OUTFILE_NEW;
		return check_dir(o, shown, err, errlen);
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	if (S_ISFIFO(st.st_mode)) {
		o->kind = OUTFILE_FIFO;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		say(err, errlen, "%s %s%s is %s: syncemu writes a regular file, a FIFO or '-' "
		    "(the standard output) and leaves anything else as it is%s", o->what, o->path,
		    shown, outfile_kind_name(st.st_mode), S_ISCHR(st.st_mode) ?
		    " (to write nothing, leave the output out)" : "");
		return -EINVAL;
	}
	o->kind = OUTFILE_REGULAR;
	o->mode = st.st_mode & 07777;
	o->uid = st.st_uid;
	o->gid = st.st_gid;
	return check_dir(o, shown, err, errlen);
}

struct outfile *
outfile_new(const char *path, const char *what, char *err, size_t errlen)
{
	struct outfile *o;
	int rc;

	if (path == NULL || path[0] == '\0') {
		say(err, errlen, "%s: an empty path", what != NULL ? what : "output");
		errno = EINVAL;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NULL;
	o->fd = -1;
	o->slot = -1;
	o->path = strdup(path);
	o->what = strdup(what != NULL ? what : "output");
	if (o->path == NULL || o->what == NULL)
		rc = -ENOMEM;
	else
		rc = classify(o, err, errlen);
	if (rc != 0) {
		if (rc == -ENOMEM)
			say(err, errlen, "out of memory");
		outfile_abort(o);
		errno = -rc;
		return NULL;
	}
	return o;
}

enum outfile_kind
outfile_kind(const struct outfile *o)
{
	return o->kind;
}

bool
outfile_streams(const struct outfile *o)
{
	return o != NULL && (o->kind == OUTFILE_FIFO || o->kind == OUTFILE_STDOUT);
}

const char *
outfile_path(const struct outfile *o)
{
	return o != NULL ? o->path : NULL;
}

bool
outfile_same(const struct outfile *a, const struct outfile *b)
{
	if (a == NULL || b == NULL)
		return false;
	if (a->kind == OUTFILE_STDOUT && b->kind == OUTFILE_STDOUT)
		return true;
	if (a->exists != b->exists || a->dev != b->dev || a->ino != b->ino)
		return false;
	return a->exists || strcmp(a->base, b->base) == 0;
}

bool
outfile_is_file(const struct outfile *o, const char *path)
{
	struct stat st;

	if (o == NULL || path == NULL || path[0] == '\0' || !o->exists || stat(path, &st) != 0)
		return false;
	return st.st_dev == o->dev && st.st_ino == o->ino;
}

/* ---- opening ---- */

static int
open_stream(struct outfile *o, bool wait, char *err, size_t errlen)
{
	int fl, rc;

	if (o->kind == OUTFILE_STDOUT) {
		o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0) {
			rc = -errno;
			say(err, errlen, "%s %s: the standard output: %s", o->what, o->path,
			    strerror(-rc));
			return rc;
		}
		/* from now on whatever else is printed goes to the standard error */
		fflush(stdout);
		dup2(STDERR_FILENO, STDOUT_FILENO);
	} else {
		o->fd = open(o->target, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (o->fd < 0 && errno == ENXIO) {
			if (!wait) {
				say(err, errlen, "%s %s: the FIFO has no reader", o->what, o->path);
				return -EAGAIN;
			}
			o->fd = open(o->target, O_WRONLY | O_CLOEXEC);
		} else if (o->fd >= 0) {
			fl = fcntl(o->fd, F_GETFL);
			if (fl < 0 || fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
				rc = -errno;
				close(o->fd);
				o->fd = -1;
				say(err, errlen, "%s %s: %s", o->what, o->path, strerror(-rc));
				return rc;
			}
		}
		if (o->fd < 0) {
			rc = -errno;
			if (rc == -EINTR)
				say(err, errlen, "%s %s: interrupted while waiting for a reader",
				    o->what, o->path);
			else
				say(err, errlen, "%s %s: %s", o->what, o->path, strerror(-rc));
			return rc;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int
open_temp(struct outfile *o, char *err, size_t errlen)
{
	const char *env = getenv("SYNCEMU_OUTFILE_NAMED");
	bool named = env != NULL && strcmp(env, "1") == 0;
	unsigned int attempt;
	char *dir;
	int rc = 0;

	if (!named) {
		dir = dir_of(o->target);
		if (dir == NULL)
			return -ENOMEM;
		o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		rc = o->fd < 0 ? -errno : 0;
		free(dir);
		o->anon = o->fd >= 0;
	}
	/* no O_TMPFILE here (or not asked for): a named temporary, removed on a signal */
	if (o->fd < 0 && (named || rc == -EOPNOTSUPP || rc == -EISDIR || rc == -EINVAL)) {
		for (attempt = 0; attempt < NAME_TRIES && o->fd < 0; attempt++) {
			o->slot = slot_name(o, attempt);
			if (o->slot < 0) {
				rc = o->slot;
				break;
			}
			o->fd = open(slots[o->slot].path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				     0666);
			rc = o->fd < 0 ? -errno : 0;
			if (o->fd < 0) {
				slot_drop(o->slot);
				o->slot = -1;
				if (rc != -EEXIST)
					break;
			}
		}
	}
	if (o->fd < 0) {
		say(err, errlen, "%s %s: cannot create a file next to %s: %s", o->what, o->path,
		    o->target, strerror(-rc));
		return rc;
	}
	if (o->kind == OUTFILE_REGULAR) {
		/* the replaced file's owner (where allowed: as root) and mode */
		if ((o->uid != geteuid() || o->gid != getegid()) &&
		    fchown(o->fd, o->uid, o->gid) != 0 && fchown(o->fd, (uid_t)-1, o->gid) != 0) {
			/* not allowed: the new file is ours */
		}
		if (fchmod(o->fd, o->mode) != 0) {
			rc = -errno;
			say(err, errlen, "%s %s: fchmod: %s", o->what, o->path, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int
outfile_open(struct outfile *o, bool wait, char *err, size_t errlen)
{
	int rc;

	if (o == NULL || o->fd >= 0)
		return -EINVAL;
	if (outfile_streams(o))
		rc = open_stream(o, wait, err, errlen);
	else
		rc = open_temp(o, err, errlen);
	if (rc == 0)
		snprintf(o->child, sizeof(o->child), "/proc/%d/fd/%d", (int)getpid(), o->fd);
	return rc;
}

/* ---- writing ---- */

int
outfile_write(struct outfile *o, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t k;

	if (o == NULL || o->fd < 0)
		return -EINVAL;
	if (o->err != 0)
		return o->err;
	while (n > 0) {
		k = write(o->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->err = k < 0 ? -errno : -EIO;
			return o->err;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static ssize_t
cookie_write(void *cookie, const char *buf, size_t n)
{
	struct outfile *o = cookie;

	if (outfile_write(o, buf, n) != 0) {
		errno = -o->err;
		return 0;
	}
	return (ssize_t)n;
}

FILE *
outfile_fp(struct outfile *o)
{
	static const cookie_io_functions_t io = { .write = cookie_write };

	if (o == NULL || o->fd < 0) {
		errno = EINVAL;
		return NULL;
	}
	if (o->fp == NULL)
		o->fp = fopencookie(o, "w", io);
	return o->fp;
}

const char *
outfile_child_path(const struct outfile *o)
{
	return o != NULL && o->fd >= 0 ? o->child : NULL;
}

int
outfile_error(const struct outfile *o)
{
	return o != NULL ? o->err : -EINVAL;
}

/* ---- finishing ---- */

/* Link the anonymous temporary at @p name; 0 or -errno. */
static int
link_anon(const struct outfile *o, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT || access("/proc/self/fd", F_OK) == 0)
		return -errno;
	/* no /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH) */
	return linkat(o->fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0 ? 0 : -errno;
}

/* Put the temporary in place of the target (signals blocked by the caller). */
static int
place(struct outfile *o)
{
	unsigned int attempt;
	int rc;

	if (o->anon) {
		if (o->kind == OUTFILE_NEW) {
			rc = link_anon(o, o->target);
			if (rc != -EEXIST)
				return rc;
			/* made meanwhile: replaced like a regular file */
		}
		for (attempt = 0; attempt < NAME_TRIES; attempt++) {
			o->slot = slot_name(o, attempt);
			if (o->slot < 0)
				return o->slot;
			rc = link_anon(o, slots[o->slot].path);
			if (rc != -EEXIST)
				break;
			slot_drop(o->slot);
			o->slot = -1;
		}
		if (o->slot < 0)
			return -EEXIST;
		if (rc != 0) {
			slot_drop(o->slot);
			o->slot = -1;
			return rc;
		}
	}
	rc = rename(slots[o->slot].path, o->target) == 0 ? 0 : -errno;
	if (rc != 0)
		unlink(slots[o->slot].path);
	slot_drop(o->slot);
	o->slot = -1;
	return rc;
}

static void
sync_dir(const struct outfile *o)
{
	char *dir = dir_of(o->target);
	int fd;

	if (dir == NULL)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static void
ofree(struct outfile *o)
{
	free(o->path);
	free(o->target);
	free(o->what);
	free(o);
}

int
outfile_commit(struct outfile *o)
{
	sigset_t all, old;
	int rc;

	if (o == NULL)
		return 0;
	if (o->fp != NULL) {
		errno = 0;
		if (fclose(o->fp) != 0 && o->err == 0)
			o->err = errno != 0 ? -errno : -EIO;
		o->fp = NULL;
	}
	rc = o->fd < 0 ? -EBADF : o->err;
	if (rc == 0 && !outfile_streams(o) && fsync(o->fd) != 0)
		rc = -errno;
	if (rc == 0 && !outfile_streams(o)) {
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		rc = place(o);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc == 0)
			sync_dir(o);
	}
	if (o->fd >= 0 && close(o->fd) != 0 && rc == 0)
		rc = -errno;
	o->fd = -1;
	if (o->slot >= 0) {		/* a named temporary that was not renamed */
		unlink(slots[o->slot].path);
		slot_drop(o->slot);
		o->slot = -1;
	}
	ofree(o);
	return rc;
}

void
outfile_abort(struct outfile *o)
{
	if (o == NULL)
		return;
	if (o->fp != NULL)
		fclose(o->fp);
	if (o->fd >= 0)
		close(o->fd);
	if (o->slot >= 0) {
		unlink(slots[o->slot].path);
		slot_drop(o->slot);
	}
	ofree(o);
}
