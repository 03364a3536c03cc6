"""What a TorchDispatchMode sees of a call (func, args, kwargs), compared with upstream 2.13.0:
trailing defaults left out by upstream's IValue comparison (an int[N] default written as one number
is N copies, a Scalar keeps its kind), the TensorOptions upstream's Python bindings always pass
(pin_memory, and the default device for factory functions), F.pad's explicit 0.0, and the
conversions to Python numbers (item / float / int / bool / index: _local_scalar_dense) and numpy()
(detach)."""
from harness import cases

PRE = """
import warnings
warnings.filterwarnings("ignore")
from torch.utils._python_dispatch import TorchDispatchMode
F = torch.nn.functional
def form(a):
    if isinstance(a, torch.Tensor):
        return ("T", tuple(a.shape), str(a.dtype))
    if isinstance(a, (list, tuple)):
        return [form(e) for e in a]
    return repr(a)
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.calls.append((str(func), form(args), sorted((k, form(v)) for k, v in kwargs.items())))
        return func(*args, **kwargs)
x = torch.arange(16.).reshape(1, 1, 4, 4)
t = torch.tensor(2.5)
def seen(fn):
    with Trace() as tr:
        try:
            fn()
        except Exception as e:
            tr.calls.append(type(e).__name__)
    return tr.calls
"""

CALLS = {
    "max_pool2d": "F.max_pool2d(x, 2)",
    "max_pool2d_indices": "F.max_pool2d(x, 2, return_indices=True)",
    "max_pool2d_stride_none": "torch.max_pool2d(x, 2, None)",
    "quantized_max_pool2d": "F.max_pool2d(torch.quantize_per_tensor(x / 16, 0.1, 0, torch.quint8), 2)",
    "avg_pool2d": "F.avg_pool2d(x, 2)",
    "avg_pool2d_quantized": "F.avg_pool2d(torch.quantize_per_tensor(x / 16, 0.1, 0, torch.quint8), 2)",
    "aten_pool_one_padding": "torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2], [0], [1, 1])",
    "aten_pool_defaults": "torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [], 0, 1)",
    "conv2d": "F.conv2d(x, torch.ones(1, 1, 2, 2))",
    "add_alpha_float": "torch.add(x, x, alpha=1.0)",
    "add_alpha_int": "torch.add(x, x, alpha=1)",
    "leaky_relu_int": "torch.ops.aten.leaky_relu(x, 0)",
    "constant_pad_bool": "torch.ops.aten.constant_pad_nd(x, [1, 1], False)",
    "sum_keepdim_int": "torch.ops.aten.sum.dim_IntList(x, [1], 0)",
    "pad": "F.pad(x, (1, 1))",
    "pad_value_int": "F.pad(x, (1, 1), value=1)",
    "pad_reflect_bad": "F.pad(x, (1, 1), mode='reflect')",
    "ones": "torch.ones(2)",
    "ones_dtype_layout": "torch.ones(2, dtype=torch.float64, layout=torch.strided)",
    "randint": "torch.randint(3, (2,))",
    "empty_pin": "torch.empty(2, pin_memory=False)",
    "full": "torch.full((2,), 1.)",
    "arange": "torch.arange(4)",
    "linspace": "torch.linspace(0, 1, 3)",
    "eye": "torch.eye(2)",
    "zeros_like": "torch.zeros_like(x)",
    "new_zeros": "x.new_zeros(2)",
    "item": "t.item()",
    "float": "float(t)",
    "int": "int(t)",
    "bool": "bool(t)",
    "bool_many": "bool(x)",
    "complex": "complex(t)",
    "index": "[1, 2, 3][torch.tensor(1)]",
    "format": "'%f' % t",
    "tolist": "t.tolist()",
    "numpy": "x.numpy()",
    "numpy_meta": "torch.ones(2, device='meta').numpy()",
    "is_nonzero": "torch.ops.aten.is_nonzero(t)",
}

cases("mode_args", {k: PRE + f"seen(lambda: {v})" for k, v in CALLS.items()})
