/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of the control socket's server (control/ctl.c) and client (ctl_client.c), no EAL:
 * the rings are initialised in plain memory and the test plays the data plane.  A change waiting
 * for the data plane does not hold up the other clients (status, keys and get are answered
 * meanwhile), its answer comes when the data plane's does, or an error when none comes; with
 * every place taken a new client waits its turn and the oldest silent connection makes room;
 * status is answered within the client's deadline while 144 clients reconnect in a loop; the
 * client says why it cannot connect; the path check; at exit the socket is removed only if it is
 * still the server's own.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_ring.h>

#include "common.h"
#include "ctl.h"
#include "tune_keys.h"

struct fixture {
	char dir[64], path[128];
	struct rte_ring *req, *resp;
	struct dp_status status;
	struct ctl_server *srv;
};

static struct rte_ring *
ring_new(const char *name)
{
	ssize_t size = rte_ring_get_memsize(64);
	struct rte_ring *r;

	assert_true(size > 0);
	r = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)size);
	assert_non_null(r);
	assert_int_equal(rte_ring_init(r, name, 64, RING_F_SP_ENQ | RING_F_SC_DEQ), 0);
	return r;
}

static struct ctl_server *
server_start(struct fixture *f)
{
	struct ctl_params p = { .path = f->path, .req = f->req, .resp = f->resp,
				.status = &f->status };
	char err[512] = "";
	struct ctl_server *s = ctl_server_start(&p, err, sizeof(err));

	if (s == NULL)
		fail_msg("ctl_server_start: %s", err);
	return s;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t bits;
	double bw = 12.5e9;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/syncemu-test-ctl-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/ctl.sock", f->dir);
	f->req = ring_new("test_ctl_req");
	f->resp = ring_new("test_ctl_resp");
	atomic_store(&f->status.running, 1);
	atomic_store(&f->status.var, UINT32_MAX);
	atomic_store(&f->status.budget, UINT32_MAX);
	atomic_store(&f->status.binding, -1);
	memcpy(&bits, &bw, sizeof(bits));
	atomic_store(&f->status.value_bits[DP_P_WAN_BW], bits);
	f->srv = server_start(f);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	void *obj;

	ctl_server_stop(f->srv);
	while (rte_ring_dequeue(f->req, &obj) == 0)
		free(obj);
	while (rte_ring_dequeue(f->resp, &obj) == 0)
		free(obj);
	free(f->req);
	free(f->resp);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A raw client: connected, @p line sent (with its newline). */
static int
raw_send(const char *path, const char *line)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	return fd;
}

/* Its answer, up to the server's close, waiting @p ms at most for each part. */
static void
raw_answer(int fd, char *buf, size_t len, int ms)
{
	size_t k = 0;

	while (k + 1 < len) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pf, 1, ms) <= 0)
			break;
		n = read(fd, buf + k, len - 1 - k);
		if (n <= 0)
			break;
		k += (size_t)n;
	}
	buf[k] = '\0';
	close(fd);
}

/* The next request the server queued for the data plane (10 s at most). */
static struct dp_tune_req *
next_request(struct fixture *f)
{
	void *obj;
	int i;

	for (i = 0; i < 10000; i++) {
		if (rte_ring_dequeue(f->req, &obj) == 0)
			return obj;
		usleep(1000);
	}
	fail_msg("no request reached the data plane's ring");
	return NULL;
}

static void
ask(struct fixture *f, const char *line, const char *want)
{
	char err[512], *answer = NULL;

	if (ctl_client(f->path, line, &answer, 5000, err, sizeof(err)) != 0)
		fail_msg("%s: %s", line, err);
	assert_has(answer, want);
	free(answer);
}

/* A change waits for the data plane; every other client is served meanwhile. */
static void
test_pending_change(void **state)
{
	struct fixture *f = *state;
	struct dp_tune_resp *resp = calloc(1, sizeof(*resp));
	struct dp_tune_req *req;
	struct pollfd pf;
	char out[4096];
	int fd;

	assert_non_null(resp);
	fd = raw_send(f->path, "set wan.bandwidth 6GB/s\n");
	req = next_request(f);
	assert_int_equal(req->param, DP_P_WAN_BW);
	assert_string_equal(req->key, "wan.bandwidth");	/* the key the trace's note names */
	assert_true(req->value == 6e9);
	/* the change waits: others are answered */
	ask(f, "status", "\"ok\": true, \"running\": 1");
	ask(f, "keys", "\"wan.bandwidth\"");
	ask(f, "get wan.bandwidth", "\"value\": 12500000000");
	ask(f, "set wan.colour blue", "wan.colour cannot change during a run");
	pf = (struct pollfd){ fd, POLLIN, 0 };
	assert_int_equal(poll(&pf, 1, 0), 0);	/* no answer to the change yet */
	/* the data plane answers: so does the server */
	resp->id = req->id;
	resp->rc = 0;
	resp->run_id = 1;
	resp->old = 12.5e9;
	resp->at = 2000000000;
	free(req);
	assert_int_equal(rte_ring_enqueue(f->resp, resp), 0);
	raw_answer(fd, out, sizeof(out), 5000);
	assert_has(out, "{\"ok\": true, \"key\": \"wan.bandwidth\", \"value\": 6000000000, "
		   "\"old\": 12500000000, \"run\": 1, \"at_ms\": 2.0");
}

/* No answer from the data plane: an error, after the change's deadline; a late one dropped. */
static void
test_change_unanswered(void **state)
{
	struct fixture *f = *state;
	struct dp_tune_resp *late = calloc(1, sizeof(*late));
	struct dp_tune_req *req;
	char out[4096];
	int fd;

	assert_non_null(late);
	fd = raw_send(f->path, "set wan.latency 5ms\n");
	req = next_request(f);
	raw_answer(fd, out, sizeof(out), 10000);
	assert_has(out, "the data plane did not answer");
	late->id = req->id;
	free(req);
	assert_int_equal(rte_ring_enqueue(f->resp, late), 0);
	/* the next change gets its own answer, not the late one */
	fd = raw_send(f->path, "set wan.bandwidth 3GB/s\n");
	req = next_request(f);
	late = calloc(1, sizeof(*late));
	assert_non_null(late);
	late->id = req->id;
	late->rc = -EINVAL;
	snprintf(late->msg, sizeof(late->msg), "refused by the \"data plane\"");
	free(req);
	assert_int_equal(rte_ring_enqueue(f->resp, late), 0);
	raw_answer(fd, out, sizeof(out), 5000);
	assert_has(out, "{\"ok\": false, \"error\": \"refused by the \\\"data plane\\\"\"}");
}

/* The data plane's refusal names a parameter; the control plane's message names its key. */
static void
test_refusal_names_key(void **state)
{
	struct dp_tune_resp r = { .rc = -EINVAL };
	char out[256];

	(void)state;
	snprintf(r.msg, sizeof(r.msg), "not a value that can change during a run");
	assert_string_equal(ctl_tune_message(&r, out, sizeof(out)), r.msg);
	r.named = true;
	r.param = DP_P_WAN_QUEUE;
	snprintf(r.msg, sizeof(r.msg), "%g is not a queue limit in bytes", 0.5);
	assert_string_equal(ctl_tune_message(&r, out, sizeof(out)),
			    "queues.wan: 0.5 is not a queue limit in bytes");
	r.rc = -ENOTSUP;
	r.param = DP_P_PLANES;
	r.takes = 1u << DP_P_WAN_BW | 1u << DP_P_WAN_LAT | 1u << DP_P_BG_LOAD | 1u << DP_P_WAN_QUEUE;
	snprintf(r.msg, sizeof(r.msg), "does not apply to a bridge (it has no module)");
	assert_string_equal(ctl_tune_message(&r, out, sizeof(out)),
			    "module.planes does not apply to a bridge (it has no module): it takes "
			    "wan.bandwidth, wan.latency, background.load and queues.wan");
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Every place taken by clients that send nothing: a new client waits its turn (it is not
 * refused) until they have had 200 ms to send their line.  One that sends its request as it
 * connects is then answered at once and takes no place; one that needs a place gets the oldest
 * silent one's, which is answered that it was closed to make room; the others are held.
 */
static void
test_full_table(void **state)
{
	struct fixture *f = *state;
	struct pollfd pf;
	char out[4096];
	int fds[64], fd, i;
	int64_t t0 = now_ms();

	for (i = 0; i < 64; i++)
		fds[i] = raw_send(f->path, "");
	fd = raw_send(f->path, "status\n");
	raw_answer(fd, out, sizeof(out), 5000);
	assert_has(out, "{\"ok\": true, \"running\": 1");
	/* not taken before the held ones had 200 ms (t0 is before the first accept) */
	assert_true(now_ms() - t0 >= 200);
	/* a silent one: it takes the oldest one's place (each is held 2 s: this is far from it,
	 * 200 ms and a few turns of the loop) */
	fd = raw_send(f->path, "");
	raw_answer(fds[0], out, sizeof(out), 5000);
	assert_has(out, "{\"ok\": false, \"error\": \"closed to make room for a waiting client: "
		   "no request line within 200 ms while all 64 connections were taken");
	for (i = 1; i < 64; i++) {
		pf = (struct pollfd){ fds[i], POLLIN, 0 };
		assert_int_equal(poll(&pf, 1, 0), 0);
		close(fds[i]);
	}
	assert_int_equal(write(fd, "keys\n", 5), 5);
	raw_answer(fd, out, sizeof(out), 5000);
	assert_has(out, "\"wan.bandwidth\"");
}

/* Clients that reconnect in a loop: silent ones, ones that ask status, ones that close at once */
#define HAMMER_SILENT 80
#define HAMMER_ASKING 32
#define HAMMER_CLOSING 32
#define HAMMER_N (HAMMER_SILENT + HAMMER_ASKING + HAMMER_CLOSING)

struct hammer {
	struct sockaddr_un a;		/**< the server's socket */
	atomic_bool stop;
	unsigned long connects;		/**< connections made */
	unsigned long answered;		/**< status answered */
	atomic_ulong evicted;		/**< silent ones closed to make room */
	unsigned long expired;		/**< silent ones closed at their deadline */
	unsigned long other;		/**< any other end */
};

/* Until stopped, each client connects again as soon as its connection ends. */
static void *
hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct pollfd pf[HAMMER_N];
	char head[HAMMER_N][128], sink[4096];
	size_t len[HAMMER_N];
	int i;

	for (i = 0; i < HAMMER_N; i++)
		pf[i] = (struct pollfd){ -1, POLLIN, 0 };
	while (!atomic_load(&h->stop)) {
		bool queue_full = false;

		for (i = 0; i < HAMMER_N; i++) {
			int fd;

			if (pf[i].fd >= 0)
				continue;
			fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
			if (fd < 0 || connect(fd, (struct sockaddr *)&h->a, sizeof(h->a)) != 0) {
				queue_full = true;	/* EAGAIN: again in the next round */
				if (fd >= 0)
					close(fd);
				continue;
			}
			h->connects++;
			if (i >= HAMMER_SILENT + HAMMER_ASKING) {
				close(fd);
				continue;
			}
			if (i >= HAMMER_SILENT && send(fd, "status\n", 7, MSG_NOSIGNAL) != 7) {
				close(fd);
				continue;
			}
			pf[i].fd = fd;
			len[i] = 0;
		}
		if (poll(pf, HAMMER_N, queue_full ? 1 : 50) <= 0)
			continue;
		for (i = 0; i < HAMMER_N; i++) {
			size_t room = sizeof(head[i]) - 1 - len[i];
			ssize_t n;

			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			/* the answer's head, the rest dropped */
			n = read(pf[i].fd, room > 0 ? head[i] + len[i] : sink,
				 room > 0 ? room : sizeof(sink));
			if (n > 0 && room > 0)
				len[i] += (size_t)n;
			if (n > 0 || (n < 0 && errno == EAGAIN))
				continue;
			head[i][len[i]] = '\0';
			if (strstr(head[i], "\"ok\": true") != NULL)
				h->answered++;
			else if (strstr(head[i], "closed to make room") != NULL)
				h->evicted++;
			else if (strstr(head[i], "no request line within 2000 ms") != NULL)
				h->expired++;
			else
				h->other++;
			close(pf[i].fd);
			pf[i].fd = -1;
		}
	}
	for (i = 0; i < HAMMER_N; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	return NULL;
}

/*
 * status is answered within the client's deadline while 144 clients reconnect in a loop: 80
 * that send nothing (more than the places: they take every one, and the others wait for room),
 * 32 that ask status, 32 that connect and close at once (their connections fill the socket's
 * queue).
 *
 * The deadline is syncemu ctl's default, 5 s.  What the server owes a new client at worst: the
 * connections ahead of it in the socket's queue taken (256, and a connect that waits for room in
 * the queue is woken in its order).  A place frees at once when a client is answered, and when
 * a held one has gone 200 ms without its line: 64 places, so 257 connections ahead, all silent,
 * are taken within 6 rounds of 200 ms (1.2 s); that is 17 turns of the loop (16 accepts each),
 * each a few hundred us of work and, on a loaded 2-vCPU machine, a wait for a CPU of up to 24 ms
 * (0.4 s).  Its request is read as it is accepted and answered at once.  So 1.6 s at worst,
 * against 5 s; measured: 200 ms at most, with both CPUs kept busy by other processes too.
 */
static void
test_hammered(void **state)
{
	struct fixture *f = *state;
	struct hammer *h = calloc(1, sizeof(*h));
	int64_t slowest = 0;
	pthread_t t;
	int i;

	assert_non_null(h);
	h->a.sun_family = AF_UNIX;
	assert_true(strlen(f->path) < sizeof(h->a.sun_path));
	memcpy(h->a.sun_path, f->path, strlen(f->path) + 1);
	assert_int_equal(pthread_create(&t, NULL, hammer_run, h), 0);
	usleep(50 * 1000);	/* the places taken, the queue full */
	for (i = 0; i < 20; i++) {
		char err[512], *answer = NULL;
		int64_t t0 = now_ms();

		if (ctl_client(f->path, "status", &answer, 5000, err, sizeof(err)) != 0)
			fail_msg("status %d of 20, with %d clients reconnecting: %s", i + 1,
				 HAMMER_N, err);
		assert_has(answer, "{\"ok\": true, \"running\": 1");
		free(answer);
		if (now_ms() - t0 > slowest)
			slowest = now_ms() - t0;
	}
	/* the silent ones that waited made room (5 s at most: it is due 200 ms after the first
	 * were taken) */
	for (i = 0; i < 500 && atomic_load(&h->evicted) == 0; i++)
		usleep(10 * 1000);
	atomic_store(&h->stop, true);
	pthread_join(t, NULL);
	print_message("status: 20 of 20 answered, the slowest in %" PRId64 " ms; the %d clients: "
		      "%lu connections, %lu status answered, %lu silent closed to make room, %lu "
		      "at their deadline, %lu other ends\n", slowest, HAMMER_N, h->connects,
		      h->answered, atomic_load(&h->evicted), h->expired, h->other);
	/* the clients were served too, and the places were all taken */
	assert_true(h->answered > 0);
	assert_true(atomic_load(&h->evicted) > 0);
	free(h);
}

/* What ctl_client() says when it cannot connect to @p path; its return value. */
static int
client_error(const char *path, int timeout_ms, char *err, size_t len)
{
	char *answer = NULL;
	int rc;

	err[0] = '\0';
	rc = ctl_client(path, "status", &answer, timeout_ms, err, len);
	free(answer);
	return rc;
}

/* The same, as uid and gid 65534 (in a child process). */
static int
client_error_as_nobody(const char *path, char *err, size_t len)
{
	ssize_t n, k = 0;
	int p[2], st;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char e[512];
		int rc = -EPERM;

		close(p[0]);
		if (setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0)
			rc = client_error(path, 1000, e, sizeof(e));
		else
			snprintf(e, sizeof(e), "cannot become uid 65534: %s", strerror(errno));
		if (write(p[1], e, strlen(e)) < 0)
			_exit(255);
		_exit(-rc);
	}
	close(p[1]);
	while ((n = read(p[0], err + k, len - 1 - (size_t)k)) > 0)
		k += n;
	err[k] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return -WEXITSTATUS(st);
}

#define expect_error(rc, err, want_rc, ...)						\
	do {										\
		char want_[512];							\
										\
		snprintf(want_, sizeof(want_), __VA_ARGS__);				\
		assert_int_equal((rc), (want_rc));					\
		assert_has((err), want_);						\
	} while (0)

/* Why the client cannot connect: what the kernel said, naming the path, and what is there. */
static void
test_connect_errors(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char err[512], p[240], file[200];
	int fd, busy, rc;
	FILE *fp;

	snprintf(p, sizeof(p), "%s/nodir/ctl.sock", f->dir);
	expect_error(client_error(p, 1000, err, sizeof(err)), err, -ENOENT,
		     "cannot connect to %s: No such file or directory (the directory %s/nodir: "
		     "No such file or directory)", p, f->dir);
	snprintf(p, sizeof(p), "%s/none.sock", f->dir);
	expect_error(client_error(p, 1000, err, sizeof(err)), err, -ENOENT,
		     "no syncemu is listening on %s: No such file or directory (nothing is "
		     "there: start one with syncemu run --ctl PATH)", p);
	snprintf(file, sizeof(file), "%s/file", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	expect_error(client_error(file, 1000, err, sizeof(err)), err, -ECONNREFUSED,
		     "cannot connect to %s: Connection refused (it is a regular file, not a "
		     "socket)", file);
	expect_error(client_error(f->dir, 1000, err, sizeof(err)), err, -ECONNREFUSED,
		     "cannot connect to %s: Connection refused (it is a directory, not a socket)",
		     f->dir);
	snprintf(p, sizeof(p), "%s/x", file);
	expect_error(client_error(p, 1000, err, sizeof(err)), err, -ENOTDIR,
		     "cannot connect to %s: Not a directory (a part of the path before its last "
		     "is not a directory)", p);
	unlink(file);
	snprintf(p, sizeof(p), "%s/link", f->dir);
	assert_int_equal(symlink("nowhere", p), 0);
	expect_error(client_error(p, 1000, err, sizeof(err)), err, -ENOENT,
		     "cannot connect to %s: No such file or directory (a symbolic link to "
		     "nothing)", p);
	unlink(p);

	/* a socket nobody listens on; one whose queue stays full for the client's deadline */
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/q.sock", f->dir);
	snprintf(p, sizeof(p), "%s", a.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	expect_error(client_error(p, 1000, err, sizeof(err)), err, -ECONNREFUSED,
		     "no syncemu is listening on %s: Connection refused (a socket nobody listens "
		     "on: the run ended?)", p);
	assert_int_equal(listen(fd, 0), 0);	/* room for one, never accepted */
	busy = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	while (connect(busy, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(busy);	/* the queue not full yet: one more */
		busy = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	}
	close(busy);
	expect_error(client_error(p, 100, err, sizeof(err)), err, -EAGAIN,
		     "cannot connect to %s: Resource temporarily unavailable (the queue of "
		     "connections waiting on it stayed full for 100 ms)", p);
	close(fd);
	unlink(p);

	/* no permission: on the socket (0600), or to search its directory */
	if (geteuid() == 0) {
		assert_int_equal(chmod(f->dir, 0711), 0);
		rc = client_error_as_nobody(f->path, err, sizeof(err));
		expect_error(rc, err, -EACCES, "cannot connect to %s: Permission denied (the "
			     "socket belongs to root, uid 0, mode 0600: connecting takes write "
			     "permission on it, which uid 65534 has not)", f->path);
		assert_int_equal(chmod(f->dir, 0700), 0);
		rc = client_error_as_nobody(f->path, err, sizeof(err));
	} else {
		assert_int_equal(chmod(f->path, 0), 0);
		rc = client_error(f->path, 1000, err, sizeof(err));
		expect_error(rc, err, -EACCES, "cannot connect to %s: Permission denied (the "
			     "socket belongs to ", f->path);
		assert_has(err, ", mode 0000: connecting takes write permission on it, which uid");
		assert_int_equal(chmod(f->path, 0600), 0);
		assert_int_equal(chmod(f->dir, 0600), 0);
		rc = client_error(f->path, 1000, err, sizeof(err));
		assert_int_equal(chmod(f->dir, 0700), 0);
	}
	expect_error(rc, err, -EACCES, "cannot connect to %s: Permission denied (a directory on "
		     "the way to it cannot be searched by uid %u)", f->path,
		     geteuid() == 0 ? 65534u : (unsigned int)geteuid());
	ask(f, "status", "\"ok\": true");	/* its owner still can */
}

/* The path: in use while served; anything but a socket refused; a stale socket is free. */
static void
test_path(void **state)
{
	struct fixture *f = *state;
	char err[512], file[160];
	FILE *fp;

	assert_int_equal(ctl_path_check(f->path, err, sizeof(err)), -EADDRINUSE);
	assert_has(err, "is in use by another process");
	snprintf(file, sizeof(file), "%s/file", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(ctl_path_check(file, err, sizeof(err)), -EEXIST);
	assert_has(err, "is a regular file, not a socket");
	assert_int_equal(ctl_path_check(f->dir, err, sizeof(err)), -EEXIST);
	assert_has(err, "is a directory");
	unlink(file);
	assert_int_equal(ctl_path_check(file, err, sizeof(err)), 0);
}

/* A server removes its socket at exit only if it is still its own. */
static void
test_replaced_socket(void **state)
{
	struct fixture *f = *state;
	struct ctl_server *second;
	struct stat st;
	char err[512];

	assert_int_equal(unlink(f->path), 0);	/* the first server's socket is gone */
	second = server_start(f);
	ctl_server_stop(f->srv);		/* the first ends: the second's socket stays */
	f->srv = second;
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	ask(f, "status", "\"ok\": true");
	assert_int_equal(ctl_path_check(f->path, err, sizeof(err)), -EADDRINUSE);
	ctl_server_stop(second);
	f->srv = NULL;
	assert_int_equal(lstat(f->path, &st), -1);	/* the second removed its own */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pending_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_unanswered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hammered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_socket, setup, teardown),
		cmocka_unit_test(test_refusal_names_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
