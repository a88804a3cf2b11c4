/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extrapolations outside the experiment (deck: "Extrapolations"; results.md section 10).
 */
#ifndef SM_EXTRAPOLATE_H
#define SM_EXTRAPOLATE_H

#include "breakeven.h"

/**
 * DiLoCo-style sync every @p h steps with the same steps to target (an assumption, not a
 * measurement): time = steps (t_c + t_x) + (steps / h) t_sync.  @p h >= 1.
 *
 * @return the time to target, s; NAN on bad input, INFINITY if the contender never reaches it
 */
double sm_diloco_time(const struct sm_params *p, const struct sm_contender *c, double h);

/**
 * Scale the model: @p q becomes @p p with @p factor times the parameters (FLOP and bytes scale
 * with it; tokens per step, steps to target and every device unchanged).
 *
 * @return 0, or -EINVAL if factor is not > 0 or the scaled model has fewer than 1 parameter
 */
int sm_scale_model(const struct sm_params *p, double factor, struct sm_params *q);

#endif /* SM_EXTRAPOLATE_H */
