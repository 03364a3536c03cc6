"""Backward of the SmolLM2-135M-shaped attention (9 heads, 3 key/value heads, head size 64, causal,
enable_gqa, query in Llama's (B, L, H, E) memory): torch.autograd.grad(out, (q, k, v), g) of
F.scaled_dot_product_attention at 128 and 512 tokens, best of 7 rounds, wall and process CPU time.
Run it with each interpreter: `python bench/bench_attn_bw.py THREADS` (docs/speed_prefill.md,
"Flash attention's backward")."""
import sys, time, torch
F = torch.nn.functional
torch.set_num_threads(int(sys.argv[1]))
res = []
for L in (128, 512):
    torch.manual_seed(0)
    q = torch.randn(1, L, 9, 64).transpose(1, 2).requires_grad_()
    k = torch.randn(1, L, 3, 64).transpose(1, 2).requires_grad_()
    v = torch.randn(1, L, 3, 64).transpose(1, 2).requires_grad_()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    g = torch.randn_like(out)
    n = 200 if L == 128 else 40
    for _ in range(5): torch.autograd.grad(out, (q, k, v), g, retain_graph=True)
    best = cbest = 1e9
    for rep in range(7):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(n): torch.autograd.grad(out, (q, k, v), g, retain_graph=True)
        best = min(best, (time.perf_counter() - t) / n)
        cbest = min(cbest, (time.process_time() - c) / n)
    res.append(f"L={L}: wall {best*1e3:.3f} ms cpu {cbest*1e3:.3f} ms")
print(" | ".join(res))
