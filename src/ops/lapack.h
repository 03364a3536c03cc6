/* ops/lapack.h — LAPACK (and the few BLAS routines linalg needs) loaded at run time.
 *
 * torchnative links no LAPACK: the first torch.linalg call dlopens one (docs/linalg.md): the
 * library named by TN_LAPACK, else the scipy-openblas32 wheel's OpenBLAS (installed by
 * `make setup`), else the system's liblapack.so.3. Symbols are looked up as `scipy_<name>_`
 * (the wheel's prefix) then `<name>_` (the Fortran ABI), LP64 (32-bit integers). Without any,
 * the op refuses by name. One table per real precision; the routines take `void *` matrices so
 * one struct type serves both. Character arguments carry their hidden Fortran lengths. */
#ifndef TN_OPS_LAPACK_H
#define TN_OPS_LAPACK_H

#include <stddef.h>

#include "core/dtype.h"

typedef int tn_la_int;
typedef size_t tn_flen;   /* gfortran's hidden character-length argument */

typedef struct {
    void (*getrf)(const tn_la_int *m, const tn_la_int *n, void *a, const tn_la_int *lda, tn_la_int *ipiv, tn_la_int *info);
    void (*getrs)(const char *tr, const tn_la_int *n, const tn_la_int *nrhs, const void *a, const tn_la_int *lda,
                  const tn_la_int *ipiv, void *b, const tn_la_int *ldb, tn_la_int *info, tn_flen);
    void (*potrf)(const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, tn_la_int *info, tn_flen);
    void (*potrs)(const char *uplo, const tn_la_int *n, const tn_la_int *nrhs, const void *a, const tn_la_int *lda,
                  void *b, const tn_la_int *ldb, tn_la_int *info, tn_flen);
    void (*potri)(const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, tn_la_int *info, tn_flen);
    void (*geqrf)(const tn_la_int *m, const tn_la_int *n, void *a, const tn_la_int *lda, void *tau, void *work,
                  const tn_la_int *lwork, tn_la_int *info);
    void (*orgqr)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *k, void *a, const tn_la_int *lda,
                  const void *tau, void *work, const tn_la_int *lwork, tn_la_int *info);
    void (*gesdd)(const char *jobz, const tn_la_int *m, const tn_la_int *n, void *a, const tn_la_int *lda, void *s,
                  void *u, const tn_la_int *ldu, void *vt, const tn_la_int *ldvt, void *work, const tn_la_int *lwork,
                  tn_la_int *iwork, tn_la_int *info, tn_flen);
    void (*syevd)(const char *jobz, const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, void *w,
                  void *work, const tn_la_int *lwork, tn_la_int *iwork, const tn_la_int *liwork, tn_la_int *info,
                  tn_flen, tn_flen);
    void (*geev)(const char *jobvl, const char *jobvr, const tn_la_int *n, void *a, const tn_la_int *lda, void *wr,
                 void *wi, void *vl, const tn_la_int *ldvl, void *vr, const tn_la_int *ldvr, void *work,
                 const tn_la_int *lwork, tn_la_int *info, tn_flen, tn_flen);
    void (*gelsy)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                  void *b, const tn_la_int *ldb, tn_la_int *jpvt, const void *rcond, tn_la_int *rank, void *work,
                  const tn_la_int *lwork, tn_la_int *info);
    /* BLAS level 3: B := alpha op(A)^-1 B or B op(A)^-1 */
    void (*trsm)(const char *side, const char *uplo, const char *transa, const char *diag, const tn_la_int *m,
                 const tn_la_int *n, const void *alpha, const void *a, const tn_la_int *lda, void *b,
                 const tn_la_int *ldb, tn_flen, tn_flen, tn_flen, tn_flen);
    /* complex tables only (NULL in the real ones): the routines whose argument lists take a real
     * workspace (rwork) besides the complex one; s / w are real arrays, geev's w complex */
    void (*cgesdd)(const char *jobz, const tn_la_int *m, const tn_la_int *n, void *a, const tn_la_int *lda, void *s,
                   void *u, const tn_la_int *ldu, void *vt, const tn_la_int *ldvt, void *work, const tn_la_int *lwork,
                   void *rwork, tn_la_int *iwork, tn_la_int *info, tn_flen);
    void (*heevd)(const char *jobz, const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, void *w,
                  void *work, const tn_la_int *lwork, void *rwork, const tn_la_int *lrwork, tn_la_int *iwork,
                  const tn_la_int *liwork, tn_la_int *info, tn_flen, tn_flen);
    void (*cgeev)(const char *jobvl, const char *jobvr, const tn_la_int *n, void *a, const tn_la_int *lda, void *w,
                  void *vl, const tn_la_int *ldvl, void *vr, const tn_la_int *ldvr, void *work, const tn_la_int *lwork,
                  void *rwork, tn_la_int *info, tn_flen, tn_flen);
    /* least squares drivers besides gelsy: gels (both tables), gelsd / gelss (real tables only:
     * their complex argument lists add rwork) */
    void (*gels)(const char *trans, const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a,
                 const tn_la_int *lda, void *b, const tn_la_int *ldb, void *work, const tn_la_int *lwork,
                 tn_la_int *info, tn_flen);
    void (*gelsd)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                  void *b, const tn_la_int *ldb, void *s, const void *rcond, tn_la_int *rank, void *work,
                  const tn_la_int *lwork, tn_la_int *iwork, tn_la_int *info);
    void (*gelss)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                  void *b, const tn_la_int *ldb, void *s, const void *rcond, tn_la_int *rank, void *work,
                  const tn_la_int *lwork, tn_la_int *info);
    /* LDL^T (symmetric, both tables) and LDL^H (hermitian, complex tables only) */
    void (*sytrf)(const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, tn_la_int *ipiv, void *work,
                  const tn_la_int *lwork, tn_la_int *info, tn_flen);
    void (*sytrs)(const char *uplo, const tn_la_int *n, const tn_la_int *nrhs, const void *a, const tn_la_int *lda,
                  const tn_la_int *ipiv, void *b, const tn_la_int *ldb, tn_la_int *info, tn_flen);
    void (*hetrf)(const char *uplo, const tn_la_int *n, void *a, const tn_la_int *lda, tn_la_int *ipiv, void *work,
                  const tn_la_int *lwork, tn_la_int *info, tn_flen);
    void (*hetrs)(const char *uplo, const tn_la_int *n, const tn_la_int *nrhs, const void *a, const tn_la_int *lda,
                  const tn_la_int *ipiv, void *b, const tn_la_int *ldb, tn_la_int *info, tn_flen);
    /* C := op(Q) C or C op(Q), Q from geqrf's reflectors: ormqr (real), unmqr (complex) */
    void (*ormqr)(const char *side, const char *trans, const tn_la_int *m, const tn_la_int *n, const tn_la_int *k,
                  const void *a, const tn_la_int *lda, const void *tau, void *c, const tn_la_int *ldc, void *work,
                  const tn_la_int *lwork, tn_la_int *info, tn_flen, tn_flen);
    /* complex gelsy (complex tables only): gelsy's arguments plus a real workspace of 2n */
    void (*cgelsy)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                   void *b, const tn_la_int *ldb, tn_la_int *jpvt, const void *rcond, tn_la_int *rank, void *work,
                   const tn_la_int *lwork, void *rwork, tn_la_int *info);
    /* complex gelsd / gelss (complex tables only): real workspaces added */
    void (*cgelsd)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                   void *b, const tn_la_int *ldb, void *s, const void *rcond, tn_la_int *rank, void *work,
                   const tn_la_int *lwork, void *rwork, tn_la_int *iwork, tn_la_int *info);
    void (*cgelss)(const tn_la_int *m, const tn_la_int *n, const tn_la_int *nrhs, void *a, const tn_la_int *lda,
                   void *b, const tn_la_int *ldb, void *s, const void *rcond, tn_la_int *rank, void *work,
                   const tn_la_int *lwork, void *rwork, tn_la_int *info);
} tn_lapack_fns;

/* The table for float (single = 1) or double (single = 0), loading the library on first use;
 * NULL with NotImplementedError naming `op` when no LAPACK can be loaded. Needs the GIL. */
const tn_lapack_fns *tn_lapack(int single, const char *op);
/* The table for a dtype: float32, float64, complex64, complex128 (the complex tables have NULL
 * where the routine's argument list differs from the real one: gesdd, syevd, geev, gelsy). */
const tn_lapack_fns *tn_lapack_dt(tn_dtype dt, const char *op);
/* The path of the library loaded (NULL before the first load or when none). */
const char *tn_lapack_path(void);

#endif
