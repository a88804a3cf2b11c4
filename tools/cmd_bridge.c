/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu bridge: a real job's own frames through the emulated WAN (dataplane/bridge.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include "bgsizes.h"
#include "bridge.h"
#include "capture.h"
#include "cli.h"
#include "ctl.h"
#include "metrics.h"
#include "eal.h"
#include "port.h"
#include "impair_spec.h"
#include "runner.h"
#include "fpool.h"
#include "opts.h"
#include "outputs.h"
#include "pcapng.h"
#include "scenario.h"
#include "session.h"
#include "tune_keys.h"
#include "units.h"

struct bridge_opts {
	struct cli_sets kv;		/* the overrides */
	const char *eal, *ctl, *metrics;
	double duration;		/* s; 0: until SIGINT */
	bool json, quiet, help, trace_cli;
};

enum { O_DURATION, O_TRACE };

static const struct opt bridge_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "override a scenario key (repeatable)",
	  OPT_TARGET(cli_opt_set, struct bridge_opts, kv) },
	{ "a", 'a', "DEV", "port A [bridge.a]",
	  OPT_TARGET(cli_opt_key, struct bridge_opts, kv), .data = "bridge.a" },
	{ "b", 'b', "DEV", "port B [bridge.b]",
	  OPT_TARGET(cli_opt_key, struct bridge_opts, kv), .data = "bridge.b" },
	{ "duration", 'd', "TIME", "stop after this long (e.g. 30s) [until Ctrl-C]",
	  .id = O_DURATION },
	{ "trace", 't', "FILE", "write a pcapng trace: a file, a FIFO or - (stdout) [trace.file: "
	  "none]", .id = O_TRACE },
	{ "capture", 'c', "LIST", "capture points: wan (the WAN queues' in and out), eth (the "
	  "ports), port, bg, all [trace.capture: wan]",
	  OPT_TARGET(cli_opt_key, struct bridge_opts, kv), .data = "trace.capture" },
	{ "snaplen", 0, "BYTES", "bytes kept per frame, 0 = all [trace.snaplen: 90]",
	  OPT_TARGET(cli_opt_key, struct bridge_opts, kv), .data = "trace.snaplen" },
	{ "load", 'l', "FRACTION", "background load on the WAN [background.load: 0]",
	  OPT_TARGET(cli_opt_key, struct bridge_opts, kv), .data = "background.load" },
	{ "ctl", 0, "SOCKET", "serve runtime control on this UNIX socket (see syncemu ctl)",
	  OPT_TARGET(opts_set_string, struct bridge_opts, ctl) },
	{ "metrics", 0, "[HOST:]PORT", "serve live metrics in Prometheus's text format at "
	  "http://HOST:PORT/metrics (HOST 127.0.0.1 if left out; PORT 0: any free one, said)",
	  OPT_TARGET(opts_set_string, struct bridge_opts, metrics) },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults (" DP_EAL_DEFAULT ")",
	  .id = OPT_DASH_VALUE, OPT_TARGET(opts_set_string, struct bridge_opts, eal) },
	{ "json", 'j', NULL, "print the summary as JSON",
	  OPT_TARGET(opts_set_flag, struct bridge_opts, json) },
	{ "quiet", 'q', NULL, "no progress on stderr (notes of frames lost, cut, finished or "
	  "late still)", OPT_TARGET(opts_set_flag, struct bridge_opts, quiet) },
	{ "help", 'h', NULL, "show this help",
	  OPT_TARGET(opts_set_flag, struct bridge_opts, help) },
};

#define N_OPTS (sizeof(bridge_optv) / sizeof(bridge_optv[0]))

static int
bridge_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct bridge_opts *o = ctx;

	switch (id) {
	case O_DURATION:
		if (sc_unit_parse(SC_UNIT_TIME, arg, &o->duration, NULL, 0) != 0 ||
		    !(o->duration > 0) || o->duration > 1e7) {
			snprintf(err, errlen, "%s: '%s' is not a time in (0, 10^7 s] (e.g. 30s, 5min)",
				 opts_spelling(), arg);
			return -EINVAL;
		}
		return 0;
	case O_TRACE:
		o->trace_cli = true;
		return cli_sets_key(&o->kv, "trace.file", arg, err, errlen);
	}
	return -EINVAL;
}

static void
bridge_usage(FILE *f)
{
	opts_usage(f, "syncemu bridge [SCENARIO.ini] --a DEV --b DEV [options]",
		   "Put real frames through the emulated WAN: every frame that arrives on port A\n"
		   "leaves on port B after the scenario's WAN from A to B (an optional port cap,\n"
		   "the WAN queue's drop-tail FIFO, its serialiser at [wan] bandwidth and its\n"
		   "[wan] latency), and B to A the same way, whatever the frame is (ARP, IPv6, TCP,\n"
		   "RoCE v2, jumbo frames up to run.mtu). It runs in real time (dilation 1 unless\n"
		   "run.dilation says otherwise) until Ctrl-C or --duration, then prints a summary:\n"
		   "frames and bytes each way, drops at the queue, the queue's occupancy, the\n"
		   "background transfers, and how late frames left (the host falling behind).",
		   bridge_optv, N_OPTS);
	fprintf(f, "\nA port is any device syncemu opens: a vdev (net_af_packet0,iface=veth1;\n"
		   "net_af_xdp0,iface=veth1; net_memif0,role=server,socket=/tmp/s,socket-abstract=no),\n"
		   "a PCI NIC given to the EAL (--eal '-a 0000:3b:00.0 ...', then bridge.a=0000:3b:00.0),\n"
		   "or ring:NAME. Turn TSO, GSO and GRO off on veth ends (ethtool -K DEV tso off gso\n"
		   "off gro off): a bridge carries frames, not the kernel's 64 kB super-frames; it\n"
		   "drops and counts a frame that arrives cut short, or longer than the far port's\n"
		   "MTU, and refuses at start a port whose MTU is more than its driver hands over\n"
		   "whole (af_packet: framesz less 66 bytes). A TCP/UDP checksum a host left to its\n"
		   "device (tx offload on) is finished here (ethtool -K DEV tx off has the host do\n"
		   "it). A frame never leaves before its time; every frame a device took is in or\n"
		   "counted lost.\n"
		   "\nThe WAN each way: bridge.bandwidth_ab, bridge.bandwidth_ba, bridge.latency_ab,\n"
		   "bridge.latency_ba (auto: [wan] bandwidth and latency, one way); its queue\n"
		   "queues.wan (frame bytes, drop-tail); bridge.port puts a port cap (queues.port)\n"
		   "in front; run.accounting = payload charges a frame its bytes as the kernel counts\n"
		   "them (what tc tbf meters), wire adds FCS, preamble and inter-frame gap.\n"
		   "Background: background.load of the WAN rate (A to B; both ways with\n"
		   "background.directions = all) as Poisson transfers (background.sizes, .size,\n"
		   "run.seed) made inside; they queue with the real frames and end at the far end,\n"
		   "or leave by the far port with bridge.emit_background = yes.\n"
		   "Impairments as tc netem words them: impair.ab and impair.ba (else impair.wan),\n"
		   "e.g. --set 'impair.ab=loss gemodel 1%% 10%% jitter 5ms normal': a lost frame takes\n"
		   "its time on the wire, is counted (lost) and traced at wan.ab.loss;\n"
		   "--set 'impair.ab=trace cell.up' takes a Mahimahi trace's delivery\n"
		   "opportunities as the WAN's capacity from A to B.\n"
		   "\nThe trace (--trace FILE, capture points wan by default) holds each frame at the\n"
		   "WAN queue's in and out (wan.ab.in, wan.ab.out, ...) at the actual times, as\n"
		   "wall-clock time: syncemu validate reads it as any capture, and its times line up\n"
		   "with a tcpdump of the hosts. --ctl SOCKET takes wan.bandwidth, wan.latency (both\n"
		   "ways), background.load, queues.wan, impair.loss and impair.jitter during the run\n"
		   "(syncemu ctl), and from its start when sent while the bridge starts.\n"
		   "\nCtrl-C (SIGINT) or SIGTERM ends the bridge, writes the trace and prints the\n"
		   "summary (exit 0: it is how a bridge ends); a second one ends it at once.\n"
		   "Exit codes: 0 ok, 1 failed (a port, memory, the trace), 2 bad command line,\n"
		   "3 bad scenario.\n"
		   "\nexamples:\n"
		   "  syncemu bridge --a net_af_packet0,iface=va --b net_af_packet1,iface=vb \\\n"
		   "      --set wan.bandwidth=100Mbit/s --set wan.latency=10ms --set queues.wan=1MB\n"
		   "  syncemu bridge --a net_af_xdp0,iface=va --b net_af_xdp1,iface=vb -l 0.5 -d 60s \\\n"
		   "      --trace wan.pcapng --ctl /tmp/br.sock\n"
		   "  syncemu bridge --eal '-l 2 -a 0000:3b:00.0 -a 0000:3b:00.1' \\\n"
		   "      --a 0000:3b:00.0 --b 0000:3b:00.1 --set wan.bandwidth=10Gbit/s\n");
}


static const char *const dir_label[2] = { "A->B", "B->A" };
static const char *const dir_key[2] = { "ab", "ba" };

/* ---- progress, and notes while running ---- */

#define NOTE_EVERY_S 10.0	/* a note of lateness at most this often */
#define HELD_NOTE 0.05		/* of an interval held from the ports: worth a note */

struct tick_state {
	bool tty, quiet;
	uint64_t last_bytes[2];
	double last_s;
	/* the notes: each of a port's once; lateness at most every NOTE_EVERY_S */
	bool said_csum[2], said_cut[2], said_long[2], said_lost[2];
	uint64_t last_held, last_sent[2], last_over[2];
	double last_note_s, last_real_s;
};

static const char *const port_label[2] = { "A", "B" };

/* "port A (interface va)", or its device where it has no kernel interface. */
static const char *
port_name(const struct dp_bridge *b, int d, char *buf, size_t len)
{
	const struct dp_port *p = &b->port[d];

	if (p->ifd != NULL)
		snprintf(buf, len, "port %s (interface %s)", port_label[d], p->ifd->name);
	else
		snprintf(buf, len, "port %s (%s)", port_label[d], p->dev);
	return buf;
}

static void
note(struct tick_state *ts, const char *fmt, ...)
{
	va_list ap;

	if (ts->tty && !ts->quiet)
		fputc('\n', stderr);	/* below the progress line */
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* What the ports met that a user must hear of while it happens, each said once. */
static void
port_notes(struct tick_state *ts, const struct dp_bridge *b)
{
	char name[64];
	int d;

	for (d = 0; d < 2; d++) {
		const struct dp_port *p = &b->port[d];
		const char *ifn = p->ifd != NULL ? p->ifd->name : "DEV";
		struct dp_port_dev dev;

		if (p->rx_csum > 0 && !ts->said_csum[d]) {
			ts->said_csum[d] = true;
			note(ts, "syncemu bridge: %s: its host leaves TCP/UDP checksums to the device "
			     "(transmit checksum offload on): the bridge finishes them (%" PRIu64
			     " frames so far); to have the host do it, ethtool -K DEV tx off on the "
			     "host's end of %s", port_name(b, d, name, sizeof(name)), p->rx_csum, ifn);
		}
		if (p->rx_cut > 0 && !ts->said_cut[d]) {
			ts->said_cut[d] = true;
			note(ts, "syncemu bridge: %s: %" PRIu64 " frames arrived shorter than their IP "
			     "header says (cut by the device: a host's super-frames, TSO or GSO on, "
			     "or IPv4 fragments the af_packet driver reassembles); they are dropped "
			     "and counted: ethtool -K DEV tso off gso off on the host's end of %s",
			     port_name(b, d, name, sizeof(name)), p->rx_cut, ifn);
		}
		if (p->tx_too_long > 0 && !ts->said_long[d]) {
			ts->said_long[d] = true;
			note(ts, "syncemu bridge: %s: %" PRIu64 " frames longer than its MTU (%u) were "
			     "dropped, not sent (the interface takes no more): jumbo frames from "
			     "the other port (give %s the other interface's MTU), or IPv4 datagrams "
			     "that came in fragments, which the af_packet driver reassembles (send "
			     "them unfragmented, or use af_xdp)", port_name(b, d, name, sizeof(name)),
			     p->tx_too_long, p->ifd != NULL ? p->ifd->mtu : 0, ifn);
		}
		dp_port_dev_counts(p, &dev);
		if (dev.rx_missed + dev.rx_nombuf + dev.rx_errors > 0 && !ts->said_lost[d]) {
			ts->said_lost[d] = true;
			note(ts, "syncemu bridge: %s: the device lost %" PRIu64 " frames before the "
			     "bridge took them (%" PRIu64 " its receive ring was full, %" PRIu64
			     " no mbuf, %" PRIu64 " errors): the host held the bridge, or the ring "
			     "is short (af_packet: framecnt=); counted in the summary",
			     port_name(b, d, name, sizeof(name)), dev.rx_missed + dev.rx_nombuf +
			     dev.rx_errors, dev.rx_missed, dev.rx_nombuf, dev.rx_errors);
		}
	}
}

/* The host makes the bridge late: said while it lasts (at most every NOTE_EVERY_S). */
static void
late_note(struct tick_state *ts, const struct dp_bridge *b, double real_s)
{
	double dt = real_s - ts->last_real_s;
	uint64_t held = b->held_ns - ts->last_held, sent = 0, over = 0;
	int d;

	for (d = 0; d < 2; d++) {
		sent += b->port[d].late.seen - ts->last_sent[d];
		over += b->port[d].late.over - ts->last_over[d];
		ts->last_sent[d] = b->port[d].late.seen;
		ts->last_over[d] = b->port[d].late.over;
	}
	ts->last_held = b->held_ns;
	ts->last_real_s = real_s;
	if (!(dt > 0) || ((double)held < HELD_NOTE * dt * 1e9 && !(sent >= 20 && 2 * over > sent)))
		return;
	if (ts->last_note_s > 0 && real_s - ts->last_note_s < NOTE_EVERY_S)
		return;
	ts->last_note_s = real_s;
	note(ts, "syncemu bridge: late: in the last %.1f s the host kept the bridge from its ports "
	     "for %.0f ms (the longest %.1f ms), and %" PRIu64 " of %" PRIu64 " frames left more "
	     "than %g ms after their time: frames cross that much slower than the WAN says "
	     "(keep other programs off the bridge's CPU)", dt, (double)held / 1e6,
	     (double)b->held_max_recent / 1e6, over, sent, DP_LATE_OVER_NS / 1e6);
}

static void
tick(void *arg, const struct dp_bridge *b)
{
	struct tick_state *ts = arg;
	double s = (double)b->eng.now / 1e12, dt = s - ts->last_s;
	int d;

	port_notes(ts, b);
	late_note(ts, b, (double)dp_clock_ns(&b->clk) / 1e9);
	if (ts->quiet)
		return;
	fprintf(stderr, "%ssyncemu bridge: %.0f s", ts->tty ? "\r" : "", s);
	for (d = 0; d < 2; d++) {
		uint64_t bytes = b->port[1 - d].tx_bytes;

		fprintf(stderr, "  %s %" PRIu64 " frames %.3g Mbit/s, %" PRIu64 " dropped",
			dir_label[d], b->port[1 - d].tx, dt > 0 ?
			(double)(bytes - ts->last_bytes[d]) * 8 / dt / 1e6 : 0.0,
			b->wan[d].raw_drop);
		ts->last_bytes[d] = bytes;
	}
	fprintf(stderr, "%s", ts->tty ? "   " : "\n");
	ts->last_s = s;
}

/* ---- the summary ---- */

static void
summary_text(const struct dp_bridge_report *r, FILE *f)
{
	int d;

	fprintf(f, "syncemu bridge: %.3f s, %u live change%s, TSC %.6f GHz (DPDK says %.6f)\n",
		r->seconds, r->changes, r->changes == 1 ? "" : "s", r->hz / 1e9,
		r->hz_nominal / 1e9);
	for (d = 0; d < 2; d++) {
		const struct dp_bridge_dir_report *x = &r->dir[d];
		char bw[64], lat[64], q[64];

		sc_unit_format(SC_UNIT_BYTE_RATE, (double)x->bw, bw, sizeof(bw));
		sc_unit_format(SC_UNIT_TIME, (double)x->delay / 1e12, lat, sizeof(lat));
		sc_unit_format(SC_UNIT_BYTES, (double)x->queue_bytes, q, sizeof(q));
		fprintf(f, "%s (WAN %s, latency %s, queue %s, background load %g):\n", dir_label[d],
			bw, lat, q, x->load);
		fprintf(f, "  frames in %" PRIu64 " (%" PRIu64 " B), out %" PRIu64 " (%" PRIu64
			" B), dropped at the queue %" PRIu64 ", left inside at the end %" PRIu64 "\n",
			x->in, x->in_bytes, x->out, x->out_bytes, x->drops, x->left);
		if (x->impaired)
			fprintf(f, "  impairments: %" PRIu64 " frames lost on the wire, %" PRIu64
				" overtaken by one sent later, %" PRIu64 " with a bit flipped, %" PRIu64
				" delivered twice; %" PRIu64 " marked CE, %" PRIu64 " dropped early "
				"by RED\n", x->lost, x->reordered, x->corrupted, x->duplicated,
				x->marked, x->aqm_drops);
		fprintf(f, "  mean rate out %.6g Mbit/s; WAN busy %.1f %%; queue mean %.0f B, max "
			"%" PRIu64 " B (%u frames)\n", r->seconds > 0 ?
			(double)x->out_bytes * 8 / r->seconds / 1e6 : 0.0, 100 * x->busy,
			x->mean_qbytes, x->max_qbytes, x->max_qframes);
		if (x->bg_started > 0 || x->bg_frames > 0)
			fprintf(f, "  background: %" PRIu64 " transfers started, %" PRIu64 " done "
				"(mean completion %.3g ms), %" PRIu64 " incomplete, %" PRIu64
				" frames (%" PRIu64 " B payload), %" PRIu64 " dropped, %" PRIu64
				" sent out\n", x->bg_started, x->bg_done,
				isnan(x->bg_fct_mean) ? 0.0 : x->bg_fct_mean * 1e3, x->bg_incomplete,
				x->bg_frames, x->bg_bytes, x->bg_drops, x->bg_emitted);
		fprintf(f, "  lateness of %" PRIu64 " frames sent: median %.0f ns, p99 %.0f ns, "
			"p99.9 %.0f ns, max %.0f ns; %" PRIu64 " waited for room in the device; ",
			x->late_n, x->late_median_ns, x->late_p99_ns, x->late_p999_ns,
			x->late_max_ns, x->tx_deferred);
		if (x->early_n == 0)
			fprintf(f, "none left before its time\n");
		else
			fprintf(f, "%" PRIu64 " left BEFORE their time (by up to %.0f ns)\n",
				x->early_n, x->early_max_ns);
		fprintf(f, "  port %s's device took %" PRIu64 " frames: %" PRIu64 " taken by the bridge, "
			"%" PRIu64 " lost in the device (its ring full %" PRIu64 ", no mbuf %" PRIu64
			", errors %" PRIu64 ")\n", port_label[d], x->dev_in.rx_packets +
			x->dev_rx_dropped, x->dev_in.rx_packets, x->dev_rx_dropped,
			x->dev_in.rx_missed, x->dev_in.rx_nombuf, x->dev_in.rx_errors);
		if (x->cut > 0 || x->too_long > 0 || x->dev_tx_errors > 0)
			fprintf(f, "  LOST outside the queue: %" PRIu64 " arrived cut short, %" PRIu64
				" longer than port %s's MTU, %" PRIu64 " the device failed to send\n",
				x->cut, x->too_long, port_label[1 - d], x->dev_tx_errors);
		if (x->csum_finished > 0)
			fprintf(f, "  TCP/UDP checksums left by the sender to its device, finished: "
				"%" PRIu64 "\n", x->csum_finished);
	}
	fprintf(f, "polls: %" PRIu64 " behind (events overdue), %" PRIu64 " idle; the host held "
		"the bridge from its ports %" PRIu64 " times over %g ms, %.1f ms in all (the "
		"longest %.1f ms)\n", r->behind, r->idle, r->holds, DP_BRIDGE_HOLD_NS / 1e6,
		(double)r->held_ns / 1e6, (double)r->held_max_ns / 1e6);
}

static json_t *
summary_json(const struct dp_bridge_report *r, const struct dp_bridge *b)
{
	json_t *o = json_object(), *dirs = json_object(), *ch = json_array();
	uint32_t i;
	int d;

	json_object_set_new(o, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(o, "command", json_string("bridge"));
	json_object_set_new(o, "seconds", json_real(r->seconds));
	json_object_set_new(o, "changes", json_integer(r->changes));
	json_object_set_new(o, "polls_behind", json_integer((json_int_t)r->behind));
	json_object_set_new(o, "polls_idle", json_integer((json_int_t)r->idle));
	json_object_set_new(o, "holds", json_integer((json_int_t)r->holds));
	json_object_set_new(o, "held_s", json_real((double)r->held_ns / 1e9));
	json_object_set_new(o, "held_max_s", json_real((double)r->held_max_ns / 1e9));
	json_object_set_new(o, "tsc_hz", json_real(r->hz));
	for (d = 0; d < 2; d++) {
		const struct dp_bridge_dir_report *x = &r->dir[d];
		json_t *j = json_object();

#define I(k, v) json_object_set_new(j, k, json_integer((json_int_t)(v)))
#define R(k, v) json_object_set_new(j, k, isnan(v) ? json_null() : json_real(v))
		I("frames_in", x->in);
		I("bytes_in", x->in_bytes);
		I("frames_out", x->out);
		I("bytes_out", x->out_bytes);
		I("drops", x->drops);
		I("left", x->left);
		if (x->impaired) {
			I("lost", x->lost);
			I("reordered", x->reordered);
			I("corrupted", x->corrupted);
			I("duplicated", x->duplicated);
			I("marked", x->marked);
			I("aqm_drops", x->aqm_drops);
		}
		I("bg_started", x->bg_started);
		I("bg_done", x->bg_done);
		I("bg_incomplete", x->bg_incomplete);
		I("bg_frames", x->bg_frames);
		I("bg_payload_bytes", x->bg_bytes);
		I("bg_drops", x->bg_drops);
		I("bg_emitted", x->bg_emitted);
		R("bg_fct_mean_s", x->bg_fct_mean);
		I("queue_max_bytes", x->max_qbytes);
		I("queue_max_frames", x->max_qframes);
		R("queue_mean_bytes", x->mean_qbytes);
		R("busy", x->busy);
		I("tx_deferred", x->tx_deferred);
		I("dev_rx_dropped", x->dev_rx_dropped);
		I("dev_rx_packets", x->dev_in.rx_packets);
		I("dev_rx_missed", x->dev_in.rx_missed);
		I("dev_rx_nombuf", x->dev_in.rx_nombuf);
		I("dev_rx_errors", x->dev_in.rx_errors);
		I("dev_tx_errors", x->dev_tx_errors);
		I("cut", x->cut);
		I("too_long", x->too_long);
		I("csum_finished", x->csum_finished);
		I("late_n", x->late_n);
		I("late_over_1ms", x->late_over);
		I("early_n", x->early_n);
		R("early_max_ns", x->early_max_ns);
		R("late_median_ns", x->late_median_ns);
		R("late_p99_ns", x->late_p99_ns);
		R("late_p999_ns", x->late_p999_ns);
		R("late_max_ns", x->late_max_ns);
		I("bandwidth_Bps", x->bw);
		R("latency_s", (double)x->delay / 1e12);
		I("queue_limit_bytes", x->queue_bytes);
		R("load", x->load);
		R("rate_out_bps", r->seconds > 0 ? (double)x->out_bytes * 8 / r->seconds : 0.0);
#undef I
#undef R
		json_object_set_new(dirs, dir_key[d], j);
	}
	json_object_set_new(o, "directions", dirs);
	for (i = 0; i < b->nchanges; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "at_s", json_real((double)b->changes[i].at / 1e12));
		json_object_set_new(c, "key", json_string(ctl_param_key(b->changes[i].param)));
		json_object_set_new(c, "old", json_real(b->changes[i].old));
		json_object_set_new(c, "value", json_real(b->changes[i].value));
		json_array_append_new(ch, c);
	}
	json_object_set_new(o, "live_changes", ch);
	return o;
}

/* ---- set-up ---- */

static struct dp_status ctl_status;

static char *
trace_comment(const struct sc_scenario *sc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "syncemu %s bridge of scenario %s, seed %" PRIu64 ": A %s, B %s\n",
		SYNCEMU_VERSION, sc->name, sc->run.seed, sc->bridge.a, sc->bridge.b);
	sc_scenario_dump_results(sc, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}


static double
either(double v, double dflt)
{
	return v == SC_AUTO ? dflt : v;
}

/* a second signal also removes the EAL's runtime directory */

static const struct session bridge_session = {
	.who = "syncemu bridge", .stop_cleanup = dp_eal_signal_cleanup,
};

/* The WAN's impairments each way: [impair] ab and ba, or wan (read at load: no error here). */
static void
bridge_impair(const struct sc_scenario *sc, struct dp_bridge_params *bp)
{
	const char *t[2] = { sc->impair.ab, sc->impair.ba };
	char why[256];

	for (int d = 0; d < 2; d++) {
		const char *text = t[d][0] != '\0' ? t[d] : sc->impair.wan;

		memset(&bp->impair[d], 0, sizeof(bp->impair[d]));
		if (text[0] != '\0')
			sc_impair_parse(text, &bp->impair[d], why, sizeof(why));
		runner_impair_live(sc, &bp->impair[d]);
	}
	bp->imp_loss = sc->impair.loss != SC_AUTO ? sc->impair.loss : 0;
	bp->imp_jitter = sc->impair.jitter != SC_AUTO ? sc->impair.jitter : 0;
}

/* The bridge's parameters from the scenario: @p sizes the background's (NULL: none). */
static void
bridge_params(const struct sc_scenario *sc, const struct sm_size_dist *sizes,
	      struct dp_capture *cap, struct dp_bridge_params *bp)
{
	bp->dev[0] = sc->bridge.a;
	bp->dev[1] = sc->bridge.b;
	bp->bw[0] = sm_rate(either(sc->bridge.bandwidth_ab, sc->model.wan.bw));
	bp->bw[1] = sm_rate(either(sc->bridge.bandwidth_ba, sc->model.wan.bw));
	bp->delay[0] = sm_ps(either(sc->bridge.latency_ab, sc->model.wan.lat));
	bp->delay[1] = sm_ps(either(sc->bridge.latency_ba, sc->model.wan.lat));
	bp->queue_bytes = (uint64_t)sc->queues.wan;
	bridge_impair(sc, bp);
	bp->port_rate = sc->bridge.port > 0 ? sm_rate(sc->bridge.port) : 0;
	bp->port_queue_bytes = (uint64_t)sc->queues.port;
	bp->account = sc->run.pk.account;
	bp->load = sc->background.load;
	bp->both_ways = sc->background.directions == SC_DIRECTIONS_ALL;
	bp->sizes = sizes;
	bp->seed = sc->run.seed;
	bp->payload = sc->run.pk.payload;
	bp->burst = sc->run.pk.burst;
	bp->host_bw = sm_rate(sc->background.host_rate);
	bp->emit_bg = sc->bridge.emit_background;
	/* jumbo frames whatever run.mtu (syncemu's own frames) says; a VLAN tag allowed; but no
	 * longer than a port receives (af_xdp: a page a frame), a longer one from the other port
	 * dropped as too long, and counted */
	bp->frame_max = SM_ETH_HDR + 4 + (sc->run.pk.mtu > 9000 ? sc->run.pk.mtu : 9000);
	for (int d = 0; d < 2; d++) {
		uint32_t room = bp->dev[d] != NULL ? dp_port_rx_room(bp->dev[d], bp->frame_max) : 0;

		if (room != 0 && room < bp->frame_max)
			bp->frame_max = room;
	}
	bp->mbufs = sc->bridge.mbufs;
	bp->dilation = sc->run.dilation;
	bp->calibrate_s = sc->run.calibrate;
	bp->wait_ms = (int)(sc->ports.wait * 1000);
	bp->cap = cap;
}

/* What the bridge publishes (for --ctl, the telemetry and --metrics), from the scenario's values. */
static void
status_init(const struct sc_scenario *sc, struct dp_bridge_params *bp)
{
	unsigned int i;

	if (bp->status != NULL)
		return;
	atomic_store(&ctl_status.var, UINT32_MAX);
	atomic_store(&ctl_status.budget, UINT32_MAX);
	atomic_store(&ctl_status.binding, -1);
	for (i = 0; i < DP_P_COUNT; i++)
		dp_status_publish(&ctl_status, i, ctl_scenario_value(sc, i));
	bp->status = &ctl_status;
}

/*
 * --ctl: the status published, the rings to the bridge (*@p req, *@p resp, in @p bp too) and the
 * control socket (*@p ctl).  0 or the exit code, said.
 */
static int
bridge_ctl(const struct bridge_opts *o, const struct sc_scenario *sc, const char *scenario,
	   struct dp_bridge_params *bp, struct rte_ring **req, struct rte_ring **resp,
	   struct ctl_server **ctl)
{
	struct ctl_params cp = { .path = o->ctl, .scenario = scenario,
				 .sets = o->kv.sets, .nsets = o->kv.nsets,
				 .variants = 0, .budgets = 0,	/* no sync runs */
				 .status = &ctl_status, .before_run = true };
	char err[512];

	status_init(sc, bp);
	*req = rte_ring_create("bridge_ctl_req", 64, SOCKET_ID_ANY,
			      RING_F_SP_ENQ | RING_F_SC_DEQ);
	*resp = rte_ring_create("bridge_ctl_resp", 64, SOCKET_ID_ANY,
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*req == NULL || *resp == NULL) {
		fprintf(stderr, "syncemu bridge: --ctl: cannot create its rings\n");
		return CLI_EXIT_FAIL;
	}
	ctl_telemetry_register(&ctl_status);
	cp.req = *req;
	cp.resp = *resp;
	bp->ctl_req = *req;
	bp->ctl_resp = *resp;
	*ctl = ctl_server_start(&cp, err, sizeof(err));
	if (*ctl == NULL) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* What is bridged, said on the standard error. */
static void
bridge_banner(const struct dp_bridge_params *bp, double duration)
{
	char bw[2][64], lat[2][64], q[64];
	int d;

	for (d = 0; d < 2; d++) {
		sc_unit_format(SC_UNIT_BYTE_RATE, (double)bp->bw[d], bw[d], sizeof(bw[d]));
		sc_unit_format(SC_UNIT_TIME, (double)bp->delay[d] / 1e12, lat[d],
			       sizeof(lat[d]));
	}
	sc_unit_format(SC_UNIT_BYTES, (double)bp->queue_bytes, q, sizeof(q));
	fprintf(stderr, "syncemu bridge: A %s <-> B %s; A->B %s, %s; B->A %s, %s; queue %s; "
		"background load %g; %s\n", bp->dev[0], bp->dev[1], bw[0], lat[0], bw[1],
		lat[1], q, bp->load, duration > 0 ? "running for --duration" :
		"Ctrl-C to stop");
}

/* The summary on the standard output, text or JSON, with the trace's path when it was written. */
static void
bridge_output(const struct dp_bridge_report *rep, const struct dp_bridge *b, bool json,
	      const char *trace_path, int status)
{
	if (json) {
		json_t *j = summary_json(rep, b);

		json_object_set_new(j, "status", json_string(status == CLI_EXIT_OK ? "ok" :
							     "failed"));
		json_object_set_new(j, "trace", trace_path != NULL && status == CLI_EXIT_OK ?
					json_string(trace_path) : json_null());
		json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		summary_text(rep, stdout);
		if (trace_path != NULL && status == CLI_EXIT_OK)
			printf("trace: %s\n", trace_path);
	}
}

/* The two ports given, and not one device twice: 0 or CLI_EXIT_USAGE, said. */
static int
bridge_ports_check(const struct sc_scenario *sc)
{
	int d;

	for (d = 0; d < 2; d++) {
		const char *dev = d == 0 ? sc->bridge.a : sc->bridge.b;

		if (dev[0] == '\0') {
			fprintf(stderr, "syncemu bridge: no port %s: give --%s DEV or --set "
				"bridge.%s=DEV (e.g. net_af_packet%d,iface=veth%d)\n(try 'syncemu "
				"bridge --help')\n", d == 0 ? "A" : "B", d == 0 ? "a" : "b",
				d == 0 ? "a" : "b", d, d);
			return CLI_EXIT_USAGE;
		}
	}
	if (strcmp(sc->bridge.a, sc->bridge.b) == 0 && strncmp(sc->bridge.a, "ring:", 5) != 0) {
		fprintf(stderr, "syncemu bridge: bridge.a and bridge.b are the same device (%s)\n",
			sc->bridge.a);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

/*
 * The EAL (@p apart: telemetry on a socket of its own; *@p eal_up) and the background frames'
 * pool (*@p pool, bp->pool).  0 or CLI_EXIT_FAIL, said.
 */
static int
bridge_eal(const struct sc_scenario *sc, const char *eal, bool apart,
	   struct dp_bridge_params *bp, bool *eal_up, struct rte_mempool **pool)
{
	uint32_t bg_n = (uint32_t)RTE_MIN(sc->queues.wan / sc->run.pk.payload + 2048, 65536.0);
	uint32_t bg_frame = SM_HDR_BYTES + sc->run.pk.payload;
	uint32_t mb = dp_bridge_mem_mb(bp) + (bp->emit_bg ? dp_pool_mem_mb(bg_n, bg_frame) :
					     dp_pool_mem_mb(4096, 512));
	char err[512];
	int rc;

	rc = (apart ? dp_eal_init_apart : dp_eal_init)(eal, mb, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	*eal_up = true;
	if (bp->emit_bg) {
		/* whole frames: they leave by a port */
		*pool = dp_pool_create("bridge_bg", bg_n, bg_frame, err, sizeof(err));
	} else {
		struct dp_fpool_params fp = { .n = 4096, .frame_max = bg_frame,
					      .grow = 4096, .compact = true };

		*pool = dp_fpool_create("bridge_bg", &fp);
		if (*pool == NULL)
			snprintf(err, sizeof(err), "no frame pool (%s)",
				 rte_strerror(rte_errno));
	}
	if (*pool == NULL) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	bp->pool = *pool;
	return CLI_EXIT_OK;
}

/*
 * The trace (outs[0]), checked against the files the bridge reads, then opened into *@p cap;
 * the signals caught from here.  0 or the exit code, said.
 */
static int
bridge_trace(const struct bridge_opts *o, const struct sc_scenario *sc, const char *scenario,
	     struct output *outs, struct dp_capture **cap)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
	};
	char err[512];
	int status, rc;

	outs[0].path = outputs_trace_file(sc);
	outs[0].code = o->trace_cli ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
	session_catch_stop(&bridge_session);
	status = outputs_open(outs, 1, in, 2, "syncemu bridge", &cli_stop, err,
			      sizeof(err));
	if (status != CLI_EXIT_OK) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		return status;
	}
	if (outs[0].f != NULL) {
		struct outfile *f = outs[0].f;

		outs[0].f = NULL;	/* the trace takes it over */
		char *comment = trace_comment(sc);

		rc = outputs_open_trace(sc, f, outs[0].path, comment, cap, err, sizeof(err));
		free(comment);
		if (rc != 0) {
			fprintf(stderr, "syncemu bridge: %s\n", err);
			return CLI_EXIT_FAIL;
		}
	}
	return CLI_EXIT_OK;
}

int
cmd_bridge(int argc, char **argv)
{
	struct bridge_opts o = { .duration = 0 };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct dp_bridge *b = calloc(1, sizeof(*b));
	struct dp_bridge_params bp = { .dev = { NULL } };
	struct dp_bridge_report rep;
	struct output outs[1] = { { .what = "the trace" } };
	struct sm_size_dist sizes;
	struct dp_capture *cap = NULL;
	struct ctl_server *ctl = NULL;
	struct metrics_server *metrics = NULL;
	struct rte_ring *req = NULL, *resp = NULL;
	struct rte_mempool *pool = NULL;
	struct tick_state ts = { .tty = isatty(STDERR_FILENO) };
	bool eal_up = false, opened = false, have_sizes = false;
	const char *trace_path = NULL;
	char err[512], *pos[1];
	int npos, status = CLI_EXIT_OK;

	memset(&sizes, 0, sizeof(sizes));
	if (sc == NULL || b == NULL) {
		fprintf(stderr, "syncemu bridge: out of memory\n");
		status = CLI_EXIT_FAIL;
		goto out;
	}
	npos = session_options(&bridge_session, argc, argv, bridge_optv, N_OPTS, bridge_opt, &o,
			       pos, 1);
	if (npos < 0) {
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		bridge_usage(stdout);
		goto out;
	}
	if (o.ctl != NULL &&
	    (status = session_ctl_check(&bridge_session, o.ctl)) != CLI_EXIT_OK)
		goto out;
	if (sc_scenario_load_link(sc, npos ? pos[0] : NULL, o.kv.sets, o.kv.from, o.kv.nsets, err,
				  sizeof(err)) != 0) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		status = CLI_EXIT_INPUT;
		goto out;
	}
	status = bridge_ports_check(sc);
	if (status != CLI_EXIT_OK)
		goto out;
	/* the trace, checked against the files the bridge reads, then opened */
	status = bridge_trace(&o, sc, npos ? pos[0] : NULL, outs, &cap);
	trace_path = outs[0].path;
	if (status != CLI_EXIT_OK)
		goto out;
	/* background sizes: also at load 0 with --ctl, which may raise it */
	if (sc->background.load > 0 || o.ctl != NULL) {
		if (sc_background_sizes(sc, &sizes, err, sizeof(err)) != 0) {
			fprintf(stderr, "syncemu bridge: %s\n", err);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		have_sizes = true;
	}
	bridge_params(sc, have_sizes ? &sizes : NULL, cap, &bp);
	/* the EAL, with memory for both ports' pools and the background frames */
	status = bridge_eal(sc, o.eal, o.ctl != NULL, &bp, &eal_up, &pool);
	if (status != CLI_EXIT_OK)
		goto out;
	if (o.ctl != NULL) {
		status = bridge_ctl(&o, sc, npos ? pos[0] : NULL, &bp, &req, &resp, &ctl);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	if (o.metrics != NULL) {
		status_init(sc, &bp);
		metrics = session_metrics(&bridge_session, o.metrics, &ctl_status);
		if (metrics == NULL) {
			status = CLI_EXIT_USAGE;
			goto out;
		}
	}
	if (dp_bridge_open(b, &bp, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu bridge: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	opened = true;
	if (!o.quiet)
		bridge_banner(&bp, o.duration);
	ts.quiet = o.quiet;
	ts.last_real_s = (double)dp_clock_ns(&b->clk) / 1e9;
	if (cli_stop == 0 && dp_bridge_run(b, o.duration, &cli_stop, tick, &ts, 1.0, err,
					    sizeof(err)) != 0) {
		fprintf(stderr, "%ssyncemu bridge: %s\n", ts.tty && !o.quiet ? "\n" : "", err);
		status = CLI_EXIT_FAIL;
	}
	if (!o.quiet && ts.tty)
		fputc('\n', stderr);
	ts.quiet = true;	/* what the last second met, said: notes, no progress */
	tick(&ts, b);
	dp_bridge_report(b, &rep);
	status = session_trace_close(&bridge_session, cap, trace_path, status);
	bridge_output(&rep, b, o.json, trace_path, status);
out:
	if (eal_up)
		dp_eal_ending();	/* the pools, the ports' too, are left to dp_eal_fini() */
	if (ctl != NULL)
		ctl_server_stop(ctl);
	metrics_server_stop(metrics);
	if (opened)
		dp_bridge_close(b);
	if (req != NULL) {
		void *obj;

		while (rte_ring_dequeue(req, &obj) == 0)
			free(obj);
		while (rte_ring_dequeue(resp, &obj) == 0)
			free(obj);
	}
	rte_ring_free(req);
	rte_ring_free(resp);
	outputs_abort(outs, 1);
	if (cap != NULL && cap->w != NULL)
		tr_pcapng_abort(cap->w);
	free(cap);
	if (have_sizes)
		sm_size_free(&sizes);
	if (pool != NULL)
		dp_fpool_free(pool);
	if (eal_up)
		dp_eal_fini();
	cli_sets_free(&o.kv);
	free(b);
	free(sc);
	return status;
}
