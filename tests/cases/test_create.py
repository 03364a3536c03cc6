"""Creation ops against upstream: empty/zeros/ones/full, arange, linspace, eye, the *_like and
new_* families, torch.tensor / as_tensor / asarray / from_numpy / frombuffer (src/ops/create.c,
src/python/tensor_new.c)."""
from harness import case, cases

cases("zeros_ones", [
    "torch.zeros(2, 3)",
    "torch.zeros((2, 3))",
    "torch.zeros([2, 3], dtype=torch.int32)",
    "torch.zeros(torch.Size([4]))",
    "torch.zeros(())",
    "torch.zeros(0, 3)",
    "torch.zeros(2, dtype=torch.bool)",
    "torch.zeros(2, 2, dtype=torch.bfloat16)",
    "torch.zeros(2, dtype=torch.complex64)",
    "torch.ones(3, dtype=torch.float16)",
    "torch.ones(2, 3, dtype=torch.int8)",
    "torch.ones(2, dtype=torch.uint8)",
    "torch.ones(2, dtype=torch.float64, layout=torch.strided, device='cpu', pin_memory=False)",
    "torch.ones(2, 3, out=torch.empty(0, dtype=torch.int8))",
    "torch.zeros(3, out=torch.empty(2, 2))",
    "torch.ops.aten.zeros.default([2, 2])",
    "torch.ops.aten.ones.default([3], dtype=torch.float64)",
    "torch.zeros(2, 3, requires_grad=True)",
    "torch.ones(2, requires_grad=True).requires_grad",
], strides=True)

cases("zeros_ones_errors", [
    "torch.zeros(-1)",
    "torch.zeros(2, -3)",
    "torch.ones(-1)",
    "torch.zeros(2.5)",
    "torch.zeros('a')",
    "torch.zeros()",
    "torch.zeros(2, pin_memory=True)",
    "torch.zeros(2, dtype=torch.int64, requires_grad=True)",
])

cases("empty", [
    "torch.empty(2, 3)",
    "torch.empty((2, 3), dtype=torch.int16)",
    "torch.empty(0)",
    "torch.empty(1, 2, 3, 4, memory_format=torch.channels_last)",
    "torch.empty_strided((2, 3), (1, 2))",
    "torch.empty_strided((2, 3), (0, 1), dtype=torch.float64)",
    "torch.empty(2, 3, device='meta')",
    "torch.zeros(2, 3, dtype=torch.int8, device='meta')",
    "torch.empty_like(torch.ones(2, 3).t())",
    "torch.empty_like(torch.ones(2, 3)[:, ::2])",
    "torch.empty_like(torch.ones(2, 3).expand(4, 2, 3))",
    "torch.empty_like(torch.ones(1, 2, 3, 4), memory_format=torch.channels_last)",
    "torch.empty_like(torch.ones(1, 2, 3, 4).permute(0, 2, 3, 1))",
    "torch.empty_like(torch.ones(1, 3, 3, 4)[:, :, ::2].permute(0, 2, 3, 1))",
    "torch.ones(2, dtype=torch.int8).new_empty((2, 3))",
    "torch.ones(2).new_empty_strided((2, 2), (1, 2))",
], values=False, strides=True)

cases("empty_errors", [
    "torch.empty(-2)",
    "torch.empty(2, -2, 3)",
    "torch.empty_strided((2, 3), (1,))",
    "torch.empty_strided((2, 3), (-1, 2))",
    "torch.empty_like(torch.ones(2), memory_format=torch.channels_last)",
    "torch.ones(2).new_zeros(-1)",
])

cases("full", [
    "torch.full((2, 3), 7)",
    "torch.full((2,), 1.5)",
    "torch.full((2,), True)",
    "torch.full((2,), 1.5j)",
    "torch.full((2, 2), 7, dtype=torch.int8)",
    "torch.full((2,), -1, dtype=torch.uint8)",
    "torch.full((2,), -255, dtype=torch.uint8)",
    "torch.full((3,), 2.7, dtype=torch.int32)",
    "torch.full((2,), 0.1, dtype=torch.float16)",
    "torch.full((2,), 0.1, dtype=torch.bfloat16)",
    "torch.full((2,), float('inf'), dtype=torch.float16)",
    "torch.full((2,), float('nan'))",
    "torch.full((2,), 5, dtype=torch.bool)",
    "torch.full((2,), 1j, dtype=torch.bool)",
    "torch.full((), 3.5)",
    "torch.full((2,), 1.5, out=torch.empty(0, dtype=torch.int8))",
    "torch.full_like(torch.ones(2, dtype=torch.int32), 2.5)",
    "torch.full_like(torch.ones(2, 3).t(), 4.0)",
    "torch.ones(2).new_full((2,), 3)",
    "torch.ones(2, dtype=torch.int8).new_ones(2, 2)",
    "torch.ones(2).new_zeros(3, dtype=torch.float64)",
    "torch.zeros_like(torch.ones(2, 3).t())",
    "torch.ones_like(torch.ones(2), dtype=torch.int8)",
    "torch.ones_like(torch.ones(2, 3), requires_grad=True)",
    "torch.scalar_tensor(3)",
    "torch.scalar_tensor(True)",
    "torch.scalar_tensor(3, dtype=torch.int8)",
], strides=True)

cases("full_errors", [
    "torch.full((2,), 300, dtype=torch.uint8)",
    "torch.full((2,), -256, dtype=torch.uint8)",
    "torch.full((2,), 2**40, dtype=torch.int32)",
    "torch.full((2,), 200, dtype=torch.int8)",
    "torch.full((2,), 1e300, dtype=torch.float32)",
    "torch.full((2,), 70000, dtype=torch.float16)",
    "torch.full((2,), float('nan'), dtype=torch.int32)",
    "torch.full((2,), 1j, dtype=torch.float32)",
    "torch.full((2, -1), 1)",
    "torch.scalar_tensor(1j)",
])

cases("arange", [
    "torch.arange(5)",
    "torch.arange(5.)",
    "torch.arange(1, 2.5, 0.5)",
    "torch.arange(0, 1, 0.1)",
    "torch.arange(0, 1, 0.1, dtype=torch.float64)",
    "torch.arange(10, 0, -3)",
    "torch.arange(True)",
    "torch.arange(3, dtype=torch.float16)",
    "torch.arange(2.5, 7, 1.5, dtype=torch.float16)",
    "torch.arange(-1.3, 3.1, 0.7, dtype=torch.int32)",
    "torch.arange(0, 5, 1.5, dtype=torch.int64)",
    "torch.arange(300, dtype=torch.uint8)",
    "torch.arange(0, 100, 0.37)",
    "torch.arange(0, 100, 0.37, dtype=torch.float64)",
    "torch.arange(-3, 50, 0.1, dtype=torch.bfloat16)",
    "torch.arange(-3, 50, 0.1, dtype=torch.float16)",
    "torch.arange(1e6, 1e6 + 100, 0.3)",
    "torch.arange(start=2, end=7, step=2)",
    "torch.arange(5, out=torch.empty(5, dtype=torch.int8))",
    "torch.arange(0, 1, 0.25, out=torch.empty(0, dtype=torch.float64))",
    "torch.arange(5, out=torch.empty(3))",
    "torch.ops.aten.arange.start_step(0, 10, 3)",
    "torch.arange(0)",
    "torch.arange(3, device='meta').shape",
])

cases("arange_errors", [
    "torch.arange(0, 10, 0)",
    "torch.arange(0, -10, 1)",
    "torch.arange(1.5, 0.5, 0.25)",
    "torch.arange(float('inf'))",
    "torch.arange(-1.5, float('inf'))",
    "torch.arange(0.5, float('nan'), 1)",
    "torch.arange(1e20, dtype=torch.int64)",
    "torch.arange(0, 1e300, 1e-300)",
    "torch.arange(3, dtype=torch.bool)",
    "torch.arange(1+2j)",
    "torch.arange('a')",
    "torch.arange(0, 5, 0.5, dtype=torch.int64)",
    "torch.arange(-0.5, 0.5, 0.25, dtype=torch.int64)",
])

cases("arange_int_frac", [
    "torch.arange(0, 5, 0.5, dtype=torch.int32)",
    "torch.arange(0.5, -0.6, -0.25, dtype=torch.int16)",
    "torch.arange(-5, 5, 1.5, dtype=torch.int8)",
])

cases("linspace", [
    "torch.linspace(0, 1, 5)",
    "torch.linspace(0, 10, 5, dtype=torch.int64)",
    "torch.linspace(0, 1, 1)",
    "torch.linspace(0, 1, 0)",
    "torch.linspace(1, 2j, 3)",
    "torch.linspace(-7, 9, 7, dtype=torch.int32)",
    "torch.linspace(0., 1., 7)",
    "torch.linspace(3, 1, 4)",
    "torch.linspace(0, 1, 1000)",
    "torch.linspace(-3.3, 7.1, 333, dtype=torch.float64)",
    "torch.linspace(-3.3, 7.1, 101, dtype=torch.float16)",
    "torch.linspace(-3.3, 7.1, 101, dtype=torch.bfloat16)",
    "torch.linspace(0, 255, 100, dtype=torch.uint8)",
    "torch.linspace(torch.tensor(0.), torch.tensor(1.), 3)",
    "torch.linspace(0, 1, 5, out=torch.empty(5, dtype=torch.float64))",
    "torch.linspace(start=-1, end=1, steps=4)",
])

cases("linspace_errors", [
    "torch.linspace(0, 1, -1)",
    "torch.linspace(0, 1, 5, dtype=torch.bool)",
    "torch.linspace(0, 1, 2.5)",
    "torch.linspace(0, 300, 5, dtype=torch.uint8)",
    "torch.linspace(torch.tensor([0.]), torch.tensor(1.), 3)",
    "torch.linspace(0, torch.ones(2), 3)",
])

cases("eye", [
    "torch.eye(3)",
    "torch.eye(2, 3)",
    "torch.eye(3, 2, dtype=torch.int64)",
    "torch.eye(0)",
    "torch.eye(3, dtype=torch.bool)",
    "torch.eye(2, 3, dtype=torch.int8)",
    "torch.eye(3, out=torch.empty(1))",
    "torch.eye(-1)",
    "torch.eye(3, -1)",
], strides=True)

cases("tensor_infer", [
    "torch.tensor([1, 2.5])",
    "torch.tensor([True, 2])",
    "torch.tensor([1, 2j])",
    "torch.tensor([1.5j, True])",
    "torch.tensor([False, True])",
    "torch.tensor([[1, 2], [3, 4]])",
    "torch.tensor([])",
    "torch.tensor([[]])",
    "torch.tensor([[], []])",
    "torch.tensor(3.5)",
    "torch.tensor(True)",
    "torch.tensor(-2**63)",
    "torch.tensor((1, 2))",
    "torch.tensor(range(3))",
    "torch.tensor([torch.tensor(1.), 2])",
    "torch.tensor([torch.tensor(1, dtype=torch.int8), 2])",
    "torch.tensor([1, torch.tensor(2.5, dtype=torch.float16)])",
    "torch.tensor([torch.tensor(1j)])",
    "torch.tensor([[[1]]])",
    "torch.tensor(np.float32(1.5))",
    "torch.tensor([np.float32(1.5), 1])",
    "torch.tensor([np.int32(1), 2])",
    "torch.tensor([np.float64(1), 1])",
    "torch.tensor([np.complex64(1j)])",
    "torch.tensor(np.int8(3))",
    "torch.tensor(np.bool_(True))",
    "torch.tensor(np.arange(3))",
    "torch.tensor(np.array([1, 2], dtype=np.int16))",
    "torch.tensor(np.array([1, 2], dtype=np.float16))",
    "torch.tensor(np.ones((2, 3)).T)",
], strides=True, setup="import numpy as np")

cases("tensor_dtype", [
    "torch.tensor([1.5], dtype=torch.int32)",
    "torch.tensor([-1], dtype=torch.uint8)",
    "torch.tensor(1e300, dtype=torch.float32)",
    "torch.tensor([1, 2], dtype=torch.bool)",
    "torch.tensor([1, 2], dtype=torch.float16)",
    "torch.tensor([[1, 2], [3, 4]], dtype=torch.bfloat16)",
    "torch.tensor([0.1, 0.2], dtype=torch.bfloat16)",
    "torch.tensor([1.5, 2], dtype=torch.complex128)",
    "torch.tensor([1, 2], dtype=torch.complex64)",
    "torch.tensor(3, dtype=torch.float16)",
    "torch.tensor([[1], [2]], dtype=torch.float64)",
    "torch.tensor(2., requires_grad=True)",
    "torch.tensor([1, 2], device='meta').shape",
    "torch.tensor(torch.ones(2, 3).t())",
    "torch.tensor(torch.arange(4), dtype=torch.float32)",
    """
    x = torch.ones(3)
    y = torch.tensor(x)
    y[0] = 5
    (x, y)
    """,
], strides=True)

cases("tensor_errors", [
    "torch.tensor([[1, 2], [3]])",
    "torch.tensor([[1, 2], 3])",
    "torch.tensor([1, [2]])",
    "torch.tensor([1, 'a'])",
    "torch.tensor('a')",
    "torch.tensor(b'ab')",
    "torch.tensor(2**63)",
    "torch.tensor([2**63])",
    "torch.tensor(None)",
    "torch.tensor([1, None])",
    "torch.tensor({1: 2})",
    "torch.tensor(object())",
    "torch.tensor([300], dtype=torch.uint8)",
    "torch.tensor([1e20], dtype=torch.int64)",
    "torch.tensor(float('nan'), dtype=torch.int32)",
    "torch.tensor([1j], dtype=torch.float32)",
    "torch.tensor([torch.ones(2), torch.ones(2)])",
    "torch.tensor([torch.tensor(1.5)], dtype=torch.int64)",
    "torch.tensor([torch.tensor([1, 2])])",
    "torch.tensor([[1, 2], [3, 4]], requires_grad=True)",
    "torch.tensor(2, requires_grad=True)",
])

cases("numpy_share", {
    "from_numpy_shares": """
        a = np.arange(6.).reshape(2, 3)
        t = torch.from_numpy(a)
        a[0, 0] = 100
        t
    """,
    "from_numpy_writes_back": """
        a = np.zeros(4, dtype=np.int32)
        t = torch.from_numpy(a)
        t[1] = 7
        a.tolist()
    """,
    "from_numpy_strided": "torch.from_numpy(np.arange(6).reshape(2, 3)[:, ::2])",
    "from_numpy_T": "torch.from_numpy(np.arange(6).reshape(2, 3).T)",
    "from_numpy_0d": "torch.from_numpy(np.array(1.5))",
    "from_numpy_f16": "torch.from_numpy(np.ones(3, dtype=np.float16))",
    "from_numpy_bool": "torch.from_numpy(np.array([True, False]))",
    "from_numpy_u8": "torch.from_numpy(np.array([1, 255], dtype=np.uint8))",
    "from_numpy_c64": "torch.from_numpy(np.array([1j], dtype=np.complex64))",
    "from_numpy_empty": "torch.from_numpy(np.zeros((0, 3)))",
    "from_numpy_keepalive": """
        t = torch.from_numpy(np.arange(5))
        import gc; gc.collect()
        t
    """,
    "as_tensor_shares": """
        a = np.arange(3.)
        t = torch.as_tensor(a)
        a[1] = -1
        t
    """,
    "as_tensor_cast": "torch.as_tensor(np.arange(3), dtype=torch.float32)",
    "as_tensor_list": "torch.as_tensor([1., 2.], dtype=torch.float64)",
    "as_tensor_alias": """
        x = torch.ones(3)
        y = torch.as_tensor(x)
        y is x
    """,
    "as_tensor_scalar": "torch.as_tensor(3)",
    "asarray_list": "torch.asarray([1, 2])",
    "asarray_scalar": "torch.asarray(3.5)",
    "asarray_np": """
        a = np.arange(3)
        t = torch.asarray(a)
        a[0] = 9
        t
    """,
    "asarray_tensor_dtype": "torch.asarray(torch.ones(2), dtype=torch.int8)",
    "asarray_copy": """
        x = torch.ones(2)
        y = torch.asarray(x, copy=True)
        y[0] = 3
        (x, y)
    """,
    "asarray_f16": "torch.asarray([1, 2], dtype=torch.float16)",
    "asarray_buffer": "torch.asarray(bytearray(4), dtype=torch.int32)",
}, setup="import numpy as np")

cases("numpy_errors", [
    "torch.from_numpy([1])",
    "torch.from_numpy(np.array(['a']))",
    "torch.from_numpy(np.arange(3)[::-1])",
    "torch.from_numpy(np.float16(1))",
    "torch.from_numpy(np.arange(3, dtype='>i4'))",
    "torch.asarray([1, 2], copy=False)",
], setup="import numpy as np")

cases("frombuffer", {
    "int32": "torch.frombuffer(bytearray(8), dtype=torch.int32)",
    "bytes_u8": "torch.frombuffer(b'abcd', dtype=torch.uint8)",
    "count_offset": "torch.frombuffer(bytearray(range(8)), dtype=torch.int16, count=2, offset=2)",
    "shares": """
        b = bytearray(4)
        t = torch.frombuffer(b, dtype=torch.uint8)
        b[2] = 9
        t
    """,
    "writes_back": """
        b = bytearray(4)
        t = torch.frombuffer(b, dtype=torch.uint8)
        t[0] = 5
        list(b)
    """,
    "float": "torch.frombuffer(bytearray(b'\\x00\\x00\\x80?'), dtype=torch.float32)",
    "len7": "torch.frombuffer(bytearray(7), dtype=torch.int32)",
    "empty": "torch.frombuffer(bytearray(0), dtype=torch.int32)",
    "offset_end": "torch.frombuffer(bytearray(8), dtype=torch.int32, offset=8)",
    "offset_neg": "torch.frombuffer(bytearray(8), dtype=torch.int32, offset=-1)",
    "count_big": "torch.frombuffer(bytearray(8), dtype=torch.int32, count=3)",
    "not_buffer": "torch.frombuffer([1, 2], dtype=torch.int32)",
    "no_dtype": "torch.frombuffer(bytearray(8))",
})

cases("new_tensor", [
    "torch.ones(2).new_tensor([1, 2])",
    "torch.ones(2, dtype=torch.int8).new_tensor([1.5, 2])",
    "torch.ones(2).new_tensor([1], dtype=torch.int8)",
    "torch.ones(2).new_tensor(3)",
    "torch.ones(2, dtype=torch.float64).new_tensor([[1, 2]], requires_grad=True)",
    "torch.ones(2).new_tensor(torch.arange(3))",
])

# torch.Tensor(...), upstream's legacy constructor on the default dtype: data, sizes, a Size, a
# storage, an alias of a tensor of any dtype, numpy arrays, subclasses; its errors.
cases("legacy_tensor_ctor", {
    "data": "(torch.Tensor([1, 2]), torch.Tensor([[1.5, 2], [3, 4]]), torch.Tensor((1, 2)), torch.Tensor([True, False]), torch.Tensor([]))",
    "sizes": "(torch.Tensor(torch.Size([2, 3])).shape, torch.Tensor().shape, torch.Tensor(2, 3).shape, torch.Tensor(2, device='cpu').shape)",
    "default_dtype": "torch.set_default_dtype(torch.float64)\ntry:\n    r = (torch.Tensor([1, 2]), torch.Tensor(3).dtype)\nfinally:\n    torch.set_default_dtype(torch.float32)\nr",
    "alias_storage_numpy": "import numpy as np\nx = torch.arange(3)\n(torch.Tensor(x), torch.Tensor(x).data_ptr() == x.data_ptr(), torch.Tensor(np.array([1, 2])), torch.Tensor(torch.UntypedStorage(8)).shape)",
    "subclass": "class Sub(torch.Tensor):\n    pass\n(type(Sub([1, 2])).__name__, Sub([1, 2]).shape, Sub(3).dtype, torch.nn.Parameter(torch.Tensor([1., 2])))",
    "bad_float": "torch.Tensor(3.5)",
    "bad_str": "torch.Tensor('a')",
    "bad_none": "torch.Tensor(None)",
    "bad_negative": "torch.Tensor(-1)",
})
