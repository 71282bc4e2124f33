/* libFuzzer harness: .r1cs parsing. */
#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_r1cs *r;
    cuzk_error err;
    if (cuzk_r1cs_open_memory(&r, data, size, "fuzz.r1cs", &err) == CUZK_OK) {
        cuzk_r1cs_info info;
        cuzk_r1cs_get_info(r, &info);
        cuzk_r1cs_free(r);
    }
    return 0;
}
