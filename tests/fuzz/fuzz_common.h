/* SPDX-License-Identifier: BSD-3-Clause */
/* What the fuzz targets share. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <unistd.h>

/* Write all @p n bytes at @p p to @p fd; 0, or -1 if a write fails or writes nothing. */
static inline int
fz_write_all(int fd, const void *p, size_t n)
{
	const char *d = p;
	ssize_t k;

	while (n > 0) {
		k = write(fd, d, n);
		if (k <= 0)
			return -1;
		d += k;
		n -= (size_t)k;
	}
	return 0;
}

#endif /* FUZZ_COMMON_H */
