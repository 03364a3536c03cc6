"""More OpInfo breadth (#11, docs/breadth_more.md) compared with upstream: torch._C's custom-op
aliasing check (what torch.library custom operators, e.g. linear_cross_entropy's chunked
implementation, run after each call), and the operators added for OpInfo entries that were
refused by name. Dtypes, 0-dim / empty / non-contiguous inputs, every spelling, gradients,
upstream's errors."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"

AL = "f = torch._C._any_output_is_alias_to_input_or_output\nx, y = torch.randn(3), torch.randn(3)\n"
cases("any_output_is_alias", {
    "tensors": AL + "(f((x,), {}, (x,)), f((x,), {}, (x[1:],)), f((x,), {}, (y,)), f((), {}, (y, y)), f((), {}, (y, y.view(3))), f((x.data,), {}, (x,)), f((x,), {}, (x.detach(),)))",
    "containers": AL + "(f(([x, y],), {}, (y,)), f(([x, 1],), {}, (x,)), f(((x, y),), {}, (y,)), f((), {'a': x}, (x,)), f((), {'a': [x]}, (x,)), f((x,), {}, ([x],)), f((x,), {}, ((x,),)), f((x,), {}, (None, 1, x)))",
    "outputs": AL + "(f((), {}, ([x, x],)), f((), {}, ([x, 1, x],)), f(([x, x],), {}, ()), f((x, x), {}, ()), f((x,), {}, (1,)), f((torch.empty(0),), {}, (torch.empty(0),)))",
    "not_tuples": AL + "(f([x], {}, (x,)), f((x,), {}, [x]), f((x,), {}, (x,), 1))",
    "meta": "f = torch._C._any_output_is_alias_to_input_or_output\nm = torch.empty(3, device='meta')\n(f((m,), {}, (m,)), f((m,), {}, (torch.empty(3, device='meta'),)))",
    "bad_keywords": AL + "f(args=(x,), kwargs={}, result=(x,))",
    "custom_op": "@torch.library.custom_op('tnbreadth::ident', mutates_args=())\ndef ident(x: torch.Tensor) -> torch.Tensor:\n    return x\nident(torch.ones(2))",
    "custom_op_ok": "@torch.library.custom_op('tnbreadth::twice', mutates_args=())\ndef twice(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\ntwice(torch.ones(2))",
})
