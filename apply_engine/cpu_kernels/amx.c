/* y = x @ W^T over compressed weights on Intel AMX tiles: the same fp32 sums as linear.c, faster.
 *
 * An AMX tile product multiplies bf16 pairs and adds them into fp32 sums. Neither operand here is
 * bf16, so each is made so without losing a bit:
 *   - a weight block's integers are bf16 values exactly, and its scale d (and offset) are applied
 *     to the block's sums afterwards. q4_1's q in 0..15 are centred first, so that the two sums
 *     do not cancel (m, the block's minimum, is as large as its largest weights):
 *         sum_k x_k (d q_k + m) = d * sum_k x_k (q_k - 8) + (m + 8 d) * sum_k x_k;
 *     q8_0's q in -127..127 need no offset, and a bf16 weight is its own value;
 *   - an fp32 activation is exactly the sum of three bf16 values (8 + 8 + 8 significant bits), so
 *     x . q = hi . q + mid . q + lo . q, with every product exact in fp32.
 * Sums are fp32, as in linear.c, in another order; each block's two terms are at most about its
 * largest weight times the activations, so the rounding stays that of an fp32 dot product.
 *
 * Roles: tile A holds 16 weight rows (output features) of one block of 32 inputs; tile B holds
 * the same 32 inputs of 16 tokens, as the hardware wants them (pairs of inputs, [16 pairs][16
 * tokens]); tile C = A B is [16 features][16 tokens]. x is split and laid out once per call (it is
 * small). Each thread takes four groups of 16 weight rows at a time, converts their integers to
 * bf16 rows in a buffer (bf16 weights are loaded in place), and runs them against every tile of
 * tokens: the three B tiles of a block are loaded once for the four groups, whose products go to
 * four C tiles.
 *
 * Built only where the compiler targets AMX (-march=native on such a CPU); elsewhere, and where
 * the kernel refuses the tile state, amx_matmul returns 0 and linear.c computes the product.
 */
#include "kernels.h"

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AVX512BF16__)
#include <immintrin.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TILE 16                   /* rows of every tile: output features (A, C) or input pairs (B) */
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

/* Tile registers, literal numbers (the intrinsics paste them into register names): one weight
 * tile A, the three parts of one block of activations, and the products of four weight tiles. */
#define A 0
#define B_HI 1
#define B_MID 2
#define B_LO 3
#define GROUPS 4 /* groups of 16 output features whose products share each block's B tiles */

static int usable = -1; /* -1: not asked yet */

/* Linux hands out the tile state only to a process that asks for it (once, for all threads). */
static int amx_usable(void) {
    if (usable < 0) usable = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
    return usable;
}

struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t bytes_per_row[16];
    uint8_t rows[16];
};

static void configure_tiles(void) {
    struct tile_config config = {.palette = 1};
    for (int t = 0; t < 8; t++) config.bytes_per_row[t] = 64, config.rows[t] = TILE;
    _tile_loadconfig(&config);
}

/* 16 rows of 16 dwords -> 16 columns (r[i] lane j becomes r[j] lane i). */
static void transpose16(__m512i r[16]) {
    __m512i a[16], b[16];
    for (int i = 0; i < 8; i++) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) { /* b[4i + j], 128-bit lane L: column 4L + j of rows 4i..4i+3 */
        b[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
        b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
    }
    for (int j = 0; j < 4; j++) { /* gather lane L of b[j], b[4 + j], b[8 + j], b[12 + j] */
        __m512i even = _mm512_shuffle_i32x4(b[j], b[4 + j], 0x88), odd = _mm512_shuffle_i32x4(b[j], b[4 + j], 0xDD);
        __m512i even2 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0x88);
        __m512i odd2 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0xDD);
        r[j] = _mm512_shuffle_i32x4(even, even2, 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(even, even2, 0xDD);
        r[4 + j] = _mm512_shuffle_i32x4(odd, odd2, 0x88);
        r[12 + j] = _mm512_shuffle_i32x4(odd, odd2, 0xDD);
    }
}

static inline __m512 widen(__m256i bf16) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bf16), 16)); }

/* x [M, K] -> parts: per tile of 16 tokens and block of 32 inputs, three B tiles (hi, mid, lo)
 * of [16 input pairs][16 tokens] bf16 pairs; sums: per tile and block, each token's sum of its 32
 * inputs (for q4_1's offsets). Tokens past M are zeros. */
static void split(const float *x, int64_t M, int64_t K, int64_t tiles, __m512i *parts, __m512 *sums) {
    int64_t blocks = K / BLOCK;
#pragma omp parallel for schedule(static)
    for (int64_t tb = 0; tb < tiles * blocks; tb++) {
        int64_t t = tb / blocks, b = tb % blocks;
        __m512i rows[3][TILE];
        float sum[TILE];
        for (int64_t i = 0; i < TILE; i++) {
            int64_t m = t * TILE + i;
            __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();
            if (m < M) lo = _mm512_loadu_ps(x + m * K + b * BLOCK), hi = _mm512_loadu_ps(x + m * K + b * BLOCK + 16);
            sum[i] = _mm512_reduce_add_ps(lo + hi);
            for (int p = 0; p < 3; p++) { /* round to bf16, keep the exact remainder for the next part */
                __m512i part = (__m512i)_mm512_cvtne2ps_pbh(hi, lo); /* words 0..15: lo, 16..31: hi */
                rows[p][i] = part;
                lo -= widen(_mm512_castsi512_si256(part));
                hi -= widen(_mm512_extracti64x4_epi64(part, 1));
            }
        }
        for (int p = 0; p < 3; p++) {
            transpose16(rows[p]); /* [token][pair] -> [pair][token] */
            for (int i = 0; i < TILE; i++) parts[(tb * 3 + p) * TILE + i] = rows[p][i];
        }
        sums[tb] = _mm512_loadu_ps(sum);
    }
}

/* One weight row's q integers, every block, as bf16 rows of tile A: out[b * TILE] for block b.
 * A row at a time reads the weights in order (16 rows at once would be 16 streams to prefetch). */
static void convert_q8_0(const int8_t *q, int64_t blocks, __m512i *out) {
    for (int64_t b = 0; b < blocks; b++) {
        const int8_t *p = q + b * BLOCK;
        __m512 lo = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)));
        __m512 hi = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p + 16))));
        out[b * TILE] = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
    }
}

static void convert_q4_1(const uint8_t *q, int64_t blocks, __m512i lut, __m512i *out) {
    for (int64_t b = 0; b < blocks; b++) { /* the block's first 16 in the low nibbles */
        __m256i bytes = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + b * BLOCK / 2)));
        __m512i nibbles = _mm512_inserti64x4(_mm512_castsi256_si512(bytes & _mm256_set1_epi16(15)),
                                             _mm256_srli_epi16(bytes, 4), 1);
        out[b * TILE] = _mm512_permutexvar_epi16(nibbles, lut);
    }
}

/* y[m, n0 + i] = acc[i][m] for the tile's rows of tokens below M. */
static void write_tile(const float *acc, int64_t rows, int64_t N, int64_t n0, float *y) {
    __m512i cols[TILE];
    for (int i = 0; i < TILE; i++) cols[i] = _mm512_load_si512(acc + i * TILE);
    transpose16(cols);
    for (int64_t m = 0; m < rows; m++) _mm512_storeu_si512(y + m * N + n0, cols[m]);
}

/* acc[i] += d[i] * out[i] (+ (m[i] + 8 d[i]) * sums), per row i of a [16 features][16 tokens] block
 * product (out: over q4_1's centred q - 8). */
static inline void fold(float *acc, const float *out, const float *d, const float *m, int64_t stride, __m512 sums) {
    for (int i = 0; i < TILE; i++) {
        __m512 a = _mm512_fmadd_ps(_mm512_load_ps(out + i * TILE), _mm512_set1_ps(d[i * stride]), _mm512_load_ps(acc + i * TILE));
        if (m) a = _mm512_fmadd_ps(sums, _mm512_set1_ps(m[i * stride] + 8 * d[i * stride]), a);
        _mm512_store_ps(acc + i * TILE, a);
    }
}

/* fold() for block b of weight rows n0..n0+15. */
static inline void fold_block(const struct matrix *W, float *acc, const float *out, int64_t n0, int64_t b, __m512 sums) {
    int64_t blocks = W->K / BLOCK;
    fold(acc, out, W->d + n0 * blocks + b, W->m ? W->m + n0 * blocks + b : 0, blocks, sums);
}

/* The q integers of weight rows n0..n0+15 as tile A rows (bf16): weights[b * TILE + i], block b. */
static void convert(const struct matrix *W, int64_t n0, __m512i lut, __m512i *weights) {
    for (int64_t i = 0; i < TILE; i++) {
        if (W->format == Q8_0)
            convert_q8_0((const int8_t *)W->q + (n0 + i) * W->K, W->K / BLOCK, weights + i);
        else
            convert_q4_1((const uint8_t *)W->q + (n0 + i) * W->K / 2, W->K / BLOCK, lut, weights + i);
    }
}

/* Tile c (+)= tile A, loaded from `a` at `stride` bytes a row, times the three B tiles. */
#define PRODUCT(c, a, stride, zero)                                                                  \
    do {                                                                                             \
        _tile_loadd(A, a, stride);                                                                   \
        if (zero) _tile_zero(c);                                                                     \
        _tile_dpbf16ps(c, A, B_HI);                                                                  \
        _tile_dpbf16ps(c, A, B_MID);                                                                 \
        _tile_dpbf16ps(c, A, B_LO);                                                                  \
    } while (0)

/* Output features n[0..3] + 0..15 (four groups of 16; a group may repeat the one before it, which
 * is then computed again and written once) for every tile of tokens. The three B tiles of each
 * block are loaded once for all four groups, whose products go to tiles 4..7.
 *   bf16: tile A loads the weight's rows in place, and each C sums over every block;
 *   q4_1, q8_0: each block's products leave their tiles and are scaled into fp32 sums. */
static void four_groups(const struct matrix *W, int64_t M, const int64_t n[GROUPS], const __m512i *parts,
                        const __m512 *sums, __m512i lut, __m512i *weights, float *y) {
    int64_t N = W->N, K = W->K, blocks = K / BLOCK, tiles = (M + TILE - 1) / TILE;
    float out[GROUPS][TILE * TILE] __attribute__((aligned(64)));
    float acc[GROUPS][TILE * TILE] __attribute__((aligned(64)));
    const uint16_t *bits = (const uint16_t *)W->q;
    int scaled = W->format != BF16;
    if (scaled) {
        for (int g = 0; g < GROUPS; g++) convert(W, n[g], lut, weights + g * blocks * TILE);
    }
    for (int64_t t = 0; t < tiles; t++) {
        const __m512i *p = parts + t * blocks * 3 * TILE;
        memset(acc, 0, sizeof acc);
        if (!scaled) {
            _tile_zero(4);
            _tile_zero(5);
            _tile_zero(6);
            _tile_zero(7);
        }
        for (int64_t b = 0; b < blocks; b++) {
            _tile_loadd(B_HI, p + b * 3 * TILE, 64);
            _tile_loadd(B_MID, p + (b * 3 + 1) * TILE, 64);
            _tile_loadd(B_LO, p + (b * 3 + 2) * TILE, 64);
            if (!scaled) {
                PRODUCT(4, bits + n[0] * K + b * BLOCK, K * 2, 0);
                PRODUCT(5, bits + n[1] * K + b * BLOCK, K * 2, 0);
                PRODUCT(6, bits + n[2] * K + b * BLOCK, K * 2, 0);
                PRODUCT(7, bits + n[3] * K + b * BLOCK, K * 2, 0);
                continue;
            }
            /* each group's last block leaves its tile just before this block's products go in, and is
             * scaled while the next groups' products run */
#define SCALED(g, c)                                                                                   \
    do {                                                                                               \
        if (b > 0) _tile_stored(c, out[g], 64);                                                        \
        PRODUCT(c, weights + (g * blocks + b) * TILE, 64, 1);                                          \
        if (b > 0) fold_block(W, acc[g], out[g], n[g], b - 1, sums[t * blocks + b - 1]);               \
    } while (0)
            SCALED(0, 4);
            SCALED(1, 5);
            SCALED(2, 6);
            SCALED(3, 7);
#undef SCALED
        }
        if (scaled) { /* the last block */
            _tile_stored(4, out[0], 64);
            _tile_stored(5, out[1], 64);
            _tile_stored(6, out[2], 64);
            _tile_stored(7, out[3], 64);
            for (int g = 0; g < GROUPS; g++) fold_block(W, acc[g], out[g], n[g], blocks - 1, sums[t * blocks + blocks - 1]);
        } else { /* the sums over every block */
            _tile_stored(4, acc[0], 64);
            _tile_stored(5, acc[1], 64);
            _tile_stored(6, acc[2], 64);
            _tile_stored(7, acc[3], 64);
        }
        int64_t rows = M - t * TILE < TILE ? M - t * TILE : TILE;
        for (int g = 0; g < GROUPS; g++) {
            if (g == 0 || n[g] != n[g - 1]) write_tile(acc[g], rows, N, n[g], y + t * TILE * N);
        }
    }
}

int amx_available(void) { return amx_usable(); }

int amx_matmul(const float *x, int64_t M, const struct matrix *W, float *y) {
    int64_t N = W->N, K = W->K, blocks = K / BLOCK, tiles = (M + TILE - 1) / TILE, groups = N / TILE;
    if (N % TILE || !amx_usable()) return 0;
    __m512i *parts = aligned_alloc(64, sizeof(__m512i) * tiles * blocks * 3 * TILE);
    __m512 *sums = aligned_alloc(64, sizeof(__m512) * tiles * blocks);
    split(x, M, K, tiles, parts, sums);
    __m512i lut = _mm512_setzero_si512(); /* word i < 16: bf16 bits of q4_1's centred i - 8 */
    for (int i = 0; i < 16; i++) ((uint16_t *)&lut)[i] = (uint16_t)(*(uint32_t *)&(float){(float)(i - 8)} >> 16);
#pragma omp parallel
    {
        configure_tiles();
        __m512i *weights = aligned_alloc(64, sizeof(__m512i) * GROUPS * blocks * TILE);
#pragma omp for schedule(static)
        for (int64_t g = 0; g < groups; g += GROUPS) {
            int64_t n[GROUPS];
            for (int i = 0; i < GROUPS; i++) n[i] = (g + i < groups ? g + i : groups - 1) * TILE;
            four_groups(W, M, n, parts, sums, lut, weights, y);
        }
        free(weights);
        _tile_release();
    }
    free(parts), free(sums);
    return 1;
}

#else

int amx_available(void) { return 0; }

int amx_matmul(const float *x, int64_t M, const struct matrix *W, float *y) {
    (void)x, (void)M, (void)W, (void)y;
    return 0;
}

#endif
