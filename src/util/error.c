#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int cuzk_error_set(cuzk_error *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        vsnprintf(e->message, sizeof(e->message), fmt, ap);
        va_end(ap);
    }
    return code;
}
