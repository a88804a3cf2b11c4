/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files that never destroy what is there: every file syncemu writes (the trace, the WAN
 * queue CSV, a sweep's CSV, JSON and plots) goes through one of these.
 *
 * One rule first: syncemu never reaches or replaces a file through a path with more rights than
 * open(2) has.  The kernel resolves the path (openat2(), RESOLVE_NO_MAGICLINKS), so that its
 * fs.protected_symlinks refuses a link another user planted in a sticky directory such as /tmp
 * (also as the path's directory), and a file is written only where open(path, O_WRONLY |
 * O_CREAT) would be allowed to (its mode, fs.protected_regular, fs.protected_fifos).  Everything
 * after happens in the directory the kernel found, by name there, following no link.  A refusal
 * names the path and the kernel's reason.
 *
 * outfile_new() looks at the path, changing nothing, and decides:
 *   - a new name, or a regular file: written whole or not at all.  The data go to an anonymous
 *     file (O_TMPFILE) in the target's directory, linked into place by outfile_commit() (linkat
 *     through /proc/self/fd, then renameat() over the target, signals blocked meanwhile); a file
 *     that was there keeps its mode and, where allowed, its owner.  Where the file system has no
 *     O_TMPFILE, the data go to a named temporary "<target>.tmp.XXXXXX" instead, which
 *     outfile_signal_cleanup() removes, so that a signal leaves none behind;
 *   - a symbolic link (also a chain of them): the same rule for the file it finally names, in
 *     that file's directory, so the link stays a link and its target gets the data; a dangling
 *     link creates its target;
 *   - a FIFO, "-" or "/dev/stdout": streamed, as they are written, with no temporary and no
 *     rename, so that a reader (tshark -r -, wireshark -k -i FIFO) sees them live;
 *   - anything else (a character or block device, a directory, a socket, a link into /proc) is
 *     refused, naming the path and what it is; so is a path whose directory is missing or not
 *     writable, and one the kernel refuses.
 * At the commit, what is at the name then decides again: a regular file open(2) may write is
 * replaced, nothing is created, anything else that came meanwhile is left as it is (-EEXIST).
 * The caller can then refuse an output that is the same file as one of its inputs or as another
 * of its outputs (outfile_same(), outfile_is_file()) before anything is written.
 *
 * outfile_open() creates the temporary or opens the stream: a FIFO with no reader gives -EAGAIN,
 * and the caller says so and waits in a second call.  Writes then go through outfile_write() or
 * a stdio FILE (outfile_fp()), and end with outfile_commit() or outfile_abort(), which free the
 * handle.  Opening a stream ignores SIGPIPE from then on, so that a reader that goes away is an
 * error (-EPIPE) rather than the end of the process; opening the standard output as a stream
 * points file descriptor 1 at the standard error, so that nothing else can mix into the stream.
 *
 * Test hook: with SYNCEMU_OUTFILE_NAMED=1 in the environment, the named temporary is used even
 * where O_TMPFILE works.  Not thread-safe: use a handle from one thread.
 */
#ifndef TR_OUTFILE_H
#define TR_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/** An output file (opaque). */
struct outfile;

/** "a regular file", "a directory", "a FIFO", "a symbolic link", "a character device", "a block
 *  device", "a socket": what a file of mode @p m is, for messages. */
const char *outfile_kind_name(mode_t m);

/** What an output path names, as outfile_new() found it. */
enum outfile_kind {
	OUTFILE_NEW,		/**< nothing yet (or a dangling link): created whole at commit */
	OUTFILE_REGULAR,	/**< a regular file: replaced whole at commit, its mode kept */
	OUTFILE_FIFO,		/**< a named pipe: streamed */
	OUTFILE_STDOUT,		/**< "-" or "/dev/stdout": streamed to the standard output */
};

/**
 * Look at @p path and decide how it is to be written; nothing is created or opened.
 *
 * @param what  how messages name the output: "the trace", "--queue-csv", ...
 * @return the handle, or NULL with errno and a message in @p err naming @p what, @p path, the
 *         file a link leads to and what it is:
 *   - EINVAL: @p path is NULL or empty, or names a device, a directory, a socket or anything
 *     else that is neither a regular file nor a FIFO
 *   - ENOENT, ENOTDIR: its directory does not exist or is not a directory
 *   - EACCES, EROFS: its directory is not writable, or the kernel refuses the path or writing
 *     the regular file (the message says which of its rules, where it is one)
 *   - EAGAIN: the path kept changing while it was looked at
 *   - ELOOP: too many symbolic links; ENAMETOOLONG; ENOMEM
 */
struct outfile *outfile_new(const char *path, const char *what, char *err, size_t errlen);

/** @return what the path names */
enum outfile_kind outfile_kind(const struct outfile *o);

/** @return true for a FIFO or the standard output (written as it goes, not taken back) */
bool outfile_streams(const struct outfile *o);

/** @return the path as given to outfile_new() */
const char *outfile_path(const struct outfile *o);

/** @return true if @p a and @p b are the same file (or the same new name, or both stdout) */
bool outfile_same(const struct outfile *a, const struct outfile *b);

/** @return true if @p o would write the existing file @p path (an input, say); NULL: false */
bool outfile_is_file(const struct outfile *o, const char *path);

/**
 * Create the temporary, or open the stream.  A FIFO is opened as open(2) with O_WRONLY |
 * O_CREAT would (fs.protected_fifos: -EACCES), first without waiting: with no reader, -EAGAIN
 * if @p wait is false (say so, then call again with @p wait true), else the call waits for one;
 * a signal (without SA_RESTART) ends the wait with -EINTR.  The handle stays valid after an
 * error (outfile_abort() it).
 *
 * @return 0, -EAGAIN (also: the FIFO was replaced meanwhile), -EINTR, or the error of open(),
 *         with a message in @p err
 */
int outfile_open(struct outfile *o, bool wait, char *err, size_t errlen);

/**
 * Write @p n bytes of @p buf in full.
 *
 * @return 0, or -EINVAL (not open), or the error of write(): -EPIPE (the reader of a stream
 *         went away), -ENOSPC, -EFBIG, -EIO, ...; an error is sticky and returned again by every
 *         later outfile_write() and by outfile_commit()
 */
int outfile_write(struct outfile *o, const void *buf, size_t n);

/**
 * A stdio stream over outfile_write() (made on the first call, owned by @p o, flushed and
 * closed by outfile_commit() and outfile_abort()); NULL with errno if not open or out of memory.
 */
FILE *outfile_fp(struct outfile *o);

/**
 * A path another process (gnuplot, say) can open to write the data: "/proc/PID/fd/N" of the
 * temporary or the stream; valid from outfile_open() to the end of the handle, else NULL.
 */
const char *outfile_child_path(const struct outfile *o);

/** @return the sticky error of outfile_write() (0 if none) */
int outfile_error(const struct outfile *o);

/**
 * Finish: flush, fsync() and put the temporary in place of the target, or close the stream.
 * On any error the temporary is removed and what was at the path is left as it was.  Frees
 * @p o in every case.
 *
 * @return 0 (also for @p o NULL), or the first error: the sticky write error, or that of
 *         fsync(), close(), linkat() or renameat(); -EEXIST: something other than a regular
 *         file came at the name meanwhile; -EACCES: open(2) may not write what is there now
 */
int outfile_commit(struct outfile *o);

/**
 * Give up: remove the temporary (what was at the path stays as it was), or close the stream
 * (what was sent stays sent).  Frees @p o; NULL is a no-op.
 */
void outfile_abort(struct outfile *o);

/**
 * Check that the kernel lets this process reach the existing directory @p path as
 * outfile_new() reaches the directory of a file (a link as its last component under the
 * kernel's fs.protected_symlinks).
 *
 * @return 0; -ENOENT if nothing is there (no message); else -errno with a message in @p err
 *         naming @p what, @p path and the kernel's reason (-ENOTDIR: not a directory)
 */
int outfile_dir_reach(const char *path, const char *what, char *err, size_t errlen);

/**
 * Make the directory @p path for outputs (mode 0777 less the umask) and remember it as made:
 * until outfile_mkdir_done(), outfile_signal_cleanup() removes it if it is still empty, so that
 * a command a signal ends leaves nothing it made.
 *
 * @return 1 if it was made, 0 if something is there already (the caller looks at what), or
 *         -errno of mkdir()
 */
int outfile_mkdir(const char *path);

/**
 * Stop looking after the directory outfile_mkdir() made at @p path; with @p remove, remove it
 * now if it is empty (the command wrote nothing in it).  A path it did not make: nothing.
 */
void outfile_mkdir_done(const char *path, bool remove);

/**
 * @return true once an output on "-" has pointed the standard output at the standard error
 *         (what is printed after goes there)
 */
bool outfile_stdout_moved(void);

/**
 * Remove every named temporary of the process now, then every directory outfile_mkdir() made
 * that is empty.  Async-signal-safe: for a signal handler that is about to end the process.
 */
void outfile_signal_cleanup(void);

/**
 * For a command without signal handlers of its own: SIGINT, SIGTERM and SIGHUP remove the named
 * temporaries, then end the process as they would have.  One that is ignored (as nohup and a
 * shell's background jobs start) stays ignored.
 */
void outfile_catch_signals(void);

#endif /* TR_OUTFILE_H */
