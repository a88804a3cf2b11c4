/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scenario keys of the parameters that change during a run, and the messages that name them.
 *
 * The data plane knows a parameter by its enum dp_param and refuses a change with a reason that
 * names no key (the reason, the parameter it is about, what the target takes: struct
 * dp_tune_why, copied into struct dp_tune_resp); this is where the key is named, as netlink's NL_SET_ERR_MSG_ATTR names the attribute.
 */
#ifndef CTL_TUNE_KEYS_H
#define CTL_TUNE_KEYS_H

#include <stddef.h>

#include "../dataplane/tune.h"

/** The scenario key of a parameter ("module.budget_low"); "?" for none. */
const char *ctl_param_key(enum dp_param p);

/** The parameter of a key; -EINVAL if it cannot change during a run. */
int ctl_param_parse(const char *key, enum dp_param *p);

/**
 * The message of the data plane's refusal @p resp, naming the key it is about, into @p out
 * (@p len bytes).
 *
 * @return @p out
 */
const char *ctl_tune_message(const struct dp_tune_resp *resp, char *out, size_t len);

#endif /* CTL_TUNE_KEYS_H */
