/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device and link presets.
 *
 * The link presets and the H100 are those of Disaggregated_Inference_Sim (src/disagg_sim/hardware.py,
 * LINKS and H100_SXM), which the deck imports at 69ffd2b.  The 8 Gb/s WAN share is the deck's "100 GbE
 * preset at 1 GB/s".  The 400G and 800G WAN presets are not public: the values here are illustrative
 * and a scenario may override them.
 */
#ifndef SM_PRESETS_H
#define SM_PRESETS_H

#include "params.h"

/** A named link preset. */
struct sm_link_preset {
	const char *name;	/**< key used in scenarios, e.g. "eth-100g" */
	const char *desc;	/**< human name, e.g. "100 GbE" */
	const char *status;	/**< where the values come from */
	struct sm_link link;
};

/** The preset table; @p n receives its length. */
const struct sm_link_preset *sm_link_presets(unsigned int *n);

/** Find a preset by name; NULL if there is none. */
const struct sm_link_preset *sm_link_preset_find(const char *name);

/** A topology and WAN of the deck's time-to-target table. */
struct sm_deck_topology {
	const char *name;	/**< "2dc4-100g" */
	const char *desc;	/**< "2 DC x 4, 100 GbE" */
	unsigned int n_dc, per_dc;
	const char *wan;	/**< link preset name */
	bool in_deck;		/**< one of the six topologies the deck prints */
};

/** The eight topologies of the deck's results (six printed, plus 400G and 800G). */
const struct sm_deck_topology *sm_deck_topologies(unsigned int *n);

/** Apply a deck topology to @p p (topology and WAN link); -ENOENT if its preset is unknown. */
int sm_apply_topology(struct sm_params *p, const struct sm_deck_topology *t);

#endif /* SM_PRESETS_H */
