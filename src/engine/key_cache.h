/* The engine's cache of loaded keys: keys named by an id (preloaded with
 * cuzk_engine_key_load, reloaded from its path when evicted) or by their
 * path, in two namespaces; counted in file bytes against a budget,
 * evicted least recently used among those no job holds; read again when
 * their file changed. A key leaving the cache leaves the GPU memory plan
 * too (its copies are freed with it). Thread-safe, with a lock of its own
 * under which no file is opened or freed. */
#ifndef CUZK_ENGINE_KEY_CACHE_H
#define CUZK_ENGINE_KEY_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../gpu/residency.h"
#include "../util/file.h"

typedef struct key_cache key_cache;
typedef struct key_entry key_entry; /* a cached key, held by a job from acquire to release */

/* budget: file bytes of cached keys (0: no limit); plan (may be NULL): the
 * plan the cache's keys are counted in. */
/* progress (may be NULL) hears each key read, as "reading key NAME". */
int key_cache_create(uint64_t budget, gpu_plan *plan, cuzk_progress_fn progress, void *progress_ctx, key_cache **out,
                     cuzk_error *err);
/* Frees every key; no entry may be held. */
void key_cache_destroy(key_cache *kc);

/* Keys that left the cache, to free (key_cache_free_evicted) once the
 * caller holds no lock: freeing a key waits for its GPU copies. */
typedef struct key_evicted {
    key_entry **keys;
    size_t n;
} key_evicted;

/* The key an id names (is_id; CUZK_ERR_NOT_FOUND unless loaded with
 * key_cache_load) or the key at a path, held: it stays until
 * key_cache_release. Read from its file when not cached, or when the file
 * changed since its copy was read (device, inode, size or times differ).
 * Copies that left the cache meanwhile are in *ev, to free. */
/* circuit: with a path, the .r1cs of a bellperson .params key at it
 * (cuzk_params_open; the same path with another circuit is another name);
 * NULL: a .zkey. A .params key is read again when either file changed. */
/* lim: with a path, the limits its key (and circuit) is read within
 * (src/util/file.h; kept: it must outlive the cache; other limits make
 * another name); NULL: anywhere. */
int key_cache_acquire(key_cache *kc, int is_id, const char *name, const char *circuit, const file_limits *lim,
                      key_entry **out, key_evicted *ev, cuzk_error *err);
/* The .params key at path read alone (supraseal-c2's SRS: no circuit;
 * params_srs_open), held, as key_cache_acquire holds a key: its own name
 * beside the path's other forms, read again when its file changed. */
int key_cache_acquire_srs(key_cache *kc, const char *path, key_entry **out, key_evicted *ev, cuzk_error *err);
/* The same, read for the caller alone (supraseal-c2's create_SRS without
 * its cache): no name finds it; freed at its last release. */
int key_cache_load_srs_private(key_cache *kc, const char *path, key_entry **out, cuzk_error *err);
/* One more hold on a held copy (released as often as held). */
void key_cache_hold(key_cache *kc, key_entry *k);
/* A held copy stops being its name's current one: the next acquire reads
 * the file again; this copy is freed when its last holder releases it
 * (supraseal-c2's evict_SRS). *ev: copies to free. */
void key_cache_retire(key_cache *kc, key_entry *k, key_evicted *ev);
/* Copies no job holds that the cache keeps (least recently used go
 * first), beside the byte budget; 0: no limit. */
void key_cache_set_idle_max(key_cache *kc, unsigned n);
const struct cuzk_zkey *key_entry_zkey(const key_entry *k);
/* A held key's verification key JSON (cuzk_zkey_export_vk), made once per
 * copy: a malloc'd copy in *copy. */
int key_entry_vk(key_cache *kc, key_entry *k, char **copy, cuzk_error *err);

/* Lets go of a held key (NULL: none); keys over the budget leave the cache
 * at once (the stats no longer count them) into *out. */
void key_cache_release(key_cache *kc, key_entry *k, key_evicted *out);
void key_cache_free_evicted(key_cache *kc, key_evicted *ev);

/* cuzk_engine_key_load: loads the key under an id, or replaces the id's key
 * (jobs running with the old one keep it to their end; a failed load
 * leaves the id's key as it was). */
int key_cache_load(key_cache *kc, const char *id, const char *path, const char *circuit, cuzk_error *err);
/* cuzk_engine_key_evict: drops a cached key, by id (looked up first) or
 * path, unless a job holds it (CUZK_ERR_BUSY). */
int key_cache_evict(key_cache *kc, const char *name, cuzk_error *err);
/* Whether an id was loaded (it may be evicted now: a job reloads it). */
int key_cache_known(key_cache *kc, const char *name);
/* The files an id's key is read from: malloc'd copies (circuit NULL for a
 * .zkey). CUZK_ERR_NOT_FOUND when the id was never loaded. */
int key_cache_files(key_cache *kc, const char *id, char **path, char **circuit);
/* Keys loaded now and their file bytes. */
void key_cache_stats(key_cache *kc, unsigned *count, unsigned long long *bytes);

#endif
