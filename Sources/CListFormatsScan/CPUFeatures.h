#ifndef LISTSYNC_CPU_FEATURES_H
#define LISTSYNC_CPU_FEATURES_H

#include <stdbool.h>

#if defined(__x86_64__) || defined(_M_X64)
#define LISTSYNC_X86_64 1
#include <immintrin.h>
#endif

/// Whether the CPU (and the OS) support AVX2 and BMI1; asked once.
static inline bool listsync_has_avx2(void) {
#if LISTSYNC_X86_64
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return false;
#endif
}

/// Whether the CPU (and the OS) support AVX-512 with byte and word
/// instructions (AVX512F, AVX512BW); asked once.
static inline bool listsync_has_avx512(void) {
#if LISTSYNC_X86_64
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return false;
#endif
}

#endif
