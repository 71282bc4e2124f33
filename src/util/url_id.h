/* Ids the daemon takes from clients, checked the same way by the daemon
 * and by `cuzk submit` before sending: letters, digits, '-', '_' or '.'.
 * Job and key ids (in URLs: /v1/proofs/{id}, /v1/keys/{id}) have 1 to 200;
 * request ids (the client's idempotency key on POST /v1/proofs, docs/api.md)
 * 1 to REQUEST_ID_MAX. */
#ifndef CUZK_UTIL_URL_ID_H
#define CUZK_UTIL_URL_ID_H

#include <string.h>

#define URL_ID_MAX 200
#define REQUEST_ID_MAX 64
#define REQUEST_ID_RULE "1 to 64 letters, digits, '.', '_' or '-'" /* for messages; REQUEST_ID_MAX */

static inline int id_chars_valid(const char *id, size_t max)
{
    size_t n = strnlen(id, max + 1);
    if (n == 0 || n > max)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
              id[i] == '-' || id[i] == '_' || id[i] == '.'))
            return 0;
    return 1;
}

static inline int url_id_valid(const char *id)
{
    return id_chars_valid(id, URL_ID_MAX);
}

static inline int request_id_valid(const char *id)
{
    return id_chars_valid(id, REQUEST_ID_MAX);
}

#endif
