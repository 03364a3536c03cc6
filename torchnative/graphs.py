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

    forward = torchnative.graphs.replayed(model.forward)  # capture on a call's second sighting

replayed(fn) decides per call: a call under torch.no_grad() whose arguments match, in kind, a call
seen once before (tensors of the same dtype, sizes and strides; the same other values; the same
objects) is captured; later matching calls replay. transformers' generate() with
cache_implementation="static" so decodes by replay (docs/graphs.md "generate()").
docs/graphs.md has the details and what was measured.
"""
import collections
import weakref

import torch
from torch.utils import _pytree

__all__ = ["capture", "Graph", "replayed"]


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
        return self._run(inputs, ())

    def _run(self, inputs, objects):
        """Replay; a result leaf marked as the i-th of the call's objects (_unhold) is objects[i]."""
        outs = iter(self._replay(self._handle, list(inputs)))
        leaves = [next(outs) if kind == "tensor" else objects[value] if kind == "object" else value
                  for kind, value in self._leaves]
        return _pytree.tree_unflatten(leaves, self._spec)

    def _unhold(self, objects):
        """Result leaves that are one of objects are taken from the call instead of kept (replayed()
        holds a call's objects weakly: the result must not keep them alive)."""
        ids = {id(x): i for i, x in enumerate(objects)}
        self._leaves = [("object", ids[id(value)]) if kind == "value" and id(value) in ids else (kind, value)
                        for kind, value in self._leaves]

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
    return Graph(handle, spec, [("tensor", None) if isinstance(x, torch.Tensor) else ("value", x) for x in leaves]), result


class _Replayed:
    """fn wrapped by replayed(): eager until a call's signature is seen twice, then capture, then replay."""

    def __init__(self, fn, max_graphs):
        self.fn, self.max_graphs = fn, max_graphs
        self.graphs = collections.OrderedDict()  # signature -> [Graph or None (seen once), weak refs]
        self.module = getattr(fn, "__self__", None)
        if not isinstance(self.module, torch.nn.Module):
            self.module = None
        self.counts = collections.Counter()  # calls run "eager", "captured", "replayed"
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)

    def _signature(self, args, kwargs):
        """(signature, objects, tensors) of a call, or None when it must run eagerly. An object
        other than a tensor or a plain value is told by identity; a transformers cache only when
        static (is_compileable: it writes its tensors in place), with the identities of its tensors
        too. The entry is dropped when such an object dies (a weak reference), so an identity is
        never matched to a new object."""
        if torch.is_grad_enabled():
            return None
        leaves, spec = _pytree.tree_flatten((args, kwargs))
        sig, objects, tensors = [spec, torch.is_inference_mode_enabled()], [], []
        if self.module is not None:
            sig.append(tuple(m.training for m in self.module.modules()))
        for x in leaves:
            if isinstance(x, torch.Tensor):
                if type(x) is not torch.Tensor or x.layout != torch.strided or x.device.type != "cpu":
                    return None
                sig.append((x.dtype, tuple(x.shape), x.stride()))
                tensors.append(x)
            elif x is None or isinstance(x, (bool, int, float, str, torch.dtype, torch.device, torch.layout,
                                             torch.memory_format)):
                sig.append((type(x), x))
            else:
                if hasattr(x, "is_compileable") and not x.is_compileable:
                    return None  # a DynamicCache rebinds its tensors: not replayable
                held = [v for layer in getattr(x, "layers", ()) for v in vars(layer).values()
                        if isinstance(v, torch.Tensor)]
                sig.append((id(x), tuple(id(v) for v in held)))
                objects += [x] + held
        return tuple(sig), objects, tensors

    def __call__(self, *args, **kwargs):
        got = self._signature(args, kwargs)
        entry = None if got is None else self.graphs.get(got[0])
        if entry is None:  # not replayable, or a first sighting
            if got is not None:
                self._add(*got[:2])
            self.counts["eager"] += 1
            return self.fn(*args, **kwargs)
        sig, objects, tensors = got
        self.graphs.move_to_end(sig)
        if entry[0] is not None:
            self.counts["replayed"] += 1
            return entry[0]._run(tensors, objects)

        def flat(*ts):
            it = iter(ts)
            leaves, spec = _pytree.tree_flatten((args, kwargs))
            a, k = _pytree.tree_unflatten([next(it) if isinstance(x, torch.Tensor) else x for x in leaves], spec)
            return self.fn(*a, **k)
        graph, result = capture(flat, *tensors)
        graph._unhold(objects)
        entry[0] = graph
        self.counts["captured"] += 1
        return result

    def _add(self, sig, objects):
        """An entry [graph, weak references], dropped when one of its objects dies; none when one
        cannot be referenced weakly (such calls stay eager)."""
        graphs = weakref.ref(self.graphs)

        def drop(_):
            g = graphs()
            if g is not None:
                g.pop(sig, None)
        try:
            refs = [weakref.ref(x, drop) for x in objects]
        except TypeError:
            return
        self.graphs[sig] = [None, refs]
        while len(self.graphs) > self.max_graphs:
            self.graphs.popitem(last=False)


def replayed(fn, max_graphs=8):
    """fn, its calls replayed once seen twice (see the module's docstring). Calls with grad mode on,
    with tensors that are not plain strided CPU tensors, or with a transformers cache that is not
    static run eagerly. At most max_graphs signatures are kept (the least recently used dropped)."""
    if not callable(fn):
        raise TypeError("torchnative.graphs.replayed: expected a callable, got %s" % type(fn).__name__)
    return _Replayed(fn, max_graphs)
