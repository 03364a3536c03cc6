"""Explicit `torch.ops.aten.<name>.<overload>` spellings of implemented overloads that no other
golden case reaches on upstream: composites that upstream decomposes before a dispatch mode sees
them (`divide`, `clip`, `matmul`, ...), overloads Python's usual spellings never pick (`add.Scalar`,
the `_out` and in-place forms, generator overloads), and predicates answered without dispatch.
The coverage gate (tests/test_coverage_gate.py) counts these spellings as exercising the overload.
Inputs are fixed, exactly representable tensors (random overloads use a seeded generator); mutated
arguments are named so in-place effects and aliasing are compared. Ids are the overload names.
Transcendental results use tol="float" (upstream evaluates them with vectorised Sleef)."""
from harness import cases

S = """
f = torch.tensor([[0.5, -1.25, 2.0, -0.0], [3.5, -2.75, 0.125, 1.0], [-0.5, 4.0, -3.0, 0.75]])
g = torch.tensor([[1.5, 0.25, -2.0, 3.0], [-1.0, 2.5, 0.5, -0.125], [2.0, -3.5, 1.25, 0.5]])
p = torch.tensor([[0.25, 0.5, 0.75, 0.125], [0.625, 0.375, 0.875, 0.5], [0.1, 0.9, 0.3, 0.7]])
i = torch.tensor([[3, -2, 7, 0], [-5, 1, 4, -8], [6, 2, -1, 9]])
j = torch.tensor([[1, 2, 3, 1], [2, 1, 0, 3], [3, 2, 1, 2]])
b = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
gen = torch.Generator().manual_seed(7)
"""

cases("aten_arith", {
    'add_.Scalar':
        'x = f.clone(); torch.ops.aten.add_.Scalar(x, 2.5)',
    'sub.Scalar':
        'torch.ops.aten.sub.Scalar(f, 2.5)',
    'sub_.Scalar':
        'x = f.clone(); torch.ops.aten.sub_.Scalar(x, 2.5)',
    'mul_.Scalar':
        'x = f.clone(); torch.ops.aten.mul_.Scalar(x, 2.5)',
    'div.Scalar':
        'torch.ops.aten.div.Scalar(f, 2.5)',
    'div_.Scalar':
        'x = f.clone(); torch.ops.aten.div_.Scalar(x, 2.5)',
    'div.Scalar_mode':
        "torch.ops.aten.div.Scalar_mode(f, 2.5, rounding_mode='floor')",
    'div_.Scalar_mode':
        "x = f.clone(); torch.ops.aten.div_.Scalar_mode(x, 2.5, rounding_mode='floor')",
}, setup=S)

cases("aten_convert", {
    'to.dtype_layout':
        '(torch.ops.aten.to.dtype_layout(f, dtype=torch.float64), torch.ops.aten.to.dtype_layout(i, dtype=torch.int64, copy=True))',
    'to.device':
        "torch.ops.aten.to.device(f, 'cpu', torch.float64)",
    'to.other':
        '(torch.ops.aten.to.other(f, i), torch.ops.aten.to.other(f, g))',
    'type_as.default':
        '(torch.ops.aten.type_as.default(f, i), torch.ops.aten.type_as.default(f, g))',
    '_has_compatible_shallow_copy_type.default':
        'torch.ops.aten._has_compatible_shallow_copy_type.default(f, g)',
    'fill.Tensor':
        'torch.ops.aten.fill.Tensor(f, torch.tensor(2.5))',
    'item.default':
        '(torch.ops.aten.item.default(torch.tensor(2.5)), torch.ops.aten.item.default(torch.tensor([7])))',
    'result_type.Tensor':
        '(torch.ops.aten.result_type.Tensor(i, g), torch.ops.aten.result_type.Tensor(b, i.to(torch.int8)))',
    'result_type.Scalar':
        'torch.ops.aten.result_type.Scalar(g[0], 2.5)',
    'result_type.Scalar_Tensor':
        'torch.ops.aten.result_type.Scalar_Tensor(2.5, g[0])',
    'isclose.default':
        'torch.ops.aten.isclose.default(f, g)',
}, setup=S)

cases("aten_create", {
    'linspace.Tensor_Scalar':
        'torch.ops.aten.linspace.Tensor_Scalar(torch.tensor(1.5), 2.5, 5)',
    'linspace.Tensor_Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.linspace.Tensor_Tensor_out(torch.tensor(1.5), torch.tensor(4.0), 5, out=out)',
    'linspace.Tensor_Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.linspace.Tensor_Scalar_out(torch.tensor(1.5), 2.5, 5, out=out)',
    'linspace.Scalar_Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.linspace.Scalar_Tensor_out(2.5, torch.tensor(4.0), 5, out=out)',
    'eye.m_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.eye.m_out(3, 4, out=out)',
}, setup=S)

cases("aten_create_uninit", {
    'empty.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.empty.out([3, 4], out=out)',
}, setup=S, values=False)

cases("aten_index", {
    'index.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.index.Tensor_out(f, [torch.tensor([2, 0])], out=out)',
    '_unsafe_index.Tensor':
        'torch.ops.aten._unsafe_index.Tensor(f, [torch.tensor([2, 0])])',
    '_index_put_impl_.default':
        'x = f.clone(); torch.ops.aten._index_put_impl_.default(x, [torch.tensor([2, 0, 2])], torch.tensor(9.0), True)',
    'gather.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.gather.out(f, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), out=out)',
    'scatter_.src':
        'x = f.clone(); torch.ops.aten.scatter_.src(x, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), g)',
    'scatter.src_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.scatter.src_out(f, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), g, out=out)',
    'scatter.value_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.scatter.value_out(f, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), 2.5, out=out)',
    'scatter_.reduce':
        "x = f.clone(); torch.ops.aten.scatter_.reduce(x, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), g, reduce='add')",
    'scatter.value_reduce':
        "torch.ops.aten.scatter.value_reduce(f, 1, torch.tensor([[0, 2], [3, 3], [1, 0]]), 2.5, reduce='multiply')",
    'scatter_.value_reduce':
        "x = f.clone(); torch.ops.aten.scatter_.value_reduce(x, 0, torch.tensor([[0, 2, 1, 0], [2, 2, 0, 1]]), 1.5, reduce='add')",
    'scatter_add.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.scatter_add.out(f, 1, torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 2, 2]]), g, out=out)',
    'masked_fill_.Tensor':
        'x = f.clone(); torch.ops.aten.masked_fill_.Tensor(x, b, torch.tensor(9.5))',
    'masked_select.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.masked_select.out(f, b, out=out)',
    'nonzero.out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.nonzero.out(i, out=out)',
    'argwhere.default':
        'torch.ops.aten.argwhere.default(f)',
}, setup=S)

cases("aten_join", {
    'concat.default':
        'torch.ops.aten.concat.default([f, g])',
    'concat.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.concat.out([f, g], out=out)',
    'concatenate.default':
        'torch.ops.aten.concatenate.default([f, g])',
    'concatenate.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.concatenate.out([f, g], out=out)',
    'hstack.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.hstack.out([f, g], out=out)',
    'vstack.default':
        'torch.ops.aten.vstack.default([f, g])',
    'vstack.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.vstack.out([f, g], out=out)',
    'row_stack.default':
        'torch.ops.aten.row_stack.default([f, g])',
    'row_stack.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.row_stack.out([f, g], out=out)',
    'tile.default':
        'torch.ops.aten.tile.default(f, [2, 2])',
    'fliplr.default':
        'torch.ops.aten.fliplr.default(f)',
    'flipud.default':
        'torch.ops.aten.flipud.default(f)',
    'triu.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.triu.out(f, out=out)',
    'diag.default':
        'torch.ops.aten.diag.default(f)',
    'diag.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.diag.out(f, out=out)',
}, setup=S)

cases("aten_linalg_float", {
    'bmm.out':
        'out = torch.empty(0); torch.ops.aten.bmm.out(f.reshape(3, 2, 2), g.reshape(3, 2, 2), out=out)',
    'addmm.out':
        'out = torch.empty(0); torch.ops.aten.addmm.out(p[:, :3], f, g.t(), beta=0.5, alpha=2, out=out)',
    'baddbmm.out':
        'out = torch.empty(0); torch.ops.aten.baddbmm.out(p[0, :2], f.reshape(3, 2, 2), g.reshape(3, 2, 2), out=out)',
    'baddbmm_.default':
        'x = p.reshape(3, 2, 2).clone(); torch.ops.aten.baddbmm_.default(x, f.reshape(3, 2, 2), g.reshape(3, 2, 2), beta=0.5, alpha=2)',
    'matmul.default':
        '(torch.ops.aten.matmul.default(f, g.t()), torch.ops.aten.matmul.default(f.reshape(3, 2, 2), g[0, :2]))',
    'matmul.out':
        'out = torch.empty(0); torch.ops.aten.matmul.out(f, g.t(), out=out)',
    'mv.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.mv.out(f, g[0], out=out)',
    'dot.out':
        'out = torch.empty(0); torch.ops.aten.dot.out(f[0], g[0], out=out)',
    'linear.default':
        'torch.ops.aten.linear.default(f, g)',
    'linear.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.linear.out(f, g, out=out)',
}, setup=S, tol="float")

cases("aten_pointwise", {
    'abs_.default':
        'x = f.clone(); torch.ops.aten.abs_.default(x)',
    'absolute.default':
        'torch.ops.aten.absolute.default(f)',
    'absolute_.default':
        'x = f.clone(); torch.ops.aten.absolute_.default(x)',
    'absolute.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.absolute.out(f, out=out)',
    'sgn_.default':
        'x = f.clone(); torch.ops.aten.sgn_.default(x)',
    'sgn.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.sgn.out(f, out=out)',
    'copysign.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.copysign.out(f, g, out=out)',
    'copysign_.Scalar':
        'x = f.clone(); torch.ops.aten.copysign_.Scalar(x, 2.5)',
    'copysign.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.copysign.Scalar_out(f, 2.5, out=out)',
    'ceil.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.ceil.out(f, out=out)',
    'clamp.Tensor_out':
        'out = torch.empty(0); torch.ops.aten.clamp.Tensor_out(f, torch.tensor(-1.0), g, out=out)',
    'clamp_max_.default':
        'x = f.clone(); torch.ops.aten.clamp_max_.default(x, 2.5)',
    'clamp_max_.Tensor':
        'x = f.clone(); torch.ops.aten.clamp_max_.Tensor(x, g)',
    'clamp_max.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.clamp_max.Tensor_out(f, g, out=out)',
    'clamp_min_.default':
        'x = f.clone(); torch.ops.aten.clamp_min_.default(x, 2.5)',
    'clamp_min.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.clamp_min.out(f, 2.5, out=out)',
    'clamp_min.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.clamp_min.Tensor_out(f, g, out=out)',
    'clip.default':
        'torch.ops.aten.clip.default(f, -1.0, 2.0)',
    'clip.Tensor':
        'torch.ops.aten.clip.Tensor(f, g - 1, g)',
    'clip_.default':
        'x = f.clone(); torch.ops.aten.clip_.default(x, None, 1.5)',
    'clip_.Tensor':
        'x = f.clone(); torch.ops.aten.clip_.Tensor(x, torch.tensor(0.0))',
    'clip.out':
        'out = torch.empty(0); torch.ops.aten.clip.out(f, -1.0, 2.0, out=out)',
    'clip.Tensor_out':
        'out = torch.empty(0); torch.ops.aten.clip.Tensor_out(f, None, g, out=out)',
    'divide.Tensor':
        'torch.ops.aten.divide.Tensor(f, g)',
    'divide_.Tensor':
        'x = f.clone(); torch.ops.aten.divide_.Tensor(x, g)',
    'divide.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.divide.out(f, g, out=out)',
    'divide.Scalar':
        'torch.ops.aten.divide.Scalar(f, 2.5)',
    'divide_.Scalar':
        'x = f.clone(); torch.ops.aten.divide_.Scalar(x, 2.5)',
    'divide.Tensor_mode':
        "torch.ops.aten.divide.Tensor_mode(f, g, rounding_mode='floor')",
    'divide_.Tensor_mode':
        "x = f.clone(); torch.ops.aten.divide_.Tensor_mode(x, g, rounding_mode='floor')",
    'divide.out_mode':
        "out = torch.empty(0, dtype=torch.float32); torch.ops.aten.divide.out_mode(f, g, rounding_mode='floor', out=out)",
    'divide.Scalar_mode':
        "torch.ops.aten.divide.Scalar_mode(f, 2.5, rounding_mode='floor')",
    'divide_.Scalar_mode':
        "x = f.clone(); torch.ops.aten.divide_.Scalar_mode(x, 2.5, rounding_mode='floor')",
    'true_divide.Tensor':
        'torch.ops.aten.true_divide.Tensor(f, g)',
    'true_divide_.Tensor':
        'x = f.clone(); torch.ops.aten.true_divide_.Tensor(x, g)',
    'true_divide.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.true_divide.out(f, g, out=out)',
    'true_divide.Scalar':
        'torch.ops.aten.true_divide.Scalar(f, 2.5)',
    'true_divide_.Scalar':
        'x = f.clone(); torch.ops.aten.true_divide_.Scalar(x, 2.5)',
    'floor_.default':
        'x = f.clone(); torch.ops.aten.floor_.default(x)',
    'floor_divide_.Tensor':
        'x = f.clone(); torch.ops.aten.floor_divide_.Tensor(x, g)',
    'floor_divide.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.floor_divide.out(f, g, out=out)',
    'floor_divide.Scalar':
        'torch.ops.aten.floor_divide.Scalar(f, 2.5)',
    'floor_divide_.Scalar':
        'x = f.clone(); torch.ops.aten.floor_divide_.Scalar(x, 2.5)',
    'frac_.default':
        'x = f.clone(); torch.ops.aten.frac_.default(x)',
    'frac.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.frac.out(f, out=out)',
    'multiply.Tensor':
        'torch.ops.aten.multiply.Tensor(f, g)',
    'multiply_.Tensor':
        'x = f.clone(); torch.ops.aten.multiply_.Tensor(x, g)',
    'multiply.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.multiply.out(f, g, out=out)',
    'multiply.Scalar':
        'torch.ops.aten.multiply.Scalar(f, 2.5)',
    'multiply_.Scalar':
        'x = f.clone(); torch.ops.aten.multiply_.Scalar(x, 2.5)',
    'reciprocal_.default':
        'x = f.clone(); torch.ops.aten.reciprocal_.default(x)',
    'reciprocal.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.reciprocal.out(f, out=out)',
    'neg_.default':
        'x = f.clone(); torch.ops.aten.neg_.default(x)',
    'negative.default':
        'torch.ops.aten.negative.default(f)',
    'negative_.default':
        'x = f.clone(); torch.ops.aten.negative_.default(x)',
    'negative.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.negative.out(f, out=out)',
    'sqrt_.default':
        'x = f.clone(); torch.ops.aten.sqrt_.default(x)',
    'square.default':
        'torch.ops.aten.square.default(f)',
    'square_.default':
        'x = f.clone(); torch.ops.aten.square_.default(x)',
    'square.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.square.out(f, out=out)',
    'threshold.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.threshold.out(f, 2.5, 2.5, out=out)',
    'trunc_.default':
        'x = f.clone(); torch.ops.aten.trunc_.default(x)',
    'trunc.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.trunc.out(f, out=out)',
    'fix.default':
        'torch.ops.aten.fix.default(f)',
    'fix_.default':
        'x = f.clone(); torch.ops.aten.fix_.default(x)',
    'fix.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.fix.out(f, out=out)',
    'where.ScalarSelf':
        'torch.ops.aten.where.ScalarSelf(b.logical_not(), True, b.logical_not())',
    'where.ScalarOther':
        'torch.ops.aten.where.ScalarOther(b.logical_not(), b, True)',
    'where.Scalar':
        'torch.ops.aten.where.Scalar(b.logical_not(), True, True)',
    'positive.default':
        'torch.ops.aten.positive.default(f)',
    'subtract.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.subtract.out(f, g, out=out)',
    'subtract.Tensor':
        'torch.ops.aten.subtract.Tensor(f, g)',
    'subtract_.Tensor':
        'x = f.clone(); torch.ops.aten.subtract_.Tensor(x, g)',
    'subtract.Scalar':
        'torch.ops.aten.subtract.Scalar(f, 2.5)',
    'subtract_.Scalar':
        'x = f.clone(); torch.ops.aten.subtract_.Scalar(x, 2.5)',
    'eq_.Tensor':
        'x = f.clone(); torch.ops.aten.eq_.Tensor(x, g)',
    'ne.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.ne.Scalar_out(f, 2.5, out=out)',
    'ne.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.ne.Tensor_out(f, g, out=out)',
    'ne_.Scalar':
        'x = f.clone(); torch.ops.aten.ne_.Scalar(x, 2.5)',
    'ne_.Tensor':
        'x = f.clone(); torch.ops.aten.ne_.Tensor(x, g)',
    'not_equal.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.not_equal.Scalar_out(f, 2.5, out=out)',
    'not_equal.Scalar':
        'torch.ops.aten.not_equal.Scalar(f, 2.5)',
    'not_equal.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.not_equal.Tensor_out(f, g, out=out)',
    'not_equal.Tensor':
        'torch.ops.aten.not_equal.Tensor(f, g)',
    'not_equal_.Scalar':
        'x = f.clone(); torch.ops.aten.not_equal_.Scalar(x, 2.5)',
    'not_equal_.Tensor':
        'x = f.clone(); torch.ops.aten.not_equal_.Tensor(x, g)',
    'eq.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.eq.Tensor_out(f, g, out=out)',
    'ge.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.ge.Scalar_out(f, 2.5, out=out)',
    'ge.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.ge.Tensor_out(f, g, out=out)',
    'ge_.Scalar':
        'x = f.clone(); torch.ops.aten.ge_.Scalar(x, 2.5)',
    'greater_equal.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.greater_equal.Scalar_out(f, 2.5, out=out)',
    'greater_equal.Scalar':
        'torch.ops.aten.greater_equal.Scalar(f, 2.5)',
    'greater_equal.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.greater_equal.Tensor_out(f, g, out=out)',
    'greater_equal.Tensor':
        'torch.ops.aten.greater_equal.Tensor(f, g)',
    'greater_equal_.Scalar':
        'x = f.clone(); torch.ops.aten.greater_equal_.Scalar(x, 2.5)',
    'greater_equal_.Tensor':
        'x = f.clone(); torch.ops.aten.greater_equal_.Tensor(x, g)',
    'le.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.le.Scalar_out(f, 2.5, out=out)',
    'le.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.le.Tensor_out(f, g, out=out)',
    'le_.Scalar':
        'x = f.clone(); torch.ops.aten.le_.Scalar(x, 2.5)',
    'le_.Tensor':
        'x = f.clone(); torch.ops.aten.le_.Tensor(x, g)',
    'less_equal.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.less_equal.Scalar_out(f, 2.5, out=out)',
    'less_equal.Scalar':
        'torch.ops.aten.less_equal.Scalar(f, 2.5)',
    'less_equal.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.less_equal.Tensor_out(f, g, out=out)',
    'less_equal.Tensor':
        'torch.ops.aten.less_equal.Tensor(f, g)',
    'less_equal_.Scalar':
        'x = f.clone(); torch.ops.aten.less_equal_.Scalar(x, 2.5)',
    'less_equal_.Tensor':
        'x = f.clone(); torch.ops.aten.less_equal_.Tensor(x, g)',
    'gt.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.gt.Scalar_out(f, 2.5, out=out)',
    'gt.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.gt.Tensor_out(f, g, out=out)',
    'gt_.Scalar':
        'x = f.clone(); torch.ops.aten.gt_.Scalar(x, 2.5)',
    'gt_.Tensor':
        'x = f.clone(); torch.ops.aten.gt_.Tensor(x, g)',
    'greater.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.greater.Scalar_out(f, 2.5, out=out)',
    'greater.Scalar':
        'torch.ops.aten.greater.Scalar(f, 2.5)',
    'greater.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.greater.Tensor_out(f, g, out=out)',
    'greater.Tensor':
        'torch.ops.aten.greater.Tensor(f, g)',
    'greater_.Scalar':
        'x = f.clone(); torch.ops.aten.greater_.Scalar(x, 2.5)',
    'greater_.Tensor':
        'x = f.clone(); torch.ops.aten.greater_.Tensor(x, g)',
    'lt.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.lt.Scalar_out(f, 2.5, out=out)',
    'lt.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.lt.Tensor_out(f, g, out=out)',
    'lt_.Tensor':
        'x = f.clone(); torch.ops.aten.lt_.Tensor(x, g)',
    'less.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.less.Scalar_out(f, 2.5, out=out)',
    'less.Scalar':
        'torch.ops.aten.less.Scalar(f, 2.5)',
    'less.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.less.Tensor_out(f, g, out=out)',
    'less.Tensor':
        'torch.ops.aten.less.Tensor(f, g)',
    'less_.Scalar':
        'x = f.clone(); torch.ops.aten.less_.Scalar(x, 2.5)',
    'less_.Tensor':
        'x = f.clone(); torch.ops.aten.less_.Tensor(x, g)',
    'sign_.default':
        'x = f.clone(); torch.ops.aten.sign_.default(x)',
    'sign.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.sign.out(f, out=out)',
    'fmod.Scalar_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.fmod.Scalar_out(f, 2.5, out=out)',
    'fmod_.Scalar':
        'x = f.clone(); torch.ops.aten.fmod_.Scalar(x, 2.5)',
    'fmod.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.fmod.Tensor_out(f, g, out=out)',
    'fmod_.Tensor':
        'x = f.clone(); torch.ops.aten.fmod_.Tensor(x, g)',
    'nextafter.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.nextafter.out(f, g, out=out)',
    'nextafter_.default':
        'x = f.clone(); torch.ops.aten.nextafter_.default(x, g)',
    'remainder.Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.remainder.Tensor_out(f, g, out=out)',
    'fmin.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.fmin.out(f, g, out=out)',
    'fmax.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.fmax.out(f, g, out=out)',
    'minimum.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.minimum.out(f, g, out=out)',
    'leaky_relu.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.leaky_relu.out(f, out=out)',
    'isfinite.default':
        'torch.ops.aten.isfinite.default(f)',
    'isneginf.out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.isneginf.out(b, out=out)',
}, setup=S)

cases("aten_pointwise_float", {
    'acos_.default':
        'x = f.clone(); torch.ops.aten.acos_.default(x)',
    'acos.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.acos.out(f, out=out)',
    'arccos.default':
        'torch.ops.aten.arccos.default(f)',
    'arccos_.default':
        'x = f.clone(); torch.ops.aten.arccos_.default(x)',
    'arccos.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arccos.out(f, out=out)',
    'acosh_.default':
        'x = f.clone(); torch.ops.aten.acosh_.default(x)',
    'acosh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.acosh.out(f, out=out)',
    'arccosh.default':
        'torch.ops.aten.arccosh.default(f)',
    'arccosh_.default':
        'x = f.clone(); torch.ops.aten.arccosh_.default(x)',
    'arccosh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arccosh.out(f, out=out)',
    'asinh_.default':
        'x = f.clone(); torch.ops.aten.asinh_.default(x)',
    'asinh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.asinh.out(f, out=out)',
    'arcsinh.default':
        'torch.ops.aten.arcsinh.default(f)',
    'arcsinh_.default':
        'x = f.clone(); torch.ops.aten.arcsinh_.default(x)',
    'arcsinh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arcsinh.out(f, out=out)',
    'atanh_.default':
        'x = f.clone(); torch.ops.aten.atanh_.default(x)',
    'atanh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.atanh.out(f, out=out)',
    'arctanh.default':
        'torch.ops.aten.arctanh.default(f)',
    'arctanh_.default':
        'x = f.clone(); torch.ops.aten.arctanh_.default(x)',
    'arctanh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arctanh.out(f, out=out)',
    'asin_.default':
        'x = f.clone(); torch.ops.aten.asin_.default(x)',
    'asin.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.asin.out(f, out=out)',
    'arcsin.default':
        'torch.ops.aten.arcsin.default(f)',
    'arcsin_.default':
        'x = f.clone(); torch.ops.aten.arcsin_.default(x)',
    'arcsin.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arcsin.out(f, out=out)',
    'atan_.default':
        'x = f.clone(); torch.ops.aten.atan_.default(x)',
    'atan.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.atan.out(f, out=out)',
    'arctan.default':
        'torch.ops.aten.arctan.default(f)',
    'arctan_.default':
        'x = f.clone(); torch.ops.aten.arctan_.default(x)',
    'arctan.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arctan.out(f, out=out)',
    'bitwise_not_.default':
        'x = i.clone(); torch.ops.aten.bitwise_not_.default(x)',
    'bitwise_not.out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_not.out(i, out=out)',
    'logical_xor_.default':
        'x = f.clone(); torch.ops.aten.logical_xor_.default(x, g)',
    'logical_and.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.logical_and.out(f, g, out=out)',
    'logical_or_.default':
        'x = f.clone(); torch.ops.aten.logical_or_.default(x, g)',
    'logical_or.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.logical_or.out(f, g, out=out)',
    'cos_.default':
        'x = f.clone(); torch.ops.aten.cos_.default(x)',
    'cos.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.cos.out(f, out=out)',
    'cosh_.default':
        'x = f.clone(); torch.ops.aten.cosh_.default(x)',
    'cosh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.cosh.out(f, out=out)',
    'erf_.default':
        'x = f.clone(); torch.ops.aten.erf_.default(x)',
    'erf.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.erf.out(f, out=out)',
    'erfc_.default':
        'x = f.clone(); torch.ops.aten.erfc_.default(x)',
    'erfc.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.erfc.out(f, out=out)',
    'exp2_.default':
        'x = f.clone(); torch.ops.aten.exp2_.default(x)',
    'exp2.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.exp2.out(f, out=out)',
    'expm1_.default':
        'x = f.clone(); torch.ops.aten.expm1_.default(x)',
    'expm1.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.expm1.out(f, out=out)',
    'log_.default':
        'x = f.clone(); torch.ops.aten.log_.default(x)',
    'log.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.log.out(f, out=out)',
    'log10_.default':
        'x = f.clone(); torch.ops.aten.log10_.default(x)',
    'log10.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.log10.out(f, out=out)',
    'log1p_.default':
        'x = f.clone(); torch.ops.aten.log1p_.default(x)',
    'log2_.default':
        'x = f.clone(); torch.ops.aten.log2_.default(x)',
    'log2.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.log2.out(f, out=out)',
    'logaddexp.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.logaddexp.out(f, g, out=out)',
    'xlogy_.Tensor':
        'x = f.clone(); torch.ops.aten.xlogy_.Tensor(x, g)',
    'xlogy.OutTensor':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.xlogy.OutTensor(f, g, out=out)',
    'xlogy.OutScalar_Self':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.xlogy.OutScalar_Self(2.5, g, out=out)',
    'xlogy.OutScalar_Other':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.xlogy.OutScalar_Other(f, 2.5, out=out)',
    'round_.default':
        'x = f.clone(); torch.ops.aten.round_.default(x)',
    'round.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.round.out(f, out=out)',
    'round.decimals_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.round.decimals_out(f, decimals=1, out=out)',
    'rsqrt_.default':
        'x = f.clone(); torch.ops.aten.rsqrt_.default(x)',
    'rsqrt.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.rsqrt.out(f, out=out)',
    'mish.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.mish.out(f, out=out)',
    'sigmoid.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.sigmoid.out(f, out=out)',
    'logit_.default':
        'x = f.clone(); torch.ops.aten.logit_.default(x)',
    'logit.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.logit.out(f, out=out)',
    'sin_.default':
        'x = f.clone(); torch.ops.aten.sin_.default(x)',
    'sin.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.sin.out(f, out=out)',
    'sinh_.default':
        'x = f.clone(); torch.ops.aten.sinh_.default(x)',
    'sinh.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.sinh.out(f, out=out)',
    'tan_.default':
        'x = f.clone(); torch.ops.aten.tan_.default(x)',
    'tan.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.tan.out(f, out=out)',
    'tanh_.default':
        'x = f.clone(); torch.ops.aten.tanh_.default(x)',
    'bitwise_and.Tensor_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_and.Tensor_out(i, j, out=out)',
    'bitwise_and.Scalar_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_and.Scalar_out(i, 3, out=out)',
    'bitwise_and.Scalar_Tensor':
        'torch.ops.aten.bitwise_and.Scalar_Tensor(3, j)',
    '__and__.Scalar':
        'torch.ops.aten.__and__.Scalar(i, 3)',
    '__and__.Tensor':
        'torch.ops.aten.__and__.Tensor(i, j)',
    '__iand__.Scalar':
        'x = i.clone(); torch.ops.aten.__iand__.Scalar(x, 3)',
    '__iand__.Tensor':
        'x = i.clone(); torch.ops.aten.__iand__.Tensor(x, j)',
    'bitwise_or.Tensor_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_or.Tensor_out(i, j, out=out)',
    'bitwise_or.Scalar_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_or.Scalar_out(i, 3, out=out)',
    'bitwise_or.Scalar_Tensor':
        'torch.ops.aten.bitwise_or.Scalar_Tensor(3, j)',
    'bitwise_or_.Scalar':
        'x = i.clone(); torch.ops.aten.bitwise_or_.Scalar(x, 3)',
    '__or__.Scalar':
        'torch.ops.aten.__or__.Scalar(i, 3)',
    '__or__.Tensor':
        'torch.ops.aten.__or__.Tensor(i, j)',
    '__ior__.Scalar':
        'x = i.clone(); torch.ops.aten.__ior__.Scalar(x, 3)',
    '__ior__.Tensor':
        'x = i.clone(); torch.ops.aten.__ior__.Tensor(x, j)',
    'bitwise_xor.Tensor_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_xor.Tensor_out(i, j, out=out)',
    'bitwise_xor.Scalar_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_xor.Scalar_out(i, 3, out=out)',
    'bitwise_xor.Scalar_Tensor':
        'torch.ops.aten.bitwise_xor.Scalar_Tensor(3, j)',
    'bitwise_xor_.Tensor':
        'x = i.clone(); torch.ops.aten.bitwise_xor_.Tensor(x, j)',
    '__xor__.Scalar':
        'torch.ops.aten.__xor__.Scalar(i, 3)',
    '__xor__.Tensor':
        'torch.ops.aten.__xor__.Tensor(i, j)',
    '__ixor__.Scalar':
        'x = i.clone(); torch.ops.aten.__ixor__.Scalar(x, 3)',
    '__ixor__.Tensor':
        'x = i.clone(); torch.ops.aten.__ixor__.Tensor(x, j)',
    '__ilshift__.Tensor':
        'x = i.clone(); torch.ops.aten.__ilshift__.Tensor(x, j)',
    'bitwise_left_shift_.Tensor':
        'x = i.clone(); torch.ops.aten.bitwise_left_shift_.Tensor(x, j)',
    'bitwise_left_shift.Tensor_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_left_shift.Tensor_out(i, j, out=out)',
    'bitwise_left_shift_.Tensor_Scalar':
        'x = i.clone(); torch.ops.aten.bitwise_left_shift_.Tensor_Scalar(x, 3)',
    'bitwise_left_shift.Tensor_Scalar_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_left_shift.Tensor_Scalar_out(i, 3, out=out)',
    '__rshift__.Scalar':
        'torch.ops.aten.__rshift__.Scalar(i, 3)',
    '__irshift__.Tensor':
        'x = i.clone(); torch.ops.aten.__irshift__.Tensor(x, j)',
    'bitwise_right_shift_.Tensor':
        'x = i.clone(); torch.ops.aten.bitwise_right_shift_.Tensor(x, j)',
    'bitwise_right_shift.Tensor_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_right_shift.Tensor_out(i, j, out=out)',
    'bitwise_right_shift_.Tensor_Scalar':
        'x = i.clone(); torch.ops.aten.bitwise_right_shift_.Tensor_Scalar(x, 3)',
    'bitwise_right_shift.Tensor_Scalar_out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.bitwise_right_shift.Tensor_Scalar_out(i, 3, out=out)',
    'bitwise_right_shift.Scalar_Tensor':
        'torch.ops.aten.bitwise_right_shift.Scalar_Tensor(3, j)',
    'atan2.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.atan2.out(f, g, out=out)',
    'arctan2.default':
        'torch.ops.aten.arctan2.default(f, g)',
    'arctan2.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.arctan2.out(f, g, out=out)',
    'arctan2_.default':
        'x = f.clone(); torch.ops.aten.arctan2_.default(x, g)',
    'hypot.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.hypot.out(f, g, out=out)',
    'hypot_.default':
        'x = f.clone(); torch.ops.aten.hypot_.default(x, g)',
    'float_power.Tensor_Tensor_out':
        'out = torch.empty(0, dtype=torch.float64); torch.ops.aten.float_power.Tensor_Tensor_out(p, g, out=out)',
    'float_power.Tensor_Tensor':
        'torch.ops.aten.float_power.Tensor_Tensor(f, g)',
    'float_power.Scalar_out':
        'out = torch.empty(0, dtype=torch.float64); torch.ops.aten.float_power.Scalar_out(2.5, g, out=out)',
    'float_power.Scalar':
        'torch.ops.aten.float_power.Scalar(2.5, g)',
    'float_power.Tensor_Scalar_out':
        'out = torch.empty(0, dtype=torch.float64); torch.ops.aten.float_power.Tensor_Scalar_out(f, 3, out=out)',
    'float_power.Tensor_Scalar':
        'torch.ops.aten.float_power.Tensor_Scalar(f, 2.5)',
    'float_power_.Scalar':
        'x = p.double(); torch.ops.aten.float_power_.Scalar(x, 2.5)',
    'float_power_.Tensor':
        'x = p.double(); torch.ops.aten.float_power_.Tensor(x, g)',
    'elu.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.elu.out(f, out=out)',
    'hardsigmoid.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.hardsigmoid.out(f, out=out)',
    'hardswish.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.hardswish.out(f, out=out)',
    'softplus.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.softplus.out(f, out=out)',
}, setup=S, tol="float")

cases("aten_predicates", {
    '_is_zerotensor.default':
        'torch.ops.aten._is_zerotensor.default(f)',
    'is_conj.default':
        'torch.ops.aten.is_conj.default(f)',
    'is_neg.default':
        'torch.ops.aten.is_neg.default(f)',
    'is_inference.default':
        'torch.ops.aten.is_inference.default(f)',
    'resolve_conj.default':
        'torch.ops.aten.resolve_conj.default(f)',
    'resolve_neg.default':
        'torch.ops.aten.resolve_neg.default(f)',
    'is_floating_point.default':
        'torch.ops.aten.is_floating_point.default(f)',
    'is_complex.default':
        'torch.ops.aten.is_complex.default(f)',
    'is_signed.default':
        'torch.ops.aten.is_signed.default(f)',
    'is_same_size.default':
        'torch.ops.aten.is_same_size.default(f, g)',
    'conj.default':
        'torch.ops.aten.conj.default(f)',
    'is_nonzero.default':
        '(torch.ops.aten.is_nonzero.default(torch.tensor([2.5])), torch.ops.aten.is_nonzero.default(torch.tensor(0)))',
}, setup=S)

cases("aten_random", {
    'normal.Tensor_float_out':
        'out = torch.empty(3, 4); torch.ops.aten.normal.Tensor_float_out(f, 2.0, generator=gen, out=out)',
    'normal.float_Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.normal.float_Tensor_out(0.5, p, out=out)',
    'normal.Tensor_Tensor_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.normal.Tensor_Tensor_out(f, p, out=out)',
    'normal.float_float_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.normal.float_float_out(0.5, 2.0, [3, 4], out=out)',
    'bernoulli.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.bernoulli.out(p, out=out)',
    'multinomial.out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.multinomial.out(p, 2, generator=gen, out=out)',
    'rand.generator_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.rand.generator_out([3, 4], generator=gen, out=out)',
    'randn.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randn.out([3, 4], out=out)',
    'randn.generator_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randn.generator_out([3, 4], generator=gen, out=out)',
    'rand_like.generator':
        'torch.ops.aten.rand_like.generator(f, generator=gen)',
    'randn_like.generator':
        'torch.ops.aten.randn_like.generator(f, generator=gen)',
    'randint.low_generator':
        'torch.ops.aten.randint.low_generator(-3, 10, [3, 4], generator=gen)',
    'randint.generator_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randint.generator_out(10, [3, 4], generator=gen, out=out)',
    'randint.low_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randint.low_out(-3, 10, [3, 4], out=out)',
    'randint.low_generator_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randint.low_generator_out(-3, 10, [3, 4], generator=gen, out=out)',
    'randint_like.generator':
        'torch.ops.aten.randint_like.generator(f, 10, generator=gen)',
    'randint_like.Tensor_generator':
        'torch.ops.aten.randint_like.Tensor_generator(f, torch.tensor(10), generator=gen)',
    'randint_like.low_generator_dtype':
        'torch.ops.aten.randint_like.low_generator_dtype(f, -3, 10, generator=gen)',
    'randperm.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randperm.out(3, out=out)',
    'randperm.generator_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.randperm.generator_out(3, generator=gen, out=out)',
}, setup=S)

cases("aten_reduce", {
    'prod.int_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.prod.int_out(f, 1, out=out)',
    'amax.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.amax.out(f, out=out)',
    'amin.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.amin.out(f, out=out)',
    'max.unary_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.max.unary_out(f, out=out)',
    'min.unary_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.min.unary_out(f, out=out)',
    'min.dim_min':
        'min_out = torch.empty(0, dtype=torch.float32); min_indices_out = torch.empty(0, dtype=torch.int64); torch.ops.aten.min.dim_min(f, 1, min=min_out, min_indices=min_indices_out)',
    'argmax.out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.argmax.out(i, out=out)',
    'argmin.out':
        'out = torch.empty(0, dtype=torch.int64); torch.ops.aten.argmin.out(i, out=out)',
    'all.all_out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.all.all_out(b, out=out)',
    'all.dims_out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.all.dims_out(b, out=out)',
    'any.all_out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.any.all_out(b, out=out)',
    'any.out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.any.out(b, 1, out=out)',
    'any.dims_out':
        'out = torch.empty(0, dtype=torch.bool); torch.ops.aten.any.dims_out(b, out=out)',
    'cumsum_.default':
        'x = f.clone(); torch.ops.aten.cumsum_.default(x, 1)',
    'cumprod_.default':
        'x = f.clone(); torch.ops.aten.cumprod_.default(x, 1)',
    'cumprod.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.cumprod.out(f, 1, out=out)',
}, setup=S)

cases("aten_reduce_float", {
    'mean.dtype_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.mean.dtype_out(f, out=out)',
    'var.default':
        'torch.ops.aten.var.default(f)',
    'var.dim':
        'torch.ops.aten.var.dim(f, [1])',
    'var.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.var.out(f, [1], out=out)',
    'var.correction_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.var.correction_out(f, out=out)',
    'std.default':
        'torch.ops.aten.std.default(f)',
    'std.dim':
        'torch.ops.aten.std.dim(f, [1])',
    'std.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.std.out(f, [1], out=out)',
    'std.correction_out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.std.correction_out(f, out=out)',
    'var_mean.default':
        'torch.ops.aten.var_mean.default(f)',
    'var_mean.dim':
        'torch.ops.aten.var_mean.dim(f, [1])',
    'std_mean.default':
        'torch.ops.aten.std_mean.default(f)',
    'std_mean.dim':
        'torch.ops.aten.std_mean.dim(f, [1])',
    'logsumexp.out':
        'out = torch.empty(0, dtype=torch.float32); torch.ops.aten.logsumexp.out(f, [1], out=out)',
}, setup=S, tol="float")

cases("aten_views", {
    'reshape.default':
        'torch.ops.aten.reshape.default(f, [4, 3])',
    'reshape_as.default':
        'torch.ops.aten.reshape_as.default(f, g)',
    'view_as.default':
        'torch.ops.aten.view_as.default(f, g)',
    'swapaxes.default':
        'torch.ops.aten.swapaxes.default(f, 0, 1)',
    'swapdims.default':
        'torch.ops.aten.swapdims.default(f, 0, 1)',
    'numpy_T.default':
        'torch.ops.aten.numpy_T.default(f)',
    'mT.default':
        'torch.ops.aten.mT.default(f)',
    'mH.default':
        'torch.ops.aten.mH.default(f)',
    'adjoint.default':
        'torch.ops.aten.adjoint.default(f)',
    'matrix_H.default':
        'torch.ops.aten.matrix_H.default(f)',
    'movedim.intlist':
        'torch.ops.aten.movedim.intlist(f, [0], [1])',
    'movedim.int':
        'torch.ops.aten.movedim.int(f, 0, 1)',
    'moveaxis.intlist':
        'torch.ops.aten.moveaxis.intlist(f, [0], [1])',
    'moveaxis.int':
        'torch.ops.aten.moveaxis.int(f, 0, 1)',
    'expand_as.default':
        'torch.ops.aten.expand_as.default(f, g)',
    'broadcast_to.default':
        'torch.ops.aten.broadcast_to.default(f, [3, 4])',
    'squeeze_.dims':
        'x = f.clone(); torch.ops.aten.squeeze_.dims(x, [1])',
    'narrow.default':
        'torch.ops.aten.narrow.default(f, 1, 1, 2)',
    'narrow.Tensor':
        'torch.ops.aten.narrow.Tensor(f, 1, torch.tensor(1), 2)',
    'flatten.using_ints':
        'torch.ops.aten.flatten.using_ints(f)',
    'ravel.default':
        'torch.ops.aten.ravel.default(f)',
    'unflatten.int':
        'torch.ops.aten.unflatten.int(f, 1, [2, 2])',
    'split.sizes':
        'torch.ops.aten.split.sizes(f, [1, 2])',
    'chunk.default':
        'torch.ops.aten.chunk.default(f, 2)',
    'contiguous.default':
        'torch.ops.aten.contiguous.default(f)',
}, setup=S)


# Honest skip: complex conjugation is a lazy view upstream (the conj bit); torchnative has no
# conj bit yet and refuses aten::_conj / conj on complex tensors by name. Unskip when it exists.
cases("aten_conj", {
    '_conj.default':
        'torch.ops.aten._conj.default(torch.tensor([1+2j, -0.5j, 3+0j])).resolve_conj()',
})
import pytest  # noqa: E402
test_aten_conj = pytest.mark.skip(reason="needs the lazy conjugate bit for complex tensors, not built yet")(test_aten_conj)  # noqa: F821

# queries upstream's Tensor answers inline (manual_cpp_binding rows): their aten spellings, and
# torch.numel / torch.get_device, which upstream binds as functions by hand
cases("aten_queries", {
    "numel": "(torch.ops.aten.numel.default(f[:, 1:]), torch.numel(f), torch.numel(torch.tensor(2.)), torch.ops.aten.sym_numel.default(f))",
    "dim": "(torch.ops.aten.dim.default(f), torch.ops.aten.dim.default(torch.tensor(1.)), torch.ops.aten.dense_dim.default(f), torch.ops.aten.sparse_dim.default(f))",
    "size_stride": "(torch.ops.aten.size.int(f, 1), torch.ops.aten.size.int(f, -2), torch.ops.aten.stride.int(f.t(), 0), "
                   "torch.ops.aten.sym_size.int(f, 0), torch.ops.aten.sym_stride.int(f, -1))",
    "size_bad_dim": "err(lambda: torch.ops.aten.size.int(f, 2))",
    "size_0dim": "err(lambda: torch.ops.aten.size.int(torch.tensor(1.), 0))",
    "stride_0dim": "err(lambda: torch.ops.aten.stride.int(torch.tensor(1.), -1))",
    "storage_offset": "(torch.ops.aten.storage_offset.default(f[1:, 2:]), torch.ops.aten.sym_storage_offset.default(f[2]))",
    "contiguous": "(torch.ops.aten.is_contiguous.default(f), torch.ops.aten.is_contiguous.default(f.t()), "
                  "torch.ops.aten.is_contiguous.memory_format(torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last), torch.channels_last), "
                  "torch.ops.aten.sym_is_contiguous.default(f.t()))",
    "get_device": "(torch.ops.aten.get_device.default(f), torch.get_device(f), f.get_device())",
    "is_coalesced": "err(lambda: torch.ops.aten.is_coalesced.default(f))",
    "autograd_state": "(lambda w: (torch.ops.aten.is_leaf.default(w), torch.ops.aten.is_leaf.default(w * 2), torch.ops.aten.output_nr.default(w.unbind()[1]), "
                      "torch.ops.aten._version.default(f.clone().add_(1)), torch.ops.aten.retains_grad.default(w), torch.ops.aten.data.default(w).requires_grad, "
                      "torch.ops.aten.requires_grad_.default(f.clone()).requires_grad, torch.ops.aten.requires_grad_.default(f.clone(), False).requires_grad))"
                      "(f.clone().requires_grad_())",
    "numel_bad": "err(lambda: torch.numel([1]))[0]",
}, setup=S + """
def err(fn):
    try:
        return fn()
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
""")
