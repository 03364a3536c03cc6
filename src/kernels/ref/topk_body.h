/* topk_body.h — upstream's CPU topk for one key type (kernels/ref/topk.c includes it once per
 * type with TK_T, the key type, and TK_N(name), the type's function names).
 *
 * Upstream 2.13.0 picks a row's top k from (key, position) pairs built in position order with
 * the C++ library's selection algorithms: partial_sort when k * 64 <= n, else nth_element at k - 1
 * then (sorted=True) sort of the first k - 1. The order among equal keys is whatever those
 * algorithms leave, so they are followed step by step here: GNU libstdc++'s introselect (median
 * of three moved to the front, unguarded Hoare partition, insertion sort below 4 elements, heap
 * select past the depth limit), introsort (threshold 16, then the final insertion sort) and its
 * binary heap (sift down to a leaf, then up). The comparison sees the key only: NaN first for
 * largest, last for smallest. Measured against upstream: docs/topk.md. */
typedef struct {
    TK_T v;
    int64_t i;
} TK_N(el);

static inline bool TK_N(cmp)(TK_N(el) x, TK_N(el) y, bool largest) {
    if (largest) return (TN_ISNAN(x.v) && !TN_ISNAN(y.v)) || x.v > y.v;
    return (!TN_ISNAN(x.v) && TN_ISNAN(y.v)) || x.v < y.v;
}

static inline void TK_N(swap)(TK_N(el) *a, int64_t i, int64_t j) {
    TK_N(el) t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* the median of a[x], a[y], a[z] swapped into a[r] */
static void TK_N(median_to)(TK_N(el) *a, int64_t r, int64_t x, int64_t y, int64_t z, bool lg) {
    if (TK_N(cmp)(a[x], a[y], lg)) {
        if (TK_N(cmp)(a[y], a[z], lg)) TK_N(swap)(a, r, y);
        else if (TK_N(cmp)(a[x], a[z], lg)) TK_N(swap)(a, r, z);
        else TK_N(swap)(a, r, x);
    } else if (TK_N(cmp)(a[x], a[z], lg)) TK_N(swap)(a, r, x);
    else if (TK_N(cmp)(a[y], a[z], lg)) TK_N(swap)(a, r, z);
    else TK_N(swap)(a, r, y);
}

/* partition [lo, hi) around a[lo] (the median of three); returns the cut */
static int64_t TK_N(partition)(TK_N(el) *a, int64_t lo, int64_t hi, bool lg) {
    TK_N(median_to)(a, lo, lo + 1, lo + (hi - lo) / 2, hi - 1, lg);
    int64_t f = lo + 1, l = hi;
    for (;;) {
        while (TK_N(cmp)(a[f], a[lo], lg)) f++;
        l--;
        while (TK_N(cmp)(a[lo], a[l], lg)) l--;
        if (!(f < l)) return f;
        TK_N(swap)(a, f, l);
        f++;
    }
}

static void TK_N(linear_insert)(TK_N(el) *a, int64_t last, bool lg) {
    TK_N(el) v = a[last];
    while (TK_N(cmp)(v, a[last - 1], lg)) {
        a[last] = a[last - 1];
        last--;
    }
    a[last] = v;
}

static void TK_N(insertion_sort)(TK_N(el) *a, int64_t lo, int64_t hi, bool lg) {
    if (lo == hi) return;
    for (int64_t i = lo + 1; i < hi; i++) {
        if (TK_N(cmp)(a[i], a[lo], lg)) {
            TK_N(el) v = a[i];
            memmove(a + lo + 1, a + lo, (size_t)(i - lo) * sizeof *a);
            a[lo] = v;
        } else {
            TK_N(linear_insert)(a, i, lg);
        }
    }
}

/* the heap over h[0, len): the hole sifts down to a leaf, then v sifts up from it */
static void TK_N(adjust)(TK_N(el) *h, int64_t hole, int64_t len, TK_N(el) v, bool lg) {
    int64_t top = hole, c = hole;
    while (c < (len - 1) / 2) {
        c = 2 * (c + 1);
        if (TK_N(cmp)(h[c], h[c - 1], lg)) c--;
        h[hole] = h[c];
        hole = c;
    }
    if ((len & 1) == 0 && c == (len - 2) / 2) {
        c = 2 * (c + 1);
        h[hole] = h[c - 1];
        hole = c - 1;
    }
    int64_t p = (hole - 1) / 2;
    while (hole > top && TK_N(cmp)(h[p], v, lg)) {
        h[hole] = h[p];
        hole = p;
        p = (hole - 1) / 2;
    }
    h[hole] = v;
}

static void TK_N(pop_to)(TK_N(el) *h, int64_t len, TK_N(el) *dst, bool lg) {
    TK_N(el) v = *dst;
    *dst = h[0];
    TK_N(adjust)(h, 0, len, v, lg);
}

/* a[lo, mid) becomes a heap of the mid - lo elements of [lo, hi) that sort first */
static void TK_N(heap_select)(TK_N(el) *a, int64_t lo, int64_t mid, int64_t hi, bool lg) {
    TK_N(el) *h = a + lo;
    int64_t len = mid - lo;
    if (len >= 2)
        for (int64_t p = (len - 2) / 2;; p--) {
            TK_N(adjust)(h, p, len, h[p], lg);
            if (p == 0) break;
        }
    for (int64_t i = mid; i < hi; i++)
        if (TK_N(cmp)(a[i], h[0], lg)) TK_N(pop_to)(h, len, a + i, lg);
}

static void TK_N(partial_sort)(TK_N(el) *a, int64_t lo, int64_t mid, int64_t hi, bool lg) {
    TK_N(heap_select)(a, lo, mid, hi, lg);
    for (int64_t last = mid; last - lo > 1;) {
        last--;
        TK_N(pop_to)(a + lo, last - lo, a + last, lg);
    }
}

static int TK_N(lg2)(int64_t n) { return 63 - __builtin_clzll((unsigned long long)n); }

static void TK_N(nth_element)(TK_N(el) *a, int64_t lo, int64_t nth, int64_t hi, bool lg) {
    if (lo == hi || nth == hi) return;
    int depth = TK_N(lg2)(hi - lo) * 2;
    while (hi - lo > 3) {
        if (depth == 0) {
            TK_N(heap_select)(a, lo, nth + 1, hi, lg);
            TK_N(swap)(a, lo, nth);
            return;
        }
        depth--;
        int64_t cut = TK_N(partition)(a, lo, hi, lg);
        if (cut <= nth) lo = cut;
        else hi = cut;
    }
    TK_N(insertion_sort)(a, lo, hi, lg);
}

static void TK_N(introsort)(TK_N(el) *a, int64_t lo, int64_t hi, int depth, bool lg) {
    while (hi - lo > 16) {
        if (depth == 0) {
            TK_N(partial_sort)(a, lo, hi, hi, lg);
            return;
        }
        depth--;
        int64_t cut = TK_N(partition)(a, lo, hi, lg);
        TK_N(introsort)(a, cut, hi, depth, lg);
        hi = cut;
    }
}

static void TK_N(sort)(TK_N(el) *a, int64_t lo, int64_t hi, bool lg) {
    if (lo == hi) return;
    TK_N(introsort)(a, lo, hi, TK_N(lg2)(hi - lo) * 2, lg);
    if (hi - lo > 16) {
        TK_N(insertion_sort)(a, lo, lo + 16, lg);
        for (int64_t i = lo + 16; i < hi; i++) TK_N(linear_insert)(a, i, lg);
    } else {
        TK_N(insertion_sort)(a, lo, hi, lg);
    }
}

static void TK_N(rows)(TK_T *keys, int64_t *idx, int64_t rows, int64_t n, int64_t k, bool lg, bool sorted,
                       TK_N(el) *q) {
    if (k == 0) return;
    for (int64_t r = 0; r < rows; r++) {
        TK_T *kr = keys + r * n;
        int64_t *ir = idx + r * n;
        for (int64_t j = 0; j < n; j++) q[j] = (TK_N(el)){kr[j], j};
        if (k * 64 <= n) {
            TK_N(partial_sort)(q, 0, k, n, lg);
        } else {
            TK_N(nth_element)(q, 0, k - 1, n, lg);
            if (sorted) TK_N(sort)(q, 0, k - 1, lg);
        }
        for (int64_t j = 0; j < k; j++) {
            kr[j] = q[j].v;
            ir[j] = q[j].i;
        }
    }
}
