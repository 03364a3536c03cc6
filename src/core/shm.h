/* shm.h — POSIX shared memory behind a storage, as torch.multiprocessing shares CPU tensors
 * (pure C, no Python). Two kinds, as upstream's two sharing strategies:
 *   fd        ("file_descriptor", Linux's default): shm_open'ed, unlinked at once, the open file
 *             descriptor kept; other processes receive the descriptor (SCM_RIGHTS, done by Python's
 *             multiprocessing) and map it. Nothing is left in /dev/shm.
 *   named     ("file_system"): a named object in /dev/shm whose first 64 bytes hold a reference
 *             count shared by every mapping (upstream's RefcountedMapAllocator layout); the last
 *             mapping to go unlinks it.
 * A storage backed by one has release == tn_shm_release and release_ctx a tn_shm. */
#ifndef TN_CORE_SHM_H
#define TN_CORE_SHM_H

#include <stdbool.h>
#include <stddef.h>

#define TN_SHM_HEADER 64   /* the reference count's slot before a named object's data */

typedef struct tn_shm {
    int fd;            /* fd kind: the kept descriptor; named: -1 */
    bool named;
    char *base;        /* the mapping (named: header first) */
    size_t map_size;
    char name[96];     /* named kind: the object's name ("/torch_<pid>_<rand>_<n>") */
} tn_shm;

/* Each returns the data pointer (NULL for 0 bytes) and sets *out; on failure returns NULL with
 * *out NULL and errno set. */
char *tn_shm_new_fd(size_t nbytes, tn_shm **out);
char *tn_shm_from_fd(int fd, size_t nbytes, tn_shm **out);      /* dup()s fd */
char *tn_shm_new_named(size_t nbytes, tn_shm **out);
char *tn_shm_open_named(const char *name, size_t nbytes, tn_shm **out);
/* The storage release callback: unmaps, closes; a named object's last mapping unlinks it. */
void tn_shm_release(void *ctx, char *data, size_t nbytes);
/* A named object's shared reference count (upstream's _shared_incref/_shared_decref); decref
 * unlinks the name when the count reaches zero. */
void tn_shm_incref(tn_shm *m);
void tn_shm_decref(tn_shm *m);

#endif
