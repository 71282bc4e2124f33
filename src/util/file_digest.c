/* file_digest.h: the chunks are handed out by an atomic counter; each
 * thread reads its chunk with pread into its own buffer. */
#include "file_digest.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blake2b.h"
#include "error.h"

typedef struct digest_run {
    int fd;
    uint64_t size, n_chunks;
    uint64_t next;          /* the next chunk to hash (atomic) */
    unsigned char *digests; /* FILE_DIGEST_LEN per chunk */
    int failed_errno;       /* a read's errno, or EIO: the file got shorter */
    int failed;             /* atomic */
    const volatile int *stop;
} digest_run;

static void *hash_chunks(void *arg)
{
    digest_run *r = arg;
    unsigned char *buf = malloc(FILE_DIGEST_CHUNK);
    if (!buf) {
        if (!__atomic_exchange_n(&r->failed, 1, __ATOMIC_RELAXED))
            r->failed_errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        uint64_t k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
        if (k >= r->n_chunks || __atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            break;
        if (r->stop && *r->stop) {
            if (!__atomic_exchange_n(&r->failed, 1, __ATOMIC_RELAXED))
                r->failed_errno = ECANCELED;
            break;
        }
        uint64_t off = k * FILE_DIGEST_CHUNK;
        size_t len = r->size - off < FILE_DIGEST_CHUNK ? (size_t)(r->size - off) : FILE_DIGEST_CHUNK, got = 0;
        while (got < len) {
            ssize_t n = pread(r->fd, buf + got, len - got, (off_t)(off + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                int e = n < 0 ? errno : EIO;
                if (!__atomic_exchange_n(&r->failed, 1, __ATOMIC_RELAXED))
                    r->failed_errno = e;
                break;
            }
            got += (size_t)n;
        }
        if (got < len)
            break;
        blake2b_state h;
        blake2b_init(&h, FILE_DIGEST_LEN);
        blake2b_update(&h, buf, len);
        blake2b_final(&h, r->digests + k * FILE_DIGEST_LEN);
    }
    free(buf);
    return NULL;
}

int file_digest(const char *path, unsigned threads, const volatile int *stop, unsigned char out[FILE_DIGEST_LEN],
                uint64_t *size, cuzk_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read it: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    digest_run r = {.fd = fd, .size = (uint64_t)st.st_size, .stop = stop};
    r.n_chunks = (r.size + FILE_DIGEST_CHUNK - 1) / FILE_DIGEST_CHUNK;
    r.digests = malloc(r.n_chunks ? r.n_chunks * FILE_DIGEST_LEN : 1);
    if (!r.digests) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    if (threads < 1)
        threads = 1;
    if (threads > r.n_chunks)
        threads = r.n_chunks ? (unsigned)r.n_chunks : 1;
    pthread_t th[64];
    unsigned started = 0;
    if (threads > 64)
        threads = 64;
    for (; started + 1 < threads; started++) /* this thread is one of them */
        if (pthread_create(&th[started], NULL, hash_chunks, &r) != 0)
            break;
    hash_chunks(&r);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    int rc = CUZK_OK;
    if (r.failed)
        rc = cuzk_error_set(err,
                            r.failed_errno == ENOMEM      ? CUZK_ERR_NO_MEMORY
                            : r.failed_errno == ECANCELED ? CUZK_ERR_CANCELLED
                                                          : CUZK_ERR_IO,
                            "%s: %s", path,
                            r.failed_errno == EIO         ? "it got shorter while it was read"
                            : r.failed_errno == ECANCELED ? "stopped"
                                                          : strerror(r.failed_errno));
    else {
        static const char tag[] = "cuzk file digest 1";
        unsigned char len8[8];
        for (int i = 0; i < 8; i++)
            len8[i] = (unsigned char)(r.size >> (8 * i));
        blake2b_state h;
        blake2b_init(&h, FILE_DIGEST_LEN);
        blake2b_update(&h, tag, sizeof(tag) - 1);
        blake2b_update(&h, len8, 8);
        blake2b_update(&h, r.digests, r.n_chunks * FILE_DIGEST_LEN);
        blake2b_final(&h, out);
        *size = r.size;
    }
    free(r.digests);
    close(fd);
    return rc;
}
