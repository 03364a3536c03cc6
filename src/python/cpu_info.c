/* cpu_info.c — the CPU-capability and quantized-engine queries upstream's Python makes.
 *
 * torch._C._cpu._get_cpu_capability(): upstream's dict from cpuinfo (torch.cpu.get_capabilities,
 * read at import by torch.testing._internal.common_utils): ISA flags, cache sizes, core counts,
 * architecture and name. Here the flags come from CPUID (an ISA counts only when the OS saves its
 * registers, as cpuinfo checks), the cache sizes from the C library, the counts from
 * /proc/cpuinfo; the keys are upstream's (measured on 2.13.0).
 * torch._C._cpu._init_amx(): whether AMX tiles could be enabled — we use none, so False.
 * torch._C._get_cpu_capability(): the ISA level the kernels dispatch to ("AVX512", "AVX2",
 * "DEFAULT"), as gemm.c / vmath.c choose it.
 * Quantized engines (torch.backends.quantized): torchnative's quantized kernels (ops/qlinear.c,
 * docs/quant_tensors.md) reproduce upstream's x86 engine (fbgemm's arithmetic), so it supports X86
 * (4, the default, as upstream's on x86) and FBGEMM (1), which run the same kernels there;
 * QNNPACK and ONEDNN round differently and are refused with upstream's message. */
#include "python/common.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TN_X86 1
#endif
#include <sys/utsname.h>

#ifdef TN_X86
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    r[0] = r[1] = r[2] = r[3] = 0;
    if ((unsigned)__get_cpuid_max(leaf & 0x80000000u, NULL) < leaf) return;
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static unsigned long long xgetbv0(void) {
    unsigned lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

static int set_flag(PyObject *d, const char *k, int on) {
    return PyDict_SetItemString(d, k, on ? Py_True : Py_False);
}
static int set_long(PyObject *d, const char *k, long v) {
    PyObject *o = PyLong_FromLong(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}
static int set_str(PyObject *d, const char *k, const char *v) {
    PyObject *o = PyUnicode_FromString(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

/* sockets and physical cores from /proc/cpuinfo ("physical id", "core id" pairs) */
static void count_cores(long *sockets, long *physical) {
    long ids[1024][2];
    int n = 0;
    long cur_phys = 0;
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    *sockets = *physical = 0;
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        long v;
        char *colon = strchr(line, ':');
        if (!colon || sscanf(colon + 1, "%ld", &v) != 1) continue;
        if (strncmp(line, "physical id", 11) == 0) cur_phys = v;
        else if (strncmp(line, "core id", 7) == 0) {
            int seen = 0;
            for (int i = 0; i < n; i++) seen |= ids[i][0] == cur_phys && ids[i][1] == v;
            if (!seen && n < 1024) ids[n][0] = cur_phys, ids[n][1] = v, n++;
        }
    }
    fclose(f);
    *physical = n;
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < i; j++) first &= ids[j][0] != ids[i][0];
        *sockets += first;
    }
}

/* cpuinfo's package name: the brand string without vendor noise ("AMD EPYC 7B13 64-Core
 * Processor" keeps its model; "(R)", "(TM)", "CPU", "Processor", "@ x GHz" are dropped). */
static void cpu_name(char *out, size_t n) {
    char brand[64] = "";
#ifdef TN_X86
    unsigned r[4];
    cpuid(0x80000000u, 0, r);
    if (r[0] >= 0x80000004u) {
        for (unsigned k = 0; k < 3; k++) {
            cpuid(0x80000002u + k, 0, r);
            memcpy(brand + 16 * k, r, 16);
        }
        brand[48] = 0;
    }
#endif
    static const char *const noise[] = {"(R)", "(TM)", "(tm)", "Processor", "CPU", NULL};
    char words[16][64];
    int nw = 0;
    for (char *tok = strtok(brand, " "); tok && nw < 16; tok = strtok(NULL, " ")) {
        if (tok[0] == '@') break;
        int drop = 0;
        for (int i = 0; noise[i]; i++) drop |= strcmp(tok, noise[i]) == 0;
        if (strstr(tok, "-Core")) drop = 1;
        if (!drop) snprintf(words[nw++], sizeof words[0], "%s", tok);
    }
    out[0] = 0;
    for (int i = 0; i < nw; i++) {
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", i ? " " : "", words[i]);
    }
}

static PyObject *get_cpu_capabilities(PyObject *self, PyObject *unused) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    unsigned l1[4] = {0}, l7[4] = {0}, l71[4] = {0}, e1[4] = {0}, l24[4] = {0};
    int os_avx = 0, os_avx512 = 0, os_amx = 0;
#ifdef TN_X86
    cpuid(1, 0, l1);
    cpuid(7, 0, l7);
    if (l7[0] >= 1) cpuid(7, 1, l71);
    cpuid(0x80000001u, 0, e1);
    if (l71[3] & (1u << 19)) cpuid(0x24, 0, l24);
    if (l1[2] & (1u << 27)) {   /* OSXSAVE */
        unsigned long long x = xgetbv0();
        os_avx = (x & 0x6) == 0x6;
        os_avx512 = os_avx && (x & 0xe0) == 0xe0;
        os_amx = (x & 0x60000) == 0x60000;
    }
#endif
#define B(reg, bit) (((reg) >> (bit)) & 1u)
    int avx = B(l1[2], 28) && os_avx, a512 = os_avx512;
    struct { const char *k; int on; } flags[] = {
        {"sse", B(l1[3], 25)}, {"sse2", B(l1[3], 26)}, {"sse3", B(l1[2], 0)}, {"ssse3", B(l1[2], 9)},
        {"sse4_1", B(l1[2], 19)}, {"sse4_2", B(l1[2], 20)}, {"sse4a", B(e1[2], 6)},
        {"popcnt", B(l1[2], 23)}, {"lzcnt", B(e1[2], 5)}, {"aes", B(l1[2], 25)}, {"sha", B(l7[1], 29)},
        {"bmi", B(l7[1], 3)}, {"bmi2", B(l7[1], 8)}, {"clflush", B(l1[3], 19)},
        {"clflushopt", B(l7[1], 23)}, {"clwb", B(l7[1], 24)},
        {"avx", avx}, {"f16c", avx && B(l1[2], 29)}, {"fma3", avx && B(l1[2], 12)},
        {"fma4", avx && B(e1[2], 16)}, {"avx2", avx && B(l7[1], 5)},
        {"avx_vnni", avx && B(l71[0], 4)}, {"avx_vnni_int8", avx && B(l71[3], 4)},
        {"avx_vnni_int16", avx && B(l71[3], 10)}, {"avx_ne_convert", avx && B(l71[3], 5)},
        {"avx512_f", a512 && B(l7[1], 16)}, {"avx512_cd", a512 && B(l7[1], 28)},
        {"avx512_dq", a512 && B(l7[1], 17)}, {"avx512_bw", a512 && B(l7[1], 30)},
        {"avx512_vl", a512 && B(l7[1], 31)}, {"avx512_ifma", a512 && B(l7[1], 21)},
        {"avx512_vbmi", a512 && B(l7[2], 1)}, {"avx512_vbmi2", a512 && B(l7[2], 6)},
        {"avx512_bitalg", a512 && B(l7[2], 12)}, {"avx512_vpopcntdq", a512 && B(l7[2], 14)},
        {"avx512_vnni", a512 && B(l7[2], 11)}, {"avx512_bf16", a512 && B(l71[0], 5)},
        {"avx512_fp16", a512 && B(l7[3], 23)}, {"avx512_vp2intersect", a512 && B(l7[3], 8)},
        {"avx512_4vnniw", a512 && B(l7[3], 2)}, {"avx512_4fmaps", a512 && B(l7[3], 3)},
        {"avx10_1", a512 && (l24[1] & 0xff) >= 1}, {"avx10_2", a512 && (l24[1] & 0xff) >= 2},
        {"amx_tile", os_amx && B(l7[3], 24)}, {"amx_int8", os_amx && B(l7[3], 25)},
        {"amx_bf16", os_amx && B(l7[3], 22)}, {"amx_fp16", os_amx && B(l71[0], 21)},
    };
#undef B
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (set_flag(d, flags[i].k, flags[i].on) < 0) goto fail;
    long sockets, physical, logical = sysconf(_SC_NPROCESSORS_ONLN);
    count_cores(&sockets, &physical);
    if (physical <= 0) physical = logical;
    if (sockets <= 0) sockets = 1;
    long l1d = 0, l2 = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    char name[64];
    cpu_name(name, sizeof name);
    struct utsname u;
    if (uname(&u) != 0) snprintf(u.machine, sizeof u.machine, "unknown");
    if (set_long(d, "l1d_cache_size", l1d > 0 ? l1d : 0) < 0 || set_long(d, "l2_cache_size", l2 > 0 ? l2 : 0) < 0 ||
        set_long(d, "num_sockets", sockets) < 0 || set_long(d, "num_physical_cores", physical) < 0 ||
        set_long(d, "num_logical_cores", logical) < 0 || set_str(d, "cpu_name", name) < 0 ||
        set_str(d, "architecture", u.machine) < 0)
        goto fail;
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

static PyObject *init_amx(PyObject *self, PyObject *unused) { Py_RETURN_FALSE; }

/* the ISA level our kernels dispatch to (gemm.c, vmath.c choose the same way) */
static PyObject *get_cpu_capability(PyObject *self, PyObject *unused) {
#ifdef TN_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return PyUnicode_FromString("AVX512");
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return PyUnicode_FromString("AVX2");
#endif
    return PyUnicode_FromString("DEFAULT");
}

static long qengine = 4;   /* X86 */
long tn_qengine_current(void) { return qengine; }   /* ops/qconv.c: the engine a conv prepack follows */
static PyObject *supported_qengines(PyObject *self, PyObject *unused) { return Py_BuildValue("[ii]", 4, 1); }
static PyObject *get_qengine(PyObject *self, PyObject *unused) { return PyLong_FromLong(qengine); }
static PyObject *set_qengine(PyObject *self, PyObject *arg) {
    static const char *const names[] = {"NoQEngine", "FBGEMM", "QNNPACK", "ONEDNN", "X86"};
    long e = PyLong_AsLong(arg);
    if (e == -1 && PyErr_Occurred()) return NULL;
    e &= 0xff;   /* upstream's QEngine is an int8_t enum read back as a byte */
    if (e > 4) {
        PyErr_Format(PyExc_RuntimeError, "Unrecognized Quantized Engine: %ld", e);
        return NULL;
    }
    if (e != 1 && e != 4) {
        PyErr_Format(PyExc_RuntimeError, "quantized engine %s is not supported", names[e]);
        return NULL;
    }
    qengine = e;
    Py_RETURN_NONE;
}

static PyMethodDef cpu_methods[] = {
    {"_get_cpu_capability", get_cpu_capabilities, METH_NOARGS, NULL},
    {"_init_amx", init_amx, METH_NOARGS, NULL},
    {NULL},
};
static PyMethodDef c_methods[] = {
    {"_get_cpu_capability", get_cpu_capability, METH_NOARGS, NULL},
    {"_supported_qengines", supported_qengines, METH_NOARGS, NULL},
    {"_get_qengine", get_qengine, METH_NOARGS, NULL},
    {"_set_qengine", set_qengine, METH_O, NULL},
    {NULL},
};

PyObject *tn_py_submodule(const char *dotted);

int tn_cpu_info_init(PyObject *m) {
    PyObject *cpu = tn_py_submodule("_cpu");
    if (!cpu) return -1;
    int rc = PyModule_AddFunctions(cpu, cpu_methods);
    Py_DECREF(cpu);
    return rc < 0 ? -1 : PyModule_AddFunctions(m, c_methods);
}
