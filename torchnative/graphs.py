"""torchnative.graphs: a function's operator calls recorded once, replayed without Python.

    g = torchnative.graphs.capture(fn, *example_inputs)   # runs fn once, under torch.no_grad()
    out = g(*inputs)                                      # the same calls on new inputs

The capture records every operator the function calls (at torchnative's single door, as
parsed); a replay calls them again in C on the new inputs, skipping the Python that chose them
-- for a transformers decode step that is most of a token's time besides the products. The
contract is CUDA graphs': the operators the function calls may depend only on its tensor inputs
(same dtypes, sizes and strides at every replay) and on the values it reads from tensors through
item() / bool() (checked at replay: a different value raises). Tensors that existed before the
capture (weights, a static KV cache) are used in place and may be written by the replayed calls;
tensors the function makes from Python data are kept as constants. Outputs are new tensors at
every replay; what is not a tensor in the function's result is returned as captured.
docs/graphs.md has the details and what was measured.
"""
import torch
from torch.utils import _pytree

__all__ = ["capture", "Graph"]


def _ops():
    try:
        return torch.ops.torchnative
    except (AttributeError, RuntimeError) as e:
        raise RuntimeError("torchnative.graphs needs torchnative's torch (torch.ops.torchnative): %s" % e)


class Graph:
    """A captured function; call it with tensors like the example inputs."""

    def __init__(self, handle, spec, leaves):
        self._handle, self._spec, self._leaves = handle, spec, leaves
        self._replay = _ops().graph_replay.default
        self._release = _ops().graph_release.default

    def __call__(self, *inputs):
        outs = iter(self._replay(self._handle, list(inputs)))
        leaves = [next(outs) if is_tensor else value for is_tensor, value in self._leaves]
        return _pytree.tree_unflatten(leaves, self._spec)

    @property
    def num_calls(self):
        """How many operator calls a replay makes."""
        return _ops().graph_size.default(self._handle)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            try:
                self._release(handle)
            except Exception:
                pass


def capture(fn, *inputs):
    """Run fn(*inputs) once, recording its operator calls; returns (graph, fn's result)."""
    if torch.is_grad_enabled():
        raise RuntimeError("torchnative.graphs: capture records no autograd graph; run it under torch.no_grad()")
    if not all(isinstance(x, torch.Tensor) for x in inputs):
        raise TypeError("torchnative.graphs: the inputs must be tensors, got %s"
                        % ", ".join(type(x).__name__ for x in inputs))
    ops = _ops()
    handle = ops.graph_capture_begin.default(list(inputs))
    try:
        result = fn(*inputs)
        leaves, spec = _pytree.tree_flatten(result)
        handle = ops.graph_capture_end.default([x for x in leaves if isinstance(x, torch.Tensor)])
    except BaseException:
        ops.graph_capture_abort.default()
        raise
    return Graph(handle, spec, [(isinstance(x, torch.Tensor), None if isinstance(x, torch.Tensor) else x) for x in leaves]), result
