/* A memory plan over an engine's GPUs (residency.h). Per GPU: the budget,
 * the bytes of the keys' copies the plan counts, and the proofs' working
 * memory, which the GPU's stream-ordered pool keeps once grown (the largest
 * working set so far). A proof enters only when its key's copy (if not
 * there) and its working set fit beside what is there (residency_fits is
 * the rule; here the room is the budget less the other copies and the
 * pool).
 *
 * One mutex guards the plan; nothing slow runs under it: the footprints
 * (which take the residency lock, held by nothing slow either) are computed
 * before it is taken, and a copy is dropped with it released, its key
 * marked `dropping` meanwhile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/gpu.h"
#include "../formats/zkey.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/size_text.h"
#include "residency.h"

/* The smallest MSM chunk the streamed path uses: below it the per-chunk
 * work (digits, sort, bucket reduction of a whole window set) dominates. */
#define PLAN_MIN_MSM_CHUNK ((uint64_t)1 << 14)
/* The largest chunk tried first (2^26 points: the largest MSM measured). */
#define PLAN_MAX_MSM_CHUNK ((uint64_t)1 << 26)

/* A key whose copies the plan counts. */
typedef struct plan_key {
    const struct cuzk_zkey *zk;
    uint64_t gpu_bytes[RESIDENCY_MAX_GPUS];      /* its copy there as counted (0: none, as far as the plan knows) */
    unsigned users[RESIDENCY_MAX_GPUS];          /* proofs holding room with it there */
    unsigned char dropping[RESIDENCY_MAX_GPUS];  /* its copy there is being freed: plans wait */
    double last_used;
    struct plan_key *next;
} plan_key;

struct gpu_plan {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a proof left, a drop ended, a wake or the stop */
    int gpus, prestage, stopping;
    unsigned h_copies_most; /* gpu_plan_set_h_copies (0: residency_fits's choice) */
    uint64_t budget[RESIDENCY_MAX_GPUS], keys_bytes[RESIDENCY_MAX_GPUS], pool_bytes[RESIDENCY_MAX_GPUS];
    int planned[RESIDENCY_MAX_GPUS]; /* proofs holding room on each GPU */
    plan_key *keys;
    unsigned long long waits, drops, to_cpu, staged, unstaged, chunked, other_gpu;
};

int gpu_plan_create(int gpus, uint64_t budget, int prestage, gpu_plan **out, cuzk_error *err)
{
    *out = NULL;
    if (gpus < 0 || gpus > RESIDENCY_MAX_GPUS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "memory plan: %d GPUs (at most %d)", gpus,
                              RESIDENCY_MAX_GPUS);
    gpu_plan *p = calloc(1, sizeof(*p));
    if (!p)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->gpus = gpus;
    p->prestage = prestage;
    for (int g = 0; g < gpus; g++) {
        if (budget) {
            p->budget[g] = budget;
            continue;
        }
#if CUZK_HAVE_CUDA
        /* the free memory now, before any proof: the one device-global
         * query, less 1 GiB of headroom */
        uint64_t free_b = 0, total_b = 0;
        cuzk_gpu_msg m = {{0}};
        if (cuzk_gpu_memory(g, &free_b, &total_b, &m) == CUZK_OK && free_b > ((uint64_t)1 << 30))
            p->budget[g] = free_b - ((uint64_t)1 << 30);
#endif
    }
    *out = p;
    return CUZK_OK;
}

void gpu_plan_set_h_copies(gpu_plan *p, unsigned most)
{
    p->h_copies_most = most;
}

int gpu_plan_set_budget(gpu_plan *p, int g, uint64_t budget, cuzk_error *err)
{
    if (g < 0 || g >= p->gpus)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "memory plan: no GPU %d (the plan has %d)", g, p->gpus);
    if (budget) {
        pthread_mutex_lock(&p->mu);
        p->budget[g] = budget;
        pthread_mutex_unlock(&p->mu);
    }
    return CUZK_OK;
}

void gpu_plan_destroy(gpu_plan *p)
{
    if (!p)
        return;
    while (p->keys) {
        plan_key *n = p->keys->next;
        free(p->keys);
        p->keys = n;
    }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static plan_key *find_key(gpu_plan *p, const struct cuzk_zkey *zk)
{
    for (plan_key *k = p->keys; k; k = k->next)
        if (k->zk == zk)
            return k;
    return NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Under the lock: the least recently used copy on g that no proof holds,
 * of a key other than `not`, or NULL. */
static plan_key *idle_copy(gpu_plan *p, int g, const plan_key *not)
{
    plan_key *idle = NULL;
    for (plan_key *o = p->keys; o; o = o->next)
        if (o != not && o->gpu_bytes[g] && !o->users[g] && !o->dropping[g] && (!idle || o->last_used < idle->last_used))
            idle = o;
    return idle;
}

/* Without the lock: the largest MSM chunk whose working set fits in room
 * beside a pool of pool_now bytes, and is smaller than `whole` (the
 * working set with the MSMs whole); 0 if none. */
static uint64_t chunk_that_fits(const struct cuzk_zkey *zk, int g, int cpu_eval, uint64_t whole, uint64_t room,
                                uint64_t pool_now)
{
    for (uint64_t c = PLAN_MAX_MSM_CHUNK; c >= PLAN_MIN_MSM_CHUNK; c >>= 1) {
        residency_footprint fc;
        residency_footprint_of(zk, g, cpu_eval, c, &fc);
        if (fc.work_bytes < whole && max_u64(fc.work_bytes, pool_now) <= room)
            return c;
    }
    return 0;
}

/* gpu_plan_begin on GPU g alone: CUZK_OK with h->active, or with
 * h->to_cpu and h->note when g cannot hold the proof even alone. */
static int plan_begin_on(gpu_plan *p, int g, const struct cuzk_zkey *zk, int cpu_eval, const atomic_int *cancel,
                         gpu_plan_hold *h, cuzk_error *err)
{
    memset(h, 0, sizeof(*h));
    h->gpu = g;
    if (g < 0 || g >= p->gpus)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "memory plan: no GPU %d (the plan has %d)", g, p->gpus);
    uint64_t chunk = 0; /* the MSMs' chunk: 0 whole, else the streamed path */
    int searched = 0;
    for (;;) {
        residency_footprint fp;
        residency_footprint_of(zk, g, cpu_eval, chunk, &fp);
        pthread_mutex_lock(&p->mu);
        if (cancel && atomic_load(cancel)) { /* cancelled while it waited for room */
            pthread_mutex_unlock(&p->mu);
            return cuzk_error_set(err, CUZK_ERR_CANCELLED, "the proof was cancelled");
        }
        plan_key *k = find_key(p, zk);
        if (!k) {
            if (!(k = calloc(1, sizeof(*k)))) {
                pthread_mutex_unlock(&p->mu);
                return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
            }
            k->zk = zk;
            k->next = p->keys;
            p->keys = k;
        }
        if (k->dropping[g]) {
            /* another plan is freeing this key's copy there: the footprint
             * above may be stale, and the copy must not be used */
            pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        const int resident = fp.state == RESIDENCY_RESIDENT;
        const uint64_t budget = p->budget[g];
        uint64_t pool = max_u64(fp.work_bytes, p->pool_bytes[g]);
        const uint64_t keys = p->keys_bytes[g] - (resident ? k->gpu_bytes[g] : 0);
        const uint64_t key_need = resident ? (k->gpu_bytes[g] ? k->gpu_bytes[g] : fp.resident_bytes) : fp.key_bytes;
        /* the room this proof's copy and working set may take: the budget
         * less the other copies, with the pool grown to this working set */
        residency_footprint need = fp;
        need.key_bytes = key_need;
        need.work_bytes = pool;
        const uint64_t room = budget > keys ? budget - keys : 0;
        int with_matrices = 0;
        unsigned h_copies = 1;
        if (residency_fits(&need, room, &with_matrices, &h_copies)) {
            if (p->h_copies_most && h_copies > p->h_copies_most)
                h_copies = p->h_copies_most;
            h->active = 1;
            h->msm_chunk = chunk;
            h->key = k;
            if (chunk)
                p->chunked++;
            /* pre-staging: this proof's witness goes up while another
             * computes, so the pool then holds a working set and a staged
             * witness at once; only when that fits too (else the proof
             * uploads inside the lock) */
            const uint64_t with_stage = fp.work_bytes + fp.stage_bytes;
            if (p->prestage && resident && fp.stage_bytes && key_need + max_u64(with_stage, pool) <= room) {
                h->stage = 1;
                pool = max_u64(pool, with_stage);
            }
            if (!resident) {
                /* counted now, corrected by gpu_plan_end with what went up */
                h->uploading = 1;
                h->with_matrices = with_matrices;
                h->h_copies = h_copies;
                h->provisional =
                    key_need + (with_matrices ? fp.matrix_bytes : 0) + residency_h_copies_bytes(&fp, h_copies);
                p->keys_bytes[g] += h->provisional;
            } else if (!k->gpu_bytes[g]) { /* uploaded outside the plan (a proof before the engine's): count it */
                k->gpu_bytes[g] = fp.resident_bytes;
                p->keys_bytes[g] += fp.resident_bytes;
            }
            if (pool > p->pool_bytes[g])
                p->pool_bytes[g] = pool;
            k->users[g]++;
            k->last_used = cuzk_now();
            p->planned[g]++;
            pthread_mutex_unlock(&p->mu);
            return CUZK_OK;
        }
        /* make room: drop the least recently used idle key's copy */
        plan_key *idle = idle_copy(p, g, k);
        if (idle) {
            uint64_t b = idle->gpu_bytes[g];
            idle->gpu_bytes[g] = 0;
            p->keys_bytes[g] -= b < p->keys_bytes[g] ? b : p->keys_bytes[g];
            idle->dropping[g] = 1; /* also keeps gpu_plan_forget, and so the key's free, waiting */
            p->drops++;
            pthread_mutex_unlock(&p->mu);
            residency_drop(idle->zk, g);
            pthread_mutex_lock(&p->mu);
            idle->dropping[g] = 0;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        if (p->planned[g] > 0 && !p->stopping) {
            /* fits once the proofs planned on this GPU are done */
            p->waits++;
            pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        /* does not fit even alone as a whole: the streamed path, MSMs over
         * the largest chunk of points that lets the proof fit (their
         * scratch is most of a large proof's working set); the loop's next
         * round checks the chunk under the lock */
        if (!searched) {
            searched = 1;
            const uint64_t chunk_room = budget > keys + key_need ? budget - keys - key_need : 0;
            const uint64_t pool_now = p->pool_bytes[g];
            pthread_mutex_unlock(&p->mu);
            uint64_t c = chunk_that_fits(zk, g, cpu_eval, fp.work_bytes, chunk_room, pool_now);
            if (c)
                chunk = c;
            continue;
        }
        /* does not fit even alone */
        snprintf(h->note, sizeof(h->note),
                 "GPU %d's memory budget (%s) cannot hold this key (%s) and a proof's working set (%s) beside %s "
                 "of other keys",
                 g, cuzk_size_str(budget).s, cuzk_size_str(key_need).s, cuzk_size_str(fp.work_bytes).s,
                 cuzk_size_str(keys).s);
        pthread_mutex_unlock(&p->mu);
        h->to_cpu = 1;
        return CUZK_OK;
    }
}

int gpu_plan_begin(gpu_plan *p, int g, const struct cuzk_zkey *zk, int cpu_eval, const atomic_int *cancel,
                   int fail_if_none, int other_gpus, gpu_plan_hold *h, cuzk_error *err)
{
    int rc = plan_begin_on(p, g, zk, cpu_eval, cancel, h, err);
    if (rc != CUZK_OK || !h->to_cpu)
        return rc;
    /* this GPU can never hold it: another GPU's plan may (each GPU its own
     * budget and keys), else the CPU */
    int tried = 1;
    for (int k = 1; other_gpus && k < p->gpus; k++) {
        gpu_plan_hold o;
        if ((rc = plan_begin_on(p, (g + k) % p->gpus, zk, cpu_eval, cancel, &o, err)) != CUZK_OK)
            return rc;
        tried++;
        if (!o.to_cpu) {
            char why[sizeof(h->note)];
            snprintf(why, sizeof(why), "%s", h->note);
            *h = o;
            snprintf(h->note, sizeof(h->note), "%.200s: GPU %d proves it", why, o.gpu);
            pthread_mutex_lock(&p->mu);
            p->other_gpu++;
            pthread_mutex_unlock(&p->mu);
            return CUZK_OK;
        }
    }
    pthread_mutex_lock(&p->mu);
    p->to_cpu++;
    pthread_mutex_unlock(&p->mu);
    if (tried > 1) {
        size_t n = strlen(h->note);
        snprintf(h->note + n, sizeof(h->note) - n, "; nor can the other GPUs' (%d)", tried - 1);
    }
    if (fail_if_none) {
        h->to_cpu = 0;
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s", h->note);
    }
    return CUZK_OK;
}

void gpu_plan_end(gpu_plan *p, gpu_plan_hold *h, int proved_on_gpu, int staged)
{
    if (!h->active)
        return;
    const int g = h->gpu;
    plan_key *k = h->key;
    residency_footprint fp;
    residency_footprint_of(k->zk, g, 0, 0, &fp);
    pthread_mutex_lock(&p->mu);
    if (h->uploading) { /* the provisional count becomes what went up (0 if nothing) */
        p->keys_bytes[g] -= h->provisional;
        uint64_t got = fp.state == RESIDENCY_RESIDENT ? fp.resident_bytes : 0;
        if (!k->gpu_bytes[g]) {
            k->gpu_bytes[g] = got;
            p->keys_bytes[g] += got;
        }
    }
    k->users[g]--;
    k->last_used = cuzk_now();
    p->planned[g]--;
    if (staged)
        p->staged++;
    else if (proved_on_gpu)
        p->unstaged++;
    h->active = 0;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void gpu_plan_forget(gpu_plan *p, const struct cuzk_zkey *zk)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    plan_key *k = find_key(p, zk);
    for (;;) {
        int waiting = 0;
        for (int g = 0; k && g < p->gpus; g++)
            waiting |= k->dropping[g] || k->users[g];
        if (!waiting)
            break;
        pthread_cond_wait(&p->cv, &p->mu);
    }
    if (k) {
        for (int g = 0; g < p->gpus; g++)
            p->keys_bytes[g] -= k->gpu_bytes[g] < p->keys_bytes[g] ? k->gpu_bytes[g] : p->keys_bytes[g];
        for (plan_key **pp = &p->keys; *pp; pp = &(*pp)->next)
            if (*pp == k) {
                *pp = k->next;
                break;
            }
        free(k);
    }
    pthread_mutex_unlock(&p->mu);
}

void gpu_plan_wake(gpu_plan *p)
{
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void gpu_plan_stop(gpu_plan *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void gpu_plan_stats(gpu_plan *p, cuzk_engine_stats *st)
{
    pthread_mutex_lock(&p->mu);
    for (int g = 0; g < p->gpus; g++) {
        st->gpu_budget[g] = p->budget[g];
        st->gpu_key_bytes[g] = p->keys_bytes[g];
        st->gpu_pool_bytes[g] = p->pool_bytes[g];
    }
    st->plan_waits = p->waits;
    st->plan_drops = p->drops;
    st->plan_cpu = p->to_cpu;
    st->plan_staged = p->staged;
    st->plan_unstaged = p->unstaged;
    st->plan_chunked = p->chunked;
    st->plan_other_gpu = p->other_gpu;
    pthread_mutex_unlock(&p->mu);
}
