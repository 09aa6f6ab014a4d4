/* Shared by linear.c and layer.c: vector types, the compressed matrix, the product over it. */
#ifndef FASTAPPLY_KERNELS_H
#define FASTAPPLY_KERNELS_H

#include <stdint.h>
#include <string.h>

#define BLOCK 32

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v16u16 __attribute__((vector_size(32)));
typedef uint32_t v16u32 __attribute__((vector_size(64)));

static inline v16f load(const float *p) {
    v16f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store(float *p, v16f v) { memcpy(p, &v, sizeof v); }

typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

static inline float hsum(v16f v) {
    v8f a = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
            __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    v4f b = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
    return (b[0] + b[2]) + (b[1] + b[3]);
}

enum format { Q4_1 = 0, Q8_0 = 1, BF16 = 2 };

/* An [N, K] weight in one of the formats above (d, m: per block of 32; unused ones NULL). */
struct matrix {
    int64_t format, N, K;
    const void *q;
    const float *d, *m;
};

/* y[M, N] = x[M, K] @ W^T (+ bias, if not NULL) */
void matmul(const float *x, int64_t M, const struct matrix *W, const float *bias, float *y);

/* The same product on AMX tiles (amx.c); returns 0, computing nothing, where it cannot run. */
int amx_matmul(const float *x, int64_t M, const struct matrix *W, float *y);

#endif
