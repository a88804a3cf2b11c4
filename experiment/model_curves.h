/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The model's curves: the closed form over a knob, densely (model --json's "curves").
 */
#ifndef SYNCEMU_MODEL_CURVES_H
#define SYNCEMU_MODEL_CURVES_H

#include <jansson.h>

#include "scenario.h"

/**
 * {"wan_bandwidth": {x_Bps, scenario_Bps, series[], budgets_flops, budget_family[]},
 *  "kernel": {x_flops, stages, variants[{variant, binding[], step_s[], stage_s{}}]}}
 * for the scenario's variants and budgets; NULL: out of memory or a model that fails.
 */
json_t *model_curves_json(const struct sc_scenario *sc);

#endif /* SYNCEMU_MODEL_CURVES_H */
