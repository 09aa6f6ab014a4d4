/* The decoder layers of a Llama-family model (llama, mistral, qwen2) for a few new tokens, in C.
 *
 * A one-token forward through torch runs ~25 small ops a layer, each a dispatch of a few
 * microseconds: for a small model that overhead outweighs the weight products themselves. Here a
 * layer is one call: RMSNorm, q/k/v product, rotary embedding, the new keys and values written into
 * the cache, attention over the visible slots, output product and residual, RMSNorm, gate/up
 * product, SiLU gate, down product and residual; the products run over compressed weights
 * (linear.c). Arithmetic is fp32 throughout and follows torch's order of operations; sums run in
 * another order (differences ~1e-6 in the logits, as between any two fp32 kernels).
 */
#include <math.h>
#include <stdlib.h>

#include "kernels.h"

struct layer {
    const float *input_norm, *post_norm;                     /* [hidden] */
    struct matrix qkv, o, gate_up, down;                     /* q, k, v rows; gate rows, then up rows */
    const float *qkv_bias, *o_bias, *gate_up_bias, *down_bias; /* NULL: none */
    float *k_cache, *v_cache;                                /* [kv_heads, cache_len, head_dim] */
};

struct dims {
    int64_t hidden, heads, kv_heads, head_dim, intermediate, cache_len;
    float eps, scale; /* scale: head_dim ** -0.5 */
};

static inline v16f blend(v16i mask, v16f a, v16f b) { return (v16f)(((v16i)a & mask) | ((v16i)b & ~mask)); }

/* e^x for x <= 0 (arguments of softmax and SiLU's exp(-x) past the sign split): e^x = 2^n e^r with
 * n = round(x / ln 2), |r| <= ln 2 / 2, and e^r by its Taylor series to r^7 (error < 1e-8 relative). */
static inline v16f vexp(v16f x) {
    const v16f magic = (v16f){0} + 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    x = blend(x < -87.0f, (v16f){0} - 87.0f, x);
    x = blend(x > 88.0f, (v16f){0} + 88.0f, x);
    v16f n = (x * 1.44269504f + magic) - magic;
    v16f r = x - n * 0.693359375f + n * 2.12194440e-4f;
    v16f p = (v16f){0} + 1.0f / 5040;
    p = p * r + 1.0f / 720, p = p * r + 1.0f / 120, p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6, p = p * r + 0.5f, p = p * r + 1.0f, p = p * r + 1.0f;
    return (v16f)((v16i)p + (__builtin_convertvector(n, v16i) << 23));
}

/* out[i] = x[i] * (1 / sqrt(mean(x^2) + eps)) * w[i] for each of the M rows of width H. */
static void rms_norm(const float *x, int64_t M, int64_t H, const float *w, float eps, float *out) {
    for (int64_t m = 0; m < M; m++) {
        const float *xm = x + m * H;
        v16f acc = {0};
        for (int64_t i = 0; i < H; i += 16) acc += load(xm + i) * load(xm + i);
        float inv = 1.0f / sqrtf(hsum(acc) / (float)H + eps);
        for (int64_t i = 0; i < H; i += 16) store(out + m * H + i, load(xm + i) * inv * load(w + i));
    }
}

/* Rotate each head of `v` (heads x head_dim at row stride) by its position's angles:
 * v * cos + roll(v, head_dim / 2) * signed_sin, where signed_sin = [-sin_1, sin_2]. */
static void rotate(float *v, int64_t heads, int64_t hd, const float *cos, const float *sin) {
    int64_t half = hd / 2, vectors = half / 16 * 16;
    for (int64_t h = 0; h < heads; h++) {
        float *first = v + h * hd, *second = first + half;
        for (int64_t i = 0; i < vectors; i += 16) {
            v16f a = load(first + i), b = load(second + i);
            store(first + i, a * load(cos + i) + b * load(sin + i));
            store(second + i, b * load(cos + half + i) + a * load(sin + half + i));
        }
        for (int64_t i = vectors; i < half; i++) { /* a head_dim of 16 (tests' tiny models) */
            float a = first[i], b = second[i];
            first[i] = a * cos[i] + b * sin[i];
            second[i] = b * cos[half + i] + a * sin[half + i];
        }
    }
}

#define QB 8 /* the most queries attended together: the ones of a KV head, up to 8 at a time */

/* Attention of qb (<= QB, a constant where inlined) queries that share one KV head: out_i = sum_j softmax_j(q_i . k_j * scale) v_j
 * over the slots j < visible[i]. k, v: [slots, hd]; scores: qb rows of `padded` floats (the largest
 * visible rounded up to 16). Each key and value vector is loaded once for all QB queries (the GQA
 * group's heads of every new token), not once per query. */
static inline __attribute__((always_inline)) void attend(const float *const *qs, const int64_t *visible,
                                                        int qb, const float *k, const float *v, int64_t hd,
                                                        float scale, float *scores, float *const *outs) {
    int64_t most = 0;
    for (int i = 0; i < qb; i++) most = visible[i] > most ? visible[i] : most;
    int64_t padded = (most + 15) / 16 * 16;
    v16f lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, minus_inf = (v16f){0} - INFINITY;
    /* 1. scores, 16 slots at a time (a slot past the last visible one repeats it, then is masked) */
    float tail[16 * hd]; /* the last block's keys, padded by repeating the last visible one */
    for (int64_t j0 = 0; j0 < padded; j0 += 16) {
        const float *kb = k + j0 * hd; /* 16 keys in consecutive slots: fixed offsets where hd is */
        if (j0 + 16 > most) {
            for (int jj = 0; jj < 16; jj++) memcpy(tail + jj * hd, k + (j0 + jj < most ? j0 + jj : most - 1) * hd, sizeof(float) * hd);
            kb = tail;
        }
        /* the keys two blocks on: a pass reads the cache from memory, and the hardware prefetcher
         * alone leaves these loads waiting */
        if (j0 + 48 <= most) {
            for (int64_t c = 0; c < 16 * hd; c += 16) __builtin_prefetch(k + (j0 + 32) * hd + c);
        }
        for (int i = 0; i < qb; i++) {
            v16f dots[16] = {{0}};
            for (int64_t c = 0; c < hd; c += 16) {
                v16f q = load(qs[i] + c);
                for (int jj = 0; jj < 16; jj++) dots[jj] += q * load(kb + jj * hd + c);
            }
            v16f s = transpose_sum(dots) * scale;
            store(scores + i * padded + j0, blend(lane < (float)(visible[i] - j0), s, minus_inf));
        }
    }
    /* 2. softmax of each row: exp(s - max) / sum, masked slots 0 */
    for (int i = 0; i < qb; i++) {
        float *row = scores + i * padded;
        v16f top = minus_inf;
        for (int64_t j = 0; j < padded; j += 16) top = blend(load(row + j) > top, load(row + j), top);
        float mx = -INFINITY;
        for (int l = 0; l < 16; l++) mx = top[l] > mx ? top[l] : mx;
        v16f total = {0};
        for (int64_t j = 0; j < padded; j += 16) {
            v16f x = load(row + j), e = blend(x > -INFINITY, vexp(x - mx), (v16f){0});
            store(row + j, e);
            total += e;
        }
        float sum = hsum(total);
        for (int64_t j = 0; j < padded; j += 16) store(row + j, load(row + j) / sum);
    }
    /* 3. out_i = sum_j p_ij v_j: per 32 dims, the 2 QB sums stay in registers over all slots, each
     * value row read in order (with the rows 16 on prefetched) */
    for (int64_t c = 0; c < hd; c += 32) {
        int wide = c + 32 <= hd; /* else the last 16 dims (a head_dim of 16 or 48) */
        v16f o[QB], o2[QB];
        for (int i = 0; i < qb; i++) o[i] = o2[i] = (v16f){0};
        for (int64_t j = 0; j < most; j++) {
            const float *vj = v + j * hd + c;
            __builtin_prefetch(vj + 16 * hd), __builtin_prefetch(vj + 16 * hd + 16);
            v16f lo = load(vj), hi = wide ? load(vj + 16) : (v16f){0};
            for (int i = 0; i < qb; i++) {
                float p = scores[i * padded + j];
                o[i] += p * lo, o2[i] += p * hi;
            }
        }
        for (int i = 0; i < qb; i++) {
            store(outs[i] + c, o[i]);
            if (wide) store(outs[i] + c + 16, o2[i]);
        }
    }
}

/* `attend` with the query count and the common head widths (64, 128) as constants, so that its
 * loops unroll with fixed offsets. */
static void attend_chunk(const float *const *qs, const int64_t *visible, int qb, const float *k, const float *v,
                         int64_t hd, float scale, float *scores, float *const *outs) {
#define CHUNK_OF(n)                                                                                         \
    case n:                                                                                                 \
        if (hd == 64)                                                                                       \
            attend(qs, visible, n, k, v, 64, scale, scores, outs);                                          \
        else if (hd == 128)                                                                                 \
            attend(qs, visible, n, k, v, 128, scale, scores, outs);                                         \
        else                                                                                                \
            attend(qs, visible, n, k, v, hd, scale, scores, outs);                                          \
        break;
    switch (qb) { CHUNK_OF(1) CHUNK_OF(2) CHUNK_OF(3) CHUNK_OF(4) CHUNK_OF(5) CHUNK_OF(6) CHUNK_OF(7) CHUNK_OF(8) }
#undef CHUNK_OF
}

static void add(float *x, const float *y, int64_t n) {
    for (int64_t i = 0; i < n; i += 16) store(x + i, load(x + i) + load(y + i));
}

/* x: [M, hidden], updated in place through every layer, then normalised by `final_norm` (the
 * model's last RMSNorm weight); positions: [M] cache slots of the new tokens; cos, sin:
 * [cache_len, head_dim] rotary tables (sin signed as in `rotate`). Without final_norm (NULL: a
 * prefill, whose x nobody reads) the last layer stops once its keys and values are cached. Dimensions
 * (hidden, head_dim, intermediate) are multiples of 32, as the compressed formats need. */
void decode_layers(float *x, int64_t M, const int64_t *positions, const struct layer *layers, int64_t n_layers,
                   const struct dims *dims, const float *cos, const float *sin, const float *final_norm) {
    int64_t H = dims->hidden, hd = dims->head_dim, I = dims->intermediate, L = dims->cache_len;
    int64_t qh = dims->heads, kvh = dims->kv_heads, group = qh / kvh, width = (qh + 2 * kvh) * hd;
    float *normed = malloc(sizeof(float) * M * H), *qkv = malloc(sizeof(float) * M * width);
    float *att = malloc(sizeof(float) * M * qh * hd), *gate_up = malloc(sizeof(float) * M * 2 * I);
    float *act = malloc(sizeof(float) * M * I), *delta = malloc(sizeof(float) * M * H);
    for (int64_t l = 0; l < n_layers; l++) {
        const struct layer *ly = layers + l;
        /* 1. attention block: norm, q/k/v, rotary, cache write, attention, output, residual */
        rms_norm(x, M, H, ly->input_norm, dims->eps, normed);
        matmul(normed, M, &ly->qkv, ly->qkv_bias, qkv);
        for (int64_t m = 0; m < M; m++) {
            float *row = qkv + m * width;
            int64_t pos = positions[m];
            rotate(row, qh + kvh, hd, cos + pos * hd, sin + pos * hd);
            for (int64_t g = 0; g < kvh; g++) {
                memcpy(ly->k_cache + (g * L + pos) * hd, row + (qh + g) * hd, sizeof(float) * hd);
                memcpy(ly->v_cache + (g * L + pos) * hd, row + (qh + kvh + g) * hd, sizeof(float) * hd);
            }
        }
        if (!final_norm && l == n_layers - 1) break; /* the rest of the layer only feeds x */
        /* the queries of each KV head (its group's heads, for every new token), in chunks of at
         * most QB as even as possible: each key and value is read once per chunk */
        int64_t per_head = group * M, chunks = (per_head + QB - 1) / QB;
#pragma omp parallel for schedule(dynamic)
        for (int64_t task = 0; task < kvh * chunks; task++) {
            int64_t g = task / chunks, c = task % chunks, first = c * per_head / chunks;
            int qb = (int)((c + 1) * per_head / chunks - first);
            int64_t most = 0, visible[QB];
            const float *qs[QB];
            float *outs[QB];
            for (int i = 0; i < qb; i++) {
                int64_t r = first + i, m = r / group, h = g * group + r % group;
                qs[i] = qkv + m * width + h * hd;
                outs[i] = att + (m * qh + h) * hd;
                visible[i] = positions[m] + 1;
                most = visible[i] > most ? visible[i] : most;
            }
            float *scores = malloc(sizeof(float) * qb * ((most + 15) / 16 * 16));
            const float *k = ly->k_cache + g * L * hd, *v = ly->v_cache + g * L * hd;
            attend_chunk(qs, visible, qb, k, v, hd, dims->scale, scores, outs);
            free(scores);
        }
        matmul(att, M, &ly->o, ly->o_bias, delta);
        add(x, delta, M * H);
        /* 2. MLP block: norm, gate/up, SiLU(gate) * up, down, residual */
        rms_norm(x, M, H, ly->post_norm, dims->eps, normed);
        matmul(normed, M, &ly->gate_up, ly->gate_up_bias, gate_up);
        for (int64_t m = 0; m < M; m++) {
            const float *gate = gate_up + m * 2 * I, *up = gate + I;
            for (int64_t i = 0; i < I; i += 16) {
                v16f g = load(gate + i); /* silu(g) = g / (1 + e^-g); e^-g for g >= 0, else 1 / e^g */
                v16f e = vexp(blend(g > 0.0f, -g, g));
                v16f exp_neg = blend(g > 0.0f, e, 1.0f / e);
                store(act + m * I + i, g / (1.0f + exp_neg) * load(up + i));
            }
        }
        matmul(act, M, &ly->down, ly->down_bias, delta);
        add(x, delta, M * H);
    }
    if (final_norm) rms_norm(x, M, H, final_norm, dims->eps, x); /* each row read whole before it is written */
    free(normed), free(qkv), free(att), free(gate_up), free(act), free(delta);
}
