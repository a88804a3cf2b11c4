/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket.
 *
 * One thread accepts connections on a UNIX socket (mode 0600), reads one line, answers one line
 * and closes.  A change is checked the way a scenario file is (the scenario is loaded again with
 * the change as one more override, so a bad value gets the same message that names the key, the
 * value and what is allowed, and a value beyond the run's limits the largest that works), then
 * sent to the data plane through a ring; the data plane applies it between two events and
 * answers through another ring.  The control thread waits for that answer with a timeout; the
 * data plane never waits for the control plane.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../models/kernel.h"
#include "../models/variant.h"
#include "ctl.h"
#include "scenario.h"

#define LINE_MAX_LEN 1024
#define ANSWER_TIMEOUT_MS 3000

struct ctl_server {
	struct ctl_params p;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	int stop[2];
	pthread_t thread;
	uint64_t next_id;
};

static double
bits_double(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* Escape a message for a JSON string. */
static void
json_str(char *out, size_t len, const char *s)
{
	size_t k = 0;

	for (; *s != '\0' && k + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[k++] = '\\';
			out[k++] = (char)c;
		} else if (c < 0x20) {
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = '\0';
}

static void
answer_error(char *out, size_t len, const char *why)
{
	char e[600];

	json_str(e, sizeof(e), why);
	snprintf(out, len, "{\"ok\": false, \"error\": \"%s\"}\n", e);
}

static void
do_status(struct ctl_server *s, char *out, size_t len)
{
	struct dp_status *st = s->p.status;
	size_t k;
	int i;

	uint32_t var = atomic_load(&st->var), budget = atomic_load(&st->budget);
	int32_t binding = atomic_load(&st->binding);

	k = (size_t)snprintf(out, len, "{\"ok\": true, \"running\": %u, \"run\": %u, "
			     "\"variant\": \"%s\", \"budget\": \"%s\", \"budget_flops\": %lu, "
			     "\"binding\": \"%s\", "
			     "\"steps_done\": %lu, \"steps\": %lu, \"frames\": %lu, \"drops\": %lu, "
			     "\"events\": %lu, \"time_ms\": %.9g, \"changes\": %lu",
			     atomic_load(&st->running), atomic_load(&st->run_id),
			     var < SM_VAR_COUNT ? sm_variant_name((enum sm_variant)var) : "-",
			     budget < SM_BUDGET_COUNT ? sm_budget_name((enum sm_budget)budget) : "-",
			     (unsigned long)atomic_load(&st->budget_flops),
			     binding >= 0 && binding < SM_STAGE_COUNT ?
			     sm_stage_name((enum sm_stage)binding) : "-",
			     (unsigned long)atomic_load(&st->steps_done),
			     (unsigned long)atomic_load(&st->steps),
			     (unsigned long)atomic_load(&st->frames),
			     (unsigned long)atomic_load(&st->drops),
			     (unsigned long)atomic_load(&st->events),
			     atomic_load(&st->now_ps) / 1e9,
			     (unsigned long)atomic_load(&st->changes));
	for (i = 0; i < DP_P_COUNT && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, ", \"%s\": %.12g", dp_param_key(i),
				      bits_double(atomic_load(&st->value_bits[i])));
	if (k < len)
		snprintf(out + k, len - k, "}\n");
}

static void
do_keys(char *out, size_t len)
{
	size_t k = (size_t)snprintf(out, len, "{\"ok\": true, \"keys\": [");
	int i;

	for (i = 0; i < DP_P_COUNT && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "%s\"%s\"", i ? ", " : "", dp_param_key(i));
	if (k < len)
		snprintf(out + k, len - k, "]}\n");
}

/* The value of @key=@value in SI units, checked by the scenario loader. */
static int
check_value(struct ctl_server *s, enum dp_param p, const char *key, const char *value,
	    double *si, char *why, size_t len)
{
	struct sc_scenario *sc = malloc(sizeof(*sc));
	const char **sets = calloc(s->p.nsets + 1, sizeof(*sets));
	char *kv = NULL;
	int rc = -ENOMEM;

	if (sc != NULL && sets != NULL && asprintf(&kv, "%s=%s", key, value) >= 0) {
		memcpy(sets, s->p.sets, s->p.nsets * sizeof(*sets));
		sets[s->p.nsets] = kv;
		rc = sc_scenario_load_run(sc, s->p.scenario, sets, s->p.nsets + 1, s->p.variants,
					  s->p.budgets, why, len);
		if (rc == 0)
			*si = p == DP_P_BG_LOAD ? sc->background.load : dp_param_get(&sc->model, p);
	} else {
		snprintf(why, len, "out of memory");
	}
	free(kv);
	free(sets);
	free(sc);
	return rc;
}

static void
do_set(struct ctl_server *s, const char *key, const char *value, char *out, size_t len)
{
	struct dp_tune_req *req;
	struct dp_tune_resp *resp = NULL;
	enum dp_param p;
	char why[512], k2[80];
	double si;
	uint64_t id;
	int waited;

	if (dp_param_parse(key, &p) != 0) {
		snprintf(why, sizeof(why), "%s cannot change during a run (see 'keys')", key);
		answer_error(out, len, why);
		return;
	}
	if (check_value(s, p, key, value, &si, why, sizeof(why)) != 0) {
		answer_error(out, len, why);
		return;
	}
	if (!atomic_load(&s->p.status->running)) {
		answer_error(out, len, "no run is in progress");
		return;
	}
	req = malloc(sizeof(*req));
	if (req == NULL) {
		answer_error(out, len, "out of memory");
		return;
	}
	id = ++s->next_id;	/* the data plane owns (and frees) req once it is queued */
	req->id = id;
	req->param = p;
	req->value = si;
	if (rte_ring_enqueue(s->p.req, req) != 0) {
		free(req);
		answer_error(out, len, "the data plane's request ring is full");
		return;
	}
	/* wait for the answer; older answers (timed out before) are dropped */
	for (waited = 0; waited < ANSWER_TIMEOUT_MS; waited++) {
		void *obj;

		while (rte_ring_dequeue(s->p.resp, &obj) == 0) {
			struct dp_tune_resp *r = obj;

			if (r->id == id) {
				resp = r;
				break;
			}
			free(r);
		}
		if (resp != NULL)
			break;
		usleep(1000);
	}
	if (resp == NULL) {
		/* the data plane frees the request when it gets to it */
		answer_error(out, len, "the data plane did not answer (the run ended?)");
		return;
	}
	json_str(k2, sizeof(k2), key);
	if (resp->rc != 0) {
		answer_error(out, len, resp->msg);
	} else {
		snprintf(out, len, "{\"ok\": true, \"key\": \"%s\", \"value\": %.12g, \"old\": %.12g, "
			 "\"run\": %u, \"at_ms\": %.9f}\n", k2, si, resp->old, resp->run_id,
			 resp->at / 1e9);
	}
	free(resp);
}

static void
do_get(struct ctl_server *s, const char *key, char *out, size_t len)
{
	enum dp_param p;
	char k2[80];

	if (dp_param_parse(key, &p) != 0) {
		answer_error(out, len, "not a runtime key (see 'keys')");
		return;
	}
	json_str(k2, sizeof(k2), key);
	snprintf(out, len, "{\"ok\": true, \"key\": \"%s\", \"value\": %.12g, \"running\": %u}\n",
		 k2, bits_double(atomic_load(&s->p.status->value_bits[p])),
		 atomic_load(&s->p.status->running));
}

static void
handle(struct ctl_server *s, char *line, char *out, size_t len)
{
	char *cmd, *key, *value, *save = NULL;

	line[strcspn(line, "\r\n")] = '\0';
	cmd = strtok_r(line, " \t", &save);
	key = cmd ? strtok_r(NULL, " \t", &save) : NULL;
	value = key ? strtok_r(NULL, "", &save) : NULL;
	if (value != NULL)
		value += strspn(value, " \t");
	if (cmd == NULL) {
		answer_error(out, len, "empty request (try 'status', 'keys', 'get KEY', "
			     "'set KEY VALUE')");
	} else if (strcmp(cmd, "status") == 0 && key == NULL) {
		do_status(s, out, len);
	} else if (strcmp(cmd, "keys") == 0 && key == NULL) {
		do_keys(out, len);
	} else if (strcmp(cmd, "get") == 0 && key != NULL && value == NULL) {
		do_get(s, key, out, len);
	} else if (strcmp(cmd, "set") == 0 && key != NULL && value != NULL && *value != '\0') {
		do_set(s, key, value, out, len);
	} else {
		answer_error(out, len, "unknown request (try 'status', 'keys', 'get KEY', "
			     "'set KEY VALUE')");
	}
}

/* The first byte of @line that is not printable ASCII (or a tab), as a message; NULL: none. */
static const char *
not_text(const char *line, size_t len)
{
	static __thread char why[96];
	const unsigned char *p = (const unsigned char *)line;
	size_t i;

	for (i = 0; i < len; i++)
		if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\r') || p[i] > 0x7e) {
			snprintf(why, sizeof(why), "request byte %zu is 0x%02x, not printable text",
				 i, p[i]);
			return why;
		}
	return NULL;
}

/*
 * Read one line (at most LINE_MAX_LEN) within a second.  0; -E2BIG: no newline within
 * LINE_MAX_LEN bytes; -ETIMEDOUT, -EIO.  A NUL byte is a byte of the line, and makes it not text.
 */
static int
read_line(int fd, char *buf, size_t len, size_t *line_len)
{
	size_t k = 0;
	char *nl;

	while (k + 1 < len) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pf, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf + k, len - 1 - k);
		if (n <= 0)
			break;
		k += (size_t)n;
		if (memchr(buf, '\n', k) != NULL)
			break;
	}
	buf[k] = '\0';
	nl = memchr(buf, '\n', k);
	if (nl == NULL && k + 1 == len) {
		/* read the rest of the line (up to 1 MiB or a second) and drop it, so that the
		 * client can read the answer instead of a reset */
		char sink[4096];
		size_t total = 0;

		while (total < (1u << 20)) {
			struct pollfd pf = { fd, POLLIN, 0 };
			ssize_t n;

			if (poll(&pf, 1, 1000) <= 0)
				break;
			n = read(fd, sink, sizeof(sink));
			if (n <= 0 || memchr(sink, '\n', (size_t)n) != NULL)
				break;
			total += (size_t)n;
		}
		return -E2BIG;
	}
	*line_len = nl != NULL ? (size_t)(nl - buf) : k;
	buf[*line_len] = '\0';
	return k > 0 ? 0 : -EIO;
}

static void *
serve(void *arg)
{
	struct ctl_server *s = arg;
	char line[LINE_MAX_LEN + 1], out[4096];

	for (;;) {
		struct pollfd pf[2] = { { s->fd, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		const char *bad;
		int c, rc;
		size_t n = 0;

		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		if (!(pf[0].revents & POLLIN))
			continue;
		c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		rc = read_line(c, line, sizeof(line), &n);
		if (rc == 0 && (bad = not_text(line, n)) != NULL)
			answer_error(out, sizeof(out), bad);
		else if (rc == 0)
			handle(s, line, out, sizeof(out));
		else if (rc == -E2BIG)
			answer_error(out, sizeof(out), "request longer than "
				     RTE_STR(LINE_MAX_LEN) " bytes");
		else
			answer_error(out, sizeof(out), "no request line within a second");
		/* MSG_NOSIGNAL: a client gone away is no SIGPIPE for the run */
		if (send(c, out, strlen(out), MSG_NOSIGNAL) < 0) {
			/* nothing to do */
		}
		close(c);
	}
	return NULL;
}

struct ctl_server *
ctl_server_start(const struct ctl_params *p, char *err, size_t errlen)
{
	struct ctl_server *s = calloc(1, sizeof(*s));
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	mode_t old;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->p = *p;
	s->fd = -1;
	s->stop[0] = s->stop[1] = -1;
	if (strlen(p->path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "--ctl: the path %s is too long for a socket", p->path);
		goto fail;
	}
	snprintf(s->path, sizeof(s->path), "%s", p->path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p->path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || pipe(s->stop) != 0) {
		snprintf(err, errlen, "--ctl: %s", strerror(errno));
		goto fail;
	}
	/* a socket nobody listens on is stale: replace it; one in use is someone else's */
	if (connect(s->fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		snprintf(err, errlen, "--ctl: %s is in use by another process", p->path);
		goto fail;
	}
	close(s->fd);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(p->path);
	old = umask(0077);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		umask(old);
		snprintf(err, errlen, "--ctl: cannot bind %s: %s", p->path, strerror(errno));
		goto fail;
	}
	umask(old);
	if (chmod(p->path, 0600) != 0 || listen(s->fd, 8) != 0) {
		snprintf(err, errlen, "--ctl: %s: %s", p->path, strerror(errno));
		unlink(p->path);
		goto fail;
	}
	if (pthread_create(&s->thread, NULL, serve, s) != 0) {
		snprintf(err, errlen, "--ctl: cannot start its thread");
		unlink(p->path);
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	free(s);
	return NULL;
}

void
ctl_server_stop(struct ctl_server *s)
{
	char b = 1;

	if (s == NULL)
		return;
	if (write(s->stop[1], &b, 1) == 1)
		pthread_join(s->thread, NULL);
	close(s->fd);
	close(s->stop[0]);
	close(s->stop[1]);
	unlink(s->path);
	free(s);
}

int
ctl_client(const char *path, const char *line, char *out, size_t outlen, int timeout_ms,
	   char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t k = 0;
	int fd, rc = 0;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "the path %s is too long for a socket", path);
		return -ENAMETOOLONG;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		rc = -errno;
		snprintf(err, errlen, "no syncemu is listening on %s: %s%s", path, strerror(errno),
			 errno == ENOENT ? " (start one with syncemu run --ctl PATH)" :
			 errno == ECONNREFUSED ? " (the run ended?)" : "");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	while (k + 1 < outlen) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pf, 1, timeout_ms) <= 0) {
			snprintf(err, errlen, "%s: no answer within %d ms", path, timeout_ms);
			close(fd);
			return -ETIMEDOUT;
		}
		n = read(fd, out + k, outlen - 1 - k);
		if (n <= 0)
			break;
		k += (size_t)n;
	}
	out[k] = '\0';
	close(fd);
	if (k == 0) {
		snprintf(err, errlen, "%s: the connection closed without an answer", path);
		return -EIO;
	}
	return 0;
}
