/* rng.h - explicit-state pseudo-random numbers (xoshiro256**, seeded by splitmix64;
 * Blackman and Vigna 2018). No hidden global state: same seed, same sequence, everywhere. */
#ifndef LLMROOF_RNG_H
#define LLMROOF_RNG_H

#include <stdint.h>

struct llmroof_rng {
    uint64_t s[4]; /* generator state */
};

void rng_seed(struct llmroof_rng *r, uint64_t seed);
uint64_t rng_next(struct llmroof_rng *r);
double rng_uniform(struct llmroof_rng *r);              /* [0, 1) with 53 random bits */
double rng_exponential(struct llmroof_rng *r, double rate); /* mean 1/rate */
double rng_normal(struct llmroof_rng *r);               /* standard normal (Box-Muller, one value per call) */

#endif
