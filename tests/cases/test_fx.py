"""torch.fx on torchnative: torch._C's _NodeBase / _NodeIter / _fx_map_aggregate / _fx_map_arg
(src/python/fx.c) under upstream's torch.fx, compared with upstream: traced code, node order and
sort keys, users / input nodes after graph edits, map_aggregate over nested containers, and
running the traced modules."""
from harness import cases

SETUP = """
import copy
import torch.fx as fx
import collections
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.p = torch.nn.Parameter(torch.ones(3))
    def forward(self, x, y=None):
        h = torch.relu(self.lin(x)) + self.p
        h = h.sum(dim=-1, keepdim=True) * x[:, :1]
        return {"out": h, "pair": [h, x.shape[0]]}
def summary(g):
    return [(n.name, n.op, n.target if isinstance(n.target, str) else n.target.__name__, tuple(a.name for a in n.all_input_nodes), tuple(u.name for u in n.users),
             n._sort_key) for n in g.nodes]
"""

cases("fx", {
    "trace_code": "gm = fx.symbolic_trace(M())\ngm.code",
    "trace_nodes": "summary(fx.symbolic_trace(M()).graph)",
    "run_traced": "torch.manual_seed(0)\nm = M()\ngm = fx.symbolic_trace(m)\nx = torch.randn(2, 4)\ngm(x)['out'], m(x)['out']",
    "insert_before_and_keys": "gm = fx.symbolic_trace(M())\ng = gm.graph\nrelu = [n for n in g.nodes if n.target is torch.relu][0]\n"
                              "with g.inserting_before(relu):\n    a = g.call_function(torch.neg, (relu.args[0],))\n"
                              "    b = g.call_function(torch.abs, (a,))\nrelu.replace_input_with(relu.args[0], b)\ng.lint()\ngm.recompile()\n"
                              "summary(g), gm.code",
    "erase_and_reverse": "g = fx.symbolic_trace(M()).graph\nout = g.output_node()\nfirst = list(g.nodes)\n"
                         "dead = g.call_function(torch.sin, (first[0],))\nn_before = len(g.nodes)\ng.erase_node(dead)\n"
                         "[n.name for n in reversed(g.nodes)], n_before, len(g.nodes), first[0].users.keys().__len__()",
    "replace_all_uses": "gm = fx.symbolic_trace(M())\ng = gm.graph\nlin = [n for n in g.nodes if n.op == 'call_module'][0]\n"
                        "with g.inserting_after(lin):\n    t = g.call_function(torch.tanh, (lin,))\n"
                        "lin.replace_all_uses_with(t, delete_user_cb=lambda u: u is not t)\ng.lint()\nsummary(g)",
    "node_order_compare": "g = fx.symbolic_trace(M()).graph\nns = list(g.nodes)\n"
                          "[(a < b, a > b, a <= b, a >= b, a == b) for a in ns[:3] for b in ns[:3]]",
    "prepend_append_move": "g = fx.symbolic_trace(M()).graph\nns = list(g.nodes)\nns[3].append(ns[1])\nns[5].prepend(ns[2])\n"
                           "[(n.name, n._sort_key) for n in g.nodes]",
    "map_aggregate": "Pt = collections.namedtuple('Pt', 'a b')\n"
                     "r = torch._C._fx_map_aggregate([1, (2, Pt(3, 4)), {'k': slice(5, 6, None)}, []], lambda v: v * 10 if isinstance(v, int) else v)\n"
                     "r, type(r).__name__, type(r[1][1]).__name__, type(r[2]).__name__",
    "map_arg": "g = fx.symbolic_trace(M()).graph\nx = list(g.nodes)[0]\n"
               "fx.node.map_arg((x, [x, 3], {'a': x}), lambda n: n.name)",
    "deepcopy_graphmodule": "torch.manual_seed(0)\ngm = fx.symbolic_trace(M())\ngm2 = copy.deepcopy(gm)\nsummary(gm2.graph), gm2.code == gm.code",
    "interpreter": "torch.manual_seed(0)\ngm = fx.symbolic_trace(M())\nfx.Interpreter(gm).run(torch.ones(2, 4))['out']",
    "node_iter_direct": "g = fx.symbolic_trace(M()).graph\n[n.name for n in torch._C._NodeIter(g._root, False)], [n.name for n in torch._C._NodeIter(g._root, True)]",
    "bad_prepend": "g = fx.symbolic_trace(M()).graph\nn = list(g.nodes)[0]\ndef f():\n    try:\n        n._prepend(3)\n    except TypeError as e:\n        return str(e)\nf()",
    "bad_update_args": "g = fx.symbolic_trace(M()).graph\nn = list(g.nodes)[0]\ndef f():\n    try:\n        n._update_args_kwargs(())\n    except TypeError as e:\n        return str(e)\nf()",
}, setup=SETUP, tol="float")
