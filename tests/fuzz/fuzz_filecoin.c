/* libFuzzer harness: Filecoin's JSON inputs, a C1 output (read, and when
 * it reads, checked and a partition's witness taken) and a seal record. */
#include <stddef.h>
#include <stdint.h>

#include "../../src/filecoin/c1.h"
#include "../../src/filecoin/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    fc_c1 c1;
    if (fc_c1_read((const char *)data, size, "fuzz.json", &c1, &err) == CUZK_OK) {
        if (fc_c1_check(&c1, &err) == CUZK_OK) {
            fc_stacked_partition p;
            if (fc_c1_partition(&c1, 0, &p, &err) == CUZK_OK)
                fc_stacked_free(&p);
        }
        fc_c1_free(&c1);
    }
    fc_record r;
    if (fc_record_read((const char *)data, size, "fuzz.json", &r, &err) == CUZK_OK)
        fc_record_free(&r);
    return 0;
}
