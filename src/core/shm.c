/* shm.c — POSIX shared memory for shared storages (see shm.h). */
#include "core/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_uint counter;

/* A process-unique name, as upstream's NewProcessWideShmHandle: /torch_<pid>_<random>_<n>. */
static void new_name(char *buf, size_t n) {
    static unsigned seed;
    if (!seed) seed = (unsigned)time(NULL) ^ (unsigned)getpid() ^ (unsigned)(uintptr_t)&seed;
    unsigned r = (unsigned)rand_r(&seed);
    snprintf(buf, n, "/torch_%d_%u_%u", (int)getpid(), r, atomic_fetch_add(&counter, 1));
}

static tn_shm *wrap(int fd, bool named, char *base, size_t map_size, const char *name) {
    tn_shm *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->fd = fd;
    m->named = named;
    m->base = base;
    m->map_size = map_size;
    if (name) snprintf(m->name, sizeof m->name, "%s", name);
    return m;
}

static char *map_fd(int fd, size_t size) {
    if (!size) return NULL;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

char *tn_shm_new_fd(size_t nbytes, tn_shm **out) {
    char name[96];
    *out = NULL;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        new_name(name, sizeof name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST) return NULL;
    }
    if (fd < 0) return NULL;
    shm_unlink(name);
    if (ftruncate(fd, (off_t)nbytes) < 0) { int e = errno; close(fd); errno = e; return NULL; }
    char *p = map_fd(fd, nbytes);
    if (nbytes && !p) { int e = errno; close(fd); errno = e; return NULL; }
    *out = wrap(fd, false, p, nbytes, NULL);
    if (!*out) { if (p) munmap(p, nbytes); close(fd); errno = ENOMEM; return NULL; }
    return p;
}

char *tn_shm_from_fd(int fd, size_t nbytes, tn_shm **out) {
    *out = NULL;
    struct stat st;
    if (fstat(fd, &st) < 0) return NULL;
    if ((size_t)st.st_size < nbytes) { errno = EINVAL; return NULL; }
    int own = dup(fd);
    if (own < 0) return NULL;
    char *p = map_fd(own, nbytes);
    if (nbytes && !p) { int e = errno; close(own); errno = e; return NULL; }
    *out = wrap(own, false, p, nbytes, NULL);
    if (!*out) { if (p) munmap(p, nbytes); close(own); errno = ENOMEM; return NULL; }
    return p;
}

static _Atomic int *refcount(tn_shm *m) { return (_Atomic int *)m->base; }

char *tn_shm_new_named(size_t nbytes, tn_shm **out) {
    char name[96];
    *out = NULL;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        new_name(name, sizeof name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST) return NULL;
    }
    if (fd < 0) return NULL;
    size_t size = nbytes + TN_SHM_HEADER;
    char *p = NULL;
    if (ftruncate(fd, (off_t)size) < 0 || !(p = map_fd(fd, size))) {
        int e = errno; close(fd); shm_unlink(name); errno = e; return NULL;
    }
    close(fd);
    *out = wrap(-1, true, p, size, name);
    if (!*out) { munmap(p, size); shm_unlink(name); errno = ENOMEM; return NULL; }
    atomic_store(refcount(*out), 1);
    return p + TN_SHM_HEADER;
}

char *tn_shm_open_named(const char *name, size_t nbytes, tn_shm **out) {
    *out = NULL;
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) return NULL;
    size_t size = nbytes + TN_SHM_HEADER;
    struct stat st;
    char *p = NULL;
    if (fstat(fd, &st) < 0) { int e = errno; close(fd); errno = e; return NULL; }
    if ((size_t)st.st_size < size) { close(fd); errno = EINVAL; return NULL; }
    p = map_fd(fd, size);
    int e = errno;
    close(fd);
    if (!p) { errno = e; return NULL; }
    *out = wrap(-1, true, p, size, name);
    if (!*out) { munmap(p, size); errno = ENOMEM; return NULL; }
    atomic_fetch_add(refcount(*out), 1);
    return p + TN_SHM_HEADER;
}

void tn_shm_incref(tn_shm *m) {
    if (m && m->named) atomic_fetch_add(refcount(m), 1);
}

void tn_shm_decref(tn_shm *m) {
    if (m && m->named && atomic_fetch_sub(refcount(m), 1) == 1) shm_unlink(m->name);
}

void tn_shm_release(void *ctx, char *data, size_t nbytes) {
    tn_shm *m = ctx;
    (void)data; (void)nbytes;
    if (!m) return;
    if (m->named) tn_shm_decref(m);
    if (m->base) munmap(m->base, m->map_size);
    if (m->fd >= 0) close(m->fd);
    free(m);
}
