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
    int64_t half = hd / 2;
    float rolled[hd];
    for (int64_t h = 0; h < heads; h++) {
        float *x = v + h * hd;
        for (int64_t i = 0; i < hd; i++) rolled[i] = x[(i + half) % hd];
        for (int64_t i = 0; i < hd; i++) x[i] = x[i] * cos[i] + rolled[i] * sin[i];
    }
}

/* Row m's query head h over the cache slots 0..pos (its KV head: h / group). out: [head_dim]. */
static void attend(const float *q, const float *k, const float *v, int64_t visible, int64_t hd,
                   float scale, float *scores, float *out) {
    float top = -INFINITY;
    for (int64_t j = 0; j < visible; j++) {
        v16f acc = {0};
        for (int64_t i = 0; i < hd; i += 16) acc += load(q + i) * load(k + j * hd + i);
        scores[j] = hsum(acc) * scale;
        top = scores[j] > top ? scores[j] : top;
    }
    int64_t padded = (visible + 15) / 16 * 16;
    for (int64_t j = visible; j < padded; j++) scores[j] = -INFINITY;
    v16f total = {0};
    for (int64_t j = 0; j < padded; j += 16) {
        v16f e = blend(load(scores + j) > -INFINITY, vexp(load(scores + j) - top), (v16f){0});
        store(scores + j, e);
        total += e;
    }
    float sum = hsum(total);
    for (int64_t i = 0; i < hd; i += 16) store(out + i, (v16f){0});
    for (int64_t j = 0; j < visible; j++) {
        float p = scores[j] / sum;
        for (int64_t i = 0; i < hd; i += 16) store(out + i, load(out + i) + p * load(v + j * hd + i));
    }
}

static void add(float *x, const float *y, int64_t n) {
    for (int64_t i = 0; i < n; i += 16) store(x + i, load(x + i) + load(y + i));
}

/* x: [M, hidden], updated in place through every layer; positions: [M] cache slots of the new
 * tokens; cos, sin: [cache_len, head_dim] rotary tables (sin signed as in `rotate`). Dimensions
 * (hidden, head_dim, intermediate) are multiples of 32, as the compressed formats need. */
void decode_layers(float *x, int64_t M, const int64_t *positions, const struct layer *layers,
                   int64_t n_layers, const struct dims *dims, const float *cos, const float *sin) {
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
#pragma omp parallel for schedule(static)
        for (int64_t mh = 0; mh < M * qh; mh++) {
            int64_t m = mh / qh, h = mh % qh, g = h / group, visible = positions[m] + 1;
            float scores[(visible + 15) / 16 * 16];
            attend(qkv + m * width + h * hd, ly->k_cache + g * L * hd, ly->v_cache + g * L * hd, visible,
                   hd, dims->scale, scores, att + (m * qh + h) * hd);
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
    free(normed), free(qkv), free(att), free(gate_up), free(act), free(delta);
}
