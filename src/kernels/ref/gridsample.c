/* gridsample.c — grid sampler loops (kernels/gridsample.h), instantiated for float and double. */
#include "kernels/gridsample.h"
#include "core/dtype.h"

#include <math.h>

static inline double ld(int dt, const char *b, int64_t i) {
    switch (dt) {
    case 0: return ((const float *)b)[i];
    case 1: return ((const double *)b)[i];
    case 2: return tn_bf16_to_f32(((const uint16_t *)b)[i]);
    default: return tn_f16_to_f32(((const uint16_t *)b)[i]);
    }
}
static inline void st(int dt, char *b, int64_t i, double v) {
    switch (dt) {
    case 0: ((float *)b)[i] = (float)v; break;
    case 1: ((double *)b)[i] = v; break;
    case 2: ((uint16_t *)b)[i] = tn_f32_to_bf16((float)v); break;
    default: ((uint16_t *)b)[i] = tn_f32_to_f16((float)v); break;
    }
}

#define R float
#define SFX _f
#define FSFX f
#include "gridsample_body.h"
#undef R
#undef SFX
#undef FSFX
#define R double
#define SFX _d
#define FSFX
#include "gridsample_body.h"
#undef R
#undef SFX
#undef FSFX

void tn_gs_forward(const tn_gs_plan *p, int64_t begin, int64_t end) {
    if (p->dt == 1) gs_fwd_d(p, begin, end);
    else gs_fwd_f(p, begin, end);
}
void tn_gs_backward(const tn_gs_plan *p) {
    if (p->dt == 1) gs_bwd_d(p);
    else gs_bwd_f(p);
}
