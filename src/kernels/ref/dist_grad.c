/* dist_grad.c — see kernels/dist_grad.h. Float literals of upstream's expressions (0.8f, 0.9f,
 * 1.1f, 1.0e17f) are kept as the float values they are, widened to double. */
#include "kernels/dist_grad.h"

#include <math.h>

static double digamma_one_f64(double x);

double tn_standard_gamma_grad_one(double alpha, double x) {
    if (x < (double)0.8f) { /* Taylor series for small x */
        double numer = 1, denom = alpha;
        double series1 = numer / denom, series2 = numer / (denom * denom);
        for (int i = 1; i <= 5; ++i) {
            numer *= -x / (double)i;
            denom += 1;
            series1 += numer / denom;
            series2 += numer / (denom * denom);
        }
        const double pow_x_alpha = pow(x, alpha);
        const double gamma_pdf = pow(x, alpha - 1) * exp(-x);
        const double gamma_cdf = pow_x_alpha * series1;
        const double gamma_cdf_alpha = (log(x) - digamma_one_f64(alpha)) * gamma_cdf - pow_x_alpha * series2;
        const double result = -gamma_cdf_alpha / gamma_pdf;
        return isnan(result) ? 0.0 : result;
    }
    if (alpha > 8.0) { /* Rice saddle point expansion for large alpha */
        if ((double)0.9f * alpha <= x && x <= (double)1.1f * alpha) {
            const double numer_1 = 1 + 24 * alpha * (1 + 12 * alpha);
            const double numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha +
                                   alpha * (107 + 3600 * x);
            const double denom = 1244160 * (alpha * alpha) * (alpha * alpha);
            return numer_1 * numer_2 / denom;
        }
        const double denom = sqrt(8 * alpha);
        const double term2 = denom / (alpha - x);
        const double term3 = pow(x - alpha - alpha * log(x / alpha), -1.5);
        const double term23 = (x < alpha) ? term2 - term3 : term2 + term3;
        const double term1 = log(x / alpha) * term23 - sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x));
        const double stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha));
        const double numer = x * term1;
        return -stirling * numer / denom;
    }
    /* bivariate rational approximation */
    const double u = log(x / alpha);
    const double v = log(alpha);
    static const double coef_uv[3][8] = {
        {0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084},
        {0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
         -0.00058392623},
        {0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
         0.00085092367, -1.5247877e-07},
    };
    double coef_v[8];
    for (int i = 0; i < 8; ++i) coef_v[i] = coef_uv[0][i] + u * (coef_uv[1][i] + u * coef_uv[2][i]);
    const double p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]));
    const double q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]));
    return exp(p / q);
}

/* ---- _dirichlet_grad: upstream's dirichlet_grad_one<scalar_t, double> -----------------------
 * Its Beta helpers and its digamma_one<scalar_t, double> take scalar_t arguments, so for float
 * elements their steps run in float (logf, powf, tanf, float divisions) with a double
 * accumulator where upstream has one; the saddle-point and rational branches are double. T is
 * the element type; LOG / POW / TAN / its math for T. */
#define TN_DIRICHLET_GRAD_DEFS(T, SFX, LOG, POW, TAN, FLOOR)                                          \
    static T digamma_one_##SFX(T x) {                                                                \
        const double PSI_10 = 2.25175258906672110764;                                                \
        if (x == 0) return (T)INFINITY;                                                              \
        double additional_summand = 0;                                                               \
        int x_is_integer = x == FLOOR(x);                                                            \
        if (x < 0) {                                                                                 \
            if (x_is_integer) return (T)INFINITY;                                                    \
            const T pi = (T)3.14159265358979323846;                                                  \
            additional_summand = -pi / TAN(pi * x);                                                  \
            x = 1 - x;                                                                               \
        }                                                                                            \
        double result = 0;                                                                           \
        while (x < 10) {                                                                             \
            result -= 1 / x;                                                                         \
            x += 1;                                                                                  \
        }                                                                                            \
        if (x == 10) return (T)(result + PSI_10 + additional_summand);                               \
        static const double A[] = {                                                                  \
            8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,        \
            -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,       \
            8.33333333333333333333E-2,                                                               \
        };                                                                                           \
        double y = 0;                                                                                \
        if (x < 1.0e17f) {                                                                           \
            double z = 1.0 / (x * x);                                                                \
            double p = 0;                                                                            \
            for (int i = 0; i <= 6; i++) p = p * z + A[i];                                           \
            y = z * p;                                                                               \
        }                                                                                            \
        return (T)(result + LOG(x) - (0.5f / x) - y + additional_summand);                           \
    }                                                                                                \
    static T beta_grad_alpha_small_##SFX(T x, T alpha, T beta) {                                     \
        const T factor = digamma_one_##SFX(alpha) - digamma_one_##SFX(alpha + beta) - LOG(x);        \
        T numer = 1;                                                                                 \
        T series = numer / alpha * (factor + 1 / alpha);                                             \
        for (int i = 1; i <= 10; ++i) {                                                              \
            T casted_i = (T)i;                                                                       \
            numer *= (casted_i - beta) * x / casted_i;                                               \
            const T denom = alpha + casted_i;                                                        \
            series += numer / denom * (factor + 1 / denom);                                          \
        }                                                                                            \
        const T result = x * POW(1 - x, -beta) * series;                                             \
        return isnan(result) ? (T)0 : result;                                                        \
    }                                                                                                \
    static T beta_grad_beta_small_##SFX(T x, T alpha, T beta) {                                      \
        const T factor = digamma_one_##SFX(alpha + beta) - digamma_one_##SFX(beta);                  \
        T numer = 1, betas = 1, dbetas = 0, series = factor / alpha;                                 \
        for (int i = 1; i <= 8; ++i) {                                                               \
            T casted_i = (T)i;                                                                       \
            numer *= -x / casted_i;                                                                  \
            dbetas = dbetas * (beta - casted_i) + betas;                                             \
            betas = betas * (beta - casted_i);                                                       \
            series += numer / (alpha + casted_i) * (dbetas + factor * betas);                        \
        }                                                                                            \
        const T result = -POW(1 - x, 1 - beta) * series;                                             \
        return isnan(result) ? (T)0 : result;                                                        \
    }                                                                                                \
    static T dirichlet_grad_one_##SFX(T x, T alpha, T total) {                                       \
        double x_ = x, alpha_ = alpha, total_ = total;                                               \
        const T beta = total - alpha;                                                                \
        const double beta_ = total_ - alpha_;                                                        \
        const T boundary = total * x * (1 - x);                                                      \
        if (x <= 0.5f && boundary < 2.5f) return beta_grad_alpha_small_##SFX(x, alpha, beta);        \
        if (x >= 0.5f && boundary < 0.75f) return -beta_grad_beta_small_##SFX(1 - x, beta, alpha);   \
        if (alpha > 6 && beta > 6) return (T)beta_grad_alpha_mid(x_, alpha_, beta_);                 \
        const T dg = digamma_one_##SFX((T)total_) - digamma_one_##SFX((T)alpha_); /* in T */          \
        return (T)dirichlet_rational(x_, alpha_, total_, beta_, dg);                                 \
    }                                                                                                \
    void tn_dirichlet_grad_##SFX(const T *x, const T *alpha, const T *total, T *out, int64_t n) {    \
        for (int64_t i = 0; i < n; i++) out[i] = dirichlet_grad_one_##SFX(x[i], alpha[i], total[i]); \
    }

/* Rice saddle point expansion when alpha and beta are both large (double). */
static double beta_grad_alpha_mid(double x, double alpha, double beta) {
    const double total = alpha + beta;
    const double mean = alpha / total;
    const double std = sqrt(alpha * beta / (total + 1)) / total;
    if (mean - 0.1 * std <= x && x <= mean + 0.1 * std) {
        const double poly = 47 * x * (beta * beta) * (beta * beta) +
                            alpha * ((43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta +
                                     alpha * (3 * (59 + 180 * beta - 90 * x) * (beta * beta) +
                                              alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta +
                                                       alpha * (8 * (1 - x) * (135 * beta - 11)))));
        const double prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total);
        const double prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total);
        return prefactor_num / (1 - x) * poly / prefactor_den;
    }
    const double prefactor = -x / sqrt(2 * alpha * beta / total);
    const double stirling = (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) *
                            (1 + 1 / (12 * beta) + 1 / (288 * beta * beta)) /
                            (1 + 1 / (12 * total) + 1 / (288 * total * total));
    const double term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta);
    const double axbx = alpha * (x - 1) + beta * x;
    const double term1_den = sqrt(2 * alpha / beta) * pow(total, 1.5) * axbx * axbx;
    const double term1 = term1_num / term1_den;
    const double term2 = 0.5 * log(alpha / (total * x));
    const double term3_num = sqrt(8 * alpha * beta / total);
    const double term3_den = beta * x + alpha * (x - 1);
    const double term3 = term3_num / term3_den;
    const double term4_base = beta * log(beta / (total * (1 - x))) + alpha * log(alpha / (total * x));
    const double term4 = pow(term4_base, -1.5);
    const double term1234 = term1 + term2 * (term3 + (x < mean ? term4 : -term4));
    return stirling * prefactor * term1234;
}

/* The rational correction to an analytic approximation (double); dg is digamma_one(total) -
 * digamma_one(alpha), both and their difference in the element type. */
static double dirichlet_rational(double x_, double alpha_, double total_, double beta_, double dg) {
    static const double c[2][3][3][4] = {
        {{{1.003668233, -0.01061107488, -0.0657888334, 0.01201642863},
          {0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033},
          {-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013}},
         {{0.221950385, -0.3187676331, 0.01799915743, 0.01074823814},
          {-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057},
          {0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05}},
         {{-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565},
          {0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181},
          {0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05}}},
        {{{1, -0.02924021934, -0.04438342661, 0.007285809825},
          {0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521},
          {-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149}},
         {{0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273},
          {0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956},
          {-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05}},
         {{0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05},
          {0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05},
          {-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06}}},
    };
    const double u = log(x_);
    const double a = log(alpha_) - u;
    const double b = log(total_) - a;
    const double pow_u[3] = {1, u, u * u};
    const double pow_a[3] = {1, a, a * a};
    double p = 0.0, q = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const double ua = pow_u[i] * pow_a[j];
            p += ua * (c[0][i][j][0] + b * (c[0][i][j][1] + b * (c[0][i][j][2] + b * c[0][i][j][3])));
            q += ua * (c[1][i][j][0] + b * (c[1][i][j][1] + b * (c[1][i][j][2] + b * c[1][i][j][3])));
        }
    }
    const double approx = x_ * dg / beta_;
    return p / q * approx;
}

TN_DIRICHLET_GRAD_DEFS(float, f32, logf, powf, tanf, floorf)
TN_DIRICHLET_GRAD_DEFS(double, f64, log, pow, tan, floor)
