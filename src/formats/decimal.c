#include "decimal.h"

#include "../../include/cuzk.h"
#include "../field/bigint.h"

size_t decimal_from_le(char *out, size_t cap, const unsigned char *le, size_t n8)
{
    limb_t t[6];
    bn_from_bytes_le(t, le, n8 / 8);
    return bn_to_decimal(out, cap, t, n8 / 8);
}

int decimal_to_le(unsigned char *out, size_t n8, const char *s, size_t len)
{
    limb_t t[6];
    int rc = bn_from_decimal(t, n8 / 8, s, len);
    if (rc != 0)
        return rc == 1 ? CUZK_ERR_FORMAT : CUZK_ERR_NOT_CANONICAL;
    bn_to_bytes_le(out, t, n8 / 8);
    return CUZK_OK;
}
