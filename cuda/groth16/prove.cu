// The GPU part of a Groth16 proof: H's transforms and MSM, and the A, B1,
// B2 and C MSMs over the witness split (1s by batch sum, the rest by
// Pippenger), with the key's points resident on the device across proofs.
// When the key's constraint matrices are resident too (the compressed rows
// of src/core/matrices.h, as they are), the GPU also evaluates a = A w, b = B w and splits the
// witness, so a proof's only host work is the upload of the witness and
// the blinding after (src/groth16/prove.c); otherwise the CPU evaluates and
// classifies before. A key with bellperson's conventions (a .params key)
// has A and B points for the variables its densities list only: the
// device gathers their scalars from the witness (a_vars, b_vars resident)
// and splits A's, B's and the private wires' apart; its H scalars are the
// quotient's coefficients (h.cuh).
#include <new>
#include <vector>

#include "../ec/curves.cuh"
#include "../msm/msm.cuh"
#include "../ntt/ntt.cuh"
#include "../device/context.cuh"
#include "h.cuh"
#include "../../src/core/matrices.h"

namespace gpu {

// A proof's inputs staged ahead of it (cuzk_gpu_stage).
struct staged_witness {
    int device = 0;
    uint32_t *wit = nullptr; // n_vars x 8 words, from the pool, on the copy stream
    uint32_t *ab = nullptr;  // a then b, the key's rows each (8 words a row; rows past those given zero); or none
    cudaStream_t copy = 0;
    cudaEvent_t ready = nullptr; // the copy is done
};

struct key_base {
    virtual ~key_base() = default;
    virtual int prove(device_ctx *ctx, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out,
                      cuzk_gpu_msg *msg) = 0;
    virtual bool evaluates() const = 0;
    uint64_t bytes = 0; // held on the device (points, tables, matrices)
    unsigned vars = 0;  // the witness length
    uint64_t rows = 0;  // the transforms' length: the domain, rounded up to a power of two
    unsigned domain_rows = 0; // the domain
};

// out[r] = sum over row r's entries of table[coef] * w[col]: the
// Montgomery product of a table value (coef R^2, as snarkjs stores
// coefficients) and the plain witness is the Montgomery form of coef * w,
// as on the CPU (src/core/prove_impl.h). One thread per row.
template <class F>
__global__ void eval_rows(const uint32_t *__restrict__ row_ptr, const uint32_t *__restrict__ col,
                          const uint32_t *__restrict__ coef, const F *__restrict__ table, const F *__restrict__ wit,
                          size_t rows, F *out)
{
    size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    F acc = F::zero();
    for (uint32_t e = row_ptr[r], end = row_ptr[r + 1]; e < end; e++)
        acc = acc + table[coef[e]] * wit[col[e]];
    out[r] = acc;
}

// out[i] = wit[vars[i]]: a bellperson key's A or B scalars (8 words each)
__global__ void gather_scalars(const uint32_t *wit, const uint32_t *vars, size_t n, uint32_t *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint4 *src = (const uint4 *)(wit + 8 * (size_t)vars[i]);
    uint4 *dst = (uint4 *)(out + 8 * i);
    dst[0] = src[0];
    dst[1] = src[1];
}

// witness_split over n values without C's lists (first_c = n); n = 0
// gives empty lists
static int split_values(const uint32_t *vals, size_t n, uint32_t *ones, uint32_t *tail, uint32_t *d_counts,
                        cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (n == 0) {
        GPU_TRY(msg, cudaMemsetAsync(d_counts, 0, 6 * sizeof(uint32_t), st));
        return CUZK_OK;
    }
    return witness_split(vals, n, (uint32_t)n, ones, tail, ones, tail, d_counts, st, msg);
}

template <class Curve> struct key_impl : key_base {
    typedef typename Curve::fp Fp;
    typedef typename Curve::fp2 Fp2;
    typedef typename Curve::fr Fr;
    unsigned n_vars = 0, n_public = 0, domain = 0, log_n = 0;
    // bellperson: A holds n_a points (of the variables a_vars lists), B n_b,
    // H n_h = domain - 1; snarkjs: n_vars, n_vars, domain
    bool bellperson = false;
    unsigned n_a = 0, n_b = 0, n_h = 0;
    uint32_t *a_vars = nullptr, *b_vars = nullptr;
    affine<Fp> *a = nullptr, *b1 = nullptr, *c = nullptr, *h = nullptr;
    affine<Fp2> *b2 = nullptr;
    // H's shifted copies (h_copies > 1): h holds h_copies * n_h points,
    // made for window h_c; h_sums[j] the sum of copy j (the upload's check)
    unsigned h_copies = 1, h_c = 0;
    std::vector<xyzz<Fp>> h_sums;
    ntt_domain<Fr> dom;
    // constraint matrices A (0) and B (1) by row, when resident
    bool resident_matrices = false;
    unsigned mat_rows = 0;
    uint32_t *row_ptr[2] = {nullptr, nullptr}, *col[2] = {nullptr, nullptr}, *coef[2] = {nullptr, nullptr};
    Fr *table = nullptr;
    uint32_t *counts_host = nullptr; // pinned: the witness split's lengths

    ~key_impl() override
    {
        // persistent allocations: plain cudaFree, at key release only
        // (the key cache's eviction or the engine's end: no proof uses the
        // key then, though another key's may run on the device)
        for (void *p : {(void *)a, (void *)b1, (void *)c, (void *)h, (void *)b2, (void *)a_vars, (void *)b_vars,
                        (void *)row_ptr[0], (void *)row_ptr[1], (void *)col[0], (void *)col[1], (void *)coef[0],
                        (void *)coef[1], (void *)table})
            if (p) // device-global: at a key's release
                (void)cudaFree(p);
        if (counts_host) // device-global: at a key's release
            (void)cudaFreeHost(counts_host);
    }

    // The matrices as the host holds them (validated when they were made:
    // rows within the domain, columns below n_vars, table values below r).
    int upload_matrices(const cs_matrices *m, cuzk_gpu_msg *msg)
    {
        if (m->rows > domain || m->n_vars != n_vars)
            return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "the matrices do not fit the key (rows past its domain, or "
                            "another variable count)");
        for (int k = 0; k < 2; k++) {
            GPU_RC(upload(&row_ptr[k], (const unsigned char *)m->m[k].row_ptr, (size_t)m->rows + 1, msg));
            GPU_RC(upload(&col[k], (const unsigned char *)m->m[k].col, (size_t)m->m[k].nnz, msg));
            GPU_RC(upload(&coef[k], (const unsigned char *)m->m[k].coef, (size_t)m->m[k].nnz, msg));
        }
        GPU_RC(upload(&table, m->table, m->n_table, msg));
        mat_rows = m->rows;
        resident_matrices = true;
        return CUZK_OK;
    }

    bool evaluates() const override
    {
        return resident_matrices;
    }

    // the key's uploads: on the device's copy stream (init synchronizes it
    // at the end), pinned or not as the caller asked
    device_ctx *up_ctx = nullptr;
    bool up_pinned = false;
    // progress of the points' upload, in bytes
    void (*up_progress)(void *, uint64_t, uint64_t) = nullptr;
    void *up_progress_ctx = nullptr;
    uint64_t up_done = 0, up_total = 0;

    // count values from the host into a new array of room (>= count) values
    template <class T>
    int upload(T **dst, const unsigned char *src, size_t count, cuzk_gpu_msg *msg, size_t room = 0)
    {
        if (room < count)
            room = count;
        // device-global: at a key's load (persistent, outside the pool)
        GPU_TRY(msg, cudaMalloc((void **)dst, (room ? room : 1) * sizeof(T)));
        GPU_RC(copy_to_device(up_ctx, LANE_COPY, *dst, src, count * sizeof(T), up_ctx->copy_stream, up_pinned, msg));
        up_done += count * sizeof(T);
        if (up_progress)
            up_progress(up_progress_ctx, up_done, up_total);
        return CUZK_OK;
    }

    // H's points and the copies of them that pay: one set of buckets
    // (every window merged) at the window chosen for that
    static unsigned h_points(const cuzk_gpu_key_in *in)
    {
        return in->a_vars ? in->domain_size - 1 : in->domain_size;
    }
    static unsigned h_copies_max(const cuzk_gpu_key_in *in)
    {
        const unsigned c = msm_gpu_window(h_points(in), CUZK_GPU_MAX_WINDOWS);
        return (255 + c) / c;
    }
    // the copies in->h_copies asks for, at most the useful ones, and their window
    static unsigned h_copies_of(const cuzk_gpu_key_in *in, unsigned *c)
    {
        unsigned k = in->h_copies, most = h_copies_max(in);
        k = k < 2 ? 1 : k < most ? k : most;
        *c = k > 1 ? msm_gpu_window(h_points(in), k) : 0;
        return k;
    }

    // Device bytes, computed on the host: the key's points and NTT tables;
    // its constraint matrices (8 bytes an entry, two row-pointer arrays,
    // the coefficient table)
    // and the witness split's flags, scans and lists (32 bytes a
    // variable), when resident; one proof's peak working set (a, b, c,
    // the witness, the MSM lists, the largest MSM's scratch).
    static void footprint(const cuzk_gpu_key_in *in, uint64_t chunk, uint64_t *key_bytes, uint64_t *matrix_bytes,
                          uint64_t *work)
    {
        unsigned lg = 0;
        while ((1u << lg) < in->domain_size)
            lg++;
        const uint64_t n = (uint64_t)1 << lg, nv = in->n_vars, n_c = nv - in->n_public - 1;
        const bool bp = in->a_vars != nullptr;
        const uint64_t na = bp ? in->n_a : nv, nb = bp ? in->n_b : nv, nhp = bp ? in->domain_size - 1 : in->domain_size;
        const uint64_t g1 = sizeof(affine<Fp>), g2 = sizeof(affine<Fp2>);
        unsigned hc;
        const unsigned copies = h_copies_of(in, &hc);
        *key_bytes = (na + nb + n_c + nhp * copies) * g1 + nb * g2 + (n + 64) * sizeof(Fr) + (bp ? (na + nb) * 4 : 0);
        const cs_matrices *mt = in->mat;
        *matrix_bytes = mt ? (mt->m[0].nnz + mt->m[1].nnz) * 8 + ((uint64_t)mt->rows + 1) * 8 +
                                 (uint64_t)mt->n_table * 32 + nv * 32
                           : 0;
        // with chunks, the largest MSM's scratch is a chunk's (plus the
        // chunk's window sums)
        const uint64_t nh = chunk && chunk < n ? chunk : n, nw = chunk && chunk < nv ? chunk : nv;
        // H's MSM over any number of shifted copies the plan may give
        // (larger windows: more buckets), so that the working set does not
        // depend on that choice; chunks do not read the copies
        uint64_t msm = msm_pippenger_bytes<Fp>(nh), m;
        for (unsigned k = 2, most = chunk && chunk < n ? 1 : h_copies_max(in); k <= most; k++) {
            m = msm_pippenger_bytes<Fp>(nh, k, msm_gpu_window(h_points(in), k));
            msm = m > msm ? m : msm;
        }
        m = msm_pippenger_bytes<Fp>(nw);
        msm = m > msm ? m : msm;
        m = msm_pippenger_bytes<Fp2>(nw) + (chunk ? CUZK_GPU_MAX_WINDOWS * sizeof(xyzz<Fp2>) : 0);
        msm = m > msm ? m : msm;
        const uint64_t windows = (CUZK_GPU_MAX_WINDOWS + 1) * (4 * sizeof(xyzz<Fp>) + sizeof(xyzz<Fp2>));
        // bellperson: A's and B's gathered scalars and their lists
        const uint64_t gathered = bp ? (na + nb) * (32 + 8) : 0;
        *work = 3 * n * sizeof(Fr) + nv * 32 + nv * 16 + gathered + windows + msm + ((uint64_t)16 << 20);
    }

    // The upload of what src/gpu/residency.c decided fits: the points and
    // NTT tables, and the matrices when given (in->mat).
    int init(device_ctx *ctx, const cuzk_gpu_key_in *in, cuzk_gpu_msg *msg)
    {
        n_vars = in->n_vars;
        n_public = in->n_public;
        domain = in->domain_size;
        bellperson = in->a_vars != nullptr;
        n_a = bellperson ? in->n_a : n_vars;
        n_b = bellperson ? in->n_b : n_vars;
        n_h = bellperson ? domain - 1 : domain;
        while ((1u << log_n) < domain)
            log_n++;
        uint64_t key_bytes, matrix_bytes, work;
        footprint(in, 0, &key_bytes, &matrix_bytes, &work);
        bytes = key_bytes;
        vars = n_vars;
        rows = (uint64_t)1 << log_n;
        domain_rows = domain;
        up_ctx = ctx;
        up_pinned = in->pinned_upload != 0;
        up_progress = in->progress;
        up_progress_ctx = in->progress_ctx;
        up_total = ((uint64_t)n_a + n_b + n_vars - n_public - 1 + n_h) * sizeof(*a) + (uint64_t)n_b * sizeof(*b2) +
                   (bellperson ? ((uint64_t)n_a + n_b) * 4 : 0);
        GPU_RC(upload(&a, in->pts_a, n_a, msg));
        GPU_RC(upload(&b1, in->pts_b1, n_b, msg));
        GPU_RC(upload(&b2, in->pts_b2, n_b, msg));
        GPU_RC(upload(&c, in->pts_c, (size_t)n_vars - n_public - 1, msg));
        h_copies = h_copies_of(in, &h_c);
        GPU_RC(upload(&h, in->pts_h, n_h, msg, (size_t)n_h * h_copies));
        if (bellperson) {
            GPU_RC(upload(&a_vars, (const unsigned char *)in->a_vars, n_a, msg));
            GPU_RC(upload(&b_vars, (const unsigned char *)in->b_vars, n_b, msg));
        }
        GPU_TRY(msg, cudaMallocHost((void **)&counts_host, 24 * sizeof(uint32_t))); // device-global: at a key's load
        if (in->mat)
            GPU_RC(upload_matrices(in->mat, msg));
        if (resident_matrices)
            bytes += matrix_bytes;
        GPU_RC(dom.init(log_n, ctx->stream, msg, bellperson)); // a .params key's rows: bellperson's root
        GPU_TRY(msg, cudaStreamSynchronize(ctx->copy_stream));
        if (h_copies > 1)
            GPU_RC(make_h_copies(ctx->stream, msg));
        GPU_TRY(msg, cudaStreamSynchronize(ctx->stream));
        return CUZK_OK;
    }

    // H's shifted copies, and each copy's plain sum (by msm_sum's
    // additions, not the copies' doublings) for the CPU's check
    int make_h_copies(cudaStream_t st, cuzk_gpu_msg *msg)
    {
        GPU_RC(msm_shifted_copies<Fp>(h, n_h, n_h, h_c, h_copies, st, msg));
        dev_buf<xyzz<Fp>> sums;
        GPU_RC(sums.alloc(h_copies, st, msg));
        for (unsigned j = 0; j < h_copies; j++)
            GPU_RC(msm_sum<Fp>(h + (size_t)j * n_h, nullptr, n_h, sums.p + j, st, msg));
        h_sums.resize(h_copies);
        GPU_TRY(msg, cudaMemcpyAsync(h_sums.data(), sums.p, h_copies * sizeof(xyzz<Fp>), cudaMemcpyDeviceToHost, st));
        return CUZK_OK;
    }

    // one split MSM: the sum of the 1s plus Pippenger on the tail; window
    // sums and the batch sum stay on the device (d_win: room for
    // CUZK_GPU_MAX_WINDOWS + 1) until the copy to the host at the end
    template <class F>
    int split_msm(const affine<F> *bases, const uint32_t *scalars, const uint32_t *ones, size_t n_ones,
                  const uint32_t *tail, size_t n_tail, size_t chunk, xyzz<F> *d_win, cuzk_gpu_msm_result *res,
                  cudaStream_t st, cuzk_gpu_msg *msg)
    {
        GPU_RC(msm_sum<F>(bases, ones, n_ones, d_win + CUZK_GPU_MAX_WINDOWS, st, msg));
        return msm_pippenger_chunked<F>(bases, scalars, tail, n_tail, chunk, msm_tuning{}, d_win, &res->nwin,
                                        &res->c, st, msg);
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
        // events in the order the steps run: the start, then the end of
        // the upload, the evaluation, the NTTs, MSM H, A, B1, B2, C
        enum { EV_START, EV_UPLOAD, EV_EVAL, EV_NTT, EV_MSM_H, EV_MSM_A, EV_MSM_B1, EV_MSM_B2, EV_MSM_C, EVS };
        cudaEvent_t ev[EVS] = {};
        struct events_guard {
            cudaEvent_t *e;
            ~events_guard()
            {
                for (int i = 0; i < EVS; i++)
                    if (e[i])
                        (void)cudaEventDestroy(e[i]);
            }
        } guard{ev};
        for (auto &e : ev)
            GPU_TRY(msg, cudaEventCreate(&e));
        GPU_TRY(msg, cudaEventRecord(ev[EV_START], st));

        const staged_witness *stw = (const staged_witness *)in->staged;
        // a and b: given (uploaded here, or staged with the witness), or
        // evaluated here from the resident matrices
        const bool staged_ab = stw && stw->ab;
        const bool on_device = in->a == nullptr && !staged_ab;
        // the device splits the witness: with the matrices resident, and
        // always for bellperson keys (three splits over their own arrays)
        const bool split_here = on_device || bellperson;
        if (on_device && !resident_matrices)
            return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "this key's matrices are not on the GPU: pass a and b");
        dev_buf<Fr> da, db, dc;
        dev_buf<uint32_t> wit, lists, d_counts, gathered;
        dev_buf<xyzz<Fp>> win1; // per G1 MSM: windows + the batch sum
        dev_buf<xyzz<Fp2>> win2;
        const size_t per = CUZK_GPU_MAX_WINDOWS + 1;
        if (!staged_ab) {
            GPU_RC(da.alloc(n, st, msg));
            GPU_RC(db.alloc(n, st, msg));
        }
        GPU_RC(dc.alloc(n, st, msg));
        // staged a and b are the staged inputs' (freed with them)
        Fr *pa = staged_ab ? (Fr *)stw->ab : da.p, *pb = staged_ab ? (Fr *)stw->ab + n : db.p;
        if (stw && !on_device && !staged_ab)
            return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "a witness staged without a and b needs the key's matrices on the GPU");
        if (!stw)
            GPU_RC(wit.alloc((size_t)n_vars * 8, st, msg));
        const size_t npub1 = (size_t)n_public + 1, n_aux = (size_t)n_vars - npub1;
        size_t n_lists = bellperson ? 2 * ((size_t)n_a + n_b + n_aux)
                         : on_device ? 4 * (size_t)n_vars
                                     : in->n_ones + in->n_tail + in->n_ones_c + in->n_tail_c;
        GPU_RC(lists.alloc(n_lists, st, msg));
        if (bellperson)
            GPU_RC(gathered.alloc(8 * ((size_t)n_a + n_b), st, msg));
        GPU_RC(win1.alloc(4 * per, st, msg));
        GPU_RC(win2.alloc(per, st, msg));
        // rows past the key's domain_size (n > domain only if domain is
        // not a power of two) are zero
        if (n > domain && !staged_ab) {
            GPU_TRY(msg, cudaMemsetAsync(pa + domain, 0, (n - domain) * sizeof(Fr), st));
            GPU_TRY(msg, cudaMemsetAsync(pb + domain, 0, (n - domain) * sizeof(Fr), st));
        }
        const uint32_t *wit_p = wit.p;
        if (stw) {
            GPU_TRY(msg, cudaStreamWaitEvent(st, stw->ready, 0)); // the copy, done outside the lock
            wit_p = stw->wit;
        } else
            GPU_RC(copy_to_device(ctx, LANE_COMPUTE, wit.p, in->witness, (size_t)n_vars * 32, st, in->pinned_upload != 0,
                                  msg));
        uint32_t *l_ones = nullptr, *l_tail = nullptr, *l_ones_c = nullptr, *l_tail_c = nullptr, *l_ones_b = nullptr,
                 *l_tail_b = nullptr;
        size_t n_ones = in->n_ones, n_tail = in->n_tail, n_ones_c = in->n_ones_c, n_tail_c = in->n_tail_c;
        size_t n_ones_b = n_ones, n_tail_b = n_tail;
        // A's and B's scalars: the witness, or bellperson's gathered ones
        const uint32_t *w_a = wit_p, *w_b = wit_p;
        cudaEvent_t counted = nullptr;
        struct event_guard {
            cudaEvent_t *e;
            ~event_guard()
            {
                if (*e)
                    (void)cudaEventDestroy(*e);
            }
        } counted_guard{&counted};
        if (on_device)
            GPU_TRY(msg, cudaEventRecord(ev[EV_UPLOAD], st));
        if (split_here) {
            GPU_RC(d_counts.alloc(18, st, msg));
            if (!bellperson) {
                l_ones = lists.p, l_tail = l_ones + n_vars, l_ones_c = l_tail + n_vars, l_tail_c = l_ones_c + n_vars;
                l_ones_b = l_ones, l_tail_b = l_tail;
                GPU_RC(witness_split(wit_p, n_vars, n_public + 1, l_ones, l_tail, l_ones_c, l_tail_c, d_counts.p,
                                     st, msg));
            } else {
                uint32_t *ga = gathered.p, *gb = ga + 8 * (size_t)n_a;
                if (n_a)
                    gather_scalars<<<blocks_for(n_a, 256), 256, 0, st>>>(wit_p, a_vars, n_a, ga);
                if (n_b)
                    gather_scalars<<<blocks_for(n_b, 256), 256, 0, st>>>(wit_p, b_vars, n_b, gb);
                GPU_LAUNCHED(msg, "gather_scalars");
                w_a = ga, w_b = gb;
                l_ones = lists.p, l_tail = l_ones + n_a, l_ones_b = l_tail + n_a, l_tail_b = l_ones_b + n_b;
                l_ones_c = l_tail_b + n_b, l_tail_c = l_ones_c + n_aux;
                GPU_RC(split_values(ga, n_a, l_ones, l_tail, d_counts.p, st, msg));
                GPU_RC(split_values(gb, n_b, l_ones_b, l_tail_b, d_counts.p + 6, st, msg));
                GPU_RC(split_values(wit_p + 8 * npub1, n_aux, l_ones_c, l_tail_c, d_counts.p + 12, st, msg));
            }
            // the lengths come back while the transforms run; the host
            // waits for them (an event, not the device) only before the
            // MSMs that need them
            GPU_TRY(msg, cudaMemcpyAsync(counts_host, d_counts.p, 18 * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
            GPU_TRY(msg, cudaEventCreateWithFlags(&counted, cudaEventDisableTiming));
            GPU_TRY(msg, cudaEventRecord(counted, st));
        }
        if (on_device) {
            const Fr *w_fr = (const Fr *)wit_p;
            // the domain's rows past the matrices' are zero
            if (mat_rows < domain) {
                GPU_TRY(msg, cudaMemsetAsync(pa + mat_rows, 0, (domain - mat_rows) * sizeof(Fr), st));
                GPU_TRY(msg, cudaMemsetAsync(pb + mat_rows, 0, (domain - mat_rows) * sizeof(Fr), st));
            }
            for (int k = 0; k < 2; k++)
                if (mat_rows)
                    eval_rows<Fr><<<blocks_for(mat_rows, 128), 128, 0, st>>>(row_ptr[k], col[k], coef[k], table,
                                                                             w_fr, mat_rows, k ? pb : pa);
            GPU_LAUNCHED(msg, "eval_rows");
        } else {
            // the evaluations given (or staged): rows past n_ab are zero
            // (supraseal's ABI hands over abc_size rows, fewer than the
            // domain)
            const size_t n_ab = in->n_ab ? in->n_ab : domain;
            if (n_ab > domain)
                return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "a and b hold more rows than the domain");
            if (n_ab < domain && !staged_ab) {
                GPU_TRY(msg, cudaMemsetAsync(pa + n_ab, 0, (domain - n_ab) * sizeof(Fr), st));
                GPU_TRY(msg, cudaMemsetAsync(pb + n_ab, 0, (domain - n_ab) * sizeof(Fr), st));
            }
            if (n_ab && !staged_ab) {
                GPU_RC(copy_to_device(ctx, LANE_COMPUTE, pa, in->a, n_ab * sizeof(Fr), st, in->pinned_upload != 0,
                                      msg));
                GPU_RC(copy_to_device(ctx, LANE_COMPUTE, pb, in->b, n_ab * sizeof(Fr), st, in->pinned_upload != 0,
                                      msg));
            }
            if (!split_here) {
            l_ones = lists.p, l_tail = l_ones + n_ones, l_ones_c = l_tail + n_tail, l_tail_c = l_ones_c + n_ones_c;
            l_ones_b = l_ones, l_tail_b = l_tail;
            if (n_ones)
                GPU_TRY(msg, cudaMemcpyAsync(l_ones, in->ones, n_ones * 4, cudaMemcpyHostToDevice, st));
            if (n_tail)
                GPU_TRY(msg, cudaMemcpyAsync(l_tail, in->tail, n_tail * 4, cudaMemcpyHostToDevice, st));
            if (n_ones_c)
                GPU_TRY(msg, cudaMemcpyAsync(l_ones_c, in->ones_c, n_ones_c * 4, cudaMemcpyHostToDevice, st));
            if (n_tail_c)
                GPU_TRY(msg, cudaMemcpyAsync(l_tail_c, in->tail_c, n_tail_c * 4, cudaMemcpyHostToDevice, st));
            }
            GPU_TRY(msg, cudaEventRecord(ev[EV_UPLOAD], st));
        }
        GPU_TRY(msg, cudaEventRecord(ev[EV_EVAL], st)); // empty when the CPU evaluated

        Fr *h_scalars;
        GPU_RC(h_evaluations(dom, pa, pb, dc.p, bellperson, &h_scalars, st, msg));
        if (h_scalars != db.p)
            db.release();
        if (h_scalars != da.p)
            da.release();
        dc.release();
        GPU_TRY(msg, cudaEventRecord(ev[EV_NTT], st));

        const uint32_t *wc = wit_p + 8 * npub1;
        cuzk_gpu_msm_result *r = out->msm;
        xyzz<Fp> *wa = win1.p, *wb1 = win1.p + per, *wcc = win1.p + 2 * per, *wh = win1.p + 3 * per;
        const size_t chunk = in->msm_chunk;
        msm_tuning th;
        if (h_copies > 1)
            th.c = h_c, th.copies = h_copies, th.stride = n_h;
        GPU_RC(msm_pippenger_chunked<Fp>(h, (const uint32_t *)h_scalars, nullptr, n_h, chunk, th, wh,
                                         &r[GPU_MSM_H].nwin,
                                 &r[GPU_MSM_H].c, st, msg));
        da.release();
        db.release();
        GPU_TRY(msg, cudaEventRecord(ev[EV_MSM_H], st));
        if (split_here) {
            GPU_TRY(msg, cudaEventSynchronize(counted));
            const uint32_t *k = counts_host;
            if (bellperson)
                n_ones = k[0], n_tail = k[1], n_ones_b = k[6], n_tail_b = k[7], n_ones_c = k[12], n_tail_c = k[13];
            else
                n_ones = n_ones_b = k[0], n_tail = n_tail_b = k[1], n_ones_c = k[2], n_tail_c = k[3];
        }
        out->n_ones = n_ones;
        out->n_tail = n_tail;
        GPU_RC(split_msm<Fp>(a, w_a, l_ones, n_ones, l_tail, n_tail, chunk, wa, &r[GPU_MSM_A], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[EV_MSM_A], st));
        GPU_RC(split_msm<Fp>(b1, w_b, l_ones_b, n_ones_b, l_tail_b, n_tail_b, chunk, wb1, &r[GPU_MSM_B1], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[EV_MSM_B1], st));
        GPU_RC(split_msm<Fp2>(b2, w_b, l_ones_b, n_ones_b, l_tail_b, n_tail_b, chunk, win2.p, &r[GPU_MSM_B2], st,
                              msg));
        GPU_TRY(msg, cudaEventRecord(ev[EV_MSM_B2], st));
        GPU_RC(split_msm<Fp>(c, wc, l_ones_c, n_ones_c, l_tail_c, n_tail_c, chunk, wcc, &r[GPU_MSM_C], st, msg));
        GPU_TRY(msg, cudaEventRecord(ev[EV_MSM_C], st));

        GPU_RC(fetch<Fp>(wh, false, &r[GPU_MSM_H], st, msg));
        GPU_RC(fetch<Fp>(wa, true, &r[GPU_MSM_A], st, msg));
        GPU_RC(fetch<Fp>(wb1, true, &r[GPU_MSM_B1], st, msg));
        GPU_RC(fetch<Fp2>(win2.p, true, &r[GPU_MSM_B2], st, msg));
        GPU_RC(fetch<Fp>(wcc, true, &r[GPU_MSM_C], st, msg));
        GPU_TRY(msg, cudaStreamSynchronize(st));
        static const int phase_of[EVS] = {-1, -1, PROOF_PHASE_EVAL, PROOF_PHASE_NTT, PROOF_PHASE_MSM_H,
                                          PROOF_PHASE_MSM_A, PROOF_PHASE_MSM_B1, PROOF_PHASE_MSM_B2,
                                          PROOF_PHASE_MSM_C};
        memset(out->ms, 0, sizeof(out->ms));
        for (int i = EV_UPLOAD; i < EVS; i++) {
            float f = 0;
            GPU_TRY(msg, cudaEventElapsedTime(&f, ev[i - 1], ev[i]));
            if (i == EV_UPLOAD)
                out->upload_ms = f;
            else
                out->ms[phase_of[i]] = f;
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

extern "C" int cuzk_gpu_key_evaluates(const cuzk_gpu_key *key)
{
    return key && key->impl->evaluates();
}

extern "C" int cuzk_gpu_prove(cuzk_gpu_key *key, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out,
                              cuzk_gpu_msg *msg)
{
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(key->device, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    int rc = key->impl->prove(ctx, in, out, msg);
    if (in->staged) {
        // the staged witness is freed on the copy stream: order that after
        // everything this proof queued (an error may have left kernels in
        // flight)
        auto *s = (const gpu::staged_witness *)in->staged;
        cudaEvent_t used;
        if (cudaEventCreateWithFlags(&used, cudaEventDisableTiming) == cudaSuccess) {
            if (cudaEventRecord(used, ctx->stream) == cudaSuccess)
                (void)cudaStreamWaitEvent(s->copy, used, 0);
            (void)cudaEventDestroy(used);
        }
    }
    return rc;
}

extern "C" void cuzk_gpu_key_footprint(const cuzk_gpu_key_in *in, uint64_t msm_chunk, uint64_t *key_bytes,
                                       uint64_t *matrix_bytes, uint64_t *work_bytes)
{
    *key_bytes = *matrix_bytes = *work_bytes = 0;
    if (in->n_vars < in->n_public + 1 || in->domain_size == 0)
        return;
    GPU_DISPATCH_CURVE(in->curve,
                       gpu::key_impl<Curve>::footprint(in, msm_chunk, key_bytes, matrix_bytes, work_bytes));
}

extern "C" unsigned cuzk_gpu_key_h_copies_max(const cuzk_gpu_key_in *in, uint64_t *copy_bytes)
{
    *copy_bytes = 0;
    if (in->n_vars < in->n_public + 1 || in->domain_size == 0)
        return 1;
    GPU_DISPATCH_CURVE(in->curve, {
        *copy_bytes = (uint64_t)gpu::key_impl<Curve>::h_points(in) * sizeof(gpu::affine<Curve::fp>);
        return gpu::key_impl<Curve>::h_copies_max(in);
    });
    return 1;
}

extern "C" void cuzk_gpu_key_h_copies(const cuzk_gpu_key *key, unsigned *copies, unsigned *c,
                                      unsigned char sums[CUZK_GPU_MAX_WINDOWS][384])
{
    *copies = 1;
    *c = 0;
    GPU_DISPATCH_CURVE(key->curve, {
        const auto *k = static_cast<const gpu::key_impl<Curve> *>(key->impl);
        *copies = k->h_copies;
        *c = k->h_c;
        for (unsigned j = 0; j < k->h_copies && j < CUZK_GPU_MAX_WINDOWS && j < k->h_sums.size(); j++) {
            memset(sums[j], 0, 384);
            memcpy(sums[j], &k->h_sums[j], sizeof(k->h_sums[j]));
        }
    });
}

extern "C" uint64_t cuzk_gpu_key_bytes(const cuzk_gpu_key *key)
{
    return key ? key->impl->bytes : 0;
}

extern "C" uint64_t cuzk_gpu_stage_bytes(const cuzk_gpu_key *key, int with_evaluations)
{
    return key ? (uint64_t)key->impl->vars * 32 + (with_evaluations ? 2 * key->impl->rows * 32 : 0) : 0;
}

extern "C" int cuzk_gpu_stage(const cuzk_gpu_key *key, const unsigned char *witness, const unsigned char *a,
                              const unsigned char *b, size_t n_ab, int pinned_upload, cuzk_gpu_staged **out,
                              cuzk_gpu_msg *msg)
{
    *out = nullptr;
    if (!key || !witness || !a != !b || (!a && !key->impl->evaluates()))
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT,
                             "staging needs a and b, or a key with its matrices on the GPU");
    const size_t rows = (size_t)key->impl->rows, domain = key->impl->domain_rows;
    if (a && (n_ab ? n_ab : domain) > domain)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "a and b hold more rows than the domain");
    if (a && !n_ab)
        n_ab = domain;
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(key->device, &ctx, msg));
    auto *s = new (std::nothrow) gpu::staged_witness();
    if (!s)
        return gpu::fail_msg(msg, CUZK_ERR_NO_MEMORY, "out of host memory");
    s->device = key->device;
    s->copy = ctx->copy_stream;
    size_t bytes = (size_t)key->impl->vars * 32;
    int rc = CUZK_OK;
    cudaError_t e = cudaMallocAsync((void **)&s->wit, bytes ? bytes : 32, s->copy);
    if (e == cudaSuccess)
        rc = gpu::copy_to_device(ctx, gpu::LANE_COPY, s->wit, witness, bytes, s->copy, pinned_upload != 0, msg);
    if (e == cudaSuccess && rc == CUZK_OK && a) {
        // a then b, rows each, zero past the rows given
        const size_t row = 32, half = rows * 8;
        e = cudaMallocAsync((void **)&s->ab, 2 * rows * row, s->copy);
        if (e == cudaSuccess && n_ab < rows)
            e = cudaMemsetAsync(s->ab + 8 * n_ab, 0, (rows - n_ab) * row, s->copy);
        if (e == cudaSuccess && n_ab < rows)
            e = cudaMemsetAsync(s->ab + half + 8 * n_ab, 0, (rows - n_ab) * row, s->copy);
        if (e == cudaSuccess)
            rc = gpu::copy_to_device(ctx, gpu::LANE_COPY, s->ab, a, n_ab * row, s->copy, pinned_upload != 0, msg);
        if (e == cudaSuccess && rc == CUZK_OK)
            rc = gpu::copy_to_device(ctx, gpu::LANE_COPY, s->ab + half, b, n_ab * row, s->copy, pinned_upload != 0,
                                     msg);
    }
    if (e == cudaSuccess && rc == CUZK_OK)
        e = cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming);
    if (e == cudaSuccess && rc == CUZK_OK)
        e = cudaEventRecord(s->ready, s->copy);
    if (e != cudaSuccess || rc != CUZK_OK) {
        if (e != cudaSuccess)
            rc = gpu::fail(msg, e, "staging a proof's inputs", __FILE__, __LINE__);
        cuzk_gpu_staged_free((cuzk_gpu_staged *)s);
        return rc;
    }
    *out = (cuzk_gpu_staged *)s;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_staged_free(cuzk_gpu_staged *staged)
{
    auto *s = (gpu::staged_witness *)staged;
    if (!s)
        return;
    if (cudaSetDevice(s->device) == cudaSuccess) {
        // the proof that read it has finished (its stream was synchronized
        // before cuzk_gpu_prove returned), or none used it: the free is
        // ordered after the copy on the copy stream
        if (s->wit)
            (void)cudaFreeAsync(s->wit, s->copy);
        if (s->ab)
            (void)cudaFreeAsync(s->ab, s->copy);
        if (s->ready)
            (void)cudaEventDestroy(s->ready);
    }
    delete s;
}
