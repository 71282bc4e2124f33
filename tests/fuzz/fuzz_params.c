/* libFuzzer harness: bellperson .params parsing and the full point check. */
#include <stddef.h>
#include <stdint.h>

#include "../../src/formats/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    params_file pf;
    cuzk_error err;
    if (params_parse(&pf, data, size, "fuzz.params", &err) != CUZK_OK)
        return 0;
    if (size < (1u << 16)) /* bound the work per input: the check is linear in the points */
        (void)params_check(&pf, 1, NULL, &err);
    return 0;
}
