/* Job and key ids as the daemon takes them in URLs (/v1/proofs/{id},
 * /v1/keys/{id}) and as `cuzk submit` checks them before sending: 1 to 200
 * letters, digits, '-', '_' or '.'. */
#ifndef CUZK_UTIL_URL_ID_H
#define CUZK_UTIL_URL_ID_H

#include <string.h>

static inline int url_id_valid(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 200)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
              id[i] == '-' || id[i] == '_' || id[i] == '.'))
            return 0;
    return 1;
}

#endif
