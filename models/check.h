/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to models/: the parameter checks' one way to fail.
 */
#ifndef SM_CHECK_H
#define SM_CHECK_H

#include <errno.h>
#include <stdio.h>

/* In a function with `char *err, unsigned long errlen`: if @cond fails, say why and return
 * -EINVAL. */
#define SM_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			if (err != NULL)				\
				snprintf(err, errlen, __VA_ARGS__);	\
			return -EINVAL;					\
		}							\
	} while (0)

#endif /* SM_CHECK_H */
