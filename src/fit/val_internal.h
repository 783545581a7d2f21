/* val_internal.h - what the calibration (val_fit.c) shares with the cross-validation
 * (val_cv.c): the fitted parameters of a GPU and an engine, their physical bounds and names.
 * The bounds and their sources are documented beside their definitions in val_fit.c. */
#ifndef LLMROOF_VAL_INTERNAL_H
#define LLMROOF_VAL_INTERNAL_H

#include "data/catalog.h"

/* GPU parameter i: 0 compute_eff, 1 memory_eff, 2 comm_eff, 3 step_overhead_s, 4 link_latency_s */
double *val_gpu_param(struct llmroof_gpu *g, int i);
/* engine parameter i: 0 step_overhead_s, 1 first_token_s, 2 compute_scale, 3 collective_latency_s */
double *val_eng_param(struct llmroof_engine *e, int i);
extern const double val_eng_lo[4], val_eng_hi[4]; /* (the GPU's: validate.h) */
/* the overlap share's upper bound, as the catalog's efficiency.overlap (docs/model.md "overlap") */
#define VAL_OVERLAP_HI 0.5
extern const char *const val_gpu_param_names[3];
/* The memory share a cross-validation starts a GPU from where its catalog value is a fit to these
 * rows (efficiency.memory_fitted): the catalog's value for a GPU without a measurement of its own
 * (V100, A40, A10, L4, L40S, RTX A6000: 0.80). A fold that cannot refit the GPU (LOGO's held-out
 * GPU, a publication whose rows are the GPU's only ones, one engine's rows alone) had kept the
 * in-sample fit: the A100's 0.718, fitted with the rows it then predicted (an audit, session 71). */
#define VAL_MEMORY_PRIOR 0.80
/* The priors of a cross-validation: gpus[0..n) with every in-sample fit replaced (VAL_MEMORY_PRIOR) */
void val_cv_priors(struct llmroof_gpu *gpus, int n);
extern const char *const val_eng_param_names[4];

#endif
