/* libFuzzer harness: snarkjs JSON. The first byte picks the reader
 * (verification key, proof, public signals, or all three with the rest
 * split in three); the rest is the text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../include/cuzk.h"
#include "../../src/formats/snarkjs_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    cuzk_error err;
    const curve_desc *curve = curve_by_id(data[0] & 4 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254);
    switch (data[0] & 3) {
    case 0: {
        snarkjs_vk vk;
        if (snarkjs_vk_parse(&vk, text, len, "fuzz.json", &err) == CUZK_OK)
            snarkjs_vk_free(&vk);
        break;
    }
    case 1: {
        snarkjs_proof proof;
        int rc = snarkjs_proof_parse(&proof, text, len, "fuzz.json", data[0] & 8 ? NULL : curve, &err);
        (void)rc;
        break;
    }
    case 2: {
        snarkjs_public pub;
        if (snarkjs_public_parse(&pub, text, len, "fuzz.json", curve, &err) == CUZK_OK)
            snarkjs_public_free(&pub);
        break;
    }
    default: {
        size_t a = len / 3, b = 2 * len / 3;
        int rc = cuzk_verify_json(text, a, text + a, b - a, text + b, len - b, &err);
        (void)rc;
        break;
    }
    }
    return 0;
}
