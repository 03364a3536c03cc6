/* ref/softmax.c — f32 softmax / log_softmax and their backward (kernels/nn.h, kernels/backward.h)
 * over contiguous [outer, n, inner] buffers.
 *
 * Upstream's CPU kernels (vectorised f32: a lane-wise max, exp with its fast vector exp, f32
 * lane sums, then a multiply by 1/sum; log_softmax: x - max - log(sum)) are not reproduced bit
 * for bit (nor were the double-accumulating loops before these): results stay within the tests'
 * float rule. Here: max per row (NaN sticks), exp by kernels/vmath.h's tn_vm_expsub_f32 (about
 * 1 ulp), sums and dot products in 8 double lanes, one multiply by the f32 reciprocal. Rows of
 * the last dim run one after another; other dims run 256 inner positions side by side (each
 * inner position is its own row, read with stride `inner`). Rows are split over the thread pool
 * (core/parallel.c); every row's arithmetic is fixed, so results do not depend on the split.
 * Loops are plain C written lane by lane (no reassociation), compiled as AVX-512 / AVX2 / baseline
 * clones that return the same bits. */
#include "kernels/backward.h"
#include "kernels/elementwise.h"
#include "kernels/nn.h"
#include "kernels/vmath.h"
#include "core/parallel.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SM_CLONES
#endif

#define SM_BLK 256 /* inner positions handled side by side */

static inline float nanmax(float m, float v) { return (v > m || v != v) ? v : m; }

/* ---- one row (inner == 1) ---- */

SM_CLONES float tn_row_max_f32(const float *x, int64_t n) {
    float m[16];
    for (int k = 0; k < 16; k++) m[k] = -INFINITY;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) m[k] = nanmax(m[k], x[j + k]);
    float r = -INFINITY;
    for (int k = 0; k < 16; k++) r = nanmax(r, m[k]);
    for (; j < n; j++) r = nanmax(r, x[j]);
    return r;
}

SM_CLONES double tn_row_sum_f32(const float *y, int64_t n) {
    double s[8] = {0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++) s[k] += (double)y[j + k];
    double r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; j < n; j++) r += (double)y[j];
    return r;
}

SM_CLONES static double row_dot(const float *a, const float *b, int64_t n) {
    double s[8] = {0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++) s[k] += (double)a[j + k] * (double)b[j + k];
    double r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; j < n; j++) r += (double)a[j] * (double)b[j];
    return r;
}

SM_CLONES void tn_row_scale_f32(float *y, float c, int64_t n) {
    for (int64_t j = 0; j < n; j++) y[j] = y[j] * c;
}

SM_CLONES static void row_sub2(float *y, const float *x, float a, float b, int64_t n) {
    for (int64_t j = 0; j < n; j++) y[j] = x[j] - a - b;
}

/* gi = y * (g - d) */
SM_CLONES static void row_smax_bwd(float *gi, const float *g, const float *y, float d, int64_t n) {
    for (int64_t j = 0; j < n; j++) gi[j] = y[j] * (g[j] - d);
}

static void fwd_row(const float *x, float *y, int64_t n, bool lg, bool safe) {
    float mx = tn_row_max_f32(x, n);
    if (safe && mx == -INFINITY) {
        memset(y, 0, (size_t)n * sizeof *y);
        return;
    }
    tn_vm_expsub_f32(y, x, mx, n);
    double sum = tn_row_sum_f32(y, n);
    if (lg) row_sub2(y, x, mx, (float)log(sum), n);
    else tn_row_scale_f32(y, (float)(1.0 / sum), n);
}

static void bwd_row(const float *g, const float *y, float *gi, int64_t n, bool lg) {
    if (lg) {
        tn_vm_lsm_bw_f32(gi, g, y, (float)tn_row_sum_f32(g, n), n);
    } else {
        row_smax_bwd(gi, g, y, (float)row_dot(g, y, n), n);
    }
}

/* ---- up to SM_BLK rows side by side: element j of lane i at [j * inner + i] ---- */

SM_CLONES static void cols_max(const float *x, float *m, int64_t n, int64_t inner, int64_t w) {
    for (int64_t i = 0; i < w; i++) m[i] = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < w; i++) m[i] = nanmax(m[i], x[j * inner + i]);
}

SM_CLONES static void cols_acc(double *s, const float *y, int64_t w) {
    for (int64_t i = 0; i < w; i++) s[i] += (double)y[i];
}

SM_CLONES static void cols_acc_dot(double *s, const float *a, const float *b, int64_t w) {
    for (int64_t i = 0; i < w; i++) s[i] += (double)a[i] * (double)b[i];
}

SM_CLONES static void cols_sub(float *y, const float *x, const float *c, int64_t w) {
    for (int64_t i = 0; i < w; i++) y[i] = x[i] - c[i];
}

SM_CLONES static void cols_scale(float *y, const float *c, int64_t w) {
    for (int64_t i = 0; i < w; i++) y[i] = y[i] * c[i];
}

SM_CLONES static void cols_sub2(float *y, const float *x, const float *a, const float *b, int64_t w) {
    for (int64_t i = 0; i < w; i++) y[i] = x[i] - a[i] - b[i];
}

SM_CLONES static void cols_smax_bwd(float *gi, const float *g, const float *y, const float *d, int64_t w) {
    for (int64_t i = 0; i < w; i++) gi[i] = y[i] * (g[i] - d[i]);
}

SM_CLONES static void cols_lsm_bwd(float *gi, const float *g, const float *s, int64_t w) {
    for (int64_t i = 0; i < w; i++) gi[i] = g[i] - gi[i] * s[i];
}

static void fwd_cols(const float *x, float *y, int64_t n, int64_t inner, int64_t w, bool lg, bool safe) {
    float mx[SM_BLK], c[SM_BLK];
    double sum[SM_BLK];
    cols_max(x, mx, n, inner, w);
    for (int64_t i = 0; i < w; i++) sum[i] = 0.0;
    for (int64_t j = 0; j < n; j++) {
        float *yr = y + j * inner;
        cols_sub(yr, x + j * inner, mx, w);
        tn_vm_expsub_f32(yr, yr, 0.0f, w);
        cols_acc(sum, yr, w);
    }
    for (int64_t i = 0; i < w; i++) c[i] = lg ? (float)log(sum[i]) : (float)(1.0 / sum[i]);
    for (int64_t j = 0; j < n; j++) {
        if (lg) cols_sub2(y + j * inner, x + j * inner, mx, c, w);
        else cols_scale(y + j * inner, c, w);
    }
    if (safe)
        for (int64_t i = 0; i < w; i++)
            if (mx[i] == -INFINITY)
                for (int64_t j = 0; j < n; j++) y[j * inner + i] = 0.0f;
}

static void bwd_cols(const float *g, const float *y, float *gi, int64_t n, int64_t inner, int64_t w, bool lg) {
    float c[SM_BLK];
    double sum[SM_BLK];
    for (int64_t i = 0; i < w; i++) sum[i] = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (lg) cols_acc(sum, g + j * inner, w);
        else cols_acc_dot(sum, g + j * inner, y + j * inner, w);
    }
    for (int64_t i = 0; i < w; i++) c[i] = (float)sum[i];
    for (int64_t j = 0; j < n; j++) {
        const int64_t o = j * inner;
        if (lg) {
            tn_vm_expsub_f32(gi + o, y + o, 0.0f, w);
            cols_lsm_bwd(gi + o, g + o, c, w);
        } else {
            cols_smax_bwd(gi + o, g + o, y + o, c, w);
        }
    }
}

/* ---- driver: tasks are (outer, block of inner) pairs ---- */

typedef struct {
    const float *a, *b;
    float *out;
    int64_t n, inner, nblk;
    bool lg, safe, bwd;
} sm_job;

static void sm_run(int64_t begin, int64_t end, void *p) {
    const sm_job *j = p;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / j->nblk, i0 = (t % j->nblk) * SM_BLK;
        int64_t w = j->inner - i0 < SM_BLK ? j->inner - i0 : SM_BLK;
        int64_t off = o * j->n * j->inner + i0;
        if (j->inner == 1) {
            if (j->bwd) bwd_row(j->a + off, j->b + off, j->out + off, j->n, j->lg);
            else fwd_row(j->a + off, j->out + off, j->n, j->lg, j->safe);
        } else {
            if (j->bwd) bwd_cols(j->a + off, j->b + off, j->out + off, j->n, j->inner, w, j->lg);
            else fwd_cols(j->a + off, j->out + off, j->n, j->inner, w, j->lg, j->safe);
        }
    }
}

static void sm_launch(sm_job *j, int64_t outer) {
    int64_t tasks = outer * j->nblk;
    int64_t per = j->n * (j->inner < SM_BLK ? j->inner : SM_BLK);
    int64_t grain = per >= 32768 ? 1 : 32768 / (per ? per : 1);
    tn_parallel_for(tasks, grain, sm_run, j);
}

void tn_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, bool lg, bool safe) {
    if (outer <= 0 || n <= 0 || inner <= 0) return;
    sm_job j = {x, NULL, y, n, inner, (inner + SM_BLK - 1) / SM_BLK, lg, safe, false};
    sm_launch(&j, outer);
}

void tn_softmax_backward_f32(const float *g, const float *y, float *gi, int64_t outer, int64_t n, int64_t inner,
                             bool lg) {
    if (outer <= 0 || n <= 0 || inner <= 0) return;
    sm_job j = {g, y, gi, n, inner, (inner + SM_BLK - 1) / SM_BLK, lg, false, true};
    sm_launch(&j, outer);
}
