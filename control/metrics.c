/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live metrics in Prometheus's text format (metrics.h).  Written by hand: the format is a few
 * lines per metric, and Debian has no C client library of Prometheus's.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../models/bits.h"
#include "../models/kernel.h"
#include "../models/variant.h"
#include "listener.h"
#include "metrics.h"
#include "tune_keys.h"

#define METRICS_PAGE (160 * 1024)	/* 64 links of 14 families each, and the rest */
#define METRICS_REQ 4096

struct metrics_server {
	int fd;
	int stop[2];
	unsigned int port;
	pthread_t thread;
	const struct dp_status *st;
	char cmd[32];
	char url[300];
};

static int
add(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
add(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return -ENOSPC;
	*used += (size_t)n;
	return 0;
}

/* A sample's value as the text format has it: NaN, +Inf, -Inf or a float. */
static const char *
val(double v, char *b, size_t n)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	snprintf(b, n, "%.15g", v);
	return b;
}

/* One metric: its help, its type, its one sample. */
static int
metric(char *buf, size_t len, size_t *used, const char *name, const char *type,
       const char *help, double v)
{
	char b[40];

	return add(buf, len, used, "# HELP %s %s\n# TYPE %s %s\n%s %s\n", name, help, name, type,
		   name, val(v, b, sizeof(b)));
}

/* One family of a value per link: its help and type, then a sample per link. */
struct family {
	const char *name, *type, *help;
	double (*get)(const struct dp_status_link *l);
};

static double
ld(const _Atomic uint64_t *v)
{
	return (double)atomic_load_explicit(v, memory_order_relaxed);
}

static double
f_frames(const struct dp_status_link *l)
{
	return ld(&l->frames);
}
static double
f_bytes(const struct dp_status_link *l)
{
	return ld(&l->bytes);
}
static double
f_aqm(const struct dp_status_link *l)
{
	return ld(&l->drops_aqm);
}
static double
f_lost(const struct dp_status_link *l)
{
	return ld(&l->lost);
}
static double
f_marked(const struct dp_status_link *l)
{
	return ld(&l->marked);
}
static double
f_q(const struct dp_status_link *l)
{
	return ld(&l->qbytes);
}
static double
f_qmax(const struct dp_status_link *l)
{
	return ld(&l->max_qbytes);
}
static double
f_busy(const struct dp_status_link *l)
{
	return ld(&l->busy_ps) / 1e12;
}

static const struct family link_families[] = {
	{ "syncemu_link_sent_frames_total", "counter", "Frames a WAN link sent on.", f_frames },
	{ "syncemu_link_sent_bytes_total", "counter", "Frame bytes a WAN link sent on.", f_bytes },
	{ "syncemu_link_aqm_drops_total", "counter",
	  "Frames a WAN link's RED dropped early (also in syncemu_link_drops_total).", f_aqm },
	{ "syncemu_link_lost_frames_total", "counter",
	  "Frames lost on a WAN link's wire (impairments).", f_lost },
	{ "syncemu_link_ce_marked_frames_total", "counter",
	  "Frames a WAN link's queue marked CE (impairments).", f_marked },
	{ "syncemu_link_queue_bytes", "gauge",
	  "Frame bytes waiting in a WAN link's queue, as of its last event.", f_q },
	{ "syncemu_link_queue_max_bytes", "gauge",
	  "The most frame bytes a WAN link's queue held in the run.", f_qmax },
	{ "syncemu_link_busy_seconds_total", "counter",
	  "Emulated time a WAN link spent serialising: its rate over syncemu_emulated_seconds' "
	  "is its utilisation.", f_busy },
};

/* A label value as the text format escapes it. */
static void
label(const char *in, char *out, size_t n)
{
	size_t k = 0;

	for (; *in != '\0' && k + 3 < n; in++) {
		if (*in == '\\' || *in == '"')
			out[k++] = '\\';
		if (*in == '\n') {
			out[k++] = '\\';
			out[k++] = 'n';
			continue;
		}
		out[k++] = *in;
	}
	out[k] = '\0';
}

/* The published links' families: each WAN link of a run, each direction of a bridge. */
static int
links(const struct dp_status *st, const char *cmd, char *buf, size_t len, size_t *used)
{
	static const char *const classes[] = { "sync", "background", "tcp", "real" };
	uint32_t n = atomic_load_explicit(&st->n_link, memory_order_acquire), i, f, c;
	bool bridge = strcmp(cmd, "bridge") == 0;
	char names[DP_STATUS_LINKS][72], b[40];
	int rc = 0;

	if (n > DP_STATUS_LINKS)
		n = DP_STATUS_LINKS;
	for (i = 0; i < n; i++)
		label(st->link[i].name, names[i], sizeof(names[i]));
	for (f = 0; f < sizeof(link_families) / sizeof(link_families[0]); f++) {
		const struct family *fm = &link_families[f];

		rc |= add(buf, len, used, "# HELP %s %s\n# TYPE %s %s\n", fm->name, fm->help,
			  fm->name, fm->type);
		for (i = 0; i < n; i++)
			rc |= add(buf, len, used, "%s{link=\"%s\"} %s\n", fm->name, names[i],
				  val(fm->get(&st->link[i]), b, sizeof(b)));
	}
	/* drops by class: what is not background, TCP's or a bridge's own is the sync's (a run)
	 * or a real frame's (a bridge: its port caps' too) */
	rc |= add(buf, len, used, "# HELP syncemu_link_drops_total Frames a WAN link's queue "
		  "dropped, by class.\n# TYPE syncemu_link_drops_total counter\n");
	for (i = 0; i < n; i++) {
		const struct dp_status_link *l = &st->link[i];
		double by[4], all = ld(&l->drops);

		by[1] = ld(&l->drops_bg);
		by[2] = ld(&l->drops_tcp);
		by[3] = ld(&l->drops_real);
		by[0] = all > by[1] + by[2] + by[3] ? all - by[1] - by[2] - by[3] : 0;
		if (bridge) {
			by[3] += by[0];
			by[0] = 0;
		}
		for (c = bridge ? 1 : 0; c < (bridge ? 4u : 3u); c++)
			if (!(bridge && c == 2))
				rc |= add(buf, len, used, "syncemu_link_drops_total{link=\"%s\","
					  "class=\"%s\"} %s\n", names[i], classes[c],
					  val(by[c], b, sizeof(b)));
	}
	if (!bridge)
		return rc;
	rc |= add(buf, len, used, "# HELP syncemu_bridge_lateness_seconds How late the frames "
		  "of a direction left its far port (real seconds; the run's percentiles, every "
		  "0.1 s).\n# TYPE syncemu_bridge_lateness_seconds gauge\n");
	for (i = 0; i < n; i++) {
		const struct dp_status_link *l = &st->link[i];
		const struct { const char *p; double v; } q[] = {
			{ "50", ld(&l->late_p50_ns) }, { "99", ld(&l->late_p99_ns) },
			{ "99.9", ld(&l->late_p999_ns) }, { "100", ld(&l->late_max_ns) },
		};

		for (c = 0; c < 4; c++)
			rc |= add(buf, len, used, "syncemu_bridge_lateness_seconds{link=\"%s\","
				  "percentile=\"%s\"} %s\n", names[i], q[c].p,
				  val(ld(&l->late_n) > 0 ? q[c].v / 1e9 : NAN, b, sizeof(b)));
	}
	return rc;
}

int
metrics_render(const struct dp_status *st, const char *cmd, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t var = atomic_load(&st->var);
	int rc = 0, i;

	rc |= add(buf, len, &used, "# HELP syncemu_info The command serving these metrics, and the "
		  "variant of the run in progress.\n# TYPE syncemu_info gauge\n"
		  "syncemu_info{command=\"%s\",variant=\"%s\"} 1\n", cmd,
		  var < SM_VAR_COUNT ? sm_variant_name((enum sm_variant)var) : "");
	rc |= metric(buf, len, &used, "syncemu_running", "gauge",
		     "Whether a run is in progress (1) or not (0).", atomic_load(&st->running));
	rc |= metric(buf, len, &used, "syncemu_run_id", "gauge",
		     "The id of the run in progress or the last one, as in the report.",
		     atomic_load(&st->run_id));
	rc |= metric(buf, len, &used, "syncemu_steps", "gauge",
		     "The steps the run makes.", (double)atomic_load(&st->steps));
	rc |= metric(buf, len, &used, "syncemu_steps_done_total", "counter",
		     "Steps the run has done (from 0 at each run).",
		     (double)atomic_load(&st->steps_done));
	rc |= metric(buf, len, &used, "syncemu_frames_total", "counter",
		     strcmp(cmd, "bridge") == 0 ? "Frames the bridge's two ports received and sent." :
		     "Frames of the sync the workers made in the steps done.",
		     (double)atomic_load(&st->frames));
	rc |= metric(buf, len, &used, "syncemu_drops_total", "counter",
		     "Frames dropped at a queue in the run (sampled every 64th poll).",
		     (double)atomic_load(&st->drops));
	rc |= metric(buf, len, &used, "syncemu_events_total", "counter",
		     "Events the engine ran in the run.", (double)atomic_load(&st->events));
	rc |= metric(buf, len, &used, "syncemu_emulated_seconds", "gauge",
		     "Emulated time of the engine in the run (virtual, or real over the dilation).",
		     (double)atomic_load(&st->now_ps) / 1e12);
	rc |= metric(buf, len, &used, "syncemu_step_seconds", "gauge",
		     "The mean emulated time of the steps done since the previous poll of the "
		     "engine (NaN before the first).",
		     atomic_load(&st->step_ps) ? (double)atomic_load(&st->step_ps) / 1e12 : NAN);
	rc |= links(st, cmd, buf, len, &used);
	rc |= metric(buf, len, &used, "syncemu_background_transfers_started_total", "counter",
		     "Background transfers the hosts began sending in the run.",
		     (double)atomic_load(&st->bg_started));
	rc |= metric(buf, len, &used, "syncemu_background_transfers_done_total", "counter",
		     "Background transfers whose last frame arrived.",
		     (double)atomic_load(&st->bg_done));
	rc |= metric(buf, len, &used, "syncemu_background_transfers_incomplete_total", "counter",
		     "Background transfers that lost frames at a queue.",
		     (double)atomic_load(&st->bg_incomplete));
	if (strcmp(cmd, "bridge") != 0) {
		int32_t b = atomic_load(&st->binding);

		rc |= metric(buf, len, &used, "syncemu_module_budget_flops", "gauge",
			     "The compute budget the module is charged now, FLOP/s (0: none).",
			     (double)atomic_load(&st->budget_flops));
		rc |= add(buf, len, &used, "# HELP syncemu_module_binding_stage The module stage "
			  "that binds the run's steps so far (1 on the stage's series; none "
			  "before a module round).\n# TYPE syncemu_module_binding_stage gauge\n");
		if (b >= 0 && b < SM_STAGE_COUNT)
			rc |= add(buf, len, &used, "syncemu_module_binding_stage{stage=\"%s\"} 1\n",
				  sm_stage_name((enum sm_stage)b));
	}
	rc |= add(buf, len, &used, "# HELP syncemu_parameter A runtime key's value in force (SI "
		  "units; see syncemu ctl keys).\n# TYPE syncemu_parameter gauge\n");
	for (i = 0; i < DP_P_COUNT; i++) {
		char b[40];

		rc |= add(buf, len, &used, "syncemu_parameter{key=\"%s\"} %s\n",
			  ctl_param_key((enum dp_param)i),
			  val(sm_bits_double(atomic_load(&st->value_bits[i])), b, sizeof(b)));
	}
	return rc != 0 ? -ENOSPC : (int)used;
}

/* Write all of @p n bytes; false if the peer went. */
static bool
write_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return false;
		}
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static void
answer(struct metrics_server *s, int c)
{
	char req[METRICS_REQ + 1], *page = malloc(METRICS_PAGE), head[256];
	struct timeval tv = { 2, 0 };
	size_t got = 0;
	int n = -1, hn;
	const char *status = "404 Not Found", *body = "not found: GET /metrics\n";

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (got < METRICS_REQ) {	/* the request line and headers, up to an empty line */
		ssize_t r = recv(c, req + got, METRICS_REQ - got, 0);

		if (r <= 0)
			break;
		got += (size_t)r;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL || strstr(req, "\n\n") != NULL)
			break;
	}
	req[got] = '\0';
	if (page == NULL || got == 0) {
		free(page);
		return;
	}
	if (strncmp(req, "GET ", 4) != 0 && strncmp(req, "HEAD ", 5) != 0) {
		status = "405 Method Not Allowed";
		body = "only GET\n";
	} else if (strncmp(req + 4, "/metrics ", 9) == 0 || strncmp(req + 4, "/ ", 2) == 0 ||
		   strncmp(req + 5, "/metrics ", 9) == 0 || strncmp(req + 5, "/ ", 2) == 0) {
		n = metrics_render(s->st, s->cmd, page, METRICS_PAGE);
		if (n >= 0) {
			status = "200 OK";
			body = page;
		} else {
			status = "500 Internal Server Error";
			body = "the page is too long\n";
		}
	}
	hn = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: "
		      "%zu\r\nConnection: close\r\n\r\n", status, n >= 0 ?
		      "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8",
		      strlen(body));
	if (write_all(c, head, (size_t)hn) && strncmp(req, "HEAD ", 5) != 0)
		write_all(c, body, strlen(body));
	free(page);
}

static void *
serve(void *arg)
{
	struct metrics_server *s = arg;

	for (;;) {
		struct pollfd p[2] = { { s->fd, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		int c;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		answer(s, c);
		close(c);
	}
	return NULL;
}

/* "PORT", "HOST:PORT", "[V6]:PORT" into @p host and @p port; 0 or -EINVAL. */
static int
split(const char *spec, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(spec, ':');
	size_t n;

	if (colon == NULL) {
		snprintf(host, hlen, "127.0.0.1");
		n = strlen(spec);
		colon = spec - 1;
	} else if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (end == NULL || end + 1 != colon || (size_t)(end - spec - 1) >= hlen)
			return -EINVAL;
		memcpy(host, spec + 1, (size_t)(end - spec - 1));
		host[end - spec - 1] = '\0';
	} else {
		if ((size_t)(colon - spec) >= hlen || colon == spec)
			return -EINVAL;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
	}
	n = strlen(colon + 1);
	if (n == 0 || n >= plen || strspn(colon + 1, "0123456789") != n ||
	    strtoul(colon + 1, NULL, 10) > 65535)
		return -EINVAL;
	memcpy(port, colon + 1, n + 1);
	return 0;
}

struct metrics_server *
metrics_server_start(const char *spec, const struct dp_status *st, const char *cmd, char *err,
		     size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai = NULL;
	struct metrics_server *s;
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char host[256], port[8];
	int one = 1, rc;

	if (split(spec, host, sizeof(host), port, sizeof(port)) != 0) {
		snprintf(err, errlen, "--metrics '%s': expected PORT, HOST:PORT or [V6]:PORT "
			 "(PORT 0 to 65535)", spec);
		return NULL;
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "--metrics '%s': %s", spec, gai_strerror(rc));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		freeaddrinfo(ai);
		snprintf(err, errlen, "--metrics: out of memory");
		return NULL;
	}
	s->st = st;
	snprintf(s->cmd, sizeof(s->cmd), "%s", cmd);
	s->stop[0] = s->stop[1] = -1;
	s->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s->fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(s->fd, 16) != 0 ||
	    getsockname(s->fd, (struct sockaddr *)&a, &alen) != 0) {
		snprintf(err, errlen, "--metrics '%s': cannot listen: %s", spec, strerror(errno));
		goto fail;
	}
	s->port = ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port :
			((struct sockaddr_in *)&a)->sin_port);
	snprintf(s->url, sizeof(s->url), strchr(host, ':') != NULL ? "http://[%s]:%u/metrics" :
		 "http://%s:%u/metrics", host, s->port);
	if (pipe(s->stop) != 0 || pthread_create(&s->thread, NULL, serve, s) != 0) {
		snprintf(err, errlen, "--metrics: cannot start its thread");
		goto fail;
	}
	freeaddrinfo(ai);
	return s;
fail:
	freeaddrinfo(ai);
	ctl_listener_close(s->fd, s->stop);
	free(s);
	return NULL;
}

unsigned int
metrics_server_port(const struct metrics_server *s)
{
	return s->port;
}

const char *
metrics_server_url(const struct metrics_server *s)
{
	return s->url;
}

void
metrics_server_stop(struct metrics_server *s)
{
	char b = 1;

	if (s == NULL)
		return;
	if (write(s->stop[1], &b, 1) == 1)
		pthread_join(s->thread, NULL);
	close(s->fd);
	close(s->stop[0]);
	close(s->stop[1]);
	free(s);
}
