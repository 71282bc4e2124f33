/* The engine's key cache (key_cache.h). Two kinds of name, in two
 * namespaces: ids (cuzk_engine_key_load) and paths (a job's key_path), so
 * an id can never stand for a path's key or the other way round. A name
 * has at most one current copy of its key, and copies it replaced that
 * running jobs still hold ("retired": freed when the last of them lets
 * go). A copy records the file's identity (device, inode, size, times)
 * when it was read; a job that finds the file changed since gets a fresh
 * copy, so a key replaced on disk is never proved with in its old form,
 * and a key rewritten in place under a running job cannot touch it (the
 * copy is the process's own memory: src/formats/binfile.h). One thread at
 * a time loads a name; the others wait for its copy. */
#include "key_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "../formats/zkey.h"
#include "../groth16/params_key.h"
#include "../util/progress.h"
#include "../util/cores.h"

/* What tells one version of a file from another. */
typedef struct file_identity {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} file_identity;

typedef struct key_name key_name;

struct key_entry { /* one copy of a key */
    cuzk_zkey *zk;
    unsigned refs;    /* jobs holding it */
    uint64_t bytes;   /* its file's */
    file_identity id; /* of the file it was read from */
    file_identity circuit_id; /* a .params key's: of its circuit's .r1cs */
    double last_used;
    key_name *owner;  /* the name it is current for; NULL once retired */
    struct key_entry *next_retired;
    char *vk_json;    /* its verification key, made at the first need (key_entry_vk) */
};

struct key_name {
    int is_id;
    char *name;
    char *path;      /* where its key is read from */
    char *circuit;   /* a bellperson .params key: its circuit's .r1cs (cuzk_params_open); NULL: a .zkey */
    int srs;         /* a .params key read alone (params_srs_open: supraseal-c2's SRS); circuit NULL */
    const file_limits *lim; /* a path's key (and circuit) is read within these (the engine's); NULL: anywhere */
    key_entry *cur;  /* NULL: not loaded now */
    int loading;     /* a thread is reading it */
    struct key_name *next;
};

struct key_cache {
    pthread_mutex_t mu;
    pthread_cond_t loaded; /* a load ended */
    uint64_t budget;
    unsigned idle_max; /* cached copies no job holds, at most (0: no limit) */
    gpu_plan *plan;
    cuzk_progress_fn progress; /* key reads (the engine's configuration) */
    void *progress_ctx;
    key_name *names;
    key_entry *retired;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int identity_of(const char *path, file_identity *id)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *id = (file_identity){.dev = st.st_dev, .ino = st.st_ino, .size = st.st_size, .mtime = st.st_mtim,
                          .ctime = st.st_ctim};
    return 0;
}

static int same_identity(const file_identity *a, const file_identity *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec &&
           a->ctime.tv_nsec == b->ctime.tv_nsec;
}

int key_cache_create(uint64_t budget, gpu_plan *plan, cuzk_progress_fn progress, void *progress_ctx, key_cache **out,
                     cuzk_error *err)
{
    key_cache *kc = calloc(1, sizeof(*kc));
    *out = kc;
    if (!kc)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_init(&kc->mu, NULL);
    pthread_cond_init(&kc->loaded, NULL);
    kc->budget = budget;
    kc->plan = plan;
    kc->progress = progress;
    kc->progress_ctx = progress_ctx;
    return CUZK_OK;
}

/* A copy on its way out: out of the plan, then freed (with its GPU copies). */
static void free_entry(key_cache *kc, key_entry *k)
{
    if (!k)
        return;
    gpu_plan_forget(kc->plan, k->zk);
    cuzk_zkey_free(k->zk);
    cuzk_free(k->vk_json);
    free(k);
}

static void free_name(key_name *n)
{
    free(n->name);
    free(n->path);
    free(n->circuit);
    free(n);
}

void key_cache_destroy(key_cache *kc)
{
    if (!kc)
        return;
    while (kc->names) {
        key_name *n = kc->names->next;
        free_entry(kc, kc->names->cur);
        free_name(kc->names);
        kc->names = n;
    }
    while (kc->retired) {
        key_entry *n = kc->retired->next_retired;
        free_entry(kc, kc->retired);
        kc->retired = n;
    }
    pthread_cond_destroy(&kc->loaded);
    pthread_mutex_destroy(&kc->mu);
    free(kc);
}

static int same_or_null(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* An id, or a path with its circuit and limits (the same .params file
 * with another .r1cs is another name, refused at its load). */
static key_name *find(key_cache *kc, int is_id, const char *name, const char *circuit, int srs,
                      const file_limits *lim)
{
    for (key_name *n = kc->names; n; n = n->next)
        if (n->is_id == is_id && !strcmp(n->name, name) &&
            (is_id || (same_or_null(n->circuit, circuit) && n->srs == srs && n->lim == lim)))
            return n;
    return NULL;
}

static uint64_t cached_bytes(const key_cache *kc, unsigned *count)
{
    uint64_t b = 0;
    unsigned c = 0;
    for (const key_name *n = kc->names; n; n = n->next)
        if (n->cur) {
            b += n->cur->bytes;
            c++;
        }
    for (const key_entry *k = kc->retired; k; k = k->next_retired) {
        b += k->bytes;
        c++;
    }
    if (count)
        *count = c;
    return b;
}

/* A list of copies to free once the lock is released. */
static int to_free_add(key_evicted *ev, key_entry *k)
{
    key_entry **grown = realloc(ev->keys, (ev->n + 1) * sizeof(*ev->keys));
    if (!grown)
        return -1;
    ev->keys = grown;
    ev->keys[ev->n++] = k;
    return 0;
}

/* Under the lock: a copy no name has any more goes: freed once the lock is
 * released (into ev) when no job holds it, else kept as retired until the
 * last job lets go. */
static void retire(key_cache *kc, key_entry *k, key_evicted *ev)
{
    k->owner = NULL;
    if (k->refs == 0 && to_free_add(ev, k) == 0)
        return;
    k->next_retired = kc->retired;
    kc->retired = k;
}

/* Under the lock: a retired copy no job holds now leaves the list, to free
 * (into ev; kept for a later release when out of memory). */
static void free_if_retired(key_cache *kc, key_entry *k, key_evicted *ev)
{
    for (key_entry **pp = &kc->retired; *pp; pp = &(*pp)->next_retired)
        if (*pp == k) {
            *pp = k->next_retired;
            break;
        }
    retire(kc, k, ev);
}

/* Under the lock: the current copy of n out of it (retire). */
static void detach_current(key_cache *kc, key_name *n, key_evicted *ev)
{
    key_entry *k = n->cur;
    n->cur = NULL;
    if (k)
        retire(kc, k, ev);
}

/* Copies cached now that no job holds. */
static unsigned idle_copies(const key_cache *kc)
{
    unsigned c = 0;
    for (const key_name *n = kc->names; n; n = n->next)
        c += n->cur && n->cur->refs == 0;
    return c;
}

/* Under the lock: unloads least-recently-used copies no job holds until the
 * cache fits its budget and its count of idle copies, into ev. */
static void evict_over_budget(key_cache *kc, key_evicted *ev)
{
    if (!kc->budget && !kc->idle_max)
        return;
    while ((kc->budget && cached_bytes(kc, NULL) > kc->budget) || (kc->idle_max && idle_copies(kc) > kc->idle_max)) {
        key_name *lru = NULL;
        for (key_name *n = kc->names; n; n = n->next)
            if (n->cur && n->cur->refs == 0 && (!lru || n->cur->last_used < lru->cur->last_used))
                lru = n;
        if (!lru)
            return; /* every cached copy is held */
        key_entry *k = lru->cur;
        lru->cur = NULL;
        if (to_free_add(ev, k) != 0) {
            lru->cur = k;
            return;
        }
    }
}

void key_cache_free_evicted(key_cache *kc, key_evicted *ev)
{
    for (size_t i = 0; i < ev->n; i++)
        free_entry(kc, ev->keys[i]);
    free(ev->keys);
    ev->keys = NULL;
    ev->n = 0;
}

/* Under the lock, with n->loading set by this thread: reads n's key from
 * its path with the lock released, makes it current. */
static int load_locked(key_cache *kc, key_name *n, key_entry **out, key_evicted *ev, cuzk_error *err)
{
    char *path = dup_str(n->path), *circuit = n->circuit ? dup_str(n->circuit) : NULL;
    const file_limits *lim = n->lim;
    char stage[300];
    snprintf(stage, sizeof(stage), "reading key %.280s", n->name);
    pthread_mutex_unlock(&kc->mu);
    int rc = CUZK_OK;
    key_entry *k = path ? calloc(1, sizeof(*k)) : NULL;
    if (!k || (n->circuit && !circuit))
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    /* the identity before the read: a file replaced during the read is
     * read again by the next job, never taken for the new one */
    else if (identity_of(path, &k->id) != 0)
        rc = cuzk_error_set(err, errno == ENOENT ? CUZK_ERR_NOT_FOUND : CUZK_ERR_IO, "%s: cannot open: %s", path,
                            strerror(errno));
    else if (circuit && identity_of(circuit, &k->circuit_id) != 0)
        rc = cuzk_error_set(err, errno == ENOENT ? CUZK_ERR_NOT_FOUND : CUZK_ERR_IO, "%s: cannot open: %s", circuit,
                            strerror(errno));
    else if (circuit) /* its stages are its own: "reading the circuit", "decoding H", ... */
        rc = params_key_open(&k->zk, path, circuit, lim, kc->progress, kc->progress_ctx, err);
    else if (n->srs)
        rc = params_srs_open(&k->zk, path, cpu_cores(), err);
    else
        rc = zkey_file_open_limited(&k->zk, path, lim, &(progress_sink){kc->progress, kc->progress_ctx, stage}, err);
    if (rc == CUZK_OK) {
        cuzk_zkey_info info;
        cuzk_zkey_get_info(k->zk, &info);
        k->bytes = info.file_size;
    } else {
        free(k);
        k = NULL;
    }
    free(path);
    free(circuit);
    pthread_mutex_lock(&kc->mu);
    n->loading = 0;
    pthread_cond_broadcast(&kc->loaded);
    if (rc != CUZK_OK)
        return rc;
    detach_current(kc, n, ev);
    k->owner = n;
    k->refs = 1;
    k->last_used = cuzk_now();
    n->cur = k;
    evict_over_budget(kc, ev);
    *out = k;
    return CUZK_OK;
}

/* Under the lock: the names of paths whose key is not loaded now and is
 * not being read go (a job naming one makes it again), so the table holds
 * at most the loaded keys' names, however many paths jobs name. */
static void drop_idle_paths(key_cache *kc)
{
    for (key_name **pp = &kc->names; *pp;) {
        key_name *n = *pp;
        if (!n->is_id && !n->cur && !n->loading) {
            *pp = n->next;
            free_name(n);
        } else
            pp = &n->next;
    }
}

/* A path's name, made on first use (lock held); NULL when out of memory. */
static key_name *path_name(key_cache *kc, const char *path, const char *circuit, int srs, const file_limits *lim)
{
    key_name *n = find(kc, 0, path, circuit, srs, lim);
    if (n)
        return n;
    drop_idle_paths(kc);
    n = calloc(1, sizeof(*n));
    if (!n || !(n->name = dup_str(path)) || !(n->path = dup_str(path)) ||
        (circuit && !(n->circuit = dup_str(circuit)))) {
        if (n)
            free_name(n);
        return NULL;
    }
    n->lim = lim;
    n->srs = srs;
    n->next = kc->names;
    kc->names = n;
    return n;
}

static int acquire(key_cache *kc, int is_id, const char *name, const char *circuit, int srs, const file_limits *lim,
                   key_entry **out, key_evicted *ev, cuzk_error *err)
{
    ev->keys = NULL;
    ev->n = 0;
    pthread_mutex_lock(&kc->mu);
    for (;;) {
        key_name *n = is_id ? find(kc, 1, name, NULL, 0, NULL) : path_name(kc, name, circuit, srs, lim);
        if (!n) {
            pthread_mutex_unlock(&kc->mu);
            return is_id ? cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no key was loaded under the id '%s'", name)
                         : cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
        if (n->loading) {
            pthread_cond_wait(&kc->loaded, &kc->mu);
            continue;
        }
        key_entry *k = n->cur;
        if (!k) {
            n->loading = 1;
            int rc = load_locked(kc, n, out, ev, err);
            pthread_mutex_unlock(&kc->mu);
            return rc;
        }
        /* cached: is its file still the one it was read from? (stat'd
         * with the lock released; the copy is held meanwhile) */
        k->refs++;
        char *path = dup_str(n->path), *cpath = n->circuit ? dup_str(n->circuit) : NULL;
        int has_circuit = n->circuit != NULL;
        pthread_mutex_unlock(&kc->mu);
        file_identity now;
        int unchanged = path && identity_of(path, &now) == 0 && same_identity(&now, &k->id);
        if (unchanged && has_circuit) /* a .params key is its circuit's too */
            unchanged = cpath && identity_of(cpath, &now) == 0 && same_identity(&now, &k->circuit_id);
        free(path);
        free(cpath);
        pthread_mutex_lock(&kc->mu);
        if (unchanged) {
            k->last_used = cuzk_now();
            pthread_mutex_unlock(&kc->mu);
            *out = k;
            return CUZK_OK;
        }
        /* changed (or gone): read again; running jobs keep the old copy.
         * n is looked at only while it still owns k (a path's name without
         * a key may have been dropped meanwhile: drop_idle_paths) */
        k->refs--;
        if (k->owner == n && n->cur == k && !n->loading) {
            detach_current(kc, n, ev);
            n->loading = 1;
            int rc = load_locked(kc, n, out, ev, err);
            pthread_mutex_unlock(&kc->mu);
            return rc;
        }
        if (!k->owner && k->refs == 0) /* retired meanwhile and now unheld */
            free_if_retired(kc, k, ev);
        /* another thread replaced it meanwhile: look again */
    }
}

int key_cache_acquire(key_cache *kc, int is_id, const char *name, const char *circuit, const file_limits *lim,
                      key_entry **out, key_evicted *ev, cuzk_error *err)
{
    return acquire(kc, is_id, name, circuit, 0, lim, out, ev, err);
}

int key_cache_acquire_srs(key_cache *kc, const char *path, key_entry **out, key_evicted *ev, cuzk_error *err)
{
    return acquire(kc, 0, path, NULL, 1, NULL, out, ev, err);
}

int key_cache_load_srs_private(key_cache *kc, const char *path, key_entry **out, cuzk_error *err)
{
    *out = NULL;
    key_entry *k = calloc(1, sizeof(*k));
    if (!k)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = params_srs_open(&k->zk, path, cpu_cores(), err);
    if (rc != CUZK_OK) {
        free(k);
        return rc;
    }
    cuzk_zkey_info info;
    cuzk_zkey_get_info(k->zk, &info);
    k->bytes = info.file_size;
    k->refs = 1;
    k->last_used = cuzk_now();
    pthread_mutex_lock(&kc->mu); /* retired from the start: freed at its last release */
    k->next_retired = kc->retired;
    kc->retired = k;
    pthread_mutex_unlock(&kc->mu);
    *out = k;
    return CUZK_OK;
}

void key_cache_hold(key_cache *kc, key_entry *k)
{
    pthread_mutex_lock(&kc->mu);
    k->refs++;
    pthread_mutex_unlock(&kc->mu);
}

void key_cache_retire(key_cache *kc, key_entry *k, key_evicted *ev)
{
    ev->keys = NULL;
    ev->n = 0;
    pthread_mutex_lock(&kc->mu);
    if (k->owner && k->owner->cur == k)
        detach_current(kc, k->owner, ev);
    pthread_mutex_unlock(&kc->mu);
}

void key_cache_set_idle_max(key_cache *kc, unsigned n)
{
    pthread_mutex_lock(&kc->mu);
    kc->idle_max = n;
    pthread_mutex_unlock(&kc->mu);
}

const struct cuzk_zkey *key_entry_zkey(const key_entry *k)
{
    return k->zk;
}

int key_entry_vk(key_cache *kc, key_entry *k, char **copy, cuzk_error *err)
{
    *copy = NULL;
    pthread_mutex_lock(&kc->mu);
    char *have = k->vk_json;
    pthread_mutex_unlock(&kc->mu);
    if (!have) { /* made without the lock (a pairing, and the IC points); a racing job's is dropped */
        int rc = cuzk_zkey_export_vk(k->zk, &have, err);
        if (rc != CUZK_OK)
            return rc;
        pthread_mutex_lock(&kc->mu);
        if (!k->vk_json) {
            k->vk_json = have;
            have = NULL;
        }
        pthread_mutex_unlock(&kc->mu);
        cuzk_free(have);
    }
    /* the copy: the entry's string lives as long as the entry, which the
     * caller holds */
    *copy = dup_str(k->vk_json);
    return *copy ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
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
    if (!k->owner && k->refs == 0) /* a retired copy's last job */
        free_if_retired(kc, k, out);
    evict_over_budget(kc, out);
    pthread_mutex_unlock(&kc->mu);
}

int key_cache_load(key_cache *kc, const char *id, const char *path, const char *circuit, cuzk_error *err)
{
    key_evicted ev = {0};
    pthread_mutex_lock(&kc->mu);
    key_name *n;
    while ((n = find(kc, 1, id, NULL, 0, NULL)) && n->loading)
        pthread_cond_wait(&kc->loaded, &kc->mu);
    int fresh = !n;
    if (fresh) {
        n = calloc(1, sizeof(*n));
        if (!n || !(n->name = dup_str(id))) {
            free(n);
            pthread_mutex_unlock(&kc->mu);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
        n->is_id = 1;
    }
    char *p = dup_str(path), *cp = circuit ? dup_str(circuit) : NULL;
    if (!p || (circuit && !cp)) {
        free(p);
        free(cp);
        if (fresh)
            free_name(n);
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    /* the id's old key (another path, or the same file changed) goes once
     * the new one is in; jobs running with it keep it to their end. A
     * failed load leaves the id as it was. */
    char *old_path = n->path, *old_circuit = n->circuit;
    key_entry *old = n->cur;
    n->path = p;
    n->circuit = cp;
    n->cur = NULL;
    n->loading = 1;
    if (fresh) {
        n->next = kc->names;
        kc->names = n;
    }
    key_entry *got = NULL;
    int rc = load_locked(kc, n, &got, &ev, err);
    if (rc == CUZK_OK) {
        got->refs--; /* loaded, not held */
        if (old)
            retire(kc, old, &ev);
        free(old_path);
        free(old_circuit);
    } else if (old_path) {
        n->cur = old;
        free(n->path);
        free(n->circuit);
        n->path = old_path;
        n->circuit = old_circuit;
    } else { /* never loaded: the id is forgotten */
        for (key_name **pp = &kc->names; *pp; pp = &(*pp)->next)
            if (*pp == n) {
                *pp = n->next;
                break;
            }
        free_name(n);
    }
    pthread_mutex_unlock(&kc->mu);
    key_cache_free_evicted(kc, &ev);
    return rc;
}

int key_cache_evict(key_cache *kc, const char *name, cuzk_error *err)
{
    pthread_mutex_lock(&kc->mu);
    key_name *n = find(kc, 1, name, NULL, 0, NULL);
    if (!n || !n->cur) /* a path's loaded key, with whichever circuit */
        for (n = kc->names; n; n = n->next)
            if (!n->is_id && n->cur && !strcmp(n->name, name))
                break;
    if (!n || !n->cur) {
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "key '%s' is not loaded", name);
    }
    if (n->cur->refs) {
        unsigned refs = n->cur->refs;
        pthread_mutex_unlock(&kc->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "key '%s' is in use by %u running job%s", name, refs,
                              refs == 1 ? "" : "s");
    }
    key_entry *k = n->cur;
    n->cur = NULL;
    if (!n->is_id && !n->loading) { /* a path's name goes with its key */
        for (key_name **pp = &kc->names; *pp; pp = &(*pp)->next)
            if (*pp == n) {
                *pp = n->next;
                break;
            }
        free_name(n);
    }
    pthread_mutex_unlock(&kc->mu);
    free_entry(kc, k);
    return CUZK_OK;
}

int key_cache_known(key_cache *kc, const char *id)
{
    pthread_mutex_lock(&kc->mu);
    int known = find(kc, 1, id, NULL, 0, NULL) != NULL;
    pthread_mutex_unlock(&kc->mu);
    return known;
}

int key_cache_files(key_cache *kc, const char *id, char **path, char **circuit)
{
    *path = *circuit = NULL;
    pthread_mutex_lock(&kc->mu);
    key_name *n = find(kc, 1, id, NULL, 0, NULL);
    int rc = CUZK_ERR_NOT_FOUND;
    if (n) {
        *path = dup_str(n->path);
        *circuit = n->circuit ? dup_str(n->circuit) : NULL;
        rc = !*path || (n->circuit && !*circuit) ? CUZK_ERR_NO_MEMORY : CUZK_OK;
    }
    pthread_mutex_unlock(&kc->mu);
    if (rc != CUZK_OK) {
        free(*path);
        free(*circuit);
        *path = *circuit = NULL;
    }
    return rc;
}

void key_cache_stats(key_cache *kc, unsigned *count, unsigned long long *bytes)
{
    pthread_mutex_lock(&kc->mu);
    *bytes = cached_bytes(kc, count);
    pthread_mutex_unlock(&kc->mu);
}
