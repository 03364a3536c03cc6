/* cov_forward.c — lets atheris (libFuzzer for Python) see its coverage when the process runs with
 * gcc's AddressSanitizer preloaded (tools/fuzz/gguf_fuzz.py under tools/asan/python).
 *
 * atheris registers its Python coverage counters and comparison traces by calling the
 * __sanitizer_cov_* entry points of the libFuzzer inside its module core_with_libfuzzer.so. Those
 * calls go through the global symbol scope, where the preloaded libasan comes first with weak
 * stand-ins of the same names: libFuzzer then sees no coverage (a fuzz run with "corp: 1/1b" and
 * no "cov:"). Preloaded ahead of libasan (ASAN_OPTIONS=verify_asan_link_order=0), this library
 * defines those names and forwards each call to the definition inside the loaded
 * core_with_libfuzzer module (found by name among the loaded objects), by a tail call so the
 * caller's return address — libFuzzer's "PC" for comparisons — is kept. Before that module is
 * loaded a call does nothing. Built and preloaded by tests/test_gguf_fuzz.py. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

static int find_core(struct dl_phdr_info *info, size_t size, void *out) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "atheris/core_with_libfuzzer")) {
        *(void **)out = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
        return 1;
    }
    return 0;
}

static void *real(const char *name) {
    static void *core;
    if (!core) dl_iterate_phdr(find_core, &core);
    return core ? dlsym(core, name) : NULL;
}

#define FORWARD(name, params, args)                          \
    void name params {                                       \
        static void (*f) params;                             \
        if (!f) f = (void (*) params)real(#name);            \
        if (f) f args;                                       \
    }

FORWARD(__sanitizer_cov_8bit_counters_init, (uint8_t *a, uint8_t *b), (a, b))
FORWARD(__sanitizer_cov_pcs_init, (const uintptr_t *a, const uintptr_t *b), (a, b))
FORWARD(__sanitizer_cov_trace_cmp1, (uint8_t a, uint8_t b), (a, b))
FORWARD(__sanitizer_cov_trace_cmp2, (uint16_t a, uint16_t b), (a, b))
FORWARD(__sanitizer_cov_trace_cmp4, (uint32_t a, uint32_t b), (a, b))
FORWARD(__sanitizer_cov_trace_cmp8, (uint64_t a, uint64_t b), (a, b))
FORWARD(__sanitizer_cov_trace_const_cmp1, (uint8_t a, uint8_t b), (a, b))
FORWARD(__sanitizer_cov_trace_const_cmp2, (uint16_t a, uint16_t b), (a, b))
FORWARD(__sanitizer_cov_trace_const_cmp4, (uint32_t a, uint32_t b), (a, b))
FORWARD(__sanitizer_cov_trace_const_cmp8, (uint64_t a, uint64_t b), (a, b))
FORWARD(__sanitizer_cov_trace_div4, (uint32_t a), (a))
FORWARD(__sanitizer_cov_trace_div8, (uint64_t a), (a))
FORWARD(__sanitizer_cov_trace_gep, (uintptr_t a), (a))
FORWARD(__sanitizer_cov_trace_pc_indir, (uintptr_t a), (a))
FORWARD(__sanitizer_cov_trace_switch, (uint64_t a, uint64_t *b), (a, b))
FORWARD(__sanitizer_cov_trace_pc_guard, (uint32_t *a), (a))
FORWARD(__sanitizer_cov_trace_pc_guard_init, (uint32_t *a, uint32_t *b), (a, b))
