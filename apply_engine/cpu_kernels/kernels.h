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

/* The 16 horizontal sums of a[0..15] in one vector (lane j: the sum of a[j]'s lanes): each level
 * adds the two halves of pairs of vectors, interleaving them, until one lane is left per vector. */
static inline v16f transpose_sum(const v16f a[16]) {
    v16f b[8], c[4], d[2];
    for (int i = 0; i < 8; i++)
        b[i] = __builtin_shufflevector(a[i], a[i + 8], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
               __builtin_shufflevector(a[i], a[i + 8], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    for (int i = 0; i < 4; i++) /* c[i], lanes 4q..4q+3: a[i + 4q] */
        c[i] = __builtin_shufflevector(b[i], b[i + 4], 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27) +
               __builtin_shufflevector(b[i], b[i + 4], 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    for (int i = 0; i < 2; i++) /* d[i], lanes 2p, 2p+1: a[i + 2p] */
        d[i] = __builtin_shufflevector(c[i], c[i + 2], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29) +
               __builtin_shufflevector(c[i], c[i + 2], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    return __builtin_shufflevector(d[0], d[1], 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30) +
           __builtin_shufflevector(d[0], d[1], 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
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

/* x . W[n] for one row of x, the same bits as matmul gives for a product of that row alone */
float matmul_row(const float *x, const struct matrix *W, int64_t n);

/* The same product on AMX tiles (amx.c); returns 0, computing nothing, where it cannot run. */
int amx_matmul(const float *x, int64_t M, const struct matrix *W, float *y);

#endif
