/* filestore.c — FileStore in upstream torch 2.13.0's file format, so torchnative and upstream
 * processes can share one file.
 *
 * The file is an append-only log of records, each a u32 length + key bytes and a u32 length +
 * value bytes (little-endian). User keys carry the prefix "/"; a deletion is a record whose key
 * is "-" + the deleted key with an empty value; counters are decimal strings. Construction adds
 * 1 to "refcount/"; destruction adds 1 to "cleanup/" and -1 to "refcount/", and the last of
 * num_workers stores removes the file. Writers hold flock(LOCK_EX), readers LOCK_SH; each process
 * caches the log up to the offset it has read. Lengths read from the file are checked against
 * the file's size (another process may have written anything). */
#include "distributed/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    tn_store base;
    pthread_mutex_t mu;
    char *path;
    int num_workers;
    off_t pos;
    tn_kv *cache;
} file_store;
#define FS(s) ((file_store *)(s))

/* upstream raises DistStoreError with the system's message alone */
static int sys_err(tn_derr *e, const char *what, const char *path) {
    tn_derr_set(e, TN_DERR_STORE, "%s", strerror(errno));
    return -1;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* open, retrying while the file does not exist yet (another rank creates it) */
static int open_file(file_store *f, int flags, tn_derr *e) {
    int64_t start = tn_now_ms();
    for (;;) {
        int fd = open(f->path, flags | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
        if (errno == EINTR) continue;
        if (errno != ENOENT || (f->base.timeout_ms > 0 && tn_now_ms() - start > f->base.timeout_ms))
            return sys_err(e, "open", f->path);
        sleep_ms(10);
    }
}

static int lock_fd(int fd, int op) {
    while (flock(fd, op) < 0)
        if (errno != EINTR) return -1;
    return 0;
}

static int write_all(int fd, const void *p, size_t n) {
    const uint8_t *q = p;
    while (n) {
        ssize_t w = write(fd, q, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        q += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n) {
    uint8_t *q = p;
    while (n) {
        ssize_t r = read(fd, q, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        q += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_record(int fd, tn_bv k, tn_bv v) {
    uint8_t l[4];
    if (k.n > UINT32_MAX || v.n > UINT32_MAX) return -1;
    if (lseek(fd, 0, SEEK_END) < 0) return -1;
    uint32_t kn = (uint32_t)k.n, vn = (uint32_t)v.n;
    l[0] = (uint8_t)kn; l[1] = (uint8_t)(kn >> 8); l[2] = (uint8_t)(kn >> 16); l[3] = (uint8_t)(kn >> 24);
    if (write_all(fd, l, 4) < 0 || write_all(fd, k.p, k.n) < 0) return -1;
    l[0] = (uint8_t)vn; l[1] = (uint8_t)(vn >> 8); l[2] = (uint8_t)(vn >> 16); l[3] = (uint8_t)(vn >> 24);
    if (write_all(fd, l, 4) < 0 || write_all(fd, v.p, v.n) < 0) return -1;
    return 0;
}

static int read_len(int fd, off_t at, off_t size, uint32_t *n) {
    uint8_t l[4];
    if (size - at < 4 || read_all(fd, l, 4) < 0) return -1;
    *n = (uint32_t)l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 | (uint32_t)l[3] << 24;
    if ((off_t)*n > size - at - 4) return -1;
    return 0;
}

/* read the records past f->pos into the cache; lock held */
static int refresh(file_store *f, int fd, tn_derr *e) {
    struct stat st;
    if (fstat(fd, &st) < 0) return sys_err(e, "fstat", f->path);
    off_t size = st.st_size;
    if (size == f->pos) return 0;
    if (size < f->pos || lseek(fd, f->pos, SEEK_SET) < 0) {
        tn_derr_set(e, TN_DERR_RUNTIME, "FileStore %s: the file shrank under us", f->path);
        return -1;
    }
    off_t at = f->pos;
    while (at < size) {
        uint32_t kn, vn;
        tn_buf k = {NULL, 0}, v = {NULL, 0};
        int bad = read_len(fd, at, size, &kn) < 0;
        if (!bad) {
            k.p = malloc(kn ? kn : 1);
            k.n = kn;
            bad = !k.p || read_all(fd, k.p, kn) < 0;
        }
        off_t vat = at + 4 + (off_t)kn;
        if (!bad) bad = read_len(fd, vat, size, &vn) < 0;
        if (!bad) {
            v.p = malloc(vn ? vn : 1);
            v.n = vn;
            bad = !v.p || read_all(fd, v.p, vn) < 0;
        }
        if (bad) {
            tn_buf_free(&k);
            tn_buf_free(&v);
            tn_derr_set(e, TN_DERR_RUNTIME, "FileStore %s: a malformed record at offset %lld", f->path, (long long)at);
            return -1;
        }
        if (k.n >= 1 && k.p[0] == '-') tn_kv_del(f->cache, (tn_bv){k.p + 1, k.n - 1});
        else if (tn_kv_set_owned(f->cache, tn_bv_of(&k), &v) < 0) {
            tn_buf_free(&k);
            tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
            return -1;
        }
        tn_buf_free(&k);
        tn_buf_free(&v);
        at = vat + 4 + (off_t)vn;
        f->pos = at;
    }
    return 0;
}

static int reg_key(tn_bv k, tn_buf *out) {
    out->n = k.n + 1;
    out->p = malloc(out->n);
    if (!out->p) return -1;
    out->p[0] = '/';
    if (k.n) memcpy(out->p + 1, k.p, k.n);
    return 0;
}

static int oom(tn_derr *e) {
    tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
    return -1;
}

/* run body with the file open and locked; `fd` and `rc` in scope */
#define WITH_FILE(flags, lockop, ...)                           \
    file_store *f = FS(s);                                      \
    pthread_mutex_lock(&f->mu);                                 \
    int rc = 0;                                                 \
    int fd = open_file(f, flags, e);                            \
    if (fd < 0) rc = -1;                                        \
    else if (lock_fd(fd, lockop) < 0) rc = sys_err(e, "flock", f->path); \
    else { __VA_ARGS__ }                                               \
    if (fd >= 0) close(fd);                                     \
    pthread_mutex_unlock(&f->mu);

static int fs_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    tn_buf rk;
    if (reg_key(k, &rk) < 0) return oom(e);
    WITH_FILE(O_RDWR | O_CREAT, LOCK_EX, {
        if (write_record(fd, tn_bv_of(&rk), v) < 0) rc = sys_err(e, "write", f->path);
    })
    tn_buf_free(&rk);
    return rc;
}

static int add_helper(tn_store *s, tn_bv key, int64_t d, int64_t *o, tn_derr *e) {
    WITH_FILE(O_RDWR | O_CREAT, LOCK_EX, {
        rc = refresh(f, fd, e);
        if (rc == 0) {
            const tn_buf *cur = tn_kv_get(f->cache, key);
            int64_t v = 0;
            if (cur && cur->n && tn_store_parse_i64(cur->p, cur->n, &v) < 0) {
                tn_derr_set(e, TN_DERR_VALUE, "stoll");
                rc = -1;
            } else {
                char t[32];
                v = (int64_t)((uint64_t)v + (uint64_t)d);
                int tn = snprintf(t, sizeof t, "%lld", (long long)v);
                if (write_record(fd, key, (tn_bv){(const uint8_t *)t, (size_t)tn}) < 0) rc = sys_err(e, "write", f->path);
                *o = v;
            }
        }
    })
    return rc;
}

static int fs_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) {
    tn_buf rk;
    if (reg_key(k, &rk) < 0) return oom(e);
    int rc = add_helper(s, tn_bv_of(&rk), d, o, e);
    tn_buf_free(&rk);
    return rc;
}

static int fs_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    tn_buf rk;
    if (reg_key(k, &rk) < 0) return oom(e);
    WITH_FILE(O_RDWR | O_CREAT, LOCK_EX, {
        rc = refresh(f, fd, e);
        if (rc == 0) {
            const tn_buf *cur = tn_kv_get(f->cache, tn_bv_of(&rk));
            if ((!cur && x.n == 0) || (cur && cur->n == x.n && (x.n == 0 || memcmp(cur->p, x.p, x.n) == 0))) {
                if (write_record(fd, tn_bv_of(&rk), d) < 0) rc = sys_err(e, "write", f->path);
                else if (tn_buf_dup(o, d.p, d.n) < 0) rc = oom(e);
            } else if (!cur) {
                if (tn_buf_dup(o, x.p, x.n) < 0) rc = oom(e);
            } else if (tn_buf_dup(o, cur->p, cur->n) < 0) {
                rc = oom(e);
            }
        }
    })
    tn_buf_free(&rk);
    return rc;
}

/* are all keys in the file? (1 yes, 0 no, -1 error) */
static int check_keys(tn_store *s, const tn_bv *k, size_t n, tn_derr *e) {
    int all = 1;
    WITH_FILE(O_RDONLY, LOCK_SH, {
        rc = refresh(f, fd, e);
        for (size_t i = 0; rc == 0 && i < n && all; i++) {
            tn_buf rk;
            if (reg_key(k[i], &rk) < 0) {
                rc = oom(e);
                break;
            }
            if (!tn_kv_get(f->cache, tn_bv_of(&rk))) all = 0;
            tn_buf_free(&rk);
        }
    })
    return rc < 0 ? -1 : all;
}

static int fs_check(tn_store *s, const tn_bv *k, size_t n, int *r, tn_derr *e) {
    int c = check_keys(s, k, n, e);
    if (c < 0) return -1;
    *r = c;
    return 0;
}

static int fs_wait(tn_store *s, const tn_bv *k, size_t n, int64_t to, tn_derr *e) {
    int64_t start = tn_now_ms();
    for (;;) {
        int c = check_keys(s, k, n, e);
        if (c < 0) return -1;
        if (c) return 0;
        if (to > 0 && tn_now_ms() - start > to) {
            tn_derr_set(e, TN_DERR_RUNTIME, "Wait timeout");
            return -1;
        }
        sleep_ms(10);
    }
}

static int fs_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) {
    int64_t start = tn_now_ms();
    tn_buf rk;
    if (reg_key(k, &rk) < 0) return oom(e);
    for (;;) {
        int found = 0;
        WITH_FILE(O_RDONLY, LOCK_SH, {
            rc = refresh(f, fd, e);
            const tn_buf *cur = rc == 0 ? tn_kv_get(f->cache, tn_bv_of(&rk)) : NULL;
            if (cur) {
                found = 1;
                if (tn_buf_dup(o, cur->p, cur->n) < 0) rc = oom(e);
            }
        })
        if (rc < 0 || found) {
            tn_buf_free(&rk);
            return rc;
        }
        if (s->timeout_ms > 0 && tn_now_ms() - start > s->timeout_ms) {
            tn_derr_set(e, TN_DERR_RUNTIME, "Timeout waiting for key: %.*s after %lld ms", (int)(k.n > 200 ? 200 : k.n),
                        (const char *)k.p, (long long)s->timeout_ms);
            tn_buf_free(&rk);
            return -1;
        }
        sleep_ms(10);
    }
}

static int fs_delete(tn_store *s, tn_bv k, int *d, tn_derr *e) {
    tn_buf dk;
    dk.n = k.n + 2;
    dk.p = malloc(dk.n);
    if (!dk.p) return oom(e);
    dk.p[0] = '-';
    dk.p[1] = '/';
    if (k.n) memcpy(dk.p + 2, k.p, k.n);
    WITH_FILE(O_RDWR, LOCK_EX, {
        if (write_record(fd, tn_bv_of(&dk), (tn_bv){NULL, 0}) < 0) rc = sys_err(e, "write", f->path);
    })
    tn_buf_free(&dk);
    *d = rc == 0;
    return rc;
}

static int fs_num_keys(tn_store *s, int64_t *o, tn_derr *e) {
    WITH_FILE(O_RDONLY, LOCK_SH, {
        rc = refresh(f, fd, e);
        *o = (int64_t)tn_kv_count(f->cache);
    })
    return rc;
}

/* upstream's FileStore lists every cached key with its first character dropped */
static int fs_list_keys(tn_store *s, tn_buf **keys, size_t *n, tn_derr *e) {
    *keys = NULL;
    *n = 0;
    WITH_FILE(O_RDONLY, LOCK_SH, {
        rc = refresh(f, fd, e);
        if (rc == 0 && tn_kv_keys(f->cache, keys, n) < 0) rc = oom(e);
        for (size_t i = 0; rc == 0 && i < *n; i++)
            if ((*keys)[i].n) {
                memmove((*keys)[i].p, (*keys)[i].p + 1, (*keys)[i].n - 1);
                (*keys)[i].n--;
            }
    })
    return rc;
}

static int no_queue(tn_derr *e) {
    tn_derr_set(e, TN_DERR_NOTIMPL, "queue support is not implemented.");
    return -1;
}
static int fs_queue_push(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) { return no_queue(e); }
static int fs_queue_pop(tn_store *s, tn_bv k, int b, tn_buf *o, tn_derr *e) { return no_queue(e); }
static int fs_queue_len(tn_store *s, tn_bv k, int64_t *o, tn_derr *e) { return no_queue(e); }

static void fs_destroy(tn_store *s) {
    file_store *f = FS(s);
    if (access(f->path, F_OK) == 0) {
        tn_derr e;
        int64_t finished = 0, refs = 1;
        if (add_helper(s, (tn_bv){(const uint8_t *)"cleanup/", 8}, 1, &finished, &e) == 0 &&
            add_helper(s, (tn_bv){(const uint8_t *)"refcount/", 9}, -1, &refs, &e) == 0 && refs == 0 &&
            f->num_workers >= 0 && finished >= f->num_workers)
            remove(f->path);
    }
    tn_kv_free(f->cache);
    pthread_mutex_destroy(&f->mu);
    free(f->path);
    free(f);
}

static tn_store *fs_clone(tn_store *s, tn_derr *e) { return tn_file_store_new(FS(s)->path, FS(s)->num_workers, e); }

static const tn_store_vt file_vt = {
    "FileStore", fs_set, fs_get, fs_add, fs_compare_set, fs_check, fs_wait, fs_delete, fs_num_keys,
    NULL, NULL, NULL, fs_queue_push, fs_queue_pop, fs_queue_len, fs_list_keys, NULL, fs_clone, fs_destroy, 0,
};

tn_store *tn_file_store_new(const char *path, int num_workers, tn_derr *e) {
    file_store *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->cache = tn_kv_new())) {
        if (f) free(f->path);
        free(f);
        tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
        return NULL;
    }
    f->num_workers = num_workers;
    pthread_mutex_init(&f->mu, NULL);
    tn_store_init(&f->base, &file_vt, 300000);
    int64_t refs;
    if (add_helper(&f->base, (tn_bv){(const uint8_t *)"refcount/", 9}, 1, &refs, e) < 0) {
        tn_kv_free(f->cache);
        pthread_mutex_destroy(&f->mu);
        free(f->path);
        free(f);
        return NULL;
    }
    return &f->base;
}

const char *tn_file_store_path(tn_store *s) { return s->vt == &file_vt ? FS(s)->path : NULL; }
