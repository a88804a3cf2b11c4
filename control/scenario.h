/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: INI (DPDK's rte_cfgfile) into a validated struct sc_scenario.
 *
 * One table holds every key (section, name, type and unit, offset, range, help); parsing,
 * validation, the --help key listing and the dump all read that table.  Loading is validate-then-
 * commit: the file and the command-line overrides are parsed into a temporary, every field is
 * checked, and only then is the caller's struct written.
 */
#ifndef SC_SCENARIO_H
#define SC_SCENARIO_H

#include <stddef.h>
#include <stdio.h>

#include "../models/packet.h"
#include "../models/params.h"

#define SC_NAME_LEN 64
#define SC_DESC_LEN 256

/** How the data plane runs a scenario ([run]). */
/** The data plane's clock ([run] clock). */
enum sc_clock {
	SC_CLOCK_VIRTUAL,		/**< an event calendar as fast as the CPU: exact, repeatable */
	SC_CLOCK_REAL,			/**< events due against the TSC; frames through [ports] */
};

/** What the TSC is read as in real time ([run] time_source). */
enum sc_time_source {
	SC_TIME_MONOTONIC_RAW,		/**< this host's raw clock; two processes align by ping-pong */
	SC_TIME_REALTIME,		/**< CLOCK_REALTIME, kept in step across hosts by PTP */
};

enum sc_fast_forward {
	SC_FF_EXACT,			/**< steps that repeat the last exactly are replayed */
	SC_FF_OFF,			/**< every step is emulated */
	SC_FF_STEADY,			/**< as exact, and a link delivers the frames due within
					 *   run.steady_window of its event in that one event */
};

struct sc_run {
	uint32_t steps;			/**< training steps per run */
	uint64_t seed;			/**< seeds every random source; in the trace and report */
	struct sm_packet pk;		/**< mtu, frame_payload, accounting, sync, burst */
	uint32_t warmup;		/**< steps left out of the steady-state statistics */
	uint32_t partitions;		/**< virtual time: engines side by side; 0: auto */
	int clock;			/**< enum sc_clock */
	double dilation;		/**< real time: emulated time runs this many times slower */
	double calibrate;		/**< real time: s to measure the TSC rate */
	int time_source;		/**< real time: enum sc_time_source */
	int fast_forward;		/**< virtual time: enum sc_fast_forward */
	double steady_window;		/**< fast_forward = steady: s */
};

#define SC_PORTS_MAX 16
#define SC_PORT_LEN 192

#define SC_LINKS_MAX 8
#define SC_LINK_LEN 256			/**< rte_cfgfile's longest value */
#define SC_LINK_NAME 24

/** Real time: which data centres run here and their DPDK ports ([ports]). */
struct sc_ports {
	char local[64];			/**< "all", or a list of DCs ("0", "4,5,6,7") */
	char dc[SC_PORTS_MAX][SC_PORT_LEN]; /**< devargs of DC d's port; "" = none */
	char link[SC_LINKS_MAX][SC_LINK_LEN]; /**< "LINK DEV [DEV]": a link through ports */
	double wait;			/**< s to wait for a link, the peer, the end of a run */
	uint32_t local_mask;		/**< from local, checked against the topology (derived) */
};

/** Queue limits of the data plane's links, in frame bytes ([queues]). */
struct sc_queues {
	double nic;			/**< a worker's NIC queue */
	double port;			/**< a pluggable's port cap queue */
	double sw;			/**< a DC switch's queue towards a worker or a module */
	double wan;			/**< a WAN link's queue */
	int sync_lossless;		/**< 1: the sync's frames are never dropped (a lossless
					 *   class, PFC); 0: drop-tail for them too */
};

/** Shape of the background transfer sizes ([background] sizes); bgsizes.h builds them. */
enum sc_sizes {
	SC_SIZES_FIXED,			/**< every transfer is background.size bytes */
	SC_SIZES_EXP,			/**< exponential of mean background.size */
	SC_SIZES_EMPIRICAL,		/**< drawn from the table in background.sizes_csv */
};

/** Which WAN directions carry background traffic ([background] directions). */
enum sc_directions {
	SC_DIRECTIONS_ALL,		/**< every direction between every pair of data centres */
	SC_DIRECTIONS_ONE,		/**< only data centre 0 to data centre 1 */
};

/** How background transfers go ([background] transport). */
enum sc_bg_transport {
	SC_BG_OPEN,			/**< open-loop frames, as fast as the host link allows */
	SC_BG_TCP,			/**< each over TCP, on a pool of connections */
};

/** Background transfers sharing the WAN with the sync ([background]). */
struct sc_background {
	double load;			/**< offered load per loaded direction, fraction of the WAN
					 *   rate, in [0, 1); 0 = no background */
	enum sc_sizes sizes;		/**< fixed, exponential or empirical (sizes_csv) */
	double size;			/**< bytes: each transfer (fixed), the mean (exponential) */
	char sizes_csv[4096];		/**< size[,weight] CSV for empirical sizes, stored resolved
					 *   (absolute); "" = not set */
	double host_rate;		/**< B/s: a background host's access link */
	enum sc_directions directions;	/**< which WAN directions are loaded */
	uint32_t bulk;			/**< bulk TCP flows per loaded direction (0: none) */
	enum sc_bg_transport transport;	/**< how the transfers go */
	uint32_t connections;		/**< transport tcp: connections per host */
	double bulk_lead;		/**< s the bulk flows run before the job's first step */
};

/** What the data plane writes ([trace]). */
struct sc_trace {
	char file[4096];		/**< pcapng path; "" or "none": no trace */
	char capture[128];		/**< capture point kinds: "tx,rx,nic,switch,wan,module,port" */
	uint32_t snaplen;		/**< bytes kept per frame; 0 = whole frames */
	double queue_sample;		/**< s between samples of the WAN queues; 0 = none */
	double until;			/**< s of each run traced from its start; 0 = all */
};

/** The module's link kernel as a program ([module] kernel, kernel_section). */
struct sc_kernel {
	char file[4096];		/**< eBPF ELF object, stored resolved (absolute); "" = the
					 *   built-in kernel of the ops_* keys */
	char section[64];		/**< its section ("kernel") */
};

/**
 * syncemu bridge: real frames between two ports through the emulated WAN ([bridge]).  The keys
 * that may follow [wan] (a rate, a latency) are SC_AUTO until set: each direction then takes
 * [wan]'s.
 */
#define SC_AUTO (-1.0)

struct sc_bridge {
	char a[SC_LINK_LEN];		/**< devargs of port A; "" = none */
	char b[SC_LINK_LEN];		/**< of port B */
	double bandwidth_ab, bandwidth_ba; /**< B/s of the WAN each way; SC_AUTO: [wan] bandwidth */
	double latency_ab, latency_ba;	/**< s; SC_AUTO: [wan] latency */
	double port;			/**< B/s of a port cap in front of the WAN queue; 0 = none */
	int emit_background;		/**< 1: background frames leave by the far port too */
	uint32_t mbufs;			/**< frames each port can hold in the emulation; 0: auto */
};

/**
 * Impairments of links ([impair]): tc-netem's words, as control/impair.h reads them; "" = none.
 * They are kept as written and read again where a run or a bridge builds its links.
 */
struct sc_impair_keys {
	char wan[SC_LINK_LEN];		/**< every WAN link of a run, each way; the bridge's too */
	char ab[SC_LINK_LEN];		/**< the bridge's WAN from A to B; "" = wan */
	char ba[SC_LINK_LEN];		/**< from B to A; "" = wan */
	char link[SC_LINKS_MAX][SC_LINK_LEN]; /**< "LINK SPEC": one link of a run */
	double loss;			/**< random loss on what wan covers; SC_AUTO: as wan says */
	double jitter;			/**< its jitter, s; SC_AUTO: as wan says */
};

/** A scenario: the model's parameters, what to report, and how to run it. */
struct sc_scenario {
	char name[SC_NAME_LEN];		/**< [scenario] name */
	char desc[SC_DESC_LEN];		/**< [scenario] description */
	char path[4096];		/**< file it came from, "" for the built-in default */
	struct sm_params model;		/**< everything the closed forms use */
	unsigned int variants;		/**< [report] variants: mask of 1u << enum sm_variant */
	unsigned int budgets;		/**< [report] budgets: mask of 1u << enum sm_budget */
	struct sc_run run;		/**< [run] */
	struct sc_queues queues;	/**< [queues] */
	struct sc_background background; /**< [background] */
	struct sc_trace trace;		/**< [trace] */
	struct sc_kernel kernel;	/**< [module] kernel: with a program, model.mod's
					 *   ops_per_byte are the program's (kernel_prog.h) */
	struct sc_ports ports;		/**< [ports] */
	struct sc_bridge bridge;	/**< [bridge] */
	struct sc_impair_keys impair;	/**< [impair] */
};

/**
 * The built-in default: the deck's 2 DC x 4, 100 GbE, all six variants, all three budgets;
 * 10 steps and 20 of warm-up (so no steady state until run.steps is raised), seed 1,
 * sm_packet_default(); queues of 2 MB (NIC, port), 16 MB (switch) and 64 MB (WAN), the sync
 * lossless; no background (load 0; fixed 1 MB transfers, 50 GB/s hosts, all directions); no
 * trace file (when one is given: the WAN queues, 90-byte snaplen), queues sampled every 100 us.  Padding is zeroed, so two defaults compare equal with memcmp().
 */
void sc_scenario_default(struct sc_scenario *s);

/**
 * Load a scenario.
 *
 * Starts from sc_scenario_default(), applies @p path (NULL: none) and then each override
 * "section.key=value" in order (as from --set), then checks every field and the whole
 * (sm_params_check(), sm_packet_check(); background.sizes = empirical needs background.sizes_csv,
 * and that CSV must load with sc_sizes_load()).  @p s is written only on success.
 *
 * A relative background.sizes_csv is taken relative to the directory of the scenario file (from
 * --set, or without a file: the current directory) and stored resolved, as an absolute path, so
 * that it opens from anywhere and the dump loads back to the same path.
 *
 * Defaults that follow other keys: a file without [scenario] name is named after the file
 * (without its directory and ".ini"), and without a description says it is the built-in
 * default with the file's keys; without [run] frame_payload, a set run.mtu gives frames of the
 * MTU less 76 B of headers (neither set: 9000 and 8192 B).
 *
 * Errors name the file and line (or "--set" and the override), the section, the key, the value
 * and what is allowed, e.g.
 *   "scenarios/x.ini:12: [wan] bandwidth = '12.5GB': unknown unit 'GB' (allowed: B/s, kB/s, ...)"
 *
 * Syntax: rte_cfgfile's INI, checked strictly line by line first: ';' starts a comment ("\;" is a
 * literal ';'), a line is blank, "[section]" or "key = value", every section and key at most
 * once.  In [intra] and [wan] the preset is applied first; explicit keys override it.  Formats:
 *   "<file>:<line>: <what is wrong in the line>"                      (syntax)
 *   "<file>:<line>: [<section>] <key> = '<value>': <reason> (allowed ...)" (a key)
 *   "--set '<override>': ..."                                         (an override)
 *   "<file>:<line>: inconsistent scenario: <sm_params_check or sm_packet_check message>"
 *                                                                     (the whole)
 *
 * @return 0; -ENOENT if the file cannot be opened; -EINVAL for anything wrong in it (unknown
 *         section or key, duplicate, bad syntax, bad number or unit, out of range, a
 *         background.sizes_csv that is missing or bad: the message gives the CSV's line);
 *         -EIO if it cannot be read (or changed while read); -ENOMEM
 */
int sc_scenario_load(struct sc_scenario *s, const char *path, const char *const *overrides,
		     unsigned int n_overrides, char *err, size_t errlen);

/**
 * sc_scenario_load() with the command-line option each override came from: messages name
 * override i as "<from[i]> '<value>' (<key>)" (e.g. "-n '0' (run.steps)") instead of
 * "--set '<override>'".  @p from may be NULL, and so may any from[i] (an explicit --set).
 */
int sc_scenario_load_from(struct sc_scenario *s, const char *path, const char *const *overrides,
			  const char *const *from, unsigned int n_overrides, char *err,
			  size_t errlen);

/**
 * sc_scenario_load_from() for syncemu bridge, whose scenario is one link between two ports (the
 * WAN, its queues, the background, the trace): without the checks of the paths between workers
 * that only the model and a run have (wan.latency, the latency worker to worker across data
 * centres, at least intra.latency: a bridge's wan.latency is its link's own, from 0).
 */
int sc_scenario_load_link(struct sc_scenario *s, const char *path, const char *const *overrides,
			  const char *const *from, unsigned int n_overrides, char *err,
			  size_t errlen);

/**
 * Check one override "section.key=value" alone, the way loading parses it (the key exists; the
 * value is text, not empty, and parses by the key's own type, unit and range), without a file
 * or the other overrides: a command-line option that sets a key is checked when it is parsed.
 * What only the whole scenario can check (the checks across keys, the files a key names) is
 * left to sc_scenario_load().
 *
 * @p from names the value as the user gave it: "-n" gives "-n '0' (run.steps): out of range
 * (allowed: 1..1000000)"; NULL gives the loader's own "--set 'run.steps=0': [run] steps = '0':
 * ...".
 *
 * @return 0; -ENOENT for an unknown section or key (with a suggestion); -EINVAL for a bad
 *         value or a malformed override; -ENOMEM
 */
int sc_override_check(const char *set, const char *from, char *err, size_t errlen);

/**
 * Whether @p name ("section.key") is a key: 0; -ENOENT with a suggestion ("@p from 'wan.bandwith':
 * [wan] bandwith: unknown key; did you mean 'bandwidth'? ..."); -EINVAL if it is not of that
 * form.
 */
int sc_key_name_check(const char *name, const char *from, char *err, size_t errlen);

/**
 * Load a scenario to run it on the data plane (syncemu run, sweep, a change during a run): as
 * sc_scenario_load_from() (@p from may be NULL), and then the run's limits too, for the variants @p variants and budgets
 * @p budgets it runs (masks as sc_scenario.variants and .budgets; 0: the scenario's [report]).
 *
 * sc_scenario_load() refuses what the model's numbers cannot hold, for every variant and budget:
 * a time beyond 2^63 ps (about 106 days), a rate beyond what the links' integer rates take, a
 * step of the model that is not finite.  A run's limits add what the data plane's widths cannot
 * hold: a worker's program of more than SM_ROUNDS_MAX rounds, a round of more frames than the
 * 32-bit sequence number counts, a queue limit beyond 64 bits, an mbuf pool beyond 32 bits, a
 * background transfer of more than 2^32 frames, background on more than 56 data centres (the
 * hosts' addresses), a kernel program's 32-bit fields, and runs whose virtual time at zero load
 * (an upper bound of each step: sm_packet_step_bound_ps()) would pass 2^63 ps.  The message
 * names the key (of those a limit depends on, the one set last), the value, what overflows, and
 * the largest (or smallest) value of the key that works with the scenario's other values:
 *   "--set 'wan.latency=1e300 s': [wan] latency = '1e300 s': too large: 1e+300 s is 1e+312 ps,
 *    beyond ...; the largest value that works is ..."
 *
 * @return as sc_scenario_load()
 */
int sc_scenario_load_run(struct sc_scenario *s, const char *path, const char *const *overrides,
			 const char *const *from, unsigned int n_overrides, unsigned int variants,
			 unsigned int budgets, char *err, size_t errlen);

/**
 * The zero-load upper bound of the virtual time that the runs of @p variants x @p budgets take
 * (masks as sc_scenario.variants and .budgets; 0: the scenario's [report]), in seconds: what a
 * run's limit holds below half the data plane's clock (the steps' bound, sm_packet_step_bound_ps(),
 * times run.steps, each run's start 2 ms after the last).  A loaded run takes longer.
 */
double sc_runs_bound_s(const struct sc_scenario *s, unsigned int variants, unsigned int budgets);

/**
 * Write @p s as a scenario file that loads back to the same values (every key, with units).
 * An unset trace.file or background.sizes_csv ("") is written as a comment, which loads back
 * to "".
 *
 * @return 0; -EINVAL (nothing written) if a value cannot be written so that it loads back (not
 *         finite, a string with a control character or empty, an enum value or a capture list
 *         that has no name); -EIO on a write error
 */
int sc_scenario_dump(const struct sc_scenario *s, FILE *f);

/**
 * sc_scenario_dump() of what decides the results alone (for a trace's header): keys of how the
 * run is spread over cores (run.partitions) are left out, so that the same emulation gives the
 * same bytes however it ran.
 */
int sc_scenario_dump_results(const struct sc_scenario *s, FILE *f);

/** Print the table of keys: section, key, unit, default, range, help (for --help and README). */
void sc_scenario_keys(FILE *f, int markdown);

/** A link of the topology mapped to ports: `[ports] linkN = LINK DEV [RXDEV]`. */
struct sc_port_link {
	char name[SC_LINK_NAME];	/**< the link's trace name: wN.nic, dcD>wN, dcD>mN */
	char tx[SC_LINK_LEN];		/**< the device its frames leave through */
	char rx[SC_LINK_LEN];		/**< the device they come in through (ring:NAME: the same) */
	uint32_t worker;		/**< N */
	uint32_t dc;			/**< the data centre the link is in */
};

/**
 * Parse @p value (`LINK DEV [RXDEV]`) for a topology of @p n_dc x @p per_dc workers.
 * 0, or -EINVAL with the reason in @p why.
 */
int sc_port_link_parse(const char *value, uint32_t n_dc, uint32_t per_dc,
		       struct sc_port_link *l, char *why, size_t whylen);

#endif /* SC_SCENARIO_H */
