/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files (see outfile.h): classify the path (outfile_path.c), write through a temporary
 * or a stream, then commit or abort.  Everything after the classification happens in the
 * directory the kernel resolved (o->dirfd), by name in it, following no link.
 *
 * Named temporaries live in a fixed table of slots that a signal handler can walk without
 * locks: a slot is reserved (RESERVED) while its name is written, and only a LIVE slot's file is
 * removed by outfile_signal_cleanup() (unlinkat() in the directory the handle holds open).  A
 * name is made live before the file is created and dropped after it is renamed or removed, so a
 * handler that runs at any point (in this thread or another) removes at most a temporary, never
 * the target: a rename that then fails because its source is gone leaves the target as it was,
 * and the process is ending anyway.
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

#include "outfile_impl.h"

#define SLOTS 32			/* named temporaries at once */
#define NAME_TRIES 100			/* random names tried before giving up */

enum { SLOT_FREE, SLOT_RESERVED, SLOT_LIVE };

static struct {
	atomic_int state;		/**< SLOT_* */
	int dirfd;			/**< the directory it is in (the handle's) */
	char name[NAME_MAX + 1];	/**< the temporary's name there while LIVE */
} slots[SLOTS];

/* Directories outfile_mkdir() made, removed by a signal while empty: the same kind of slots. */
#define DIRS 4
static struct {
	atomic_int state;		/**< SLOT_* */
	char path[PATH_MAX];
} made[DIRS];

/* The standard output was pointed at the standard error (outfile_stdout_moved()). */
static atomic_bool stdout_moved;

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
			unlinkat(slots[i].dirfd, slots[i].name, 0);
	for (i = 0; i < DIRS; i++)
		if (atomic_load(&made[i].state) == SLOT_LIVE)
			rmdir(made[i].path);
}

int
outfile_mkdir(const char *path)
{
	int i, want;

	if (path == NULL || path[0] == '\0' || strlen(path) >= sizeof(made[0].path))
		return path == NULL || path[0] == '\0' ? -EINVAL : -ENAMETOOLONG;
	for (i = 0; i < DIRS; i++) {
		want = SLOT_FREE;
		if (atomic_compare_exchange_strong(&made[i].state, &want, SLOT_RESERVED))
			break;
	}
	if (i < DIRS)
		snprintf(made[i].path, sizeof(made[i].path), "%s", path);
	if (mkdir(path, 0777) != 0) {
		want = errno;
		if (i < DIRS)
			atomic_store(&made[i].state, SLOT_FREE);
		return want == EEXIST ? 0 : -want;
	}
	/* live once made: a signal just before leaves it, rather than remove one made by others */
	if (i < DIRS)
		atomic_store(&made[i].state, SLOT_LIVE);
	return 1;
}

void
outfile_mkdir_done(const char *path, bool remove)
{
	int i;

	if (path == NULL)
		return;
	for (i = 0; i < DIRS; i++)
		if (atomic_load(&made[i].state) == SLOT_LIVE && strcmp(made[i].path, path) == 0) {
			if (remove)
				rmdir(path);
			atomic_store(&made[i].state, SLOT_FREE);
			return;
		}
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
 * Reserve a slot and make it a fresh name "<base>.tmp.XXXXXX" (not yet created), LIVE.
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
	slots[i].dirfd = o->dirfd;
	n = snprintf(slots[i].name, sizeof(slots[i].name), "%s.tmp.%s", o->base, suffix);
	if (n < 0 || (size_t)n >= sizeof(slots[i].name)) {
		slot_drop(i);
		return -ENAMETOOLONG;
	}
	atomic_store(&slots[i].state, SLOT_LIVE);
	return i;
}

/* ---- classifying the path ---- */

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

static int
classify(struct outfile *o, char *err, size_t errlen)
{
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
	return outfile_classify(o, err, errlen);
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
	o->dirfd = -1;
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

/*
 * Open the FIFO as open(2) would with O_WRONLY | O_CREAT (the kernel's fs.protected_fifos
 * applies), in its directory, following nothing; -1 with errno (EAGAIN: something else is there
 * now, and a file this call had to create is removed).
 */
static int
open_fifo(const struct outfile *o, int flags)
{
	struct stat st;
	int fd;

	/* mode 0: a file this call had to create (the FIFO went away) is known as its own */
	fd = openat(o->dirfd, o->base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
		    flags, 0);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_dev == o->dev &&
	    st.st_ino == o->ino)
		return fd;
	if (S_ISREG(st.st_mode) && st.st_size == 0 && (st.st_mode & 07777) == 0 &&
	    st.st_uid == geteuid())
		unlinkat(o->dirfd, o->base, 0);
	close(fd);
	errno = EAGAIN;
	return -1;
}

static const char *
fifo_why(const struct outfile *o, char *buf, size_t len)
{
	char *dir = outfile_dir_of(o->target);

	buf[0] = '\0';
	if (dir != NULL)
		outfile_why(dir, o->base, buf, len);
	free(dir);
	return buf;
}

static int
open_stream(struct outfile *o, bool wait, char *err, size_t errlen)
{
	char why[256];
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
		atomic_store(&stdout_moved, true);
	} else {
		o->fd = open_fifo(o, O_NONBLOCK);
		if (o->fd < 0 && errno == ENXIO) {
			if (!wait) {
				say(err, errlen, "%s %s: the FIFO has no reader", o->what, o->path);
				return -EAGAIN;
			}
			o->fd = open_fifo(o, 0);
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
			else if (rc == -EAGAIN)
				say(err, errlen, "%s %s: the FIFO changed while it was opened: left "
				    "as it is", o->what, o->path);
			else
				say(err, errlen, "%s %s%s%s%s: %s%s", o->what, o->path,
				    strcmp(o->target, o->path) != 0 ? " (a symbolic link to " : "",
				    strcmp(o->target, o->path) != 0 ? o->target : "",
				    strcmp(o->target, o->path) != 0 ? ")" : "", strerror(-rc),
				    rc == -EACCES ? fifo_why(o, why, sizeof(why)) : "");
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
	int rc = 0;

	if (!named) {
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		rc = o->fd < 0 ? -errno : 0;
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
			o->fd = openat(o->dirfd, slots[o->slot].name, O_WRONLY | O_CREAT |
				       O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
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

/* Link the anonymous temporary at @p name in its directory; 0 or -errno. */
static int
link_anon(const struct outfile *o, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT || access("/proc/self/fd", F_OK) == 0)
		return -errno;
	/* no /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH) */
	return linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH) == 0 ? 0 : -errno;
}

/* The named temporary to the name, where nothing is; 0, -EEXIST or -errno. */
static int
rename_new(struct outfile *o)
{
	const char *tmp = slots[o->slot].name;
	int rc;

	rc = renameat2(o->dirfd, tmp, o->dirfd, o->base, RENAME_NOREPLACE) == 0 ? 0 : -errno;
	if (rc == -EINVAL) {		/* a file system without RENAME_NOREPLACE */
		rc = linkat(o->dirfd, tmp, o->dirfd, o->base, 0) == 0 ? 0 : -errno;
		if (rc == 0)
			unlinkat(o->dirfd, tmp, 0);
	}
	if (rc == 0) {
		slot_drop(o->slot);
		o->slot = -1;
	}
	return rc;
}

/* The temporary over the regular file at the name; 0 or -errno. */
static int
replace(struct outfile *o)
{
	unsigned int attempt;
	int rc = -EEXIST;

	if (o->anon) {
		for (attempt = 0; attempt < NAME_TRIES; attempt++) {
			o->slot = slot_name(o, attempt);
			if (o->slot < 0)
				return o->slot;
			rc = link_anon(o, slots[o->slot].name);
			if (rc == 0)
				break;
			slot_drop(o->slot);
			o->slot = -1;
			if (rc != -EEXIST)
				return rc;
		}
		if (o->slot < 0)
			return rc;
	}
	rc = renameat(o->dirfd, slots[o->slot].name, o->dirfd, o->base) == 0 ? 0 : -errno;
	if (rc != 0)
		unlinkat(o->dirfd, slots[o->slot].name, 0);
	slot_drop(o->slot);
	o->slot = -1;
	return rc;
}

/*
 * Put the temporary in place (signals blocked by the caller), by what is at the name now: where
 * nothing is, linked there (which fails if something came meanwhile, then looked at again); a
 * regular file that open(2) lets this process write, replaced; anything else (a link, a FIFO
 * that came meanwhile) left as it is: -EEXIST.
 */
static int
place(struct outfile *o)
{
	unsigned int t;
	struct stat st;
	int rc = -EAGAIN;

	for (t = 0; t < 3 && rc == -EAGAIN; t++) {
		if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				return -errno;
			rc = o->anon ? link_anon(o, o->base) : rename_new(o);
			if (rc == -EEXIST)
				rc = -EAGAIN;
			continue;
		}
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		rc = outfile_may_write(o, st.st_dev, st.st_ino);
		if (rc == 0)
			rc = replace(o);
	}
	return rc;
}

static void
sync_dir(const struct outfile *o)
{
	int fd = openat(o->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Remove the named temporary (if any), drop its slot, and free @p o. */
static void
ofree(struct outfile *o)
{
	if (o->slot >= 0) {
		unlinkat(o->dirfd, slots[o->slot].name, 0);
		slot_drop(o->slot);
	}
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->target);
	free(o->base);
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
	ofree(o);		/* with a named temporary that was not renamed */
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
	ofree(o);
}

bool
outfile_stdout_moved(void)
{
	return atomic_load(&stdout_moved);
}
