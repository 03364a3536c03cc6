"""Child process of tests/test_graphs.py: `graphs_worker.py CHECK [OUT]` prints one JSON line.

Checks on our side (torchnative.graphs): replay against the same function run eagerly, bit for
bit; the refusals. `decode OUT` runs on either side: a seeded 2-layer Llama decoding 16 steps with
transformers' StaticCache, eagerly or by graph replay (ours, `--graph`), in float32 or float64,
greedily or fed the tokens of an earlier run (`--tokens FILE`); its tokens and each step's logits
saved to OUT (.npz).
"""
import json
import sys
import warnings

import torch

warnings.filterwarnings("ignore")


def bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(-1).view(torch.uint8) if a.numel() else a,
                                                                     b.view(-1).view(torch.uint8) if b.numel() else b)


def check_functions():
    import torchnative.graphs as G
    out = {}
    torch.manual_seed(0)
    w = torch.randn(8, 8)
    buf = torch.zeros(4, 8)

    def f(x, y, i):
        z = torch.relu(x @ w + y[:, 1:].sum(-1, keepdim=True))   # views, a reduction, a product
        buf.index_copy_(0, i, z[:1])                              # a write into a tensor made before
        lo, hi = torch.aminmax(z)                                 # a tuple of results
        return {"z": z * torch.tensor(0.5), "pair": (lo, hi), "tag": "kept", "buf": buf.clone()}

    with torch.no_grad():
        ex = (torch.randn(3, 8), torch.randn(3, 5), torch.tensor([0]))
        g, first = G.capture(f, *ex)
        out["num_calls"] = g.num_calls
        ok = True
        for k in range(3):
            x, y, i = torch.randn(3, 8), torch.randn(3, 5), torch.tensor([k + 1])
            buf.zero_()
            a = g(x, y, i)
            buf.zero_()
            b = f(x, y, i)
            ok &= bits_equal(a["z"], b["z"]) and bits_equal(a["buf"], b["buf"]) and a["tag"] == "kept"
            ok &= all(bits_equal(p, q) for p, q in zip(a["pair"], b["pair"]))
        out["replay_equals_eager"] = bool(ok)

        # a constant written in place by the function: its captured value comes back each replay
        def h(x):
            c = torch.tensor([1.0, 2.0])
            c.add_(x)
            return c * 2
        g2, r0 = G.capture(h, torch.tensor([10.0, 20.0]))
        out["constant_restored"] = [g2(torch.tensor([1.0, 1.0])).tolist(), g2(torch.tensor([1.0, 1.0])).tolist()]

        # a read through item(): replayed while it reads the same value, refused when not
        def r(x):
            return x * 2 if bool((x > 0).all()) else x * 3
        g3, _ = G.capture(r, torch.tensor([1.0, 2.0]))
        out["guard_same"] = g3(torch.tensor([3.0, 4.0])).tolist()
        try:
            g3(torch.tensor([-3.0, 4.0]))
            out["guard_other"] = "no error"
        except RuntimeError as e:
            out["guard_other"] = str(e)
    return out


def check_refusals():
    import torchnative.graphs as G
    out = {}

    def err(f):
        try:
            f()
            return "no error"
        except Exception as e:
            return "%s: %s" % (type(e).__name__, e)

    x = torch.ones(2, 3)
    out["grad_enabled"] = err(lambda: G.capture(lambda t: t * 2, x))
    with torch.no_grad():
        out["tolist"] = err(lambda: G.capture(lambda t: torch.tensor(t.tolist()) * 2, x))
        out["numpy"] = err(lambda: G.capture(lambda t: t.numpy(), x))
        # after a refused capture none is left open: a new one works
        g, _ = G.capture(lambda t: t + 1, x)
        out["after_refusal"] = g(torch.zeros(2, 3)).tolist()
        out["wrong_shape"] = err(lambda: g(torch.zeros(3, 2)))
        out["wrong_dtype"] = err(lambda: g(torch.zeros(2, 3, dtype=torch.float64)))
        out["wrong_count"] = err(lambda: g(x, x))
        out["non_tensor_input"] = err(lambda: G.capture(lambda t: t, 3))
        made_before = torch.ones(2)
        out["output_not_recorded"] = err(lambda: G.capture(lambda t: (t + 1, made_before), x))
        out["function_raises"] = err(lambda: G.capture(lambda t: t.reshape(7), x))
        out["input_data"] = err(lambda: G.capture(lambda t: t.data * 2, x))
        out["result_data"] = err(lambda: G.capture(lambda t: (t + 1).data * 2, x))
        g2, _ = G.capture(lambda t: t + 1, x)
        out["after_raise"] = g2(torch.zeros(2, 3)).tolist()
        out["stale_handle"] = err(lambda: torch.ops.torchnative.graph_replay(12345, [x]))
    return out


def make_llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    return LlamaForCausalLM(cfg).eval(), cfg


def decode(path, graph, dtype, tokens):
    """Greedy decode (tokens None) or the given tokens fed one by one; the logits of each step."""
    import numpy as np
    from transformers import StaticCache
    m, cfg = make_llama()
    m = m.to(dtype)
    torch.manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (1, 12))
    n = 16
    cache = StaticCache(config=cfg, max_cache_len=12 + n)
    toks, logits = [], []
    with torch.no_grad():
        o = m(input_ids=ids, cache_position=torch.arange(12), cache=cache, use_cache=True)
        tok = int(o.logits[0, -1].argmax()) if tokens is None else tokens[0]

        def step(x, pos):
            return m(input_ids=x, cache_position=pos, cache=cache, use_cache=True).logits

        f = step
        for i in range(n):
            toks.append(tok)
            x, pos = torch.tensor([[tok]]), torch.tensor([12 + i])
            if graph and f is step:
                import torchnative.graphs as G
                f, l = G.capture(step, x, pos)
            else:
                l = f(x, pos)
            logits.append(l[0, -1].numpy().copy())
            best = int(l[0, -1].argmax())
            tok = best if tokens is None else tokens[min(i + 1, n - 1)]
    np.savez(path, tokens=np.array(toks), logits=np.stack(logits))
    return {"tokens": toks}


def generate(path, replay, dtype):
    """transformers' generate() with a static cache, 16 greedy tokens, eagerly or with the forward
    wrapped by torchnative.graphs.replayed; the logits of each step, and (replayed) what the
    wrapper did: graphs captured, calls left eager (a DynamicCache generate, grad mode on), entries
    dropped when generate's cache dies."""
    import gc
    import numpy as np
    m, cfg = make_llama()
    m = m.to(dtype)
    torch.manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (1, 12))

    def run(**kw):
        with torch.no_grad():
            return m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=16, do_sample=False,
                              output_logits=True, return_dict_in_generate=True, **kw)
    out = {}
    if replay:
        import torchnative.graphs as G
        eager = run(cache_implementation="static")
        m.forward = G.replayed(m.forward)
    o = run(cache_implementation="static")
    logits = np.stack([x[0].numpy() for x in o.logits])
    np.savez(path, tokens=o.sequences[0].numpy(), logits=logits)
    if replay:
        w = m.forward
        out["graphs"] = sum(e[0] is not None for e in w.graphs.values())
        out["counts"] = dict(w.counts)
        out["eager_bits"] = bool(np.array_equal(logits.view(np.uint32),
                                                np.stack([x[0].numpy() for x in eager.logits]).view(np.uint32)))
        out["eager_tokens"] = eager.sequences.tolist() == o.sequences.tolist()
        del o, eager
        gc.collect()
        out["entries_after_cache_died"] = len(w.graphs)
        d = run()  # DynamicCache: not static, every call eager
        out["dynamic_entries"] = len(w.graphs)
        out["dynamic_counts"] = dict(w.counts)
        out["dynamic_tokens"] = d.sequences.tolist()
        m.forward(ids)  # grad mode on: eager, no entry
        out["grad_entries"] = len(w.graphs)
    return out


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "decode":   # decode OUT [--graph] [--float64] [--tokens FILE]
        a = sys.argv
        toks = None
        if "--tokens" in a:
            import numpy as np
            toks = [int(t) for t in np.load(a[a.index("--tokens") + 1])["tokens"]]
        r = decode(a[2], "--graph" in a, torch.float64 if "--float64" in a else torch.float32, toks)
    elif what == "generate":   # generate OUT [--replayed] [--float64]
        r = generate(sys.argv[2], "--replayed" in sys.argv, torch.float64 if "--float64" in sys.argv else torch.float32)
    else:
        r = {"functions": check_functions, "refusals": check_refusals}[what]()
    print(json.dumps(r))
