/* ops/lapack.c — find and load a LAPACK at run time (see lapack.h and docs/linalg.md). */
#include "ops/lapack.h"
#include "core/pystate.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tn_lapack_fns fns[4];   /* [0] double, [1] float, [2] complex double, [3] complex float */
static int state;              /* 0 not tried, 1 loaded, -1 failed */
static char loaded_path[1024];
static char why[1200];

const char *tn_lapack_path(void) { return state == 1 ? loaded_path : NULL; }

static void *sym(void *h, const char *name) {
    char buf[64];
    snprintf(buf, sizeof buf, "scipy_%s_", name);
    void *p = dlsym(h, buf);
    if (p) return p;
    snprintf(buf, sizeof buf, "%s_", name);
    return dlsym(h, buf);
}

/* Fill the four tables from handle h; false (and the missing name in why) when a routine lacks.
 * The complex tables hold the routines whose argument lists match the real ones (getrf, getrs,
 * potrf, potrs, potri, geqrf, ungqr in orgqr's slot, trsm) and, in their own slots, gesdd,
 * heevd and geev (which take a real workspace too); the others stay NULL. Later slots: gels,
 * gelsd / gelss (real only), sytrf / sytrs, hetrf / hetrs (complex only), ormqr / unmqr, complex gelsy / gelsd / gelss. */
static int fill(void *h, const char *path) {
    static const char *names[] = {"getrf", "getrs", "potrf", "potrs", "potri", "geqrf", "orgqr",
                                  "gesdd", "syevd", "geev",  "gelsy", "trsm", NULL, NULL, NULL,
                                  "gels", "gelsd", "gelss", "sytrf", "sytrs", NULL, NULL, "ormqr", NULL, NULL, NULL};
    static const char *cnames[] = {"getrf", "getrs", "potrf", "potrs", "potri", "geqrf", "ungqr",
                                   NULL, NULL, NULL, NULL, "trsm", "gesdd", "heevd", "geev",
                                   "gels", NULL, NULL, "sytrf", "sytrs", "hetrf", "hetrs", "unmqr", "gelsy", "gelsd", "gelss"};
    const size_t n = sizeof names / sizeof *names;
    _Static_assert(sizeof names / sizeof *names == sizeof(tn_lapack_fns) / sizeof(void *), "one name per slot");
    for (int k = 0; k < 4; k++) {
        void **slot = (void **)&fns[k];
        for (size_t i = 0; i < n; i++) {
            const char *base = k < 2 ? names[i] : cnames[i];
            if (!base) { slot[i] = NULL; continue; }
            char nm[16];
            snprintf(nm, sizeof nm, "%c%s", "dszc"[k], base);
            void *p = sym(h, nm);
            if (!p) {
                snprintf(why, sizeof why, "%s has no %s", path, nm);
                return 0;
            }
            memcpy(&slot[i], &p, sizeof p);
        }
    }
    return 1;
}

static int try_path(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, sizeof why, "%s", dlerror());
        return 0;
    }
    if (!fill(h, path)) {
        dlclose(h);
        return 0;
    }
    snprintf(loaded_path, sizeof loaded_path, "%s", path);
    return 1;
}

/* The scipy-openblas32 wheel's library, asked of the package itself (it knows its layout). */
static int try_wheel(void) {
    PyObject *m = PyImport_ImportModule("scipy_openblas32");
    if (!m) {
        PyErr_Clear();
        return 0;
    }
    PyObject *dir = PyObject_CallMethod(m, "get_lib_dir", NULL);
    PyObject *lib = dir ? PyObject_CallMethod(m, "get_library", NULL) : NULL;
    Py_DECREF(m);
    int ok = 0;
    const char *d = dir ? PyUnicode_AsUTF8AndSize(dir, NULL) : NULL, *l = lib ? PyUnicode_AsUTF8AndSize(lib, NULL) : NULL;
    if (d && l) {
        char path[1024];
        snprintf(path, sizeof path, "%s/lib%s.so", d, l);
        ok = try_path(path);
    }
    PyErr_Clear();
    Py_XDECREF(dir);
    Py_XDECREF(lib);
    return ok;
}

static const tn_lapack_fns *refuse(const char *op);
const tn_lapack_fns *tn_lapack(int single, const char *op) {
    if (state == 0) {
        const char *env = getenv("TN_LAPACK");
        if (env && *env) state = try_path(env) ? 1 : -1;
        else state = (try_wheel() || try_path("liblapack.so.3")) ? 1 : -1;
    }
    if (state == 1) return &fns[single ? 1 : 0];
    return refuse(op);
}
const tn_lapack_fns *tn_lapack_dt(tn_dtype dt, const char *op) {
    if (dt == TN_DTYPE_C64 || dt == TN_DTYPE_C128) {
        if (!tn_lapack(1, op)) return NULL;
        return &fns[dt == TN_DTYPE_C64 ? 3 : 2];
    }
    return tn_lapack(dt == TN_DTYPE_F32, op);
}
static const tn_lapack_fns *refuse(const char *op) {
    PyErr_Format(PyExc_NotImplementedError,
                 "torchnative: aten::%s is not implemented without a LAPACK library (%s); "
                 "`pip install scipy-openblas32` or set TN_LAPACK=/path/to/liblapack.so",
                 op, why[0] ? why : "none found");
    return NULL;
}
