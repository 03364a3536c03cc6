"""Harness cases for what upstream's OpInfo suite (tests/test_opinfo.py) found: binary max / min
(max.other / min.other / .out, upstream's composites over maximum / minimum) and the parser rule
that makes them reachable (a 0-dim integer tensor binds an int parameter only after every
overload taking a Tensor there failed), nonzero(as_tuple=True) (aten::nonzero_numpy), expand's
strides for new leading dims of size 1, diff with n=0 and prepend / append, cat's output memory
format and batch_norm of an empty 1-d input."""
from harness import cases

cases("max_min_binary", {
    "max_t0d_ints": "torch.max(torch.tensor(-8), torch.tensor(6))",
    "min_t0d_ints": "torch.min(torch.tensor(-8), torch.tensor(6))",
    "max_f32": "torch.max(torch.tensor([1., float('nan'), -0.0, 2.]), torch.tensor([3., 1., 0.0, float('nan')]))",
    "min_f32": "torch.min(torch.tensor([1., float('nan'), -0.0, 2.]), torch.tensor([3., 1., 0.0, float('nan')]))",
    "max_f64_bcast": "torch.max(torch.arange(6.).double().reshape(2, 3), torch.tensor([1., 4., 2.]).double())",
    "max_bf16": "torch.max(torch.tensor([1.5, -2.25]).bfloat16(), torch.tensor([0.5, 3.0]).bfloat16())",
    "min_promote": "torch.min(torch.tensor([1, 5, -3]), torch.tensor([2.5, 1.5, 0.5]))",
    "max_bool": "torch.max(torch.tensor([True, False]), torch.tensor([False, False]))",
    "max_method": "torch.tensor([1, 5]).max(torch.tensor([3, 2]))",
    "min_method_kw": "torch.tensor([1, 5]).min(other=torch.tensor([3, 2]))",
    "max_noncontig": "torch.max(torch.arange(12.).reshape(3, 4).t(), torch.full((4, 3), 5.))",
    "max_out": "o = torch.empty(2); r = torch.max(torch.tensor([1., 5]), torch.tensor([3., 2]), out=o); (r, o, r is o)",
    "min_out": "o = torch.empty(0, dtype=torch.int64); torch.min(torch.tensor([1, 5]), torch.tensor([3, 2]), out=o)",
    "aten_max_other": "torch.ops.aten.max.other(torch.tensor([1., 5]), torch.tensor([3., 2]))",
    "aten_min_other": "torch.ops.aten.min.other(torch.tensor([1., 5]), torch.tensor([3., 2]))",
    "aten_max_out": "torch.ops.aten.max.out(torch.tensor([1., 5]), torch.tensor([3., 2]), out=torch.empty(2))",
    "aten_min_out": "torch.ops.aten.min.out(torch.tensor([1., 5]), torch.tensor([3., 2]), out=torch.empty(2))",
    "max_dim_still": "torch.max(torch.tensor([[1, 5], [7, 2]]), 1)",
    "max_dim_tensor_dim": "torch.max(torch.tensor([[1, 5], [7, 2]]), dim=torch.tensor(0))",
    "max_complex_raises": "torch.max(torch.tensor([1j]), torch.tensor([2j]))",
    "max_shape_raises": "torch.max(torch.ones(2), torch.ones(3))",
    "max_grad": "x = torch.tensor([1., 5.], requires_grad=True); y = torch.max(x, torch.tensor([3., 2.])); y.sum().backward(); (y, x.grad)",
    "view_tensor_size": "torch.zeros(3, 4).view(torch.tensor(12)).shape",
})

cases("nonzero_as_tuple", {
    "fn": "torch.nonzero(torch.tensor([[1, 0], [0, 2]]), as_tuple=True)",
    "fn_0d": "torch.nonzero(torch.tensor(3), as_tuple=True)",
    "fn_0d_zero": "torch.nonzero(torch.tensor(0.), as_tuple=True)",
    "empty": "torch.nonzero(torch.tensor([]), as_tuple=True)",
    "input_kw": "torch.nonzero(input=torch.tensor([0, 1, 1]), as_tuple=True)",
    "method": "torch.tensor([[0., 2.], [3., 0.]]).nonzero(as_tuple=True)",
    "method_false": "torch.tensor([[0., 2.], [3., 0.]]).nonzero(as_tuple=False)",
    "fn_false_out": "o = torch.empty(0, dtype=torch.int64); torch.nonzero(torch.tensor([1, 0, 1]), as_tuple=False, out=o)",
    "noncontig": "torch.arange(12).reshape(3, 4).t().remainder(3).nonzero(as_tuple=True)",
    "aten": "torch.ops.aten.nonzero_numpy.default(torch.tensor([[1, 0], [0, 2]]))",
    "out_raises": "torch.nonzero(torch.tensor([1]), as_tuple=True, out=torch.empty(0, dtype=torch.int64))",
    "nonbool_raises": "torch.nonzero(torch.tensor([1]), as_tuple=1)",
})

cases("expand_new_dims", {
    "one_leading": "x = torch.zeros(1, 5).expand(1, 1, 5); (x.shape, x.stride())",
    "col": "x = torch.zeros(2, 3)[:, :1].expand(1, 2, 1); (x.shape, x.stride())",
    "mixed": "x = torch.zeros(2, 3)[:, :1].expand(4, 1, 2, 1); (x.shape, x.stride())",
    "ones_then_big": "x = torch.zeros(2, 3)[:, :1].expand(1, 1, 2, 4); (x.shape, x.stride())",
    "zero_dim": "x = torch.tensor(1.).expand(1, 1); (x.shape, x.stride())",
    "empty": "x = torch.zeros(0, 3).expand(1, 0, 3); (x.shape, x.stride())",
    "broadcast_to": "x = torch.zeros(1, 5, dtype=torch.bool).broadcast_to(1, 1, 5); (x.shape, x.stride())",
    "expand_as": "x = torch.ones(1, 5).expand_as(torch.empty(1, 1, 5)); (x.shape, x.stride())",
})

cases("diff_n0", {
    "prepend_append": "x = torch.arange(27.).reshape(3, 3, 3); torch.diff(x, 0, 1, torch.ones(3, 1, 3), torch.ones(3, 1, 3))",
    "int_prepend_float": "torch.diff(torch.tensor([1, 4, 9]), n=0, prepend=torch.tensor([0.5]))",
    "bad_prepend": "torch.diff(torch.ones(3, 3), n=0, dim=1, prepend=torch.ones(2, 1))",
})

cases("cat_memory_format", {
    "cl_single": "x = torch.arange(16.).reshape(2, 2, 2, 2).permute(0, 3, 1, 2); r = torch.cat([x], 1); (r.stride(), r)",
    "cl_two": "x = torch.arange(16.).reshape(2, 2, 2, 2).permute(0, 3, 1, 2); r = torch.cat([x, x], 0); (r.stride(), r)",
    "cl_mixed": "x = torch.arange(16.).reshape(2, 2, 2, 2); r = torch.cat([x.permute(0, 3, 1, 2), x], 1); (r.stride(), r)",
    "cl3d": "x = torch.arange(32.).reshape(2, 2, 2, 2, 2).permute(0, 4, 1, 2, 3); r = torch.cat([x, x], 2); (r.stride(), r)",
    "cl_f16": "x = torch.arange(16.).half().reshape(2, 2, 2, 2).permute(0, 3, 1, 2); r = torch.cat([x], 1); (r.stride(), r.is_contiguous())",
})

cases("batch_norm_empty_1d", {
    "empty_weight": "torch.batch_norm(torch.zeros(0), torch.ones(0), None, torch.zeros(0), torch.ones(0), True, 0.1, 1e-5, False)",
    "empty_plain": "torch.batch_norm(torch.zeros(0), None, None, None, None, True, 0.1, 1e-5, False)",
    "nonempty_stats": "torch.batch_norm(torch.zeros(3), None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5, False)",
    "nonempty_plain": "torch.batch_norm(torch.zeros(3), None, None, None, None, True, 0.1, 1e-5, False)",
    "F_empty": "torch.nn.functional.batch_norm(torch.zeros(0), torch.zeros(0), torch.ones(0), training=True)",
})

