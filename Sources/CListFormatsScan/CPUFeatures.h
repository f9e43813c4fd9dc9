#ifndef LISTSYNC_CPU_FEATURES_H
#define LISTSYNC_CPU_FEATURES_H

#include <stdbool.h>

#if defined(__x86_64__) || defined(_M_X64)
#define LISTSYNC_X86_64 1
#include <immintrin.h>
#endif

/// The instruction sets the scanners choose from at run time, as bits.
enum {
    /// AVX2 and BMI1.
    LISTSYNC_CPU_AVX2 = 1 << 0,
    /// AVX-512 with byte and word instructions (AVX512F, AVX512BW).
    LISTSYNC_CPU_AVX512 = 1 << 1,
    /// AVX512_VBMI2 (byte compress: the CSV scanner's separator offsets).
    LISTSYNC_CPU_AVX512_VBMI2 = 1 << 2,
};

/// What the CPU (and the OS) support of `LISTSYNC_CPU_…`; asked once.
static inline int listsync_cpu_features(void) {
#if LISTSYNC_X86_64
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") ? LISTSYNC_CPU_AVX2 : 0)
            | (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") ? LISTSYNC_CPU_AVX512 : 0)
            | (__builtin_cpu_supports("avx512vbmi2") ? LISTSYNC_CPU_AVX512_VBMI2 : 0);
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return 0;
#endif
}

/// Whether the CPU (and the OS) support AVX2 and BMI1.
static inline bool listsync_has_avx2(void) {
    return (listsync_cpu_features() & LISTSYNC_CPU_AVX2) != 0;
}

/// Whether the CPU (and the OS) support AVX512F and AVX512BW.
static inline bool listsync_has_avx512(void) {
    return (listsync_cpu_features() & LISTSYNC_CPU_AVX512) != 0;
}

/// Whether the CPU (and the OS) support AVX512F, AVX512BW and AVX512_VBMI2.
static inline bool listsync_has_avx512_vbmi2(void) {
    return listsync_has_avx512() && (listsync_cpu_features() & LISTSYNC_CPU_AVX512_VBMI2) != 0;
}

#endif
