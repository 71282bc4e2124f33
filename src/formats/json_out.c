#include "json_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jo_init(json_out *j)
{
    memset(j, 0, sizeof(*j));
}

static void put(json_out *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 256;
        while (cap < j->len + n + 1)
            cap *= 2;
        char *b = realloc(j->buf, cap);
        if (!b) {
            j->failed = 1;
            return;
        }
        j->buf = b;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(json_out *j, const char *s)
{
    put(j, s, strlen(s));
}

/* Starts an element at the current depth: comma, newline, indent. */
static void element(json_out *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth == 0)
        return;
    if (!j->first[j->depth])
        put(j, ",", 1);
    j->first[j->depth] = 0;
    put(j, "\n", 1);
    for (int i = 0; i < j->depth; i++)
        put(j, " ", 1);
}

static void open_(json_out *j, const char *c)
{
    element(j);
    puts_(j, c);
    if (j->depth + 1 >= (int)(sizeof(j->first) / sizeof(j->first[0]))) {
        j->failed = 1;
        return;
    }
    j->first[++j->depth] = 1;
}

static void close_(json_out *j, const char *c)
{
    int empty = j->first[j->depth];
    j->depth--;
    if (!empty) {
        put(j, "\n", 1);
        for (int i = 0; i < j->depth; i++)
            put(j, " ", 1);
    }
    puts_(j, c);
}

void jo_object_begin(json_out *j)
{
    open_(j, "{");
}

void jo_object_end(json_out *j)
{
    close_(j, "}");
}

void jo_array_begin(json_out *j)
{
    open_(j, "[");
}

void jo_array_end(json_out *j)
{
    close_(j, "]");
}

static int plain(const char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
            return 0;
    return 1;
}

void jo_key(json_out *j, const char *key)
{
    if (!plain(key))
        j->failed = 1;
    element(j);
    put(j, "\"", 1);
    puts_(j, key);
    put(j, "\": ", 3);
    j->after_key = 1;
}

void jo_string(json_out *j, const char *s)
{
    if (!plain(s))
        j->failed = 1;
    element(j);
    put(j, "\"", 1);
    puts_(j, s);
    put(j, "\"", 1);
}

void jo_uint(json_out *j, unsigned long long v)
{
    char b[32];
    snprintf(b, sizeof(b), "%llu", v);
    element(j);
    puts_(j, b);
}

char *jo_finish(json_out *j)
{
    if (j->failed || !j->buf) {
        free(j->buf);
        j->buf = NULL;
        return NULL;
    }
    char *b = j->buf;
    j->buf = NULL;
    return b;
}
