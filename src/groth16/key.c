/* The proving key's life: a mapped .zkey (src/formats/zkey.c, which knows
 * nothing of GPUs) and its copies on GPUs (src/gpu/residency.c), made by
 * its proofs there and freed with it. */
#include "../../include/cuzk.h"
#include "../formats/zkey.h"
#include "../gpu/residency.h"

#include <stdlib.h>

int cuzk_zkey_open(cuzk_zkey **out, const char *path, cuzk_error *err)
{
    return zkey_file_open(out, path, err);
}

int cuzk_zkey_open_progress(cuzk_zkey **out, const char *path, cuzk_progress_fn progress, void *progress_ctx,
                            cuzk_error *err)
{
    progress_sink ps = {progress, progress_ctx, "reading the key"};
    return zkey_file_open_progress(out, path, &ps, err);
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
    zkey_file_free(zk);
}
