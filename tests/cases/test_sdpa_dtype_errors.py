"""Attention given inputs of a dtype it does not compute (ops/nn.c; docs/breadth_more2.md "Attention
dtype errors"): upstream's exception type and message, compared word for word through `err`.

- _scaled_dot_product_flash_attention_for_cpu called directly reads query.size(0), size(2), size(1)
  (IndexError below 3 dims), refuses a query that is not floating ("Expected data type in FP32,
  FP64, BF16, FP16"; float8 passes that check and has no kernel: NotImplementedError), then its
  shape / dropout / mask checks, then its kernel reads key and value as the query's type
  ("expected scalar type Float but found Long").
- F.scaled_dot_product_attention checks equal dtypes first (C++ type names in the message), takes
  the flash kernel only for f32 / f64 / bf16 / f16 (and 2-d or 4-d masks of fitting sizes; a 1-d mask
  is an IndexError of that check), and runs any other dtype through its math path op by op, so the
  error is that of the op that refuses: the final bmm for integers and bool, softmax for complex,
  mul for float8; a boolean mask becomes -inf in the query's dtype (an overflow for integers), the
  causal mask in the scaled query's (float).
- the backward op refuses a non-float query by its dispatch name and a logsumexp not float32.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
F = torch.nn.functional
A = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
BW = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward
f = torch.ones(1, 2, 3, 4)
def q(dt, *shape):
    return torch.ones(*(shape or (1, 2, 3, 4))).to(dt)
DTS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.uint16, torch.bool, torch.complex64,
       torch.complex128, torch.float8_e4m3fn, torch.float8_e5m2]
"""

cases("sdpa_dtype_errors", {
    "flash_op_dtypes": "[err(lambda: A(q(d), q(d), q(d))) for d in DTS]",
    "flash_op_query_dtype_first": "[err(lambda: A(q(d), f, f)) for d in DTS]",
    "flash_op_key_value_dtype": "[err(lambda: A(f, q(d), f)) for d in DTS], [err(lambda: A(f, f, q(d))) for d in DTS], "
                                "err(lambda: A(f, f.half(), q(torch.int64))), err(lambda: A(f.half(), f, f)), "
                                "err(lambda: A(f.double(), f.double(), f.bfloat16()))",
    "flash_op_query_dims": "[err(lambda: A(q(torch.int64, *s), q(torch.int64), q(torch.int64))) for s in [(3, 4), (4,), ()]], "
                           "err(lambda: A(torch.tensor(1.0), f, f)), err(lambda: A(f[0, 0], f, f)), err(lambda: A(f[0], f, f))",
    # the checks before the kernel's dtype reads, in upstream's order
    "flash_op_check_order": "l = q(torch.int64); [err(g) for g in [lambda: A(f, l[0], f), lambda: A(f, l, f, 0.5), "
                            "lambda: A(f, l, f, attn_mask=torch.zeros(1, 3, 3)), lambda: A(f, l, f, attn_mask=torch.zeros(3, 3)), "
                            "lambda: A(f, f, f, attn_mask=torch.zeros(3, 3, dtype=torch.long)), "
                            "lambda: A(f, f, f, attn_mask=torch.zeros(3, 3, dtype=torch.bool)), "
                            "lambda: A(f, f, f, attn_mask=torch.zeros(1, 3, 3)), lambda: A(f, f, f, attn_mask=torch.zeros(3)), "
                            "lambda: A(l, f, f, 0.5), lambda: A(q(torch.float8_e4m3fn), l, f)]]",
    "sdpa_dtypes": "[err(lambda: F.scaled_dot_product_attention(q(d), q(d), q(d))) for d in DTS]",
    "sdpa_dtypes_3d": "[err(lambda: F.scaled_dot_product_attention(q(d, 2, 3, 4), q(d, 2, 3, 4), q(d, 2, 3, 4))) for d in DTS]",
    "sdpa_mixed_dtype_names": "[err(lambda: F.scaled_dot_product_attention(f, q(d), q(d))) for d in DTS + "
                              "[torch.float64, torch.float16, torch.bfloat16, torch.uint32, torch.uint64]]",
    "sdpa_masks_causal_dropout": "l = q(torch.int64); c = q(torch.complex64); [err(g) for g in ["
                                 "lambda: F.scaled_dot_product_attention(l, l, l, attn_mask=torch.zeros(3, 3, dtype=torch.long)), "
                                 "lambda: F.scaled_dot_product_attention(l, l, l, is_causal=True), "
                                 "lambda: F.scaled_dot_product_attention(l, l, l, attn_mask=torch.ones(3, 3, dtype=torch.bool)), "
                                 "lambda: F.scaled_dot_product_attention(l, l, l, dropout_p=0.5), "
                                 "lambda: F.scaled_dot_product_attention(c, c, c, attn_mask=torch.ones(3, 3, dtype=torch.bool)), "
                                 "lambda: F.scaled_dot_product_attention(c, c, c, is_causal=True)]]",
    "sdpa_with_grad": "[err(lambda: F.scaled_dot_product_attention(q(d).requires_grad_(), q(d), q(d))) for d in "
                      "[torch.complex64, torch.complex128]], err(lambda: F.scaled_dot_product_attention(f.requires_grad_(), q(torch.int64), q(torch.int64)))",
    "backward_dtypes": "lse = torch.zeros(1, 2, 3); [err(lambda: BW(q(d), q(d), q(d), q(d), q(d), lse, 0.0, False)) for d in DTS], "
                       "[err(lambda: BW(f, f, f, f, f, lse.to(d), 0.0, False)) for d in DTS + [torch.float64, torch.float16]]",
}, setup=SETUP)

# the outputs (math path, op by op) within the float rule (float32: the rule is derived from upstream's
# float64 re-run)
cases("sdpa_mask_shape_errors", {
    # the flash choice's mask shape check: a 1-d mask fails its size(-2); 3-d / 5-d masks take the math path
    # (whose in-place add refuses a mask broadcasting past the scores)
    "sdpa_mask_shapes": "torch.manual_seed(0); x = torch.randn(2, 2, 3, 4); [err(lambda: "
                        "F.scaled_dot_product_attention(x, x, x, attn_mask=torch.randn(*s))) for s in "
                        "[(4,), (3,), (1, 1, 1, 3, 3)]], F.scaled_dot_product_attention(x, x, x, attn_mask=torch.randn(2, 3, 3))",
    "sdpa_mask_shapes_grad": "torch.manual_seed(0); x = torch.randn(2, 2, 3, 4, requires_grad=True); "
                             "[err(lambda: F.scaled_dot_product_attention(x, x, x, attn_mask=torch.randn(*s))) "
                             "for s in [(3,), (1, 1, 1, 3, 3)]], F.scaled_dot_product_attention(x, x, x, attn_mask=torch.randn(1, 3, 3)).detach()",
}, setup=SETUP, tol="float")
