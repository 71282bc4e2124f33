/* Loading the @noble/curves vector files (tests/vectors/) with jansson. */
#ifndef CUZK_TEST_VECTORS_H
#define CUZK_TEST_VECTORS_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *load_vectors(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    json_error_t err;
    json_t *v = json_load_file(path, 0, &err);
    if (!v) {
        fprintf(stderr, "cannot read %s: %s (line %d)\n", path, err.text, err.line);
        exit(1);
    }
    return v;
}

#endif
