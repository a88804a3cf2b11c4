/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A preloaded stand-in for whoever else can write the directory a UNIX socket is bound in: right
 * after the bind() of the socket at $BIND_SWAP_PATH succeeds, the symbolic link $BIND_SWAP_LINK
 * is renamed over it, as that user could do between the bind and whatever the process does to
 * the path next.  The test then looks at the file the link leads to.
 *
 * Usage: LD_PRELOAD=build/tests/libbind_swap.so BIND_SWAP_PATH=SOCK BIND_SWAP_LINK=LINK syncemu ...
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int bind(int fd, const struct sockaddr *sa, socklen_t len);

int
bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	int (*real)(int, const struct sockaddr *, socklen_t) =
		(int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	const char *path = getenv("BIND_SWAP_PATH"), *link = getenv("BIND_SWAP_LINK");
	int rc = real(fd, sa, len);

	if (rc == 0 && sa->sa_family == AF_UNIX && path != NULL && link != NULL &&
	    strcmp(((const struct sockaddr_un *)sa)->sun_path, path) == 0)
		rename(link, path);
	return rc;
}
