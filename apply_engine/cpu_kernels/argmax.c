/* The greedy choice, argmax_n x . W[n], over a vocabulary product without computing its logits.
 *
 * A verify pass needs only the argmax of each row of logits, and the vocabulary product is about a
 * fifth of a small model's pass. Over q8_0 weights (w = d q, q an integer in -127..127) it is cheap
 * to bound instead: quantise x per block of 32 to integers a (x ~ s a, s = max |x| / 127), and
 *     x . W[n] = sum_b s_b d_nb (q_nb . a_b)  +  error,   |error| <= sum_b s_b / 2 * L1_nb + slack
 * where q . a is an exact integer dot product (AVX512-VNNI: 64 byte products an instruction), L1_nb
 * is the block's sum of |w|, and `slack` covers the fp32 rounding of both sides (a few ulps of
 * sum |x w|; it is allowed 2^-13 of max |x| * L1_n, dozens of times more). The argmax can only be a
 * row whose upper bound reaches the largest lower bound; typically a handful are (with the stand-in:
 * median 4, rarely hundreds), and those get their exact value from linear.c, computed in the order
 * matmul computes a single row. So the choice is the argmax of exactly the logits a one-token
 * forward would have produced, ties going to the lowest index as torch.argmax breaks them.
 *
 * Weights are laid out for the instruction (apply_engine/compressed.py, `Screen`): for
 * each group of 16 rows and each block, 8 vectors of [16 rows][4 bytes], bytes q + 128 (the
 * instruction multiplies unsigned by signed bytes; the 128 * sum a it adds is taken off again).
 *
 * Built where the compiler targets AVX512-VNNI; elsewhere screen_available() is 0, screened_argmax
 * returns 0, and callers compute the logits.
 */
#include "kernels.h"

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#include <immintrin.h>
#include <math.h>

int screen_available(void) { return 1; }

#define GROUP 16 /* weight rows per vector lane set */
#define TILE 4   /* rows of x whose sums share each block's weight vectors */

struct screen {
    int64_t N, K; /* the rows of W (the vocabulary) and their length */
    const uint8_t *q;   /* [groups][blocks][8][16 rows][4]: q + 128 */
    const float *d;     /* [groups][blocks][16]: the blocks' scales */
    const uint8_t *l1;  /* [groups][blocks][16]: ceil(sum |q| / 16) over each block; times 16 d, its L1 norm */
    const float *slack; /* [groups * 16]: the rounding allowance of each row, per unit of max |x| */
};

/* a = round(x / s) per block, s = max |x| / 127; returns 0 unless x is finite. A block too small to
 * scale (zeros, or values so small that 127 / max overflows) gets a = 0 and s = 2 max, so that the
 * margin, s / 2 per unit of L1 norm, covers it whole. */
static int quantise(const float *x, int64_t K, int8_t *a, float *s, int32_t *offset, float *largest) {
    float top = 0;
    for (int64_t b = 0; b < K / BLOCK; b++) {
        float peak = 0;
        for (int j = 0; j < BLOCK; j++) peak = fmaxf(peak, fabsf(x[b * BLOCK + j]));
        if (!(peak <= 1e30f)) return 0; /* inf or nan */
        float inverse = 127 / peak;
        int scalable = inverse <= 1e38f;
        int32_t sum = 0;
        for (int j = 0; j < BLOCK; j++) {
            a[b * BLOCK + j] = scalable ? (int8_t)nearbyintf(x[b * BLOCK + j] * inverse) : 0;
            sum += a[b * BLOCK + j];
        }
        s[b] = scalable ? peak / 127 : 2 * peak, offset[b] = 128 * sum, top = fmaxf(top, peak);
    }
    *largest = top;
    return 1;
}

/* Bounds of x[m] . W[n] for the 16 rows of group g and `rows` rows of x from m (a constant where
 * inlined, so that their sums stay in registers): the upper bounds to `upper` (row m's at
 * upper[m * stride]), each x row's largest lower bound to `floor`. The rows' integer dot products
 * are interleaved: each is a chain of 8 dependent instructions a block. */
static inline __attribute__((always_inline)) void bound_group(const struct screen *S, int64_t g, const int8_t *a,
                                                              const float *s, const int32_t *offset,
                                                              const float *largest, const int rows, float *upper,
                                                              int64_t stride, float *floor) {
    int64_t K = S->K, blocks = K / BLOCK;
    __m512 sum[TILE], spread[TILE];
    for (int r = 0; r < rows; r++) sum[r] = spread[r] = _mm512_setzero_ps();
    for (int64_t b = 0; b < blocks; b++) {
        const uint8_t *w = S->q + (g * blocks + b) * BLOCK * GROUP;
        int64_t at = (g * blocks + b) * GROUP;
        __m512 d = _mm512_loadu_ps(S->d + at);
        __m512 l1 = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(S->l1 + at))))); /* / 16 */
        __m512i dot[TILE];
        for (int r = 0; r < rows; r++) dot[r] = _mm512_set1_epi32(-offset[r * blocks + b]);
        for (int j = 0; j < BLOCK / 4; j++) {
            __m512i wj = _mm512_loadu_si512(w + j * 4 * GROUP);
            for (int r = 0; r < rows; r++) { /* x's 4 integers at j, in every lane */
                __m512i four = _mm512_broadcastd_epi32(_mm_loadu_si32(a + r * K + b * BLOCK + 4 * j));
                dot[r] = _mm512_dpbusd_epi32(dot[r], wj, four);
            }
        }
        for (int r = 0; r < rows; r++) {
            __m512 sb = _mm512_set1_ps(s[r * blocks + b]);
            sum[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), _mm512_mul_ps(sb, d), sum[r]);
            spread[r] = _mm512_fmadd_ps(sb, l1, spread[r]);
        }
    }
    __m512 slack = _mm512_loadu_ps(S->slack + g * GROUP);
    __mmask16 real = S->N - g * GROUP >= GROUP ? 0xffff : (1u << (S->N - g * GROUP)) - 1; /* not padding */
    for (int r = 0; r < rows; r++) {
        /* half a step of x's integers times the L1 norms: 8 = 16 / 2, the byte's unit over two */
        __m512 margin = _mm512_fmadd_ps(_mm512_set1_ps(8.0f), spread[r], _mm512_mul_ps(_mm512_set1_ps(largest[r]), slack));
        _mm512_storeu_ps(upper + r * stride, _mm512_add_ps(sum[r], margin));
        floor[r] = fmaxf(floor[r], _mm512_mask_reduce_max_ps(real, _mm512_sub_ps(sum[r], margin)));
    }
}

int screened_argmax(const float *x, int64_t M, const struct screen *S, const struct matrix *W, float *scratch,
                    int64_t *choice) {
    int64_t K = S->K, blocks = K / BLOCK, groups = (S->N + GROUP - 1) / GROUP, stride = groups * GROUP;
    int8_t a[M * K] __attribute__((aligned(64)));
    float s[M * blocks], largest[M], floor[M], best[M];
    int32_t offset[M * blocks];
    for (int64_t m = 0; m < M; m++) {
        if (!quantise(x + m * K, K, a + m * K, s + m * blocks, offset + m * blocks, largest + m)) return 0;
        floor[m] = -INFINITY, best[m] = -INFINITY, choice[m] = -1;
    }
#pragma omp parallel
    {
        float mine[M];
        for (int64_t m = 0; m < M; m++) mine[m] = -INFINITY;
#pragma omp for schedule(static)
        for (int64_t g = 0; g < groups; g++) {
            for (int64_t m = 0; m < M; m += TILE) {
#define BOUND(rows) \
    bound_group(S, g, a + m * K, s + m * blocks, offset + m * blocks, largest + m, rows, \
                scratch + m * stride + g * GROUP, stride, mine + m)
                switch (M - m < TILE ? M - m : TILE) {
                case 1: BOUND(1); break;
                case 2: BOUND(2); break;
                case 3: BOUND(3); break;
                default: BOUND(4);
                }
#undef BOUND
            }
        }
#pragma omp critical
        for (int64_t m = 0; m < M; m++) floor[m] = fmaxf(floor[m], mine[m]);
#pragma omp barrier
        /* the candidates: rows whose upper bound reaches the floor, given their exact value */
        float top[M];
        int64_t at[M];
        for (int64_t m = 0; m < M; m++) top[m] = -INFINITY, at[m] = -1;
#pragma omp for schedule(static)
        for (int64_t g = 0; g < groups; g++) {
            for (int64_t m = 0; m < M; m++) {
                __mmask16 reach = _mm512_cmp_ps_mask(_mm512_loadu_ps(scratch + m * stride + g * GROUP),
                                                     _mm512_set1_ps(floor[m]), _CMP_GE_OQ);
                for (; reach; reach &= reach - 1) {
                    int64_t n = g * GROUP + __builtin_ctz(reach);
                    if (n >= S->N) break;
                    float value = matmul_row(x + m * K, W, n);
                    if (value > top[m]) top[m] = value, at[m] = n; /* n rises: a tie keeps the first */
                }
            }
        }
#pragma omp critical
        for (int64_t m = 0; m < M; m++) {
            if (at[m] >= 0 && (top[m] > best[m] || (top[m] == best[m] && at[m] < choice[m])))
                best[m] = top[m], choice[m] = at[m];
        }
    }
    for (int64_t m = 0; m < M; m++) {
        if (choice[m] < 0) return 0;
    }
    return 1;
}

#else

struct screen;

int screen_available(void) { return 0; }

int screened_argmax(const float *x, int64_t M, const struct screen *S, const struct matrix *W, float *scratch,
                    int64_t *choice) {
    (void)x, (void)M, (void)S, (void)W, (void)scratch, (void)choice;
    return 0;
}

#endif
