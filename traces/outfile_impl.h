/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files, inside: the handle, and what outfile_path.c (finding what a path names, the
 * kernel resolving it) gives outfile.c (writing, committing).
 */
#ifndef TR_OUTFILE_IMPL_H
#define TR_OUTFILE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "outfile.h"

struct outfile {
	enum outfile_kind kind;
	int dirfd;			/**< O_PATH: the directory the file is (or goes) in; -1 */
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
	char *target;			/**< the file written, for messages: the path, or where
					 *   its links lead */
	char *base;			/**< its name in dirfd */
	char *what;			/**< how messages name it */
	char child[64];			/**< outfile_child_path() */
};

/**
 * Find what o->path names, the kernel resolving it, and set kind, dirfd, base, target,
 * exists, dev, ino (and mode, uid, gid of a regular file).  0, or -errno with a message.
 */
int outfile_classify(struct outfile *o, char *err, size_t errlen);

/**
 * What open(2) says to writing the regular file @p dev, @p ino now at (o->dirfd, o->base) with
 * O_WRONLY | O_CREAT (its mode, the kernel's fs.protected_regular): 0 if it may, else -errno
 * (-EAGAIN: another file was there when it was opened).  Opens nothing that stays open and
 * creates nothing that stays.
 */
int outfile_may_write(const struct outfile *o, dev_t dev, ino_t ino);

/**
 * Why the kernel may have refused (EACCES) a path whose last entry is @p entry in the
 * directory @p dir: " (fs.protected_...: ...)" when the entry is another user's in a sticky
 * directory others can write, else "".
 */
const char *outfile_why(const char *dir, const char *entry, char *buf, size_t len);

/** The directory part of @p path ("." without one), allocated. */
char *outfile_dir_of(const char *path);

#endif /* TR_OUTFILE_IMPL_H */
