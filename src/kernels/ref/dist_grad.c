/* dist_grad.c — see kernels/dist_grad.h. Float literals of upstream's expressions (0.8f, 0.9f,
 * 1.1f, 1.0e17f) are kept as the float values they are, widened to double. */
#include "kernels/dist_grad.h"

#include <math.h>

double tn_digamma_one(double x) {
    const double PSI_10 = 2.25175258906672110764;
    if (x == 0) return INFINITY;
    double additional_summand = 0;
    int x_is_integer = x == floor(x);
    if (x < 0) {
        if (x_is_integer) return INFINITY;
        const double pi = 3.14159265358979323846;
        additional_summand = -pi / tan(pi * x);
        x = 1 - x;
    }
    double result = 0;
    while (x < 10) {
        result -= 1 / x;
        x += 1;
    }
    if (x == 10) return result + PSI_10 + additional_summand;
    static const double A[] = {
        8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
        -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
        8.33333333333333333333E-2,
    };
    double y = 0;
    if (x < (double)1.0e17f) {
        double z = 1.0 / (x * x);
        double p = 0;
        for (int i = 0; i <= 6; i++) p = p * z + A[i];
        y = z * p;
    }
    return result + log(x) - (0.5 / x) - y + additional_summand;
}

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
        const double gamma_cdf_alpha = (log(x) - tn_digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2;
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
