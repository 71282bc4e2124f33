// The GPU part of a Groth16 proof: H's transforms and MSM, and the A, B1,
// B2 and C MSMs over the witness split (1s by batch sum, the rest by
// Pippenger), with the key's points resident on the device across proofs.
// The CPU evaluates a = A w, b = B w and classifies the witness before, and
// blinds after (src/groth16/prove.c).
#include <new>

#include "../ec/curves.cuh"
#include "../msm/msm.cuh"
#include "../ntt/ntt.cuh"
#include "../util/context.cuh"

namespace gpu {

struct key_base {
    virtual ~key_base() = default;
    virtual int prove(device_ctx *ctx, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out,
                      cuzk_gpu_msg *msg) = 0;
};

// c = a o b
template <class F> __global__ void h_product(const F *a, const F *b, F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] * b[i];
}

// a = a b - c, as plain integers (the H MSM's scalars)
template <class F> __global__ void h_combine(F *a, const F *b, const F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = (a[i] * b[i] - c[i]).from_mont();
}

template <class Curve> struct key_impl : key_base {
    typedef typename Curve::fp Fp;
    typedef typename Curve::fp2 Fp2;
    typedef typename Curve::fr Fr;
    unsigned n_vars = 0, n_public = 0, domain = 0, log_n = 0;
    affine<Fp> *a = nullptr, *b1 = nullptr, *c = nullptr, *h = nullptr;
    affine<Fp2> *b2 = nullptr;
    ntt_domain<Fr> dom;

    ~key_impl() override
    {
        // persistent allocations: plain cudaFree, at key release only
        // (never while proofs run)
        for (void *p : {(void *)a, (void *)b1, (void *)c, (void *)h, (void *)b2})
            if (p)
                (void)cudaFree(p);
    }

    template <class T> int upload(T **dst, const unsigned char *src, size_t count, cuzk_gpu_msg *msg)
    {
        GPU_TRY(msg, cudaMalloc((void **)dst, (count ? count : 1) * sizeof(T)));
        if (count)
            GPU_TRY(msg, cudaMemcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
        return CUZK_OK;
    }

    int init(device_ctx *ctx, const cuzk_gpu_key_in *in, cuzk_gpu_msg *msg)
    {
        n_vars = in->n_vars;
        n_public = in->n_public;
        domain = in->domain_size;
        while ((1u << log_n) < domain)
            log_n++;
        size_t n_c = (size_t)n_vars - n_public - 1;
        // plan: the key plus one proof's working set must fit now, with
        // 1 GiB spare (checked once here, before any proof runs)
        size_t g1 = sizeof(affine<Fp>), g2 = sizeof(affine<Fp2>);
        size_t key_bytes = ((size_t)n_vars * 2 + n_c + domain) * g1 + (size_t)n_vars * g2;
        size_t work = (size_t)domain * sizeof(Fr) * 4           // a, b, c, twiddles
                      + (size_t)(domain > n_vars ? domain : n_vars) * 16 * 16 // digits + sort buffers
                      + ((size_t)1 << 20) * 13 * sizeof(xyzz<Fp2>);           // buckets
        size_t free_b = 0, total_b = 0;
        GPU_TRY(msg, cudaMemGetInfo(&free_b, &total_b));
        if (key_bytes + work + ((size_t)1 << 30) > free_b) {
            snprintf(msg->text, sizeof(msg->text),
                     "the key (%.2f GiB) and one proof's working set (%.2f GiB) do not fit in the GPU's %.2f GiB "
                     "free memory",
                     key_bytes / 1073741824.0, work / 1073741824.0, free_b / 1073741824.0);
            return CUZK_ERR_NO_MEMORY;
        }
        GPU_RC(upload(&a, in->pts_a, n_vars, msg));
        GPU_RC(upload(&b1, in->pts_b1, n_vars, msg));
        GPU_RC(upload(&b2, in->pts_b2, n_vars, msg));
        GPU_RC(upload(&c, in->pts_c, n_c, msg));
        GPU_RC(upload(&h, in->pts_h, domain, msg));
        GPU_RC(dom.init(log_n, ctx->stream, msg));
        GPU_TRY(msg, cudaStreamSynchronize(ctx->stream));
        return CUZK_OK;
    }

    // one split MSM: the sum of the 1s plus Pippenger on the tail; window
    // sums and the batch sum stay on the device (d_win: room for
    // CUZK_GPU_MAX_WINDOWS + 1) until the copy to the host at the end
    template <class F>
    int split_msm(const affine<F> *bases, const uint32_t *scalars, const uint32_t *ones, size_t n_ones,
                  const uint32_t *tail, size_t n_tail, xyzz<F> *d_win, cuzk_gpu_msm_result *res, cudaStream_t st,
                  cuzk_gpu_msg *msg)
    {
        GPU_RC(msm_sum<F>(bases, ones, n_ones, d_win + CUZK_GPU_MAX_WINDOWS, st, msg));
        return msm_pippenger<F>(bases, scalars, tail, n_tail, 0, d_win, &res->nwin, &res->c, st, msg);
    }

    template <class F>
    int fetch(const xyzz<F> *d_win, bool with_sum, cuzk_gpu_msm_result *res, cudaStream_t st, cuzk_gpu_msg *msg)
    {
        static_assert(sizeof(xyzz<F>) <= sizeof(res->sum), "XYZZ size");
        memset(res->sum, 0, sizeof(res->sum));
        for (unsigned w = 0; w < res->nwin; w++)
            GPU_TRY(msg, cudaMemcpyAsync(res->windows[w], d_win + w, sizeof(xyzz<F>), cudaMemcpyDeviceToHost, st));
        if (with_sum)
            GPU_TRY(msg, cudaMemcpyAsync(res->sum, d_win + CUZK_GPU_MAX_WINDOWS, sizeof(xyzz<F>),
                                         cudaMemcpyDeviceToHost, st));
        return CUZK_OK;
    }

    int prove(device_ctx *ctx, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out, cuzk_gpu_msg *msg) override
    {
        cudaStream_t st = ctx->stream;
        size_t n = (size_t)1 << log_n;
        cudaEvent_t ev[GPU_PHASES + 1] = {};
        struct events_guard {
            cudaEvent_t *e;
            ~events_guard()
            {
                for (int i = 0; i <= GPU_PHASES; i++)
                    if (e[i])
                        (void)cudaEventDestroy(e[i]);
            }
        } guard{ev};
        for (auto &e : ev)
            GPU_TRY(msg, cudaEventCreate(&e));
        GPU_TRY(msg, cudaEventRecord(ev[0], st));

        dev_buf<Fr> da, db, dc;
        dev_buf<uint32_t> wit, lists;
        dev_buf<xyzz<Fp>> win1; // per G1 MSM: windows + the batch sum
        dev_buf<xyzz<Fp2>> win2;
        const size_t per = CUZK_GPU_MAX_WINDOWS + 1;
        GPU_RC(da.alloc(n, st, msg));
        GPU_RC(db.alloc(n, st, msg));
        GPU_RC(dc.alloc(n, st, msg));
        GPU_RC(wit.alloc((size_t)n_vars * 8, st, msg));
        size_t n_lists = in->n_ones + in->n_tail + in->n_ones_c + in->n_tail_c;
        GPU_RC(lists.alloc(n_lists, st, msg));
        GPU_RC(win1.alloc(4 * per, st, msg));
        GPU_RC(win2.alloc(per, st, msg));
        // rows past the key's domain_size (n > domain only if domain is
        // not a power of two) are zero
        if (n > domain) {
            GPU_TRY(msg, cudaMemsetAsync(da.p + domain, 0, (n - domain) * sizeof(Fr), st));
            GPU_TRY(msg, cudaMemsetAsync(db.p + domain, 0, (n - domain) * sizeof(Fr), st));
        }
        GPU_TRY(msg, cudaMemcpyAsync(da.p, in->a, (size_t)domain * sizeof(Fr), cudaMemcpyHostToDevice, st));
        GPU_TRY(msg, cudaMemcpyAsync(db.p, in->b, (size_t)domain * sizeof(Fr), cudaMemcpyHostToDevice, st));
        GPU_TRY(msg, cudaMemcpyAsync(wit.p, in->witness, (size_t)n_vars * 32, cudaMemcpyHostToDevice, st));
        uint32_t *l_ones = lists.p, *l_tail = l_ones + in->n_ones, *l_ones_c = l_tail + in->n_tail,
                 *l_tail_c = l_ones_c + in->n_ones_c;
        if (in->n_ones)
            GPU_TRY(msg, cudaMemcpyAsync(l_ones, in->ones, in->n_ones * 4, cudaMemcpyHostToDevice, st));
        if (in->n_tail)
            GPU_TRY(msg, cudaMemcpyAsync(l_tail, in->tail, in->n_tail * 4, cudaMemcpyHostToDevice, st));
        if (in->n_ones_c)
            GPU_TRY(msg, cudaMemcpyAsync(l_ones_c, in->ones_c, in->n_ones_c * 4, cudaMemcpyHostToDevice, st));
        if (in->n_tail_c)
            GPU_TRY(msg, cudaMemcpyAsync(l_tail_c, in->tail_c, in->n_tail_c * 4, cudaMemcpyHostToDevice, st));
        GPU_TRY(msg, cudaEventRecord(ev[1], st));

        // H: c = a o b on the n-domain, all three to the odd coset, then
        // h = a b - c there
        h_product<Fr><<<blocks_for(n, 256), 256, 0, st>>>(da.p, db.p, dc.p, n);
        GPU_LAUNCHED(msg, "h_product");
        GPU_RC(dom.to_odd_coset(da.p, st, msg));
        GPU_RC(dom.to_odd_coset(db.p, st, msg));
        GPU_RC(dom.to_odd_coset(dc.p, st, msg));
        h_combine<Fr><<<blocks_for(n, 256), 256, 0, st>>>(da.p, db.p, dc.p, n);
        GPU_LAUNCHED(msg, "h_combine");
        db.release();
        dc.release();
        GPU_TRY(msg, cudaEventRecord(ev[2], st));

        const uint32_t *w = wit.p, *wc = wit.p + 8 * ((size_t)n_public + 1);
        cuzk_gpu_msm_result *r = out->msm;
        xyzz<Fp> *wa = win1.p, *wb1 = win1.p + per, *wcc = win1.p + 2 * per, *wh = win1.p + 3 * per;
        GPU_RC(msm_pippenger<Fp>(h, (const uint32_t *)da.p, nullptr, domain, 0, wh, &r[GPU_MSM_H].nwin,
                                 &r[GPU_MSM_H].c, st, msg));
        da.release();
        GPU_TRY(msg, cudaEventRecord(ev[3], st));
        GPU_RC(split_msm<Fp>(a, w, l_ones, in->n_ones, l_tail, in->n_tail, wa, &r[GPU_MSM_A], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[4], st));
        GPU_RC(split_msm<Fp>(b1, w, l_ones, in->n_ones, l_tail, in->n_tail, wb1, &r[GPU_MSM_B1], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[5], st));
        GPU_RC(split_msm<Fp2>(b2, w, l_ones, in->n_ones, l_tail, in->n_tail, win2.p, &r[GPU_MSM_B2], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[6], st));
        GPU_RC(split_msm<Fp>(c, wc, l_ones_c, in->n_ones_c, l_tail_c, in->n_tail_c, wcc, &r[GPU_MSM_C], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[7], st));

        GPU_RC(fetch<Fp>(wh, false, &r[GPU_MSM_H], st, msg));
        GPU_RC(fetch<Fp>(wa, true, &r[GPU_MSM_A], st, msg));
        GPU_RC(fetch<Fp>(wb1, true, &r[GPU_MSM_B1], st, msg));
        GPU_RC(fetch<Fp2>(win2.p, true, &r[GPU_MSM_B2], st, msg));
        GPU_RC(fetch<Fp>(wcc, true, &r[GPU_MSM_C], st, msg));
        GPU_TRY(msg, cudaStreamSynchronize(st));
        for (int i = 0; i < GPU_PHASES; i++) {
            float f = 0;
            GPU_TRY(msg, cudaEventElapsedTime(&f, ev[i], ev[i + 1]));
            out->ms[i] = f;
        }
        return CUZK_OK;
    }
};

} // namespace gpu

struct cuzk_gpu_key {
    int curve, device;
    gpu::key_base *impl;
};

extern "C" int cuzk_gpu_key_upload(const cuzk_gpu_key_in *in, cuzk_gpu_key **key, cuzk_gpu_msg *msg)
{
    *key = nullptr;
    if (in->n_vars < in->n_public + 1 || in->domain_size == 0)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "key sizes out of range");
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(in->device, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    gpu::key_base *impl = nullptr;
    int rc = gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve");
    GPU_DISPATCH_CURVE(in->curve, {
        auto *k = new (std::nothrow) gpu::key_impl<Curve>();
        if (!k)
            return gpu::fail_msg(msg, CUZK_ERR_NO_MEMORY, "out of host memory");
        rc = k->init(ctx, in, msg);
        impl = k;
    });
    if (rc != CUZK_OK) {
        delete impl;
        return rc;
    }
    cuzk_gpu_key *k = new (std::nothrow) cuzk_gpu_key{in->curve, in->device, impl};
    if (!k) {
        delete impl;
        return gpu::fail_msg(msg, CUZK_ERR_NO_MEMORY, "out of host memory");
    }
    *key = k;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_key_free(cuzk_gpu_key *key)
{
    if (!key)
        return;
    gpu::device_ctx *ctx;
    cuzk_gpu_msg msg;
    if (gpu::get_device(key->device, &ctx, &msg) == CUZK_OK) {
        std::lock_guard<std::mutex> lock(ctx->compute);
        delete key->impl;
    }
    delete key;
}

extern "C" int cuzk_gpu_prove(cuzk_gpu_key *key, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out,
                              cuzk_gpu_msg *msg)
{
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(key->device, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    return key->impl->prove(ctx, in, out, msg);
}
