/* libFuzzer harness: .zkey parsing, the full point check and vk export. */
#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_zkey *zk;
    cuzk_error err;
    if (cuzk_zkey_open_memory(&zk, data, size, "fuzz.zkey", &err) != CUZK_OK)
        return 0;
    cuzk_zkey_info info;
    cuzk_zkey_get_info(zk, &info);
    /* bound the work per input: the check is linear in the points */
    if (info.file_size < (1u << 16) && cuzk_zkey_check(zk, 1, 1, &err) == CUZK_OK) {
        char *json;
        if (cuzk_zkey_export_vk(zk, &json, &err) == CUZK_OK)
            cuzk_free(json);
    }
    cuzk_zkey_free(zk);
    return 0;
}
