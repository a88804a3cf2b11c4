/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's server.
 *
 * A UNIX socket (mode 0600) that takes one request line per connection and answers one line
 * (ctl_req.c), then closes.  One thread serves every client at once: a poll() loop over the
 * listening socket, a stop pipe and each connection, none of them blocking.  Each turn of the
 * loop serves every connection that is ready once (a few reads or one write: round robin), then
 * accepts at most CTL_ACCEPT_BURST new ones, so that clients that reconnect in a loop cannot keep
 * the loop accepting while the connections it holds wait.  A new connection is read at once (its
 * request is usually there already) and, answered, gives its place to the next.
 *
 * Each connection has a deadline: its request line within CTL_REQUEST_MS of the accept (else it
 * is answered with an error and closed), a change's answer from the data plane within
 * CTL_CHANGE_MS, the answer written within CTL_WRITE_MS (else the client, which does not read, is
 * dropped).  A change waits for the data plane's answer ring, which has no descriptor: while one
 * waits, the loop wakes every millisecond to look at it.
 *
 * At most CTL_MAX_CONNS connections are held.  Past that, new ones wait in the socket's queue
 * (CTL_BACKLOG long), in their order, and the loop stops accepting until a place frees, or until
 * a held connection has gone CTL_EVICT_MS without sending its whole request line: the oldest such
 * one is then answered with an error and closed to make room for the one that waits.  So clients
 * that connect and stay silent, however many and however often, cannot hold the places while
 * another waits: a client that sends its line as it connects is taken within a few evictions'
 * time.  The data plane never waits for any of this: it polls its request ring between events and
 * drops an answer nobody has room for.
 *
 * The path: a socket nobody answers on is stale and is replaced; one that answers is in use;
 * anything else there (a file, a directory, a FIFO, a symlink, a device) is refused and left as
 * it is.  At exit the socket is removed only if it is still the one this server bound (the same
 * inode), so a second server that replaced it keeps its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../traces/outfile.h"
#include "ctl_impl.h"
#include "listener.h"

#define CTL_MAX_CONNS 64		/**< connections held at once */
#define CTL_BACKLOG 256			/**< connections waiting in the socket's queue */
#define CTL_ACCEPT_BURST 16		/**< connections accepted per turn of the loop */
#define CTL_READS_PER_TURN 4		/**< reads of one connection per turn */
#define CTL_EVICT_MS 200		/**< a connection without its request line this long
					 *   gives its place to one that waits */
#define CTL_REQUEST_MS 2000		/**< from the accept to the end of the request line */
#define CTL_CHANGE_MS 3000		/**< for the data plane's answer to a change */
#define CTL_WRITE_MS 2000		/**< for the client to take the answer */
#define CTL_DISCARD_MAX (1u << 20)	/**< an overlong request: bytes read and dropped at most */

/** Where a connection is. */
enum conn_state {
	C_READ,				/**< reading the request line */
	C_DISCARD,			/**< the line is too long: reading it to its end, dropped */
	C_WAIT,				/**< a change waits for the data plane's answer */
	C_WRITE,			/**< writing the answer */
};

/** One client. */
struct ctl_conn {
	int fd;
	enum conn_state state;
	uint64_t since;			/**< ms (CLOCK_MONOTONIC) of the accept */
	uint64_t deadline;		/**< ms (CLOCK_MONOTONIC) the current state may last to */
	size_t len;			/**< C_READ: bytes of the request so far */
	size_t dropped;			/**< C_DISCARD: bytes dropped so far */
	size_t off, outlen;		/**< C_WRITE: bytes of the answer sent, its length */
	struct ctl_pending pend;	/**< C_WAIT: the change */
	char line[CTL_LINE_MAX + 1];
	char out[CTL_ANSWER_LEN];
};

struct ctl_server {
	struct ctl_params p;
	struct ctl_req_ctx req;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;			/**< the socket this server bound, to remove at exit */
	ino_t ino;
	int fd;
	int stop[2];
	pthread_t thread;
	struct ctl_conn *conn[CTL_MAX_CONNS];
	unsigned int nconn;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------------------------ */
/* The path */

/*
 * What is at @p path: 0 nothing (or, *@p stale, a socket nobody answers on); -EADDRINUSE a
 * socket that answers; -EEXIST anything else; -ENAMETOOLONG; -errno.  A message in @p err.
 */
static int
path_state(const char *path, bool *stale, char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	*stale = false;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "--ctl: the path %s is too long for a socket (at most %zu "
			 "bytes)", path, sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "--ctl: %s: %s", path, strerror(errno));
		return rc;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--ctl: %s is %s, not a socket: refused (it is left as it "
			 "is; give a path where nothing is, or a stale socket)", path,
			 outfile_kind_name(st.st_mode));
		return -EEXIST;
	}
	/* a socket: in use if something answers, stale if nothing does */
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "--ctl: %s", strerror(errno));
		return rc;
	}
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : -errno;
	close(fd);
	if (rc == 0) {
		snprintf(err, errlen, "--ctl: %s is in use by another process", path);
		return -EADDRINUSE;
	}
	if (rc == -ECONNREFUSED) {
		*stale = true;
		return 0;
	}
	snprintf(err, errlen, "--ctl: %s: cannot tell whether the socket is in use: %s", path,
		 strerror(-rc));
	return rc;
}

int
ctl_path_check(const char *path, char *err, size_t errlen)
{
	bool stale;

	if (path == NULL) {
		snprintf(err, errlen, "--ctl: no path");
		return -EINVAL;
	}
	return path_state(path, &stale, err, errlen);
}

/* ------------------------------------------------------------------------------------------ */
/* Connections */

static void
conn_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Send what is left of the answer, without waiting; the connection is closed once it is all. */
static void
conn_write(struct ctl_conn *c)
{
	while (c->off < c->outlen) {
		/* MSG_NOSIGNAL: a client gone away is no SIGPIPE for the run */
		ssize_t n = send(c->fd, c->out + c->off, c->outlen - c->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;	/* the rest when it can be written, or dropped at the deadline */
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->off += (size_t)n;
	}
	conn_close(c);
}

/* The answer in c->out is ready: write it. */
static void
conn_answer(struct ctl_conn *c, uint64_t now)
{
	c->state = C_WRITE;
	c->outlen = strlen(c->out);
	c->off = 0;
	c->deadline = now + CTL_WRITE_MS;
	conn_write(c);
}

/* The request line is complete (@p n bytes): answer it, or wait for the data plane. */
static void
conn_request(struct ctl_server *s, struct ctl_conn *c, size_t n, uint64_t now)
{
	c->line[n] = '\0';
	if (ctl_request(&s->req, c->line, n, c->out, sizeof(c->out), &c->pend) == 1) {
		c->state = C_WAIT;
		c->deadline = now + CTL_CHANGE_MS;
		return;
	}
	conn_answer(c, now);
}

/* Read what the client sent, without waiting: CTL_READS_PER_TURN reads at most, the rest in the
 * next turn (the poll says it is there). */
static void
conn_read(struct ctl_server *s, struct ctl_conn *c, uint64_t now)
{
	char sink[4096];
	unsigned int reads = 0;

	for (;;) {
		char *buf = c->state == C_READ ? c->line + c->len : sink;
		size_t room = c->state == C_READ ? CTL_LINE_MAX - c->len : sizeof(sink);
		char *nl;
		ssize_t n;

		if (c->state == C_READ && room == 0) {
			/* no newline in CTL_LINE_MAX bytes: read the rest of the line and drop it,
			 * so that the client can read the answer instead of a reset */
			c->state = C_DISCARD;
			continue;
		}
		if (reads++ == CTL_READS_PER_TURN)
			return;
		n = read(c->fd, buf, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			conn_close(c);
			return;
		}
		if (n == 0) {	/* the client is done sending: a line without its newline */
			if (c->state == C_DISCARD) {
				ctl_answer_error(c->out, sizeof(c->out), "request longer than "
						 RTE_STR(CTL_LINE_MAX) " bytes");
				conn_answer(c, now);
			} else if (c->len > 0) {
				conn_request(s, c, c->len, now);
			} else {
				ctl_answer_error(c->out, sizeof(c->out), "no request line");
				conn_answer(c, now);
			}
			return;
		}
		nl = memchr(buf, '\n', (size_t)n);
		if (c->state == C_DISCARD) {
			c->dropped += (size_t)n;
			if (nl != NULL || c->dropped >= CTL_DISCARD_MAX) {
				ctl_answer_error(c->out, sizeof(c->out), "request longer than "
						 RTE_STR(CTL_LINE_MAX) " bytes");
				conn_answer(c, now);
				return;
			}
			continue;
		}
		if (nl != NULL) {	/* what follows the newline is ignored */
			conn_request(s, c, (size_t)(nl - c->line), now);
			return;
		}
		c->len += (size_t)n;
	}
}

/* A connection past its deadline: answered if it still can be, or dropped. */
static void
conn_expire(struct ctl_conn *c, uint64_t now)
{
	switch (c->state) {
	case C_READ:
	case C_DISCARD:
		ctl_answer_error(c->out, sizeof(c->out), "no request line within "
				 RTE_STR(CTL_REQUEST_MS) " ms");
		conn_answer(c, now);
		break;
	case C_WAIT:
		/* the data plane frees the request when it gets to it; its answer is dropped */
		ctl_answer_error(c->out, sizeof(c->out), "the data plane did not answer (the run "
				 "ended?)");
		conn_answer(c, now);
		break;
	case C_WRITE:
		conn_close(c);	/* the client does not read its answer */
		break;
	}
}

/*
 * The held connection to close to make room for one that waits: the oldest of those that have
 * gone CTL_EVICT_MS without their whole request line; -1 if none has.
 */
static int
conn_evictable(const struct ctl_server *s, uint64_t now)
{
	int oldest = -1;
	unsigned int i;

	for (i = 0; i < s->nconn; i++) {
		const struct ctl_conn *c = s->conn[i];

		if (c->fd < 0 || (c->state != C_READ && c->state != C_DISCARD) ||
		    (int64_t)(c->since + CTL_EVICT_MS - now) > 0)
			continue;
		if (oldest < 0 || (int64_t)(c->since - s->conn[oldest]->since) < 0)
			oldest = (int)i;
	}
	return oldest;
}

/* Close @p c to make room, with an answer that says why if the client's buffer takes it. */
static void
conn_evict(struct ctl_conn *c)
{
	ctl_answer_error(c->out, sizeof(c->out), "closed to make room for a waiting client: no "
			 "request line within " RTE_STR(CTL_EVICT_MS) " ms while all "
			 RTE_STR(CTL_MAX_CONNS) " connections were taken (try again)");
	if (send(c->fd, c->out, strlen(c->out), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* it does not read: closed all the same */
	}
	conn_close(c);
}

/*
 * Take at most CTL_ACCEPT_BURST waiting connections, each read at once: one answered at once
 * leaves its place to the next.  With every place taken, one is made by closing the oldest
 * connection that has gone CTL_EVICT_MS without its request line (conn_evictable()); if none has,
 * the rest wait in the socket's queue, in their order.
 */
static void
accept_some(struct ctl_server *s, uint64_t now)
{
	struct ctl_conn *c = NULL;
	unsigned int n;

	for (n = 0; n < CTL_ACCEPT_BURST; n++) {
		int victim = -1, fd;

		if (s->nconn == CTL_MAX_CONNS) {
			victim = conn_evictable(s, now);
			if (victim < 0)
				break;
		}
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			break;	/* EAGAIN: no more; anything else: the next turn tries again */
		if (c == NULL)
			c = malloc(sizeof(*c));
		if (c == NULL) {
			close(fd);	/* out of memory: it sees the connection closed */
			break;
		}
		c->fd = fd;
		c->state = C_READ;
		c->since = now;
		c->deadline = now + CTL_REQUEST_MS;
		c->len = c->dropped = c->off = c->outlen = 0;
		conn_read(s, c, now);
		if (c->fd < 0)
			continue;	/* answered and closed: its memory serves the next one */
		if (victim >= 0) {
			conn_evict(s->conn[victim]);
			free(s->conn[victim]);
			s->conn[victim] = c;
		} else {
			s->conn[s->nconn++] = c;
		}
		c = NULL;
	}
	free(c);
}

/* The data plane's answers: each to the connection waiting for it; late ones are dropped. */
static void
take_answers(struct ctl_server *s, uint64_t now)
{
	void *obj;
	unsigned int i;

	while (rte_ring_dequeue(s->p.resp, &obj) == 0) {
		struct dp_tune_resp *r = obj;

		for (i = 0; i < s->nconn; i++) {
			struct ctl_conn *c = s->conn[i];

			if (c->fd >= 0 && c->state == C_WAIT && c->pend.id == r->id) {
				ctl_change_answer(&c->pend, r, c->out, sizeof(c->out));
				conn_answer(c, now);
				break;
			}
		}
		free(r);
	}
}

static void *
serve(void *arg)
{
	struct ctl_server *s = arg;
	struct pollfd pf[2 + CTL_MAX_CONNS];

	for (;;) {
		uint64_t now = now_ms();
		int64_t evict_in = -1;	/* ms until a held connection can make room, -1 never */
		bool waiting = false;
		int timeout = -1;
		unsigned int i, k;

		pf[1] = (struct pollfd){ .fd = s->stop[0], .events = POLLIN };
		for (i = 0; i < s->nconn; i++) {
			struct ctl_conn *c = s->conn[i];
			int64_t left = (int64_t)(c->deadline - now);

			pf[2 + i] = (struct pollfd){
				.fd = c->state == C_WAIT ? -1 : c->fd,
				.events = c->state == C_WRITE ? POLLOUT : POLLIN,
			};
			waiting |= c->state == C_WAIT;
			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
			if (c->state == C_READ || c->state == C_DISCARD) {
				int64_t e = (int64_t)(c->since + CTL_EVICT_MS - now);

				e = e < 0 ? 0 : e;
				evict_in = evict_in < 0 || e < evict_in ? e : evict_in;
			}
		}
		/* new connections while there is a place, or one can be made: else they wait in
		 * the socket's queue, and the loop wakes when a held one can make room */
		pf[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		if (s->nconn == CTL_MAX_CONNS && evict_in != 0) {
			pf[0].fd = -1;
			if (evict_in > 0 && (timeout < 0 || evict_in < timeout))
				timeout = (int)evict_in;
		}
		if (waiting && (timeout < 0 || timeout > 1))
			timeout = 1;	/* the answer ring has no descriptor: look at it often */
		if (poll(pf, 2 + s->nconn, timeout) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		now = now_ms();
		for (i = 0; i < s->nconn; i++) {
			struct ctl_conn *c = s->conn[i];
			short ev = pf[2 + i].revents;

			if (c->fd < 0 || ev == 0)
				continue;
			if (c->state == C_WRITE)
				conn_write(c);
			else if (c->state == C_READ || c->state == C_DISCARD)
				conn_read(s, c, now);
		}
		if (waiting)
			take_answers(s, now);
		for (i = 0; i < s->nconn; i++)
			if (s->conn[i]->fd >= 0 && (int64_t)(s->conn[i]->deadline - now) <= 0)
				conn_expire(s->conn[i], now);
		/* forget the closed ones (before accepting, so that their places are free) */
		for (i = 0, k = 0; i < s->nconn; i++) {
			if (s->conn[i]->fd >= 0)
				s->conn[k++] = s->conn[i];
			else
				free(s->conn[i]);
		}
		s->nconn = k;
		if (pf[0].revents & POLLIN)
			accept_some(s, now);
	}
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Start and stop */

struct ctl_server *
ctl_server_start(const struct ctl_params *p, char *err, size_t errlen)
{
	struct ctl_server *s = calloc(1, sizeof(*s));
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	bool stale;
	mode_t old;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->p = *p;
	s->req.p = &s->p;
	s->fd = -1;
	s->stop[0] = s->stop[1] = -1;
	if (path_state(p->path, &stale, err, errlen) != 0)
		goto fail;
	snprintf(s->path, sizeof(s->path), "%s", p->path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p->path);
	if (pipe2(s->stop, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "--ctl: %s", strerror(errno));
		goto fail;
	}
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "--ctl: %s", strerror(errno));
		goto fail;
	}
	/* a stale socket is replaced; nothing else is (path_state() refused it) */
	if (stale && unlink(p->path) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "--ctl: cannot replace the stale socket %s: %s", p->path,
			 strerror(errno));
		goto fail;
	}
	/* made 0600 by bind() itself: nothing acts on the path after it (a chmod() would follow
	 * a link put there meanwhile by whoever can write the directory) */
	old = umask(0177);
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		umask(old);
		snprintf(err, errlen, "--ctl: cannot bind %s: %s", p->path, strerror(errno));
		goto fail;
	}
	umask(old);
	if (lstat(p->path, &st) != 0 || listen(s->fd, CTL_BACKLOG) != 0) {
		snprintf(err, errlen, "--ctl: %s: %s", p->path, strerror(errno));
		unlink(p->path);
		goto fail;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if (pthread_create(&s->thread, NULL, serve, s) != 0) {
		snprintf(err, errlen, "--ctl: cannot start its thread");
		unlink(p->path);
		goto fail;
	}
	return s;
fail:
	ctl_listener_close(s->fd, s->stop);
	free(s);
	return NULL;
}

void
ctl_server_stop(struct ctl_server *s)
{
	struct stat st;
	unsigned int i;
	char b = 1;

	if (s == NULL)
		return;
	if (write(s->stop[1], &b, 1) == 1)
		pthread_join(s->thread, NULL);
	for (i = 0; i < s->nconn; i++) {
		conn_close(s->conn[i]);
		free(s->conn[i]);
	}
	close(s->fd);
	close(s->stop[0]);
	close(s->stop[1]);
	/* only our own socket: another server may have replaced it */
	if (lstat(s->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == s->dev &&
	    st.st_ino == s->ino)
		unlink(s->path);
	free(s);
}
