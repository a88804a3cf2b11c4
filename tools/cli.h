/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the subcommands of the syncemu command share.
 */
#ifndef SYNCEMU_CLI_H
#define SYNCEMU_CLI_H

#include <stddef.h>

#ifndef SYNCEMU_VERSION
#define SYNCEMU_VERSION "unknown"
#endif

#include "exitcodes.h"
#include "opts.h"

#define CLI_MAX_SETS 64

#include <signal.h>

/** A command's overrides: --set's and those of options that are scenario keys. */
struct cli_sets {
	const char *sets[CLI_MAX_SETS];
	const char *from[CLI_MAX_SETS];	/**< the option an override came from; NULL: --set */
	unsigned int nsets;
	char *owned[16];		/**< option values turned into overrides, their names */
	unsigned int nowned;
};

/**
 * An option that is scenario key @p key becomes an override in @p s: its value is checked now
 * by the key's own rule (a bad one is a bad command line), and the loader names the option in
 * what only the whole scenario can check.  0 or -EINVAL with a message.
 */
int cli_sets_key(struct cli_sets *s, const char *key, const char *arg, char *err,
		 size_t errlen);

/** Option targets (opts.h's OPT_TARGET) over these: a struct cli_sets, the key in data. */
int cli_opt_key(void *target, const char *arg, const void *key, char *err, size_t errlen);
/** --set into a struct cli_sets. */
int cli_opt_set(void *target, const char *arg, const void *data, char *err, size_t errlen);
/** cli_parse_variants() and cli_parse_budgets() into an unsigned int. */
int cli_opt_variants(void *target, const char *arg, const void *data, char *err, size_t errlen);
int cli_opt_budgets(void *target, const char *arg, const void *data, char *err, size_t errlen);

/** --mbufs' range: the first frame pool's mbufs (run, sweep). */
extern const struct opts_range cli_mbufs_range;

/** Free what cli_sets_key() allocated. */
void cli_sets_free(struct cli_sets *s);

/**
 * The signal that asked the command to stop (SIGINT, SIGTERM), 0 until one does: set after
 * session_catch_stop() (session.h).
 */
extern volatile sig_atomic_t cli_stop;

/** Append an override "section.key=value" (--set) to @p sets; -EINVAL past CLI_MAX_SETS. */
int cli_add_set(const char **sets, unsigned int *n, const char *arg, char *err, size_t errlen);

/**
 * An option (as typed: opts_spelling()) that sets scenario key @p key to @p arg: the value is
 * checked alone by the key's own rule (sc_override_check()), so that a bad one is a bad command
 * line named as the user typed it; then "key=arg" goes to *@p set and the option's name to
 * *@p from, for sc_scenario_load_from().  Both are allocated; the caller frees them.
 * 0; -EINVAL with a message; -ENOMEM.
 */
int cli_key_option(const char *key, const char *arg, char **set, char **from, char *err,
		   size_t errlen);

/** "A,B,C',E'" or "all" to a mask of 1u << enum sm_variant; -EINVAL with a message. */
int cli_parse_variants(const char *arg, unsigned int *mask, char *err, size_t errlen);

/** "low,high,free" or "all" to a mask of 1u << enum sm_budget; -EINVAL with a message. */
int cli_parse_budgets(const char *arg, unsigned int *mask, char *err, size_t errlen);

/**
 * The first thing main() does: the standard output becomes a stream that keeps the reason of
 * a write that fails, for cli_finish().  Line-buffered on a terminal, else in blocks.
 */
void cli_start(void);

/** Point the standard output at /dev/null (a rank that says nothing).  0 or -errno. */
int cli_stdout_null(void);

/**
 * A command's exit code @p rc, after its standard output is flushed and checked: every
 * command's main returns through it.  A write on the standard output that failed (a full disk,
 * /dev/full, a reader gone with SIGPIPE ignored) is said ("WHO: standard output: REASON") and
 * makes a success (0, or 4: validate's verdict) exit 1; any other code stands.
 */
int cli_finish(const char *who, int rc);

int cmd_model(int argc, char **argv);
int cmd_scenario(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_lab(int argc, char **argv);

/**
 * Run the program @p prog in syncemu's place, with @p argv: @p built under syncemu's own
 * directory (the build tree), else @p prog there (installed), else on PATH; SYNCEMU names
 * this binary for it.  Returns only on failure: CLI_EXIT_FAIL said, or -errno of PATH's.
 */
int cli_exec_helper(const char *cmd, const char *prog, const char *built, char **argv);
int cmd_bridge(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif /* SYNCEMU_CLI_H */
