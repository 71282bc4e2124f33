#include "key_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/error.h"

struct key_entry {
    char *name;    /* the key id, or the path for keys named by path */
    char *path;
    cuzk_zkey *zk; /* NULL: known (an id from key_cache_load) but not loaded now */
    unsigned refs; /* jobs holding it */
    double last_used;
    uint64_t bytes; /* its file's */
    struct key_entry *next;
};

struct key_cache {
    pthread_mutex_t mu;
    uint64_t budget;
    gpu_plan *plan;
    key_entry *keys;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int key_cache_create(uint64_t budget, gpu_plan *plan, key_cache **out, cuzk_error *err)
{
    key_cache *kc = calloc(1, sizeof(*kc));
    *out = kc;
    if (!kc)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_init(&kc->mu, NULL);
    kc->budget = budget;
    kc->plan = plan;
    return CUZK_OK;
}

/* A key on its way out: out of the plan, then freed (with its GPU copies). */
static void free_key(key_cache *kc, cuzk_zkey *zk)
{
    if (!zk)
        return;
    gpu_plan_forget(kc->plan, zk);
    cuzk_zkey_free(zk);
}

void key_cache_destroy(key_cache *kc)
{
    if (!kc)
        return;
    while (kc->keys) {
        key_entry *n = kc->keys->next;
        free_key(kc, kc->keys->zk);
        free(kc->keys->name);
        free(kc->keys->path);
        free(kc->keys);
        kc->keys = n;
    }
    pthread_mutex_destroy(&kc->mu);
    free(kc);
}

static key_entry *find(key_cache *kc, const char *name)
{
    for (key_entry *k = kc->keys; k; k = k->next)
        if (!strcmp(k->name, name))
            return k;
    return NULL;
}

static uint64_t cached_bytes(const key_cache *kc, unsigned *count)
{
    uint64_t b = 0;
    unsigned n = 0;
    for (const key_entry *k = kc->keys; k; k = k->next)
        if (k->zk) {
            b += k->bytes;
            n++;
        }
    if (count)
        *count = n;
    return b;
}

/* Under the lock: unloads least-recently-used keys no job holds until the
 * cache fits its budget. The keys to free are returned as a list, to free
 * once the lock is released. */
static cuzk_zkey **evict_over_budget(key_cache *kc, size_t *n_out)
{
    *n_out = 0;
    if (!kc->budget)
        return NULL;
    cuzk_zkey **out = NULL;
    size_t n = 0;
    while (cached_bytes(kc, NULL) > kc->budget) {
        key_entry *lru = NULL;
        for (key_entry *k = kc->keys; k; k = k->next)
            if (k->zk && k->refs == 0 && (!lru || k->last_used < lru->last_used))
                lru = k;
        if (!lru)
            break; /* every cached key is held */
        cuzk_zkey **grown = realloc(out, (n + 1) * sizeof(*out));
        if (!grown)
            break;
        out = grown;
        out[n++] = lru->zk;
        lru->zk = NULL;
    }
    *n_out = n;
    return out;
}

static void free_keys(key_cache *kc, cuzk_zkey **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_key(kc, list[i]);
    free(list);
}

int key_cache_acquire(key_cache *kc, const char *name, const char *path, key_entry **out, cuzk_error *err)
{
    pthread_mutex_lock(&kc->mu);
    key_entry *k = find(kc, name);
    if (k && k->zk) {
        k->refs++;
        pthread_mutex_unlock(&kc->mu);
        *out = k;
        return CUZK_OK;
    }
    if (k && k->path)
        path = k->path; /* an id whose key was evicted: reload it */
    char *p = path ? dup_str(path) : NULL;
    pthread_mutex_unlock(&kc->mu);
    if (!p)
        return path ? cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory")
                    : cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no key was loaded under the id '%s'", name);
    cuzk_zkey *zk = NULL;
    int rc = cuzk_zkey_open(&zk, p, err); /* without the lock: it maps and checks the file */
    if (rc != CUZK_OK) {
        free(p);
        return rc;
    }
    cuzk_zkey_info info;
    cuzk_zkey_get_info(zk, &info);
    pthread_mutex_lock(&kc->mu);
    k = find(kc, name);
    if (k && k->zk) { /* another job loaded it meanwhile */
        k->refs++;
        pthread_mutex_unlock(&kc->mu);
        cuzk_zkey_free(zk);
        free(p);
        *out = k;
        return CUZK_OK;
    }
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (!k || !(k->name = dup_str(name))) {
            free(k);
            pthread_mutex_unlock(&kc->mu);
            cuzk_zkey_free(zk);
            free(p);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
        k->next = kc->keys;
        kc->keys = k;
    }
    free(k->path);
    k->path = p;
    k->zk = zk;
    k->bytes = info.file_size;
    k->refs++;
    k->last_used = cuzk_now();
    size_t n_free;
    cuzk_zkey **to_free = evict_over_budget(kc, &n_free);
    pthread_mutex_unlock(&kc->mu);
    free_keys(kc, to_free, n_free);
    *out = k;
    return CUZK_OK;
}

const struct cuzk_zkey *key_entry_zkey(const key_entry *k)
{
    return k->zk;
}

void key_cache_release(key_cache *kc, key_entry *k, key_evicted *out)
{
    out->keys = NULL;
    out->n = 0;
    if (!k)
        return;
    pthread_mutex_lock(&kc->mu);
    k->refs--;
    k->last_used = cuzk_now();
    out->keys = evict_over_budget(kc, &out->n);
    pthread_mutex_unlock(&kc->mu);
}

void key_cache_free_evicted(key_cache *kc, key_evicted *ev)
{
    free_keys(kc, ev->keys, ev->n);
    ev->keys = NULL;
    ev->n = 0;
}

int key_cache_load(key_cache *kc, const char *id, const char *path, cuzk_error *err)
{
    /* a reload under the same id replaces the cached key once unused */
    pthread_mutex_lock(&kc->mu);
    key_entry *k = find(kc, id);
    cuzk_zkey *old = NULL;
    if (k && k->refs) {
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "key '%s' is in use by running jobs: load it again later", id);
    }
    if (k) {
        old = k->zk;
        k->zk = NULL;
        free(k->path);
        k->path = NULL;
    }
    pthread_mutex_unlock(&kc->mu);
    free_key(kc, old);
    key_entry *got;
    int rc = key_cache_acquire(kc, id, path, &got, err);
    if (rc != CUZK_OK)
        return rc;
    key_evicted ev;
    key_cache_release(kc, got, &ev);
    key_cache_free_evicted(kc, &ev);
    return CUZK_OK;
}

int key_cache_evict(key_cache *kc, const char *name, cuzk_error *err)
{
    pthread_mutex_lock(&kc->mu);
    key_entry *k = find(kc, name);
    if (!k || !k->zk) {
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "key '%s' is not loaded", name);
    }
    if (k->refs) {
        unsigned refs = k->refs;
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "key '%s' is in use by %u running job%s", name, refs,
                              refs == 1 ? "" : "s");
    }
    cuzk_zkey *zk = k->zk;
    k->zk = NULL;
    pthread_mutex_unlock(&kc->mu);
    free_key(kc, zk);
    return CUZK_OK;
}

int key_cache_known(key_cache *kc, const char *name)
{
    pthread_mutex_lock(&kc->mu);
    int known = find(kc, name) != NULL;
    pthread_mutex_unlock(&kc->mu);
    return known;
}

void key_cache_stats(key_cache *kc, unsigned *count, unsigned long long *bytes)
{
    pthread_mutex_lock(&kc->mu);
    *bytes = cached_bytes(kc, count);
    pthread_mutex_unlock(&kc->mu);
}
