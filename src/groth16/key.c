/* The proving key's life: a mapped .zkey (src/formats/zkey.c, which knows
 * nothing of GPUs) and its copies on GPUs (src/gpu/residency.c), made by
 * its proofs there and freed with it. */
#include "../../include/cuzk.h"
#include "../formats/zkey.h"
#include "../circuit/source.h"
#include "../formats/wtns.h"
#include "../gpu/residency.h"
#include "../util/error.h"
#include "key.h"
#include "params_key.h"

#include <pthread.h>
#include <stdlib.h>

/* one lock for every key's first build of its matrices (rare, and the
 * builds would share the memory bandwidth anyway) */
static pthread_mutex_t matrices_lock = PTHREAD_MUTEX_INITIALIZER;

int key_matrices(const struct cuzk_zkey *zk, const cs_matrices **out, cuzk_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&matrices_lock);
    struct cuzk_zkey *k = (struct cuzk_zkey *)zk; /* the cache is not the key's content */
    int rc = CUZK_OK;
    uint64_t bad = UINT64_MAX;
    if (!k->mat && k->kind == ZKEY_KIND_SNARKJS)
        rc = cs_matrices_from_coefs(&k->mat, zk->curve->id, zk->coefs, zk->n_coefs, zk->domain_size, zk->n_vars,
                                    &bad);
    pthread_mutex_unlock(&matrices_lock);
    if (rc == CUZK_ERR_FORMAT)
        return cuzk_error_set(err, rc, "%s: section 4 (coefficients): entry %llu is out of range", zk->bf.name,
                              (unsigned long long)bad);
    if (rc == CUZK_ERR_UNSUPPORTED)
        return cuzk_error_set(err, rc, "%s: a constraint matrix holds more than 2^32 - 1 entries", zk->bf.name);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "out of memory for the constraint matrices of %s (%llu entries)", zk->bf.name,
                              (unsigned long long)zk->n_coefs);
    if (!k->mat)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s holds no circuit: open it with its circuit (cuzk_params_open), or prove through "
                              "supraseal's ABI",
                              zk->bf.name);
    *out = k->mat;
    return CUZK_OK;
}

int cuzk_zkey_open(cuzk_zkey **out, const char *path, cuzk_error *err)
{
    return zkey_file_open(out, path, err);
}

int cuzk_zkey_open_progress(cuzk_zkey **out, const char *path, cuzk_progress_fn progress, void *progress_ctx,
                            cuzk_error *err)
{
    progress_sink ps = {progress, progress_ctx, "reading the key"};
    return zkey_file_open_limited(out, path, NULL, &ps, err);
}

int cuzk_zkey_open_memory(cuzk_zkey **out, const void *data, size_t len, const char *name, cuzk_error *err)
{
    return zkey_file_open_memory(out, data, len, name, err);
}

void cuzk_zkey_free(cuzk_zkey *zk)
{
    if (!zk)
        return;
    residency_forget(zk); /* after the proofs holding its copies */
    for (size_t i = 0; i < sizeof(zk->owned) / sizeof(zk->owned[0]); i++)
        free(zk->owned[i]); /* a .params key's decoded points (src/groth16/params_key.c) */
    cs_matrices_free(zk->mat);
    circuit_source_free(zk->source);
    params_srs_densities_free(zk->srs_densities);
    zkey_file_free(zk);
}

int key_make_witness(const struct cuzk_zkey *zk, unsigned partition, int threads, struct cuzk_wtns **out,
                     cuzk_error *err)
{
    *out = NULL;
    const circuit_source *src = zk->source;
    if (!src)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s: its circuit makes no witnesses (a .zkey's or a .r1cs's come as .wtns files; "
                              "porep-shape's native form makes them)",
                              zk->bf.name);
    if (partition >= src->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: partition %u: the circuit has %u (0 to %u)",
                              src->name, partition, src->partitions, src->partitions - 1);
    char name[300];
    snprintf(name, sizeof(name), "partition %u of %.200s", partition, src->name);
    unsigned char *values;
    struct cuzk_wtns *w;
    int rc = wtns_alloc(&w, src->curve, src->n_wires, name, &values, err);
    if (rc != CUZK_OK)
        return rc;
    if ((rc = src->witness(src, partition, values, threads, err)) != CUZK_OK) {
        cuzk_wtns_free(w);
        return rc;
    }
    *out = w;
    return CUZK_OK;
}
