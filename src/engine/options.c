#include "options.h"

#include <stdio.h>
#include <string.h>

#include "../util/error.h"
#include "../util/parse.h"

static const char *const upload_choices[] = {"pinned", "pageable", NULL}; /* cuzk_gpu_upload */
static const char *const eval_choices[] = {"gpu", "cpu", NULL};           /* cuzk_gpu_eval */

#define OPT_(SERVE_ONLY, NAME, ALIAS, ENV, ARG, TYPE, LO, HI, CHOICES, F, HELP)                               \
    {.name = NAME, .alias = ALIAS, .env = ENV, .field = #F, .arg = ARG, .type = TYPE, .lo = LO, .hi = HI,        \
     .zero_default = 1, .choices = CHOICES, .offset = offsetof(cuzk_engine_config, F), .help = HELP,             \
     .serve_only = SERVE_ONLY}
#define OPT(...) OPT_(0, __VA_ARGS__)
/* An option only the daemon takes (cuzk bench runs one key, its jobs all at once). */
#define OPT_SERVE(...) OPT_(1, __VA_ARGS__)

/* In the order of `cuzk serve --help`. Every field's 0 means its default
 * (a config struct left zero is valid), whatever the bounds a user's value
 * must lie in. */
const engine_option engine_options[] = {
    OPT("workers", NULL, NULL, "W", ENGINE_OPT_INT, 1, 256, NULL, workers,
        "proofs in flight at once on the CPU (no GPU), 1-256 (default 1)"),
    OPT("gpu-workers-per-device", "gpu-workers", NULL, "G", ENGINE_OPT_INT, 1, 64, NULL, gpu_workers_per_device,
        "proofs in flight at once per GPU, 1-64 (default 2: one computes while the\n"
        "next one's witness goes up; they share the GPU's compute lock)"),
    OPT("threads", NULL, NULL, "T", ENGINE_OPT_INT, 0, 1024, NULL, proof.threads,
        "CPU threads per proof, 0-1024 (default 0: the cores shared among the workers)"),
    OPT("device", NULL, NULL, "auto|gpu|cpu", ENGINE_OPT_DEVICE, 0, 0, NULL, proof.device,
        "where proofs run (default auto: a GPU when present)"),
    OPT_SERVE("max-jobs", NULL, NULL, "N", ENGINE_OPT_UINT, 1, 1000000, NULL, max_jobs,
        "jobs queued or running at once, 1-1000000 (default 1024); beyond it\n"
        "submissions get 429 and Retry-After"),
    OPT_SERVE("key-cache-bytes", NULL, NULL, "B", ENGINE_OPT_BYTES, 0, 1ll << 62, NULL, key_cache_bytes,
        "evict unused keys (least recently used) beyond B bytes of key files\n"
        "(default 0: no budget)"),
    OPT("gpu-memory", NULL, NULL, "B|G=B,...", ENGINE_OPT_GPU_BYTES, 0, 1ll << 50, NULL, gpu_memory_budget,
        "device memory each GPU may hold for keys and proofs (docs/engine.md);\n"
        "G=B sets GPU G's own (e.g. 80G,1=20G); a proof that cannot fit on its GPU\n"
        "even alone goes to another GPU, else runs on the CPU (device auto) or\n"
        "fails (device gpu) (default 0: the GPU's free memory at start less 1 GiB)"),
    OPT("job-memory", NULL, NULL, "B", ENGINE_OPT_BYTES, 0, 1ll << 50, NULL, job_memory_budget,
        "host memory the jobs in flight may hold (their witnesses and prepared\n"
        "arrays): the next job is prepared only when the last one's size fits\n"
        "beside them, one job always (default 0: no limit)"),
    OPT("prestage", NULL, NULL, "0|1", ENGINE_OPT_OFF, 0, 1, NULL, no_prestage,
        "1 (default): a GPU proof's witness (and a, b when the GPU does not\n"
        "evaluate them) goes up outside the GPU's compute lock while another\n"
        "proof computes, when the memory plan has room (docs/engine.md); 0:\n"
        "inside the lock (also --no-prestage)"),
    OPT("prepare-workers", NULL, NULL, "P", ENGINE_OPT_INT, 0, 256, NULL, prepare_workers,
        "threads loading and preparing jobs (the CPU's evaluation for a GPU), 0-256\n"
        "(default 0: one per compute worker)"),
    OPT("finalize-workers", NULL, NULL, "F", ENGINE_OPT_INT, 1, 256, NULL, finalize_workers,
        "threads finishing proofs (MSM sums, blinding, the pairing check, JSON),\n"
        "1-256 (default 1)"),
    OPT("ready-depth", NULL, NULL, "R", ENGINE_OPT_UINT, 0, 65536, NULL, ready_queue_depth,
        "prepared jobs (with those being prepared) waiting for a compute worker,\n"
        "0-65536 (default 0: one per compute worker)"),
    OPT("finalize-depth", NULL, NULL, "D", ENGINE_OPT_UINT, 0, 65536, NULL, finalize_queue_depth,
        "computed jobs (with those computing) waiting for a finalize worker,\n"
        "0-65536 (default 0: two per compute worker)"),
    OPT("ahead", NULL, NULL, "A", ENGINE_OPT_INT, -1, 65536, NULL, prepare_ahead,
        "jobs prepared before a compute worker is free for them, -1 (none) to\n"
        "65536 (default 0: with GPUs the whole ready queue, without none)"),
    OPT("gpu-upload", NULL, "CUZK_GPU_UPLOAD", "pinned|pageable", ENGINE_OPT_CHOICE, 0, 1, upload_choices, proof.gpu_upload,
        "pinned (default): host-to-device copies of 16 MiB or more go through\n"
        "pinned staging slots filled by several host threads; pageable: straight\n"
        "from the host's memory, staged by the driver"),
    OPT("gpu-eval", NULL, "CUZK_GPU_EVAL", "gpu|cpu", ENGINE_OPT_CHOICE, 0, 1, eval_choices, proof.gpu_eval,
        "gpu (default): the GPU evaluates a = A w, b = B w from the key's matrices\n"
        "kept on it; cpu: the matrices stay off the GPU (less device memory) and\n"
        "the CPU evaluates for every proof"),
    OPT("gpu-msm-copies", NULL, NULL, "K", ENGINE_OPT_UINT, 1, 64, NULL, gpu_msm_copies,
        "shifted copies of a key's H points kept on each GPU for H's MSM (one set\n"
        "of buckets, larger windows), 1-64: 1 none, K at most K (default 0: as\n"
        "many as pay within half the room the memory plan leaves)"),
    OPT("gpu-msm-chunk", NULL, "CUZK_GPU_MSM_CHUNK", "N", ENGINE_OPT_COUNT, 1, 1ll << 40, NULL, proof.gpu_msm_chunk,
        "testing: GPU proofs' MSMs over at most N points at a time (the streamed,\n"
        "lower-memory path) whatever the memory plan chose (default: the plan's)"),
};
#undef OPT_SERVE
#undef OPT
#undef OPT_

const size_t engine_option_count = sizeof(engine_options) / sizeof(engine_options[0]);

const engine_option *engine_option_find(const char *name)
{
    for (size_t i = 0; i < engine_option_count; i++) {
        const engine_option *o = &engine_options[i];
        if (!strcmp(name, o->name) || (o->alias && !strcmp(name, o->alias)))
            return o;
    }
    return NULL;
}

static void *field_of(cuzk_engine_config *cfg, const engine_option *o)
{
    return (char *)cfg + o->offset;
}

static const void *field_of_const(const cuzk_engine_config *cfg, const engine_option *o)
{
    return (const char *)cfg + o->offset;
}

/* "B", "G=B" or several, comma-separated: every GPU's budget, or GPU G's.
 * Nothing is set unless every item is good. */
static int set_gpu_bytes(cuzk_engine_config *cfg, const engine_option *o, const char *label, const char *text,
                         cuzk_error *err)
{
    unsigned long long all = cfg->gpu_memory_budget, each[CUZK_ENGINE_MAX_GPUS];
    memcpy(each, cfg->gpu_memory_budgets, sizeof(each));
    const char *p = text;
    do {
        char item[64], *eq;
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof(item))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                  "%s expects a size or GPU=size items, comma-separated (e.g. 80G,1=20G), got '%.64s'",
                                  label, text);
        memcpy(item, p, n);
        item[n] = 0;
        unsigned long long u;
        int rc;
        if ((eq = strchr(item, '='))) {
            *eq = 0;
            long long g;
            char glabel[96];
            snprintf(glabel, sizeof(glabel), "%s's GPU number", label);
            if ((rc = parse_int_text(glabel, item, 0, CUZK_ENGINE_MAX_GPUS - 1, &g, err)) != CUZK_OK)
                return rc;
            snprintf(glabel, sizeof(glabel), "%s (GPU %lld)", label, g);
            if ((rc = parse_bytes_text(glabel, eq + 1, (unsigned long long)o->lo, (unsigned long long)o->hi, &u,
                                       err)) != CUZK_OK)
                return rc;
            each[g] = u;
        } else {
            if ((rc = parse_bytes_text(label, item, (unsigned long long)o->lo, (unsigned long long)o->hi, &u, err)) !=
                CUZK_OK)
                return rc;
            all = u;
        }
        p += n;
    } while (*p++ == ',');
    cfg->gpu_memory_budget = all;
    memcpy(cfg->gpu_memory_budgets, each, sizeof(each));
    return CUZK_OK;
}

int engine_option_set(cuzk_engine_config *cfg, const engine_option *o, const char *label, const char *text,
                      cuzk_error *err)
{
    void *f = field_of(cfg, o);
    long long v = 0;
    unsigned long long u = 0;
    int rc, d;
    switch (o->type) {
    case ENGINE_OPT_INT:
    case ENGINE_OPT_UINT:
    case ENGINE_OPT_OFF:
        if ((rc = parse_int_text(label, text, o->lo, o->hi, &v, err)) != CUZK_OK)
            return rc;
        if (o->type == ENGINE_OPT_INT)
            *(int *)f = (int)v;
        else if (o->type == ENGINE_OPT_UINT)
            *(unsigned *)f = (unsigned)v;
        else
            *(int *)f = v == 0;
        return CUZK_OK;
    case ENGINE_OPT_BYTES:
        if ((rc = parse_bytes_text(label, text, (unsigned long long)o->lo, (unsigned long long)o->hi, &u, err)) !=
            CUZK_OK)
            return rc;
        *(unsigned long long *)f = u;
        return CUZK_OK;
    case ENGINE_OPT_GPU_BYTES:
        return set_gpu_bytes(cfg, o, label, text, err);
    case ENGINE_OPT_COUNT:
        if ((rc = parse_count_text(label, text, (unsigned long long)o->hi, &u, err)) != CUZK_OK)
            return rc;
        if (u < (unsigned long long)o->lo)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects an integer or 2^k in [%lld, %lld], got '%s'",
                                  label, o->lo, o->hi, text);
        *(unsigned long long *)f = u;
        return CUZK_OK;
    case ENGINE_OPT_DEVICE:
        if ((rc = parse_device_text(label, text, &d, err)) != CUZK_OK)
            return rc;
        *(int *)f = d;
        return CUZK_OK;
    case ENGINE_OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (!strcmp(text, o->choices[i])) {
                *(int *)f = i;
                return CUZK_OK;
            }
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects %s, got '%.64s'", label, o->arg, text);
    }
    return cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: option type %d", label, (int)o->type);
}

int engine_options_check(const cuzk_engine_config *cfg, cuzk_error *err)
{
    for (size_t i = 0; i < engine_option_count; i++) {
        const engine_option *o = &engine_options[i];
        const void *f = field_of_const(cfg, o);
        long long v;
        switch (o->type) {
        case ENGINE_OPT_UINT:
            v = *(const unsigned *)f;
            break;
        case ENGINE_OPT_GPU_BYTES:
            for (int g = 0; g < CUZK_ENGINE_MAX_GPUS; g++)
                if (cfg->gpu_memory_budgets[g] > (unsigned long long)o->hi)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                          "engine config: gpu_memory_budgets[%d] must be at most %lld, got %llu", g,
                                          o->hi, cfg->gpu_memory_budgets[g]);
            /* the budget of every GPU: as a size */
            __attribute__((fallthrough));
        case ENGINE_OPT_BYTES:
        case ENGINE_OPT_COUNT:
            if (*(const unsigned long long *)f > (unsigned long long)o->hi)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine config: %s must be at most %lld, got %llu",
                                      o->field, o->hi, *(const unsigned long long *)f);
            continue;
        case ENGINE_OPT_DEVICE:
            v = *(const int *)f;
            if (v != CUZK_DEVICE_AUTO && v != CUZK_DEVICE_CPU && v != CUZK_DEVICE_GPU)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                      "engine config: device must be CUZK_DEVICE_AUTO, _CPU or _GPU, got %lld", v);
            continue;
        case ENGINE_OPT_OFF:
            v = *(const int *)f;
            if (v != 0 && v != 1)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine config: %s must be 0 or 1, got %lld",
                                      o->field, v);
            continue;
        default:
            v = *(const int *)f;
            break;
        }
        if (!(v == 0 && o->zero_default) && (v < o->lo || v > o->hi))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine config: %s must be %sin [%lld, %lld], got %lld",
                                  o->field, o->zero_default && o->lo > 0 ? "0 (the default) or " : "", o->lo, o->hi, v);
    }
    return CUZK_OK;
}
