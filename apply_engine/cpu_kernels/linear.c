/* y = x @ W^T over weights stored compressed, decompressed exactly to fp32 in registers.
 *
 * x: [M, K] fp32, row-major; y: [M, N] fp32; W: [N, K] in one of three block formats, each a
 * lossless encoding of the fp32 weights it replaces (apply_engine/compressed.py checks that every
 * weight decodes to the same bits before a matrix is stored this way):
 *   q4_1  w = d * q + m    q in 0..15, two per byte (the block's first 16 in the low nibbles),
 *                          d and m per block of 32 along K (fp16 values, stored as fp32)
 *   q8_0  w = d * q        q in -127..127, one per byte, d per block of 32
 *   bf16  w = bits << 16   the weight's top 16 bits (its low 16 are zero)
 * d * q is exact in fp32 (at most 11 + 8 significant bits), so decoding rounds once, exactly as
 * the fp32 reference did. Products and sums are fp32; only their order differs from a BLAS.
 *
 * Each thread takes chunks of output columns; NT weight rows at a time are decoded once into a
 * buffer and dotted with every row of x, four rows at a time. A one-token forward is bound by weight
 * traffic, which these formats cut 2-5.3x against fp32.
 */
#include "kernels.h"

#define NT 4 /* weight rows decoded and dotted together */
/* Rows ahead whose weights are prefetched while a row is decoded: the hardware prefetcher alone
 * leaves a one-token product at about half the memory bandwidth. */
#define AHEAD (2 * NT)

static void decode_q4_1(const uint8_t *qs, const float *d, const float *m, int64_t K, float *w) {
    for (int64_t b = 0; b < K / BLOCK; b++) {
        v16u8 bytes;
        __builtin_prefetch(qs + b * BLOCK / 2 + AHEAD * K / 2);
        memcpy(&bytes, qs + b * BLOCK / 2, sizeof bytes);
        v16f lo = __builtin_convertvector(__builtin_convertvector(bytes & 15, v16i), v16f);
        v16f hi = __builtin_convertvector(__builtin_convertvector(bytes >> 4, v16i), v16f);
        store(w + b * BLOCK, lo * d[b] + m[b]);
        store(w + b * BLOCK + 16, hi * d[b] + m[b]);
    }
}

static void decode_q8_0(const int8_t *qs, const float *d, int64_t K, float *w) {
    for (int64_t b = 0; b < K / BLOCK; b++) {
        for (int half = 0; half < 2; half++) {
            v16u8 bytes; /* q + 128 widens as unsigned, which compilers vectorise; then back */
            __builtin_prefetch(qs + b * BLOCK + half * 16 + AHEAD * K);
            memcpy(&bytes, qs + b * BLOCK + half * 16, sizeof bytes);
            v16i q = __builtin_convertvector(bytes ^ 0x80, v16i) - 128;
            store(w + b * BLOCK + half * 16, __builtin_convertvector(q, v16f) * d[b]);
        }
    }
}

static void decode_bf16(const uint16_t *bits, int64_t K, float *w) {
    for (int64_t k = 0; k < K; k += 16) {
        v16u16 top;
        __builtin_prefetch(bits + k + AHEAD * K);
        memcpy(&top, bits + k, sizeof top);
        v16u32 wide = __builtin_convertvector(top, v16u32) << 16;
        memcpy(w + k, &wide, sizeof wide);
    }
}

#define CHUNK 32 /* output columns gathered per row of x before they are written to y */

/* out[m * CHUNK + t] = x[m] . w[t] for t < NT and every row m of x; w: NT decoded rows of K.
 * Four rows of x at a time share each weight load (16 sums in registers); leftover rows go one at
 * a time, each sum split over the two halves of a block to keep enough products in flight. */
static void dot_tile(const float *x, int64_t M, int64_t K, const float *w, float *out) {
    const float *w0 = w, *w1 = w + K, *w2 = w + 2 * K, *w3 = w + 3 * K;
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) {
        const float *x0 = x + m * K, *x1 = x0 + K, *x2 = x1 + K, *x3 = x2 + K;
        v16f s[16] = {{0}}; /* s[4 r + t]: row r of x times weight row t */
        for (int64_t k = 0; k < K; k += 16) {
            v16f p0 = load(w0 + k), p1 = load(w1 + k), p2 = load(w2 + k), p3 = load(w3 + k);
            v16f u0 = load(x0 + k), u1 = load(x1 + k), u2 = load(x2 + k), u3 = load(x3 + k);
            s[0] += u0 * p0, s[1] += u0 * p1, s[2] += u0 * p2, s[3] += u0 * p3;
            s[4] += u1 * p0, s[5] += u1 * p1, s[6] += u1 * p2, s[7] += u1 * p3;
            s[8] += u2 * p0, s[9] += u2 * p1, s[10] += u2 * p2, s[11] += u2 * p3;
            s[12] += u3 * p0, s[13] += u3 * p1, s[14] += u3 * p2, s[15] += u3 * p3;
        }
        v16f sums = transpose_sum(s); /* the 16 horizontal sums at once, not one hsum each */
        for (int r = 0; r < 4; r++) {
            for (int t = 0; t < NT; t++) out[(m + r) * CHUNK + t] = sums[4 * r + t];
        }
    }
    for (; m < M; m++) {
        const float *xa = x + m * K;
        v16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
        for (int64_t k = 0; k < K; k += 32) {
            v16f u = load(xa + k), v = load(xa + k + 16);
            a0 += u * load(w0 + k), c0 += v * load(w0 + k + 16);
            a1 += u * load(w1 + k), c1 += v * load(w1 + k + 16);
            a2 += u * load(w2 + k), c2 += v * load(w2 + k + 16);
            a3 += u * load(w3 + k), c3 += v * load(w3 + k + 16);
        }
        float *o = out + m * CHUNK;
        o[0] = hsum(a0 + c0), o[1] = hsum(a1 + c1), o[2] = hsum(a2 + c2), o[3] = hsum(a3 + c3);
    }
}

typedef void decode_fn(const struct matrix *W, int64_t n, int64_t K, float *w);

static void row_q4_1(const struct matrix *W, int64_t n, int64_t K, float *w) {
    decode_q4_1((const uint8_t *)W->q + n * K / 2, W->d + n * K / BLOCK, W->m + n * K / BLOCK, K, w);
}

static void row_q8_0(const struct matrix *W, int64_t n, int64_t K, float *w) {
    decode_q8_0((const int8_t *)W->q + n * K, W->d + n * K / BLOCK, K, w);
}

static void row_bf16(const struct matrix *W, int64_t n, int64_t K, float *w) {
    decode_bf16((const uint16_t *)W->q + n * K, K, w);
}

static decode_fn *decoder(const struct matrix *W) {
    return W->format == Q4_1 ? row_q4_1 : W->format == Q8_0 ? row_q8_0 : row_bf16;
}

/* Columns are split between threads in chunks; each chunk decodes NT weight rows at a time (a row
 * past N repeats the last one, its sums dropped) and writes y a whole chunk-row at a time. */
static void run(const float *x, int64_t M, const struct matrix *W, decode_fn *decode, float *y) {
    int64_t K = W->K, N = W->N;
    int64_t chunks = (N + CHUNK - 1) / CHUNK;
#pragma omp parallel
    {
        float w[NT * K] __attribute__((aligned(64)));
        float out[M * CHUNK + NT] __attribute__((aligned(64))); /* + NT: a tile past N */
#pragma omp for schedule(static)
        for (int64_t c = 0; c < chunks; c++) {
            int64_t n0 = c * CHUNK, width = N - n0 < CHUNK ? N - n0 : CHUNK;
            for (int64_t j = 0; j < width; j += NT) {
                for (int t = 0; t < NT; t++) decode(W, n0 + (j + t < width ? j + t : width - 1), K, w + t * K);
                dot_tile(x, M, K, w, out + j);
            }
            for (int64_t m = 0; m < M; m++) memcpy(y + m * N + n0, out + m * CHUNK, width * sizeof(float));
        }
    }
}

/* x . W[n], in the order matmul computes a product of one row of x (dot_tile's leftover rows). */
float matmul_row(const float *x, const struct matrix *W, int64_t n) {
    int64_t K = W->K;
    float w[K] __attribute__((aligned(64)));
    decoder(W)(W, n, K, w);
    v16f a = {0}, c = {0};
    for (int64_t k = 0; k < K; k += 32) a += load(x + k) * load(w + k), c += load(x + k + 16) * load(w + k + 16);
    return hsum(a + c);
}

/* Rows of x from which products run on AMX tiles where the CPU has them (amx.c); set from Python
 * (cpu_kernels.AMX_ROWS), and by tests to compare both kernels. */
static int64_t amx_rows = INT64_MAX;

void use_amx_from(int64_t rows) { amx_rows = rows; }

void matmul(const float *x, int64_t M, const struct matrix *W, const float *bias, float *y) {
    if (M < amx_rows || !amx_matmul(x, M, W, y)) run(x, M, W, decoder(W), y);
    if (bias) {
        for (int64_t i = 0; i < M; i++) {
            for (int64_t n = 0; n < W->N; n++) y[i * W->N + n] += bias[n];
        }
    }
}
