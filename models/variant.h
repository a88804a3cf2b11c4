/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The six variants: names, payloads and wire bytes (deck: "Six Variants and Their Wire Bytes").
 */
#ifndef SM_VARIANT_H
#define SM_VARIANT_H

#include "params.h"

/** Names: "A", "B", "C", "E", "C'", "E'". */
const char *sm_variant_name(enum sm_variant v);
/** Identifiers safe in keys and JSON: "A", "B", "C", "E", "Cp", "Ep". */
const char *sm_variant_id(enum sm_variant v);
/** One-line description. */
const char *sm_variant_desc(enum sm_variant v);
/** Parse a variant by name or id (case-insensitive); -EINVAL if unknown (*v not written). */
int sm_variant_parse(const char *s, enum sm_variant *v);
/** True for the two variants that use a module (E, E'). */
bool sm_variant_has_module(enum sm_variant v);

/**
 * Payload per worker per step, bytes: what the worker contributes to the sync.
 *   A: dense gradient, value_bytes * P;
 *   B: the kept values (topk_kept, or keep * P) with their indices,
 *      kept * (value_bytes + index_bytes);
 *   C, E, C', E': the band, keep * P * value_bytes.
 * For E' this is the band that leaves the module; the dense gradient goes into it.
 */
double sm_payload(const struct sm_params *p, enum sm_variant v);

/**
 * Model wire bytes per worker per step with all W workers in one data centre (deck: "bytes a
 * worker sends in the model's collective with 8 workers in one DC").  Equals the experiment's
 * wire_per_step for A, B, C and E:
 *   all-reduce (A, C'): 2 (W-1)/W * payload;   all-gather (B, C, E): (W-1) * payload;
 *   E': the dense 2P into the module, plus the band's all-reduce.
 */
double sm_wire_flat(const struct sm_params *p, enum sm_variant v);

/** Dense gradient bytes per worker (value_bytes * P): the module's input. */
double sm_dense_bytes(const struct sm_params *p);

/** The variant's collective is an all-reduce (A, C', E') rather than an all-gather. */
bool sm_variant_is_allreduce(enum sm_variant v);

/**
 * Extra GPU FLOP per worker-step, the fitted t_x of reference-model.md section 4.2: one
 * 2.5 n log2 n transform of every value, n = band_chunk for C, C', E, E' and topk_chunk for B;
 * none for A.
 */
double sm_extra_flops(const struct sm_params *p, enum sm_variant v);

#endif /* SM_VARIANT_H */
