/* ops/pad.h — the non-constant padding modes shared by aten::pad (ops/modelops.c) and the
 * reflection_pad{1,2,3}d / replication_pad{1,2,3}d / _pad_circular operators (ops/pad.c).
 * Each helper validates exactly as the upstream operator of the same name does (messages and
 * exception types measured on torch 2.13.0) and returns a new tensor, or NULL with an exception. */
#ifndef TN_OPS_PAD_H
#define TN_OPS_PAD_H
#include <stdbool.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef enum { TN_PAD_REFLECT, TN_PAD_REPLICATE } tn_pad_mode;

/* reflection_pad<k>d / replication_pad<k>d (k = 1, 2, 3) of `self` by pad = (left_last,
 * right_last, left_prev, ...), npad values (must be 2k). `out` is the out= tensor or NULL;
 * with out the result is written there and a new reference to it is returned. */
PyObject *tn_pad_edge(PyObject *self, const int64_t *pad, int npad, int k, tn_pad_mode mode,
                      PyObject *out);

/* _pad_circular: wrap-around padding of the trailing npad/2 dims (1 or 2 leading dims unpadded);
 * negative amounts crop first, then the cropped extent wraps. */
PyObject *tn_pad_circular(PyObject *self, const int64_t *pad, int npad);
/* its checks alone (upstream's errors): the result sizes into osz; *empty_crop when no input
 * element is kept. 0, or -1 with an exception. */
int tn_pad_circular_check(PyObject *self, const int64_t *pad, int npad, int64_t *osz, bool *empty_crop);

/* upstream's suggest_memory_format for 4-d / 5-d strides: 2 = channels_last, 3 =
 * channels_last_3d, 0 = contiguous. */
struct tn_tensor;
int tn_suggest_format(const struct tn_tensor *t);

#endif
