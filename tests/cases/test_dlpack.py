"""DLPack exchange (src/python/dlpack.c): torch.utils.dlpack, Tensor.__dlpack__ /
__dlpack_device__, torch.from_dlpack, NumPy's from_dlpack in both directions (memory shared, not
copied), every dtype DLPack names, strides, consumed and dropped capsules, and the errors, compared
with upstream. Also Tensor.is_pinned (no accelerator: never pinned) and pin_memory (upstream's
errors for a build without an accelerator)."""
from harness import cases

SETUP = """
import gc
import numpy as np
from torch.utils.dlpack import to_dlpack, from_dlpack
t = torch.arange(12.).view(3, 4)
def msg(f):
    try:
        f()
        return None
    except Exception as e:
        return (type(e).__name__, str(e))
def shares(a, b):
    return a.data_ptr() == b.data_ptr()
"""

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
          "float8_e4m3fnuz", "float8_e5m2fnuz"]

cases("dlpack", {
    "capsule_names": "c = to_dlpack(t); c2 = t.__dlpack__(max_version=(1, 0)); u = from_dlpack(c2); (repr(c)[:26], repr(c2)[:36], repr(c2)[:41])",
    "roundtrip_view": "v = t[:, 1:3]; u = torch.from_dlpack(v); (u, u.stride(), u.storage_offset(), shares(u, v))",
    "roundtrip_transposed": "v = t.t(); u = from_dlpack(to_dlpack(v)); (u, u.stride(), shares(u, v))",
    "roundtrip_size1_stride": "v = torch.ones(1, 3)[:, ::2]; u = torch.from_dlpack(v); (u.stride(), np.from_dlpack(v).strides)",
    "scalar": "u = torch.from_dlpack(torch.tensor(3.5)); (u, u.shape)",
    "empty": "from_dlpack(to_dlpack(torch.ones(0, 3)))",
    "writes_shared": "u = torch.from_dlpack(t); u[0, 0] = 42; t[0, :2]",
    "device": "(t.__dlpack_device__(), torch._C._torchDeviceToDLDevice(torch.device('cpu')))",
    "from_numpy": "a = np.arange(6.).reshape(2, 3); x = torch.from_dlpack(a); x[0, 0] = 7; (x, float(a[0, 0]))",
    "from_numpy_strided": "a = np.arange(12, dtype=np.int32).reshape(3, 4)[::2, 1::2]; x = torch.from_dlpack(a); (x, x.stride())",
    "to_numpy": "n = np.from_dlpack(t.t()); (n.strides, n.dtype.str, n.tolist())",
    "to_numpy_bool": "np.from_dlpack(torch.tensor([True, False])).tolist()",
    "source_freed_first": "v = torch.arange(5); u = torch.from_dlpack(v); del v; gc.collect(); u + 1",
    "capsule_dropped": "c = to_dlpack(torch.arange(4)); del c; gc.collect(); 1",
    "copy": "c = torch._C._to_dlpack_versioned(t, copy=True); u = torch._C._from_dlpack(c); (u, shares(u, t))",
    "dtypes": "[(d, torch.from_dlpack(torch.empty(2, dtype=getattr(torch, d))).dtype) for d in %r]" % DTYPES,
    "complex32": "torch.from_dlpack(torch.zeros(2, dtype=torch.complex32)).dtype",
    "err_consumed": "c = to_dlpack(t); from_dlpack(c); from_dlpack(c)",
    "err_not_capsule": "torch._C._from_dlpack(1)",
    "err_meta": "torch.empty(2, device='meta').__dlpack__()",
    "err_requires_grad": "torch.from_dlpack(torch.ones(2, requires_grad=True))",
    "err_conj": "torch.from_dlpack(torch.randn(2, dtype=torch.cfloat).conj())",
    "is_pinned": "(t.is_pinned(), torch.empty(2, device='meta').is_pinned(), torch.ops.aten.is_pinned.default(t))",
    "pin_memory": "t.pin_memory()",
    "pin_memory_msg": "(msg(lambda: t.pin_memory()), msg(lambda: torch.ops.aten._pin_memory.default(t, torch.device('cpu'))))",
    "pin_memory_grad": "torch.ones(2, requires_grad=True).pin_memory()",
    "pin_memory_cpu": "t.pin_memory('cpu')",
    "pin_memory_aten": "torch.ops.aten.pin_memory.default(t)",
    "_pin_memory": "torch.ops.aten._pin_memory.default(t)",
    "_pin_memory_cpu": "torch.ops.aten._pin_memory.default(t, torch.device('cpu'))",
}, setup=SETUP)
