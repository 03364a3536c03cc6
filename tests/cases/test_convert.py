"""Conversion, copy and comparison against upstream: to / _to_copy / clone / copy_ / fill_ /
zero_ / type_as / resize_ / equal / isclose / allclose / item / result_type, and the scalar
conversions, tolist and numpy (src/ops/convert.c, src/python/tensor_new.c)."""
from harness import case, cases

cases("to", {
    "dtype": "torch.ones(2).to(torch.float64)",
    "dtype_int": "torch.tensor([1.7, -2.7]).to(torch.int32)",
    "dtype_f16": "torch.tensor([1, 2]).to(torch.float16)",
    "pytype": "torch.ones(2).to(float)",
    "kw_pytype": "torch.ones(2).to(dtype=float)",
    "device": "torch.ones(2).to('cpu')",
    "device_obj": "torch.ones(2).to(torch.device('cpu'))",
    "device_dtype": "torch.ones(2).to('cpu', torch.int32)",
    "kw": "torch.ones(2).to(device='cpu', dtype=torch.int32)",
    "none": "torch.ones(2).to(None)",
    "none_dtype": "torch.ones(2).to(None, torch.int8)",
    "other": "torch.ones(2).to(torch.ones(1, dtype=torch.int8))",
    "empty_args": "torch.ones(2).to()",
    "meta": "torch.ones(2).to('meta')",
    "alias": """
        x = torch.ones(2)
        x.to(torch.float32) is x
    """,
    "alias_device": """
        x = torch.ones(2)
        x.to('cpu') is x
    """,
    "copy_true": """
        x = torch.ones(2)
        y = x.to(torch.float32, copy=True)
        (y is x, y)
    """,
    "copy_device": "torch.ones(2).to('cpu', torch.float64, copy=True)",
    "preserve_t": "torch.ones(2, 3).t().to(torch.float64)",
    "preserve_slice": "torch.ones(2, 6)[:, ::2].to(torch.float64)",
    "contig_fmt": "torch.ones(2, 3).t().to(torch.float32, memory_format=torch.contiguous_format)",
    "complex_to_real": "torch.tensor([1+2j, 3]).to(torch.float32)",
    "bool": "torch.tensor([0., 2., float('nan')]).to(torch.bool)",
    "type_as": "torch.ones(2).type_as(torch.ones(1, dtype=torch.int32))",
    "type_as_same": """
        x = torch.ones(2)
        x.type_as(torch.zeros(3)) is x
    """,
    "to_copy_op": "torch.ops.aten._to_copy(torch.ones(2, 3).t())",
    "to_copy_dtype": "torch.ops.aten._to_copy.default(torch.ones(2), dtype=torch.int8)",
    "aten_to_dtype": "torch.ops.aten.to.dtype(torch.ones(2), torch.float16)",
}, strides=True)

cases("to_errors", [
    "torch.ones(2).to(torch.float32, torch.float64)",
    "torch.ones(2).to('foo')",
    "torch.ones(2).to(other=torch.ones(1))",
    "torch.ones(2).to(1, 2, 3, 4, 5)",
    "torch.ones(2, device='meta').to('cpu')",
])

cases("clone_copy", {
    "clone": "torch.arange(6.).reshape(2, 3).clone()",
    "clone_t": "torch.arange(6.).reshape(2, 3).t().clone()",
    "clone_contig": "torch.arange(6.).reshape(2, 3).t().clone(memory_format=torch.contiguous_format)",
    "clone_slice": "torch.arange(12).reshape(2, 6)[:, ::2].clone()",
    "clone_expand": "torch.arange(3.).expand(2, 3).clone()",
    "clone_0d": "torch.tensor(3.5).clone()",
    "clone_independent": """
        x = torch.zeros(3)
        y = x.clone()
        y.fill_(1)
        (x, y)
    """,
    "clone_bf16": "torch.tensor([1.5, -2], dtype=torch.bfloat16).clone()",
    "copy_broadcast": "torch.ones(2, 3).copy_(torch.arange(3))",
    "copy_cast": "torch.zeros(3, dtype=torch.int8).copy_(torch.tensor([1.9, -2.9, 300.]))",
    "copy_complex": "torch.ones(2).copy_(torch.tensor([1j, 2]))",
    "copy_complex_int": "torch.ones(2, dtype=torch.int32).copy_(torch.tensor([1j, 2]))",
    "copy_into_t": """
        x = torch.zeros(2, 3)
        x.t().copy_(torch.arange(6.).reshape(3, 2))
        x
    """,
    "copy_self_overlap": """
        x = torch.arange(6.)
        x[1:].copy_(x[:-1])
        x
    """,
    "copy_ret": """
        x = torch.zeros(2)
        x.copy_(torch.ones(2)) is x
    """,
    "copy_bool": "torch.zeros(3, dtype=torch.bool).copy_(torch.tensor([0, 2, -1]))",
}, strides=True)

cases("clone_copy_errors", [
    "torch.ones(2, 3).copy_(torch.arange(2))",
    "torch.ones(2, 3).t().clone(memory_format=torch.channels_last)",
    "torch.ones(2).copy_(torch.ones(2, device='meta'))",
])

cases("fill", {
    "fill_int": "torch.ones(2).fill_(3)",
    "fill_tensor": "torch.ones(2).fill_(torch.tensor(3))",
    "fill_i32_float": "torch.ones(2, dtype=torch.int32).fill_(2.7)",
    "fill_bool": "torch.zeros(3, dtype=torch.bool).fill_(2)",
    "fill_f16": "torch.zeros(3, dtype=torch.float16).fill_(0.1)",
    "fill_c64": "torch.zeros(2, dtype=torch.complex64).fill_(1 + 2j)",
    "fill_t": """
        x = torch.zeros(2, 3).t()
        x.fill_(5)
        x
    """,
    "fill_slice": """
        x = torch.zeros(6)
        x[::2].fill_(1)
        x
    """,
    "fill_i64max": "torch.ones(2, dtype=torch.int64).fill_(2**63 - 1)",
    "fill_u8_neg": "torch.zeros(2, dtype=torch.uint8).fill_(-1)",
    "fill_ret": """
        x = torch.zeros(2)
        x.fill_(1) is x
    """,
    "fill_functional": "torch.fill(torch.zeros(2, 2), 3.5)",
    "zero": "torch.ones(2, 3).zero_()",
    "zero_t": """
        x = torch.ones(2, 3)
        x.t().zero_()
        x
    """,
    "zero_i8": "torch.ones(4, dtype=torch.int8).zero_()",
    "aten_fill": "torch.ops.aten.fill_.Scalar(torch.zeros(2), 4)",
}, strides=True)

cases("fill_errors", [
    "torch.ones(2).fill_(torch.tensor([3]))",
    "torch.ones(2).fill_(torch.tensor([3, 4]))",
    "torch.ones(2, dtype=torch.int32).fill_(1j)",
    "torch.ones(2, dtype=torch.int16).fill_(1e10)",
    "torch.ones(2, dtype=torch.float32).fill_(1e300)",
    "torch.ones(2, dtype=torch.uint8).fill_(256)",
    "torch.ones(2).fill_('a')",
])

cases("resize", {
    "shrink": "torch.arange(6.).reshape(2, 3).resize_(3)",
    "same": "torch.ones(2, 3).t().resize_(3, 2)",
    "reshape": "torch.arange(6.).resize_(2, 3)",
    "grow_shape": "torch.ones(2).resize_(4, 5).shape",
    "t_flat": "torch.arange(6.).reshape(2, 3).t().resize_(6).stride()",
    "ret": """
        x = torch.ones(2)
        x.resize_(1) is x
    """,
    "neg": "torch.ones(2).resize_(-1)",
}, strides=True)

cases("equal", [
    "torch.equal(torch.ones(2), torch.ones(2))",
    "torch.equal(torch.ones(2), torch.ones(2, dtype=torch.int32))",
    "torch.equal(torch.ones(2), torch.ones(3))",
    "torch.equal(torch.ones(2, 1), torch.ones(2))",
    "torch.equal(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "torch.equal(torch.tensor([0.]), torch.tensor([-0.]))",
    "torch.equal(torch.arange(6).reshape(2, 3).t(), torch.arange(6).reshape(2, 3).t().clone())",
    "torch.equal(torch.tensor([1, 2]), torch.tensor([1, 3]))",
    "torch.equal(torch.tensor([]), torch.tensor([]))",
    "torch.ones(2).equal(torch.ones(2))",
    "torch.equal(torch.tensor([1+1j]), torch.tensor([1+1j]))",
])

cases("isclose", [
    "torch.isclose(torch.tensor([1., float('nan'), float('inf'), -float('inf')]), torch.tensor([1., float('nan'), float('inf'), float('inf')]))",
    "torch.isclose(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')]), equal_nan=True)",
    "torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3]))",
    "torch.isclose(torch.tensor([100, 2]), torch.tensor([101, 3]), rtol=0.01, atol=0)",
    "torch.isclose(torch.tensor([True, False]), torch.tensor([True, True]))",
    "torch.isclose(torch.tensor([1.0, 1.0001, 1.001]), torch.tensor(1.0))",
    "torch.isclose(torch.tensor([1.0, 1.0001, 1.001], dtype=torch.float64), torch.tensor(1.0, dtype=torch.float64), rtol=1e-4)",
    "torch.isclose(torch.tensor([1.0, 1.001, 1.01], dtype=torch.float16), torch.tensor([1.0, 1.0, 1.0], dtype=torch.float16), rtol=1e-3)",
    "torch.isclose(torch.tensor([1.0, 1.01, 1.05], dtype=torch.bfloat16), torch.tensor([1.0, 1.0, 1.0], dtype=torch.bfloat16), rtol=1e-2)",
    "torch.isclose(torch.tensor([1+1j, 1+1.1j]), torch.tensor([1+1j, 1+1j]), rtol=0.01)",
    "torch.isclose(torch.arange(6.).reshape(2, 3), torch.arange(3.))",
    "torch.isclose(torch.tensor([1.]), torch.tensor([1.1]), rtol=0, atol=0)",
    "torch.isclose(torch.tensor([1e-9]), torch.tensor([0.]))",
    "torch.tensor([1., 2.]).isclose(torch.tensor([1., 2.5]), atol=0.5)",
])

cases("isclose_errors", [
    "torch.isclose(torch.tensor([1, 2]), torch.tensor([1., 3]))",
    "torch.isclose(torch.tensor([1.]), torch.tensor([1.1]), rtol=-1)",
    "torch.isclose(torch.tensor([1.]), torch.tensor([1.1]), atol=-0.5)",
    "torch.isclose(torch.ones(2), torch.ones(3))",
])

cases("allclose", [
    "torch.allclose(torch.ones(2), torch.ones(2) + 1e-9)",
    "torch.allclose(torch.ones(2), torch.ones(2) + 1e-3)",
    "torch.allclose(torch.ones(2), torch.ones(1))",
    "torch.allclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "torch.allclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]), equal_nan=True)",
    "torch.allclose(torch.tensor([1, 2]), torch.tensor([1, 2]))",
    "torch.ones(3).allclose(torch.ones(3), rtol=0, atol=0)",
    "torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "torch.allclose(torch.ones(2), torch.ones(3))",
])

cases("item", {
    "int": "torch.tensor(1).item()",
    "float": "torch.tensor(1.5).item()",
    "bool": "torch.tensor(True).item()",
    "complex": "torch.tensor(1j).item()",
    "f16": "torch.tensor(1.5, dtype=torch.float16).item()",
    "bf16": "torch.tensor(0.1, dtype=torch.bfloat16).item()",
    "u8": "torch.tensor(200, dtype=torch.uint8).item()",
    "i8": "torch.tensor(-100, dtype=torch.int8).item()",
    "one_elem": "torch.tensor([[2.5]]).item()",
    "f32_exact": "torch.tensor(0.1).item()",
    "local_scalar_dense": "torch.ops.aten._local_scalar_dense(torch.tensor(3))",
    "many": "torch.tensor([1, 2]).item()",
    "none": "torch.tensor([]).item()",
})

cases("scalar_dunders", {
    "bool_many": "bool(torch.tensor([1, 2]))",
    "bool_none": "bool(torch.tensor([]))",
    "bool_zero": "bool(torch.tensor(0.))",
    "bool_nan": "bool(torch.tensor(float('nan')))",
    "bool_one_elem": "bool(torch.tensor([[3]]))",
    "bool_complex": "bool(torch.tensor(1j))",
    "if_tensor": "'yes' if torch.tensor([True]) else 'no'",
    "int_many": "int(torch.tensor([1, 2]))",
    "int_float": "int(torch.tensor(2.7))",
    "int_neg": "int(torch.tensor(-2.7))",
    "int_big": "int(torch.tensor(1e20))",
    "int_nan": "int(torch.tensor(float('nan')))",
    "int_complex": "int(torch.tensor(1j))",
    "int_1elem": "int(torch.tensor([1.5]))",
    "float_int": "float(torch.tensor(2))",
    "float_empty": "float(torch.tensor([]))",
    "float_complex": "float(torch.tensor(1 + 1j))",
    "float_bool": "float(torch.tensor([True]))",
    "float_f16": "float(torch.tensor(0.1, dtype=torch.float16))",
    "complex_int": "complex(torch.tensor(2))",
    "complex_c": "complex(torch.tensor(1 + 2j))",
    "index": "[1, 2, 3][torch.tensor(1)]",
    "index_bool": "torch.tensor(True).__index__()",
    "index_big": "torch.tensor(2**40).__index__()",
    "index_1elem": "torch.tensor([3]).__index__()",
    "index_float": "torch.tensor(2.5).__index__()",
    "index_many": "[1, 2][torch.tensor([0, 1])]",
    "range": "list(range(torch.tensor(3)))",
    "len": "len(torch.zeros(3, 2))",
    "len_0d": "len(torch.tensor(1))",
    "len_base": "torch.tensor([[1, 2]]).__len__()",
})

cases("tolist", [
    "torch.zeros(2).tolist()",
    "torch.tensor(1.5).tolist()",
    "torch.tensor([[1, 2]], dtype=torch.int8).tolist()",
    "torch.tensor([1j]).tolist()",
    "torch.tensor([1.1], dtype=torch.bfloat16).tolist()",
    "torch.tensor([1.1], dtype=torch.float16).tolist()",
    "torch.tensor([[1, 2], [3, 4]]).t().tolist()",
    "torch.ones(2, 0).tolist()",
    "torch.tensor([True, False]).tolist()",
    "torch.arange(24).reshape(2, 3, 4)[:, ::2, 1:].tolist()",
    "[type(v).__name__ for v in torch.tensor([1, 2], dtype=torch.uint8).tolist()]",
    "torch.tensor(0.1).tolist()",
    "torch.ones(2, device='meta').tolist()",
])

cases("numpy", {
    "basic": "torch.ones(2, 3).numpy().tolist()",
    "dtype_f32": "str(torch.ones(2).numpy().dtype)",
    "dtype_i8": "str(torch.ones(2, dtype=torch.int8).numpy().dtype)",
    "dtype_bool": "torch.tensor([True, False]).numpy().tolist()",
    "dtype_c64": "str(torch.ones(2, dtype=torch.complex64).numpy().dtype)",
    "dtype_f16": "str(torch.ones(2, dtype=torch.float16).numpy().dtype)",
    "strides_t": "torch.ones(2, 3).t().numpy().strides",
    "strides_slice": "torch.arange(12.).reshape(3, 4)[:, ::2].numpy().strides",
    "zero_d": "torch.tensor(1.5).numpy().shape",
    "empty": "torch.ones(0, 3).numpy().shape",
    "shares": """
        t = torch.zeros(3)
        a = t.numpy()
        a[1] = 5
        t
    """,
    "shares_back": """
        t = torch.zeros(3)
        a = t.numpy()
        t.fill_(2)
        a.tolist()
    """,
    "keepalive": """
        a = torch.arange(4.).numpy()
        import gc; gc.collect()
        a.tolist()
    """,
    "array": "np.asarray(torch.arange(3)).tolist()",
    "bf16": "torch.ones(2, dtype=torch.bfloat16).numpy()",
    "requires_grad": "torch.ones(2, requires_grad=True).numpy()",
    "force": "torch.ones(2, requires_grad=True).numpy(force=True).tolist()",
    "meta": "torch.ones(2, device='meta').numpy()",
}, setup="import numpy as np")

cases("result_type", [
    "torch.result_type(torch.ones(2), 1)",
    "torch.result_type(1, 2.0)",
    "torch.result_type(1, 2)",
    "torch.result_type(True, 2)",
    "torch.result_type(1j, torch.ones(2, dtype=torch.float64))",
    "torch.result_type(torch.ones(2, dtype=torch.int8), torch.tensor(1000))",
    "torch.result_type(torch.ones(2, dtype=torch.int8), torch.ones(2, dtype=torch.uint8))",
    "torch.result_type(torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.bfloat16))",
    "torch.result_type(torch.tensor(1.), torch.ones(2, dtype=torch.int32))",
    "torch.result_type(torch.ones(2, dtype=torch.int32), 2.5)",
])

# promote_types over every pair of bool, integer, floating and complex types (the other dtypes
# refuse by name), and its aten spelling
cases("promote_types", {
    "all_pairs": """
        ds = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
              torch.bfloat16, torch.float32, torch.float64, torch.complex32, torch.complex64, torch.complex128]
        [str(torch.promote_types(a, b)) for a in ds for b in ds]
    """,
    "same_exotic": "torch.promote_types(torch.uint16, torch.uint16)",
    "aten": "torch.ops.aten.promote_types.default(torch.int8, torch.uint8)",
    "kw": "torch.promote_types(type1=torch.float16, type2=torch.bfloat16)",
    "bad_arg": "torch.promote_types(torch.float32, 3)",
    # float8 with any other dtype, uint16/32/64 with anything but itself or a floating dtype:
    # RuntimeError naming both
    "float8_uint_pairs": """
        ds = [torch.bool, torch.uint8, torch.int8, torch.int64, torch.float16, torch.bfloat16,
              torch.float32, torch.float64, torch.complex32, torch.complex64, torch.float8_e5m2,
              torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz, torch.float8_e8m0fnu,
              torch.uint16, torch.uint32, torch.uint64]
        def pt(a, b):
            try:
                return str(torch.promote_types(a, b))
            except RuntimeError as e:
                return "RuntimeError: " + str(e).split("\\n")[0]
        [pt(a, b) for a in ds for b in ds]
    """,
})
