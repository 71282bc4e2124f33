/* Groth16 verification of snarkjs JSON files (cuzk_verify_json/_files). */
#include <stdlib.h>
#include <string.h>

#include "../core/core.h"
#include "../formats/snarkjs_json.h"
#include "../util/error.h"

int cuzk_has_json(void)
{
#if CUZK_HAVE_JANSSON
    return 1;
#else
    return 0;
#endif
}

static int verify_named(const char *vk_json, size_t vk_len, const char *vk_name, const char *public_json,
                        size_t public_len, const char *public_name, const char *proof_json, size_t proof_len,
                        const char *proof_name, cuzk_error *err)
{
    snarkjs_vk vk;
    snarkjs_public pub;
    snarkjs_proof proof;
    int rc = snarkjs_vk_parse(&vk, vk_json, vk_len, vk_name, err);
    if (rc != CUZK_OK)
        return rc;
    rc = snarkjs_public_parse(&pub, public_json, public_len, public_name, vk.curve, err);
    if (rc != CUZK_OK) {
        snarkjs_vk_free(&vk);
        return rc;
    }
    rc = snarkjs_proof_parse(&proof, proof_json, proof_len, proof_name, vk.curve, err);
    if (rc == CUZK_ERR_NOT_ON_CURVE || rc == CUZK_ERR_NOT_IN_SUBGROUP) {
        /* well-formed numbers that are no group element: snarkjs answers
         * false, so do we (the message names the point) */
        rc = CUZK_ERR_INVALID_PROOF;
        if (err)
            err->code = rc;
    }
    if (rc == CUZK_OK && pub.n != vk.n_public)
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu public signals, but the verification key expects %u",
                            public_name, pub.n, vk.n_public);
    if (rc == CUZK_OK) {
        core_vk cvk = {vk.alpha1, vk.beta2, vk.gamma2, vk.delta2, vk.ic, (size_t)vk.n_public + 1};
        core_proof cp = {proof.a, proof.b, proof.c};
        rc = cuzk_core()->groth16_verify(vk.curve->id, &cvk, pub.values, &cp);
        if (rc == CUZK_ERR_INVALID_PROOF)
            cuzk_error_set(err, rc, "%s: the proof does not verify against %s and %s", proof_name, vk_name,
                           public_name);
    }
    snarkjs_public_free(&pub);
    snarkjs_vk_free(&vk);
    return rc;
}

int cuzk_verify_json(const char *vk_json, size_t vk_len, const char *public_json, size_t public_len,
                     const char *proof_json, size_t proof_len, cuzk_error *err)
{
    if (!vk_json || !public_json || !proof_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_verify_json: NULL argument");
    return verify_named(vk_json, vk_len, "verification key", public_json, public_len, "public signals", proof_json,
                        proof_len, "proof", err);
}

int cuzk_verify_files(const char *vk_path, const char *public_path, const char *proof_path, cuzk_error *err)
{
    if (!vk_path || !public_path || !proof_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_verify_files: NULL argument");
    char *texts[3] = {NULL, NULL, NULL};
    size_t lens[3];
    const char *paths[3] = {vk_path, public_path, proof_path};
    int rc = CUZK_OK;
    for (int i = 0; i < 3 && rc == CUZK_OK; i++)
        rc = read_json_file(paths[i], &texts[i], &lens[i], err);
    if (rc == CUZK_OK)
        rc = verify_named(texts[0], lens[0], vk_path, texts[1], lens[1], public_path, texts[2], lens[2], proof_path,
                          err);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    return rc;
}
