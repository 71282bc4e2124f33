/* libFuzzer harness: .wtns parsing. */
#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_wtns *w;
    cuzk_error err;
    if (cuzk_wtns_open_memory(&w, data, size, "fuzz.wtns", &err) == CUZK_OK) {
        cuzk_wtns_info info;
        cuzk_wtns_get_info(w, &info);
        cuzk_wtns_free(w);
    }
    return 0;
}
