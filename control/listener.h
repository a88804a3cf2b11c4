/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control socket's server (ctl.c) and the metrics server (metrics.c) share: each
 * listens on a socket and is stopped through a pipe.
 */
#ifndef CTL_LISTENER_H
#define CTL_LISTENER_H

#include <unistd.h>

/** Close a server's listening socket @p fd and its stop pipe @p stop (-1: not opened). */
static inline void
ctl_listener_close(int fd, const int stop[2])
{
	if (fd >= 0)
		close(fd);
	if (stop[0] >= 0) {
		close(stop[0]);
		close(stop[1]);
	}
}

#endif /* CTL_LISTENER_H */
