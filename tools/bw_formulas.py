"""Backward formulas for tools/gen_ops.py (build time): derivatives.yaml's formulas compiled to C.

torchgen's own loader (load_derivatives) gives each overload its backward formulas, one per group
of differentiable inputs, as C++ expressions over `grad`, the saved inputs and outputs (`result`).
tools/fw_formulas.py parses such an expression into its prefix notation (one parser for both
directions); this module reads that notation back as a tree, gives every node a static type
(Tensor, int, double, bool, a node's Scalar argument) from the schema's argument types and the op
rows' schemas, resolves `x.method(args)` / `at::fn(args)` to the aten row whose schema matches the
argument types (as upstream's C++ overloads do), and writes one C function per row that calls
those ops through the typed op API (tn_at_<row>, dispatch/aten.h) in upstream's order, so
create_graph records the backward graph with no extra code.

An expression it cannot type or translate makes the row "unsupported: <reason>": that row's
formula stays hand-written in src/autograd/formulas.c. A row formulas.c registers is an override:
the hand-written body is used even when a generated one exists (docs/bw_formulas.md lists why).
"""
import re

from fw_formulas import translate, Unsupported
from gen_aten_api import params, kind, CTYPE


def read_sexpr(text):
    """The tree of one prefix-notation expression: nested lists of atoms (strings)."""
    toks = re.findall(r"\(|\)|[^\s()]+", text)
    pos = 0

    def one():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t != "(":
            return t
        out = []
        while toks[pos] != ")":
            out.append(one())
        pos += 1
        return out
    tree = one()
    if pos != len(toks):
        raise Unsupported("trailing tokens")
    return tree


# C operators on Tensor operands (upstream's Tensor operators, ATen's TensorOperators.h): the
# method each calls, with a Tensor or a Scalar on the right
TENSOR_BINOPS = {"*": "mul", "/": "div", "+": "add", "-": "sub"}
# methods that are no op on a real tensor and a view through the door on a complex one
CONJ_LIKE = {"conj": "tn_bw_conj"}
# FunctionsManual helpers with a C version in src/autograd/bw_helpers.h: name -> [(argument types,
# C function)], first match wins. Types: T tensor, S a node's Scalar, dt a dtype (`x_scalar_type`),
# ("A", kind) a node argument passed as parsed, optdt an input's options (`x_options`: its dtype),
# layout (`x_layout`), geom an input's recorded geometry (`x_geometry`), metas a Tensor[] input's
# recorded metadata (`x_args_sizes`, `x_args_scalartypes`: the tn_meta array and its length).
HELPERS = {
    "handle_r_to_c": [(("dt", "T"), "tn_bw_r_to_c"), (("T", "T"), "tn_bw_r_to_c_t")],
    "maybe_multiply": [(("T", "S"), "tn_bw_maybe_multiply")],
    "mul_tensor_backward": [(("T", "T", "dt"), "tn_bw_mul_tensor_backward"),
                            (("T", "S", "dt"), "tn_bw_mul_tensor_backward_s")],
    "div_tensor_self_backward": [(("T", "T", "dt"), "tn_bw_div_tensor_self_backward"),
                                 (("T", "S", "dt"), "tn_bw_div_tensor_self_backward_s"),
                                 (("T", "T", "dt", ("A", "str")), "tn_bw_div_tensor_self_backward_mode"),
                                 (("T", "S", "dt", ("A", "str")), "tn_bw_div_tensor_self_backward_s_mode")],
    "div_tensor_other_backward": [(("T", "T", "T"), "tn_bw_div_tensor_other_backward"),
                                  (("T", "T", "T", ("A", "str")), "tn_bw_div_tensor_other_backward_mode")],
    "sum_to": [(("T", ("A", "ints")), "tn_bw_sum_to")],
    "unsqueeze_to": [(("T", ("A", "ints")), "tn_bw_unsqueeze_to"), (("T", "int", ("A", "ints")), "tn_bw_unsqueeze_to_dim"),
                     (("T", ("A", "ints"), ("A", "ints")), "tn_bw_unsqueeze_to_dims")],
    "rad2deg_backward": [(("T",), "tn_bw_rad2deg_backward")],
    "deg2rad_backward": [(("T",), "tn_bw_deg2rad_backward")],
    "not_implemented": [((("A", "str"),), "tn_bw_not_implemented")],
    "value_selecting_reduction_backward": [(("T", "int", "T", ("A", "ints"), "bool"),
                                            "tn_bw_value_selecting_reduction_backward")],
    "scalar_tensor": [(("double", "opts"), "tn_bw_scalar_tensor"), (("int", "opts"), "tn_bw_scalar_tensor")],
    "max_pool_double_backward": [(("T", "T", "int"), "tn_bw_max_pool_double_backward")],
    "evenly_distribute_backward": [(("T", "T", "T"), "tn_bw_evenly_distribute_backward")],
    "copysign_tensor_self_backward": [(("T", "T", "T"), "tn_bw_copysign_tensor_self_backward")],
    "cumsum_backward": [(("T", "int"), "tn_bw_cumsum_backward")],
    "atan2_backward": [(("T", "T", "T", ("A", "ints")), "tn_bw_atan2_backward")],
    "grid_sampler_2d_double_backward": [(("Tu", "Tu", "T", "T", "T", "int", "int", "bool", ("A", "ints")),
                                         "tn_bw_grid_sampler_2d_double_backward")],
    "grid_sampler_3d_double_backward": [(("Tu", "Tu", "T", "T", "T", "int", "int", "bool", ("A", "ints")),
                                         "tn_bw_grid_sampler_3d_double_backward")],
    "scatter_reduce_backward": [(("T", "T", "int", "T", "T", ("A", "str"), "bool", "T"), "tn_bw_scatter_reduce_backward")],
    "index_reduce_backward": [(("T", "T", "int", "T", "T", ("A", "str"), "bool", "T"), "tn_bw_index_reduce_backward")],
    "cholesky_inverse_backward": [(("T", "T", "bool", "T"), "tn_bw_cholesky_inverse_backward")],
    "glu_double_backward_grad_output": [(("T", "T", "int"), "tn_bw_glu_double_backward_grad_output")],
    "glu_double_backward": [(("T", "T", "T", "int"), "tn_bw_glu_double_backward")],
    "cholesky_solve_backward": [(("T", "T", "T", "T", "bool", ("A", "ints")), "tn_bw_cholesky_solve_backward")],
    "linalg_lu_backward": [(("Tu", "Tu", "T", "T", "T", "bool"), "tn_bw_linalg_lu_backward")],
    "lu_factor_ex_backward": [(("T", "T", "T", "bool"), "tn_bw_lu_factor_ex_backward")],
    "lu_unpack_backward": [(("Tu", "Tu", "int", "int"), "tn_bw_lu_unpack_backward")],
    "linalg_lu_solve_LU": [(("T", "T", "T", "T", "bool", "bool"), "tn_bw_linalg_lu_solve_LU")],
    "triangular_solve_backward": [(("Tu", "Tu", "T", "T", "T", "bool", "bool", "bool", ("A", "ints")), "tn_bw_triangular_solve_backward")],
    "linalg_eig_backward": [(("Tu", "Tu", "T", "T", "bool"), "tn_bw_linalg_eig_backward")],
    "slogdet_backward": [(("Tu", "Tu", "T", "T", "T", "T"), "tn_bw_slogdet_backward")],
    "linalg_qr_backward": [(("Tu", "Tu", "T", "T", ("A", "str")), "tn_bw_linalg_qr_backward")],
    "cholesky_backward": [(("T", "bool", "T"), "tn_bw_cholesky_backward")],
    "linalg_det_backward": [(("T", "T", "T", "T", "T"), "tn_bw_linalg_det_backward")],
    "index_backward": [(("T", ("A", "tensors"), "T"), "tn_bw_index_backward")],
    "sum_backward": [(("T", ("A", "ints"), ("A", "ints"), "bool"), "tn_bw_sum_backward")],
    "mean_backward": [(("T", ("A", "ints"), ("A", "ints"), "int", "bool"), "tn_bw_mean_backward")],
    "logsumexp_backward": [(("T", "T", "T", ("A", "ints"), "bool"), "tn_bw_logsumexp_backward")],
    "restore_reduced_dims": [(("T", ("A", "ints"), "bool"), "tn_bw_restore_reduced_dims")],
    "permute_backwards": [(("T", ("A", "ints")), "tn_bw_permute_backwards")],
    "pow_backward": [(("T", "T", "S"), "tn_bw_pow_backward")],
    "pow_backward_exponent": [(("T", "S", "T", "T"), "tn_bw_pow_backward_exponent_s")],
    "split_backward": [(("grads", "int", "int", ("A", "ints"), "optdt"), "tn_bw_split_backward")],
    "split_with_sizes_backward": [(("grads", ("A", "ints"), "int", ("A", "ints"), "optdt"), "tn_bw_split_with_sizes_backward")],
    "unbind_backward": [(("grads", "int"), "tn_bw_unbind_backward")],
    "var_backward": [(("T", "T", ("A", "ints"), "S?", "bool"), "tn_bw_var_backward")],
    "std_backward": [(("T", "T", "T", ("A", "ints"), "S?", "bool"), "tn_bw_std_backward")],
    "var_mean_backward": [(("Tu", "Tu", "T", ("A", "ints"), "S?", "bool"), "tn_bw_var_mean_backward")],
    "std_mean_backward": [(("Tu", "Tu", "T", "T", ("A", "ints"), "S?", "bool"), "tn_bw_std_mean_backward")],
    "clamp_backward": [(("T", "T", "S?", "S?"), "tn_bw_clamp_backward"), (("T", "T", "T?", "T?"), "tn_bw_clamp_backward_t")],
    "clamp_backward_min_max": [(("T", "T", "T?", "T?", ("A", "ints")), "tn_bw_clamp_backward_min_max")],
    "batchnorm_double_backward": [(("T", t, "Tu", "Tu", "Tu", "T", "T?", "T?", "bool", "double", "T?", "T?", ("A", "ints")),
                                   "tn_bw_batchnorm_double_backward") for t in ("T?", "T")],
    "i1_backward": [(("T", "T", "T"), "tn_bw_i1_backward")],
    "i1e_backward": [(("T", "T", "T"), "tn_bw_i1e_backward")],
    "polar_backward": [(("T", "T"), "tn_bw_polar_backward")],
    "embedding_dense_double_backward": [(("T", "T", "int"), "tn_bw_embedding_dense_double_backward")],
    "repeat_backward": [(("T", ("A", "ints"), ("A", "ints")), "tn_bw_repeat_backward")],
    "logcumsumexp_backward": [(("T", "T", "T", "int"), "tn_bw_logcumsumexp_backward")],
    "renorm_backward": [(("T", "T", "S", "int", "S"), "tn_bw_renorm_backward")],
    "layer_norm_double_backward": [(("T", "T?", "Tu", "Tu", "Tu", "T", "T", "T", ("A", "ints"), ("A", "ints")),
                                    "tn_bw_layer_norm_double_backward")],
    "prod_backward": [(("T", "T", "T"), "tn_bw_prod_backward"), (("T", "T", "T", "int", "bool"), "tn_bw_prod_backward_dim")],
    "norm_backward": [(("T", "T", "S", "T"), "tn_bw_norm_backward_all"), (("T", "T", "S?", "T"), "tn_bw_norm_backward_all"),
                      (("T", "T", "S?", "T", ("A", "ints"), "bool"), "tn_bw_norm_backward")],
    "linalg_vector_norm_backward": [(("T", "T", "S", "T", ("A", "ints"), "bool"), "tn_bw_norm_backward")],
    "cat_tensors_backward": [(("T", "metas", "metas", "int"), "tn_bw_cat_tensors_backward")],
    "stack_tensors_backward": [(("T", "int", "metas"), "tn_bw_stack_tensors_backward")],
    "block_diag_backward": [(("T", "metas", "metas"), "tn_bw_block_diag_backward")],
    "as_strided_backward": [(("T", "geom", ("A", "ints"), ("A", "ints"), ("A", "optint")), "tn_bw_as_strided_backward")],
    "as_strided_scatter_backward": [(("T", "geom", "geom", ("A", "ints"), ("A", "ints"), ("A", "optint")),
                                     "tn_bw_as_strided_scatter_backward")],
    "mm_mat1_backward": [(("T", "T", ("A", "ints"), ("A", "ints"), "layout", "int"), "tn_bw_mm_mat1_backward_i"),
                         (("T", "T", ("A", "ints"), ("A", "ints"), "layout", "S"), "tn_bw_mm_mat1_backward")],
    "mm_mat2_backward": [(("T", "T", ("A", "ints"), ("A", "ints"), "layout", "int"), "tn_bw_mm_mat2_backward_i"),
                         (("T", "T", ("A", "ints"), ("A", "ints"), "layout", "S"), "tn_bw_mm_mat2_backward")],
    "_to_copy_backward": [(("T", "optdt"), "tn_bw_to_copy_backward")],
    "constant_pad_nd_backward": [(("T", ("A", "ints")), "tn_bw_constant_pad_nd_backward")],
    "slice_backward_wrapper": [(("T", ("A", "ints"), "int", ("A", "optint"), ("A", "optint"), "int"), "tn_bw_slice_backward_wrapper"),
                               (("T", ("A", "ints"), "int", "int", "int", "int"), "tn_bw_slice_backward_wrapper_i")],
}
# helpers of HELPERS that return a tuple (one gradient per input of a formula for several inputs)
TUPLE_HELPERS = {"atan2_backward", "grid_sampler_2d_double_backward", "grid_sampler_3d_double_backward", "clamp_backward_min_max", "layer_norm_double_backward", "batchnorm_double_backward",
                 "polar_backward", "scatter_reduce_backward", "index_reduce_backward", "cholesky_solve_backward",
                 "triangular_solve_backward"}
# helpers of HELPERS that return a list (one gradient per tensor of a Tensor[] input; type "TL")
LIST_HELPERS = {"cat_tensors_backward", "stack_tensors_backward", "block_diag_backward"}
# FunctionsManual helpers written as formula text (upstream's FunctionsManual.cpp bodies, rewritten as
# expressions): name -> [(parameter types, parameter names, body)]. The body is `name = expr;`
# statements, then the result expression; it is compiled like a derivatives.yaml formula, in place
# (the arguments evaluated first, as a C++ call does), so the ops and their order come from the same
# translation (a helper's `areAnyTensorSubclassLike` is SUBCLASS_LIKE: a dispatch mode is active).
INLINE = {
    "infinitely_differentiable_silu_backward": [(("T", "T"), ("grad_output", "input"), """
        sigmoid = input.sigmoid();
        grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid))""")],
    "infinitely_differentiable_mish_backward": [(("T", "T"), ("grad_output", "input"), """
        sigmoid = input.sigmoid();
        softplus = input.exp().log1p();
        tanh_softplus = softplus.tanh();
        grad_output * (tanh_softplus + input * sigmoid * (1.0 - tanh_softplus * tanh_softplus))""")],
    "infinitely_differentiable_logit_backward": [(("T", "T", ("A", "optfloat")), ("grad", "self", "eps"), """
        eps ? logit_backward_eps_(grad, self, eps.value(), 1.0 - eps.value())
            : at::where(at::logical_and(self >= 0.0, self <= 1.0), grad / (self * (1.0 - self)),
                        at::empty({}, self.options()).fill_(NAN)) """)],
    "logit_backward_eps_": [(("T", "T", "double", "double"), ("grad", "self", "lo", "hi"), """
        at::where(at::logical_and(self >= lo, self <= hi), grad / (self * (1.0 - self)), at::zeros({}, self.options()))""")],
    "mvlgamma_backward": [(("T", "T", "int"), ("grad", "self", "p"), """
        args0 = at::arange(-p / 2.0 + 0.5, 0.5, 0.5, self.options());
        args = args0.add(self.unsqueeze(-1));
        grad * args.digamma_().sum(-1)""")],
    "sgn_backward": [(("T", "T", "T"), ("x", "gx", "sgn"), """
        x.is_complex() ? sgn_backward_complex_(x, gx, sgn) : at::_efficientzerotensor(sgn.sizes(), sgn.options())""")],
    "sgn_backward_complex_": [(("T", "T", "T"), ("x", "gx", "sgn"), """
        abs = x.abs();
        ((gx - (sgn * sgn) * gx.conj()) / (2.0 * abs)).masked_fill_(abs == 0.0, 0.0)""")],
    "masked_fill_backward": [(("T", "T"), ("grad", "mask"), """
        SUBCLASS_LIKE ? at::where(mask, grad, 0).sum() : grad.masked_select(mask).sum()""")],
    "pow_backward_exponent": [(("T", "T", "T", "T"), ("grad", "self", "exponent", "result"), """
        cond = exponent.is_complex() ? at::logical_and(self == 0, at::logical_and(at::imag(exponent) == 0, at::real(exponent) >= 0))
                                     : at::logical_and(self == 0, exponent >= 0);
        self_ = self.to(at::result_type(self, exponent));
        out = grad * at::where(cond, at::scalar_tensor(0.0, grad.options()), (result * self_.log()).conj());
        handle_r_to_c(exponent, out)""")],
    "pow_backward_self": [(("T", "T", "T"), ("grad", "self", "exponent"), """
        out = at::where(exponent == 0.0, at::scalar_tensor(0.0, grad.options()), grad * (exponent * self.pow(exponent - 1)).conj());
        handle_r_to_c(self, out)""")],
    "nansum_backward": [(("T", "T", ("A", "ints"), "bool"), ("grad", "self", "dims", "keepdim"), """
        sum_backward(grad, self.sizes(), dims, keepdim) * self.isnan().logical_not()""")],
    "scale_grad_by_count": [(("T", "T", ("A", "ints")), ("grad", "mask", "dims"), """
        (grad / mask.sum(dims, true)) * mask""")],
    "log1p_backward": [(("T", "T"), ("grad", "self"), """
        grad / (self + 1).conj()""")],
    "sinc_backward": [(("T", "T"), ("grad", "self"), """
        self_pi = self * M_PI;
        self_squared_pi = self * self * M_PI;
        out = grad * ((self_pi * self_pi.cos() - self_pi.sin()) / self_squared_pi).conj();
        at::where(self_squared_pi == 0.0, at::scalar_tensor(0.0, grad.options()), out)""")],
    "softplus_double_backward": [(("T", "T", "S", "S"), ("grad", "input", "beta", "threshold"), """
        x = input * beta;
        sigmoid_backward(grad, x.sigmoid()) * (x < threshold).type_as(grad) * beta""")],
    "log_sigmoid_double_backward": [(("T", "T"), ("grad", "input"), """
        z = input.sigmoid();
        grad * (z - 1) * z""")],
    "mse_loss_double_backward": [(("T", "T", "int"), ("grad", "input", "reduction"), """
        grad_input = 2 * grad;
        reduction == 1 ? grad_input.div_(input.sym_numel()) : grad_input""")],
    "smooth_l1_loss_double_backward": [(("T", "T", "T", "int", "double"), ("grad", "input", "target", "reduction", "beta"), """
        beta == 0 ? at::zeros(grad.sizes(), grad.options()) : smooth_l1_loss_double_backward_(grad, input, target, reduction, beta)""")],
    "smooth_l1_loss_double_backward_": [(("T", "T", "T", "int", "double"), ("grad", "input", "target", "reduction", "beta"), """
        d = (input - target).abs();
        grad_input = grad * (d < beta).type_as(grad) / beta;
        reduction == 1 ? grad_input.div_(input.sym_numel()) : grad_input""")],
    "huber_loss_double_backward": [(("T", "T", "T", "int", "double"), ("grad", "input", "target", "reduction", "delta"), """
        d = (input - target).abs();
        grad_input = grad * (d < delta);
        reduction == 1 ? grad_input.div_(input.sym_numel()) : grad_input""")],
    "huber_loss_double_backward_grad_output": [(("T", "T", "T", "T", "int", "double"),
                                                ("grad", "grad_output", "input", "target", "reduction", "delta"), """
        reduction == 0 ? at::huber_loss_backward(grad, input, target, reduction, delta)
                       : (at::huber_loss_backward(at::ones_like(grad_output), input, target, reduction, delta) * grad).sum()""")],
    "soft_margin_loss_double_backward": [(("T", "T", "T", "int"), ("grad", "input", "target", "reduction"), """
        z = (input * -target).exp();
        zplus1 = z + 1;
        grad_input = grad * (target * target) * z / (zplus1 * zplus1);
        reduction == 1 ? grad_input.div_(input.sym_numel()) : grad_input""")],
    "soft_margin_loss_double_backward_grad_output": [(("T", "T", "T", "T", "int"), ("grad", "grad_output", "input", "target", "reduction"), """
        reduction == 0 ? at::soft_margin_loss_backward(grad, input, target, reduction)
                       : (at::soft_margin_loss_backward(at::ones_like(grad_output), input, target, reduction) * grad).sum()""")],
    "softmax_double_backward": [(("T", "T", "int", "T"), ("grad", "grad_output", "dim", "output"), """
        grad_output * grad - (output * grad_output).sum(dim, true) * grad - grad_output * (output * grad).sum(dim, true)""")],
    "native_dropout_double_backward": [(("T", "T", "T", "double"), ("ggI", "grad", "mask", "scale"), """
        ggI.type_as(grad) * (mask.type_as(grad) * scale)""")],
    "take_backward": [(("T", "T", "T"), ("grad", "self", "indices"), """
        SUBCLASS_LIKE ? at::zeros_like(self).put(indices, grad, true) : at::zeros_like(self).put_(indices, grad, true)""")],
    "elu_double_backward": [(("T", "T", "S", "S", "S", "bool", "T"),
                             ("grad", "grad_output", "alpha", "scale", "input_scale", "is_result", "self_or_result"), """
        is_result ? grad * grad_output * input_scale * (self_or_result < 0).type_as(grad)
                  : at::elu_backward(grad * grad_output * input_scale, alpha, scale, input_scale, is_result, self_or_result)
                    * (self_or_result < 0).type_as(grad)""")],
    "gelu_double_backward": [(("T", "T", "T", ("A", "str")), ("ggI", "gO", "input", "approximate"), """
        approximate == "tanh" ? gelu_double_backward_tanh_(ggI, gO, input) : gelu_double_backward_erf_(ggI, gO, input)""")],
    "gelu_double_backward_tanh_": [(("T", "T", "T"), ("ggI", "gO", "input"), """
        kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;
        kKappa = 0.044715;
        inner = kBeta * (input + kKappa * pow(input, 3));
        tanh_inner = tanh(inner);
        sech_inner = 1 / cosh(inner);
        f = 0.5 * input;
        g = 1 - tanh_inner * tanh_inner;
        h = kBeta * (1 + 3 * kKappa * input * input);
        f_prime_gh = 0.5 * g * h;
        g_prime = (2 * sech_inner) * (-sech_inner * tanh_inner) * h;
        g_prime_fh = f * h * g_prime;
        h_prime = 6 * kKappa * input * kBeta;
        h_prime_fg = f * g * h_prime;
        ggI * gO * (2 * f_prime_gh + g_prime_fh + h_prime_fg)""")],
    "gelu_double_backward_erf_": [(("T", "T", "T"), ("ggI", "gO", "input"), """
        kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
        input_sq = input * input;
        pdf = kBeta * at::exp(-0.5 * input_sq);
        dgrad_dInput = 2 * pdf - input_sq * pdf;
        ggI * gO * dgrad_dInput""")],
    "angle_backward": [(("T", "T"), ("grad", "self"), """
        self.is_complex() ? not_implemented("angle_backward of a complex input")
                          : at::zeros_like(self)""")],
}


def prep(formula):
    """torchgen's formula text with upstream's `grad.defined() ? f(...) : std::tuple<...>()` guard
    dropped: a generated node returns before its formulas when no gradient flowed (the tuple of
    undefined tensors upstream's other branch gives)."""
    m = re.fullmatch(r"\s*grad\.defined\(\)\s*\?\s*(.*?)\s*:\s*std::tuple<[\w\s,]*>\(\)\s*", formula, re.S)
    formula = m.group(1) if m else formula
    formula = re.sub(r"\bstd::(sqrt|exp|log)\(", r"\1(", formula)   # C's math on constants
    formula = re.sub(r"\bgrads\[(\d+)\]", r"grads_\1", formula)   # output k's gradient (may be undefined)
    # `x.has_value() ? std::optional<std::string_view>(x.value()) : std::nullopt` is x itself
    return re.sub(r"(\w+)\.has_value\(\)\s*\?\s*std::optional<std::string_view>\(\1\.value\(\)\)\s*:\s*std::nullopt",
                  r"\1", formula)
# C's math functions on numbers (a formula's constants: sqrt(M_PI))
C_MATH = {"sqrt", "exp", "log"}
# comparisons of numbers, and of a tensor with a tensor or a number (the aten row each calls:
# ATen's TensorOperators.h, x > y is x.gt(y))
NUM_CMP = {">", ">=", "<", "<=", "==", "!="}
TENSOR_CMP = {">": "gt", ">=": "ge", "<": "lt", "<=": "le", "==": "eq", "!=": "ne"}
CMP_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}
# Tensor & Tensor (TensorOperators.h: bitwise_and)
TENSOR_BITOPS = {"&": "bitwise_and"}


class Fn:
    """One C function under construction: statements, temporaries (all released at the end)."""

    def __init__(self):
        self.lines, self.ntmp = [], 0

    def tmp(self):
        self.ntmp += 1
        return f"t{self.ntmp - 1}"


class Compiler:
    def __init__(self, rows, impl, cname):
        self.rows, self.impl, self.cname = rows, impl, cname
        self.defined_grads = set()   # grads_k names known defined (inside `grads[k].defined() ? ...`)
        self.by_name = {}
        for ri, r in enumerate(rows):
            if "tags" not in r or "::" in r["name"]:
                continue
            ps = params(r["func"])
            rets = re.sub(r"\([a-z!]*\)", "", r["func"].rsplit("->", 1)[1].strip())   # Tensor(a) -> Tensor
            if "!" in r["func"].rsplit("->", 1)[0]:
                # out= overloads are not what a formula's expression calls; in-place ones only by
                # their own name (`x.masked_fill_(...)`)
                if r["name"].endswith("_") and "out" not in r["func"].split("(", 1)[0].split(".")[-1:][0] \
                        and re.search(r"Tensor\(a!\) self", r["func"]):
                    self.by_name.setdefault(r["name"], []).append((ri, r, ps, rets))
                continue
            self.by_name.setdefault(r["name"], []).append((ri, r, ps, rets))

    # ---- per formula ----
    def compile_row(self, ri, r, info):
        """(C function text, None) or (None, reason)."""
        names = [p[1] for p in params(r["func"])]
        types = [p[0] for p in params(r["func"])]
        self.names, self.types = names, types
        self.env = []   # scopes of an inlined helper (INLINE): name -> (type, C text)
        self.uses_grads = False
        self.saved_in = {s.nctype.name for s in info.all_saved_inputs}
        self.saved_out = {s.nctype.name for s in info.all_saved_outputs}
        self.rets = r["func"].rsplit("->", 1)[1].strip()
        ret_names = [p.split()[-1] if len(p.split()) > 1 else None for p in self.rets.strip("()").split(",")]
        self.ret_names = ret_names
        fn = Fn()
        body = []
        # upstream's node unpacks its saved tensors first (inputs, then outputs, in the loader's
        # order), then runs the formulas: unpack the ones a wanted input's formula reads
        self.unpacked, self.opt_unpacked, unpack = {}, set(), []
        used_by = {}
        for dv in info.derivatives:
            for v in re.findall(r"\(v (\w+)\)", translate(prep(dv.formula)) or ""):
                for w in dv.var_names:
                    if w in names:
                        used_by.setdefault(v, set()).add(names.index(w))
        for s in list(info.all_saved_inputs) + list(info.all_saved_outputs):
            v = s.nctype.name
            if v not in used_by:
                continue
            if v in names and types[names.index(v)] == "Tensor":
                src = f"saved(n, {names.index(v)})"
            elif v in names and types[names.index(v)] == "Tensor?":   # None when the argument was
                src = f"tn_bw_saved_opt(n, {names.index(v)})"
                self.opt_unpacked.add(v)
            elif re.fullmatch(r"result\d*", v) and v in self.saved_out:
                src = f"result(n, {int(v[6:] or 0)})"
            elif v in self.saved_out and v in ret_names:   # a named return (max.dim's indices)
                src = f"result(n, {ret_names.index(v)})"
            else:
                continue
            t = fn.tmp()
            self.unpacked[v] = t
            cond = " || ".join(f"need(n, {i})" for i in sorted(used_by[v]))
            unpack.append(f"    if (({cond}) && !({t} = {src})) goto fail;")
        for dv in info.derivatives:
            for var in dv.var_names:
                if var not in names:
                    return None, f"unsupported: input {var} not in the schema"
            self.cur = [names.index(v) for v in dv.var_names]
            var = dv.var_names[0]
            prog = translate(prep(dv.formula))
            if prog is None:
                return None, f"unsupported: formula not parsed: {dv.formula}"
            try:
                tree = read_sexpr(prog)
                fn.lines = []
                if len(dv.var_names) > 1:
                    c = self.several(tree, fn)
                else:
                    ty, c = self.expr(tree, fn)
                    want = "TL" if types[names.index(dv.var_names[0])] == "Tensor[]" else "T"
                    if ty == "T?" and c == "Py_None" and not fn.lines:   # `Tensor()`: no gradient
                        body.append(f"    /* {var}: Tensor() (no gradient) */")
                        continue
                    if ty != want:
                        raise Unsupported(f"formula is not a {'tensor list' if want == 'TL' else 'tensor'}: {dv.formula}")
            except Unsupported as e:
                return None, f"unsupported: {e}"
            if len(dv.var_names) > 1:
                # upstream: one call when any of the inputs wants a gradient, each result to its input
                cond = " || ".join(f"need(n, {i})" for i in self.cur)
                body.append(f"    if ({cond}) {{   /* {', '.join(dv.var_names)}: {comment_text(dv.formula)} */")
                body += ["        " + l for l in fn.lines]
                body.append(f"        if (tn_bw_put_each(n, o, {c}, (const int[]){{{', '.join(map(str, self.cur))}}}, "
                            f"{len(self.cur)}) < 0) goto fail;")
                body.append("    }")
                continue
            i = names.index(var)
            if types[i] == "Tensor[]":   # one gradient per tensor of the list (upstream's copy_range)
                body.append(f"    if (tn_bw_need_list(n, {i})) {{   /* {var}: {comment_text(dv.formula)} */")
                body += ["        " + l for l in fn.lines]
                body.append(f"        if (tn_bw_put_list(n, o, {i}, {c}) < 0) goto fail;")
                body.append("    }")
                continue
            body.append(f"    if (need(n, {i})) {{   /* {var}: {comment_text(dv.formula)} */")
            body += ["        " + l for l in fn.lines]
            if c.startswith("t"):
                body.append(f"        put(n, o, {i}, {c}); {c} = NULL;")
            else:
                body.append(f"        put(n, o, {i}, Py_NewRef({c}));")
            body.append("    }")
        decl = ", ".join(f"*t{k} = NULL" for k in range(fn.ntmp))
        out = [f"static int bw_{ri}(tn_node *n, PyObject **g, PyObject **o) {{   /* {r['key']}: {info.op} */",
               "    int rc = -1;"]
        if decl:
            out.append(f"    PyObject {decl};")
        if self.uses_grads:
            out.append("    if (!tn_bw_any_grad(n, g)) return 0;   /* no gradient flowed: upstream's any_grad_defined */")
        else:
            out.append("    if (!g[0]) return 0;   /* no gradient flowed: upstream's any_grad_defined */")
        out += unpack
        out += body
        out.append("    rc = 0;")
        if fn.ntmp:
            out.append("fail:")
            out += [f"    Py_XDECREF(t{k});" for k in range(fn.ntmp)]
        out.append("    return rc;")
        out.append("}")
        return "\n".join(out), None

    def several(self, tree, fn):
        """A formula for several inputs at once: one call of an aten row or a FunctionsManual helper
        (TUPLE_HELPERS) returning a tuple, one element per input; the temporary holding it."""
        if not (isinstance(tree, list) and tree[0] == "c"):
            raise Unsupported("a formula for several inputs that is not one call")
        name = tree[1]
        args = [self.expr(a, fn) for a in tree[2:][::-1]][::-1]
        if name in HELPERS:
            if name not in TUPLE_HELPERS:
                raise Unsupported(f"helper {name} does not return a tuple")
            return self.call_helper(fn, name, args)
        return self.call_row(fn, name, args, ntuple=len(self.cur))

    # ---- expressions: (type, C text). Types: T tensor (a PyObject * variable), int, double,
    # bool (C expressions), S a node's Scalar argument (a tn_scalar_arg expression) ----
    def expr(self, e, fn):
        if isinstance(e, str):
            raise Unsupported(f"bare atom {e}")
        head = e[0]
        if head == "i":
            return "int", e[1]
        if head == "n":
            return "double", e[1]
        if head == "b":
            return "bool", "true" if e[1] == "1" else "false"
        if head == "v":
            return self.var(e[1], fn)
        if head == "s":   # the parser's atoms of a string literal, split at spaces
            if not all(isinstance(w, str) and re.fullmatch(r"[\w.:]+", w) for w in e[1:]):
                raise Unsupported("string literal")
            return ("A", "str"), '"%s"' % " ".join(e[1:])
        if head == "?":
            cty, cc = self.expr(e[1], fn)
            if cty == ("A", "optfloat"):   # std::optional<double> as a condition: has a value
                cty, cc = "bool", f"({cc} != NULL)"
            if cty != "bool":
                raise Unsupported(f"condition of type {cty}")
            lines, fn.lines = fn.lines, []
            # `grads[k].defined() ? x : y`: grads[k] is a tensor in x
            known = e[1][2][1] if (isinstance(e[1], list) and e[1][:2] == ["m", "defined"] and len(e[1]) == 3
                                   and isinstance(e[1][2], list) and e[1][2][0] == "v") else None
            if known:
                self.defined_grads.add(known)
            try:
                a = self.expr(e[2], fn)
            finally:
                self.defined_grads.discard(known)
            la, fn.lines = fn.lines, []
            # ... and with two outputs, the other one is in y (the node runs when one is defined)
            other = None
            m2 = re.fullmatch(r"grads_([01])", known or "")
            if m2 and len(self.rets.strip("()").split(",")) == 2:
                other = "grads_%d" % (1 - int(m2.group(1)))
                self.defined_grads.add(other)
            try:
                b = self.expr(e[3], fn)
            finally:
                self.defined_grads.discard(other)
            lb, fn.lines = fn.lines, lines
            if a[0] != b[0]:
                raise Unsupported(f"branches of types {a[0]} and {b[0]}")
            if a[0] != "T":
                if la or lb:
                    raise Unsupported("branches that call ops")
                return a[0], f"({cc} ? {a[1]} : {b[1]})"
            t = fn.tmp()
            fn.lines.append(f"if ({cc}) {{")
            fn.lines += ["    " + l for l in la] + [f"    {t} = Py_NewRef({a[1]});", "} else {"]
            fn.lines += ["    " + l for l in lb] + [f"    {t} = Py_NewRef({b[1]});", "}"]
            return "T", t
        if head == "c" and e[1] == "Tensor" and len(e) == 2:   # an undefined tensor: None
            return "T?", "Py_None"
        if head == "c" and e[1] == "GradMode_is_enabled" and len(e) == 2:
            return "bool", "tn_grad_enabled()"
        if head in ("&&", "||"):
            a = self.expr(e[1], fn)
            lines, fn.lines = fn.lines, []
            b = self.expr(e[2], fn)
            lb, fn.lines = fn.lines, lines
            if a[0] != "bool" or b[0] != "bool" or lb:
                raise Unsupported(f"{a[0]} {head} {b[0]}")
            return "bool", f"({a[1]} {head} {b[1]})"
        if head == "not":
            a = self.expr(e[1], fn)
            if a[0] != "bool":
                raise Unsupported(f"!{a[0]}")
            return "bool", f"(!{a[1]})"
        if head == "l":   # a braced int list ({}, {0, 1})
            items = [self.expr(x, fn) for x in e[1:][::-1]][::-1]
            if items and all(t == "T" for t, _ in items):   # {a, b}: a list of tensors
                t = fn.tmp()
                fn.lines.append(f'if (!({t} = Py_BuildValue("[{"O" * len(items)}]", {", ".join(c for _, c in items)}))) goto fail;')
                return ("A", "tensors"), f"TN_TPY({t})"
            if any(t != "int" for t, _ in items):
                raise Unsupported("braced list of non-ints")
            return ("A", "ints"), ("TN_IS(%s)" % ", ".join(c for _, c in items)) if items else "TN_IS0"
        if head == "neg":
            ty, c = self.expr(e[1], fn)
            if ty in ("int", "double"):
                return ty, f"(-{c})"
            if ty == "T":
                return "T", self.call_row(fn, "neg", [(ty, c)])
            if ty == "S":   # Scalar's unary minus
                return "S", f"((const tn_value[]){{tn_bw_sneg({c})}})"
            raise Unsupported(f"neg of {ty}")
        if head in NUM_CMP:
            b = self.expr(e[2], fn)
            a = self.expr(e[1], fn)
            if a[0] in ("int", "double") and b[0] in ("int", "double"):
                return "bool", f"({a[1]} {head} {b[1]})"
            if a[0] == b[0] == ("A", "str") and head in ("==", "!="):   # std::string_view == "literal"
                return "bool", f"(strcmp({a[1]}, {b[1]}) {head} 0)"
            if a[0] == "T":   # x.gt(y) ...
                return "T", self.call_row(fn, TENSOR_CMP[head], [a, b])
            if b[0] == "T" and a[0] in ("int", "double", "S"):   # ATen's `Scalar < Tensor` is y.gt(x) ...
                return "T", self.call_row(fn, TENSOR_CMP[CMP_FLIP[head]], [b, a])
            raise Unsupported(f"{a[0]} {head} {b[0]}")
        if head in TENSOR_BITOPS:
            b = self.expr(e[2], fn)
            a = self.expr(e[1], fn)
            if a[0] == "T" and b[0] == "T":
                return "T", self.call_row(fn, TENSOR_BITOPS[head], [a, b])
            raise Unsupported(f"{a[0]} {head} {b[0]}")
        if head in TENSOR_BINOPS:
            b = self.expr(e[2], fn)   # operands and call arguments right to left, as upstream's build evaluates them
            a = self.expr(e[1], fn)
            if a[0] in ("int", "double") and b[0] in ("int", "double"):
                return ("double" if "double" in (a[0], b[0]) else "int"), f"({a[1]} {head} {b[1]})"
            if "S" in (a[0], b[0]) and a[0] in ("int", "double", "S") and b[0] in ("int", "double", "S"):
                # numbers and Scalars (C++'s complex / double arithmetic): a Scalar value
                va, vb = (f"*{x[1]}" if x[0] == "S" else f"tn_bw_snum({x[1]})" for x in (a, b))
                return "S", f"((const tn_value[]){{tn_bw_sarith('{head}', {va}, {vb})}})"
            if a[0] == "T":
                return "T", self.call_row(fn, TENSOR_BINOPS[head], [a, b])
            if b[0] == "T" and head in "*+":   # Scalar op Tensor: other.mul(self), other.add(self)
                return "T", self.call_row(fn, TENSOR_BINOPS[head], [b, a])
            if b[0] == "T" and head in "-/" and a[0] in ("S", "int", "double", "bool"):
                # Scalar - Tensor, Scalar / Tensor: empty_like(other).fill_(self).sub_/div_(other)
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = tn_bw_scalar_rop({pass_arg(a[0], a[1], 'Scalar')}, {b[1]}, "
                                f"{'true' if head == '/' else 'false'}))) goto fail;")
                return "T", t
            raise Unsupported(f"{a[0]} {head} {b[0]}")
        if head == "m":
            name = e[1]
            recv = self.expr(e[2], fn)
            if recv[0] == "info" and name == "zeros" and len(e) == 3:   # TypeAndSize::zeros()
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = tn_bw_info_zeros(&n->arg_meta[{recv[1]}][0]))) goto fail;")
                return "T", t
            if recv[0] == "T" and name == "options" and len(e) == 3:   # x.options(): its dtype (CPU, strided)
                return "opts", recv[1]
            if recv[0] == "S" and name == "toDouble" and len(e) == 3:   # Scalar::toDouble()
                return "double", f"tn_value_as_double({recv[1]})"
            if recv[0] == "S" and name == "toFloat" and len(e) == 3:   # Scalar::toFloat(): single precision
                return "double", f"(double)(float)tn_value_as_double({recv[1]})"
            if recv[0] == "S" and name == "toComplexDouble" and len(e) == 3:
                return "S", f"((const tn_value[]){{tn_bw_scomplex({recv[1]})}})"
            if recv[0] == "S" and name == "isComplex" and len(e) == 3:
                return "bool", f"(({recv[1]})->tag == TN_V_COMPLEX)"
            if recv[0] in ("Tu", "T") and name == "defined" and len(e) == 3:   # grads[k].defined()
                return "bool", (f"({recv[1]} != NULL)" if recv[0] == "Tu" else "true")
            if recv[0] == ("A", "optfloat") and name == "value" and len(e) == 3:
                return "double", f"(*{recv[1]})"
            if recv[0] == "T" and len(e) == 4 and name in ("size", "sym_size"):   # x.size(d): an int
                d = self.expr(e[3], fn)
                if d[0] != "int":
                    raise Unsupported(f"size of {d[0]}")
                return "int", f"tn_bw_size({recv[1]}, {d[1]})"
            if recv[0] == "T" and len(e) == 3 and name in ("is_complex", "sizes", "sym_numel", "numel", "dim", "dtype", "scalar_type"):
                if name in ("dtype", "scalar_type"):
                    return "dt", f"tn_tensor_of({recv[1]})->dtype"
                if name == "is_complex":
                    return "bool", f"tn_dtype_is_complex(tn_tensor_of({recv[1]})->dtype)"
                if name == "sizes":
                    return ("A", "ints"), f"tn_bw_sizes({recv[1]})"
                if name == "dim":
                    return "int", f"(int64_t)tn_tensor_of({recv[1]})->ndim"
                return "int", f"tn_bw_numel({recv[1]})"
            if recv[0] == "S" and name == "conj" and len(e) == 3:   # Scalar::conj()
                return "S", f"((const tn_value[]){{tn_bw_sconj({recv[1]})}})"
            if recv[0] != "T":
                raise Unsupported(f"method {name} on {recv[0]}")
            if name in CONJ_LIKE:
                if len(e) != 3:
                    raise Unsupported(f"{name} with arguments")
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = {CONJ_LIKE[name]}({recv[1]}))) goto fail;")
                return "T", t
            args = [recv] + [self.expr(a, fn) for a in e[3:][::-1]][::-1]
            return "T", self.call_row(fn, name, args)
        if head == "c" and e[1] == "tuple_get" and len(e) == 4 and isinstance(e[3], list) and e[3][0] == "c":
            # std::get<k>(at::f(...)): element k of a row returning a tuple of tensors
            k = self.expr(e[2], fn)
            if k[0] != "int" or not k[1].isdigit():
                raise Unsupported("std::get")
            args = [self.expr(a, fn) for a in e[3][2:][::-1]][::-1]
            for ntuple in range(max(2, int(k[1]) + 1), 6):
                try:
                    tup = self.call_row(fn, e[3][1], args, ntuple)
                except Unsupported:
                    continue
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = Py_XNewRef(PyTuple_GetItem({tup}, {k[1]})))) goto fail;")
                return "T", t
            raise Unsupported(f"no aten overload {e[3][1]} returning a tuple")
        if head == "c":
            name = e[1]
            args = [self.expr(a, fn) for a in e[2:][::-1]][::-1]
            if name in C_MATH and all(a[0] in ("int", "double") for a in args) and len(args) == 1:
                return "double", f"{name}((double){args[0][1]})"
            # a helper with both a C form and a text form (pow_backward_exponent: a Scalar base in
            # C, a tensor one as text) takes the C one for the signatures it has
            in_c = name in HELPERS and (name not in INLINE or any(sig == tuple(a[0] for a in args) for sig, _ in HELPERS[name]))
            if in_c and name not in TUPLE_HELPERS:
                return ("TL" if name in LIST_HELPERS else "T"), self.call_helper(fn, name, args)
            if name in INLINE:
                return self.inline(fn, name, args)
            if name == "result_type" and [a[0] for a in args] == ["T", "T"]:
                return "dt", f"tn_bw_result_type({args[0][1]}, {args[1][1]})"
            return "T", self.call_row(fn, name, args)
        raise Unsupported(f"expression {head}")

    def var(self, name, fn):
        if self.env and name in self.env[-1]:
            return self.env[-1][name]
        if self.env:   # inside an inlined helper only its parameters and locals are visible
            if name == "NAN":
                return "double", "NAN"
            if name == "SUBCLASS_LIKE":   # areAnyTensorSubclassLike(...): a dispatch mode is active
                return "bool", "tn_bw_subclass_like()"
            raise Unsupported(f"variable {name} in a helper")
        if name == "grad":
            return "T", "g[0]"
        if name == "grads":   # every output's gradient (NULL where none flowed): the node and g
            self.uses_grads = True
            return "grads", "n, g"
        m = re.fullmatch(r"grads_(\d+)", name)
        if m:   # grads[k]: output k's gradient, NULL when none flowed (an undefined tensor)
            self.uses_grads = True
            return ("T" if name in self.defined_grads else "Tu"), f"g[{m.group(1)}]"
        m = re.fullmatch(r"grad_(\w+)", name)
        if m and m.group(1) in self.ret_names:   # torchgen's grad_<output name>: that output's gradient, as grads[k]
            self.uses_grads = True
            return "Tu", f"g[{self.ret_names.index(m.group(1))}]"
        if name in self.unpacked:
            return ("T?" if name in self.opt_unpacked else "T"), self.unpacked[name]
        if name == "grad_input_mask":   # upstream's std::array<bool, N> of should_compute_output
            return ("A", "ints"), "TN_IS(%s)" % ", ".join(f"need(n, {i})" for i in self.cur)
        if name in self.names:
            i = self.names.index(name)
            typ = self.types[i]
            if typ == "Tensor":
                raise Unsupported(f"{name} is not saved")
            if typ == "Scalar":
                return "S", f"(&n->args[{i}])"
            if typ == "Scalar?":   # NULL for None
                return "S?", f"tn_bw_opt_scalar(&n->args[{i}])"
            if typ == "ScalarType":
                return "dt", f"n->args[{i}].u.dtype"
            if typ == "bool":
                return "bool", f"(n->args[{i}].u.i != 0)"
            k = kind(typ)
            if k == "tensors":   # Tensor[] / Tensor?[]: the node's list, as a Python list
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = tn_value_to_python(&n->args[{i}]))) goto fail;")
                return ("A", "tensors"), f"TN_TPY({t})"
            if k in ("ints", "optint", "str", "optfloat"):
                return ("A", k), {"ints": "tn_ints_of(&n->args[%d])", "optint": "tn_opt_int_of(&n->args[%d])",
                                  "str": "tn_str_of(&n->args[%d])", "optfloat": "tn_bw_opt_float(&n->args[%d])"}[k] % i
            if typ in ("int", "SymInt"):
                return "int", f"n->args[{i}].u.i"
            if typ == "float":
                return "double", f"tn_value_as_double(&n->args[{i}])"
            raise Unsupported(f"argument {name} of type {typ}")
        m = re.fullmatch(r"(\w+)_args_(?:sizes_symint|sizes|scalartypes)", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor[]":
            # torchgen's to_args_sizes(x) / to_args_scalartypes(x) of a Tensor[] input: its tensors'
            # recorded metadata (shapes and dtypes)
            i = self.names.index(m.group(1))
            return "metas", f"n->arg_meta[{i}], n->arg_nmeta[{i}]"
        m = re.fullmatch(r"(\w+)_sym_argsize_(minus_)?(\d+)", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's saved x.sym_size(k) / x.sym_size(-k): the input's recorded size at that dim
            d = ("-" if m.group(2) else "") + m.group(3)
            return "int", f"tn_bw_meta_size(&n->arg_meta[{self.names.index(m.group(1))}][0], {d})"
        m = re.fullmatch(r"(\w+)_(sym_strides|layout)", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's saved x.sym_strides() (the input's recorded strides) and x.layout() (strided)
            i = self.names.index(m.group(1))
            if m.group(2) == "layout":
                return "layout", "tn_py.layout_strided"
            return ("A", "ints"), f"TN_IN(tn_meta_strides(&n->arg_meta[{i}][0]), n->arg_meta[{i}][0].ndim)"
        m = re.fullmatch(r"(\w+)_geometry", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's TensorGeometry(x): the input's recorded sizes, strides and storage offset
            return "geom", f"(&n->arg_meta[{self.names.index(m.group(1))}][0])"
        m = re.fullmatch(r"(\w+)_sym_numel", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's saved self.sym_numel(): the input's recorded element count
            return "int", f"tn_bw_meta_numel(&n->arg_meta[{self.names.index(m.group(1))}][0])"
        m = re.fullmatch(r"(\w+)_(info|dim)", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            i = self.names.index(m.group(1))
            if m.group(2) == "info":   # torchgen's TypeAndSize of the input: its recorded shape and dtype
                return "info", str(i)
            return "int", f"(int64_t)n->arg_meta[{i}][0].ndim"   # the saved x.dim()
        m = re.fullmatch(r"(\w+)_options", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's saved self.options(): the input's recorded dtype (CPU, strided)
            return "optdt", f"n->arg_meta[{self.names.index(m.group(1))}][0].dtype"
        m = re.fullmatch(r"(\w+)_scalar_type", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor":
            # torchgen's saved self.scalar_type(): the input's recorded dtype
            return "dt", f"n->arg_meta[{self.names.index(m.group(1))}][0].dtype"
        m = re.fullmatch(r"(\w+)_sym_sizes_opt", name)
        if m and m.group(1) in self.names and self.types[self.names.index(m.group(1))] == "Tensor?":
            # torchgen's saved `x->sym_sizes()` of an optional tensor: its shape, None when absent
            i = self.names.index(m.group(1))
            return ("A", "ints"), (f"(n->arg_nmeta[{i}] > 0 ? TN_IN(tn_meta_sizes(&n->arg_meta[{i}][0]), "
                                   f"n->arg_meta[{i}][0].ndim) : TN_INONE)")
        m = re.fullmatch(r"(\w+)_sym_sizes", name)
        if m and m.group(1) in self.names:   # torchgen's saved self.sym_sizes(): the input's shape
            i = self.names.index(m.group(1))
            return ("A", "ints"), f"TN_IN(tn_meta_sizes(&n->arg_meta[{i}][0]), n->arg_meta[{i}][0].ndim)"
        raise Unsupported(f"variable {name}")

    def inline(self, fn, name, args):
        """A FunctionsManual helper written as formula text (INLINE), compiled in place with its
        parameters bound to the (already evaluated) arguments: (type, C text) of its result."""
        tys = tuple(a[0] for a in args)
        for sig, pnames, body in INLINE[name]:
            if sig != tys:
                continue
            stmts = [x.strip() for x in body.strip().split(";")]
            self.env.append(dict(zip(pnames, args)))
            try:
                for st in stmts[:-1]:
                    m = re.fullmatch(r"(\w+)\s*=\s*(.*)", st, re.S)
                    prog = translate(m.group(2)) if m else None
                    if prog is None:
                        raise Unsupported(f"helper {name}: statement not parsed: {st}")
                    self.env[-1][m.group(1)] = self.expr(read_sexpr(prog), fn)
                prog = translate(stmts[-1])
                if prog is None:
                    raise Unsupported(f"helper {name}: not parsed: {stmts[-1]}")
                return self.expr(read_sexpr(prog), fn)
            finally:
                self.env.pop()
        raise Unsupported(f"no helper {name}({', '.join(str(t) for t in tys)})")

    def call_helper(self, fn, name, args):
        """A FunctionsManual helper with a C version (HELPERS): the first signature that takes
        the argument types exactly."""
        tys = tuple(a[0] for a in args)
        for sig, cfn in HELPERS[name]:
            if sig == tys:
                t = fn.tmp()
                fn.lines.append(f"if (!({t} = {cfn}({', '.join(a[1] for a in args)}))) goto fail;")
                return t
        raise Unsupported(f"no helper {name}({', '.join(str(a[0]) for a in args)})")

    # ---- overload resolution: the first row of that name (yaml order) whose parameters take the
    # argument types, fewest conversions first ----
    def call_row(self, fn, name, args, ntuple=0):
        """ntuple: a row returning that many tensors (a formula for several inputs), else one."""
        best = None
        want = "(" + ", ".join(["Tensor"] * ntuple) + ")" if ntuple else "Tensor"
        # TensorOptions (x_options) fill a schema's dtype, layout, device, pin_memory: the input's
        # dtype, strided, CPU, and pin_memory left to its default, as upstream's call records them
        # (x.options() of a tensor at hand: its dtype, the same way)
        args = [b for a in args for b in ([("dt", a[1] if a[0] == "optdt" else f"tn_tensor_of({a[1]})->dtype"),
                                             ("layout", "tn_py.layout_strided"),
                                             ("device", "tn_py.device_cpu"), ("dflt", "NULL")]
                                            if a[0] in ("optdt", "opts") else [a])]
        for ri, r, ps, rets in self.by_name.get(name, []):
            if rets != want or len(args) > len(ps):
                continue
            cost, ok = 0, True
            for (ty, _), (pt, pn, kw, dflt) in zip(args, ps):
                c = conv_cost(ty, pt)
                if c is None:
                    ok = False
                    break
                cost += c
            for pt, pn, kw, dflt in ps[len(args):]:
                if dflt is None:
                    ok = False
                    break
            if ok and (best is None or cost < best[0]):
                best = (cost, ri, r, ps)
        if best is None:
            raise Unsupported(f"no aten overload {name}({', '.join(str(a[0]) for a in args)})")
        _, ri, r, ps = best
        if r["key"] not in self.impl:
            raise Unsupported(f"{r['key']} is not implemented")
        cargs = [pass_arg(ty, c, pt) for (ty, c), (pt, _, _, _) in zip(args, ps)]
        cargs += [default_arg(pt, dflt) for pt, _, _, dflt in ps[len(args):]]
        row = self.cname(r["key"])[len("tn_op_"):]
        t = fn.tmp()
        fn.lines.append(f"if (!({t} = tn_at_{row}({', '.join(cargs)}))) goto fail;")
        return t


def conv_cost(ty, pt):
    """How well an argument of type ty fits a parameter of schema type pt: 0 exact, 1 converted,
    None not at all (C++'s implicit conversions: numbers to Scalar, int to double)."""
    base = pt.rstrip("?")
    if isinstance(ty, tuple):   # a node argument passed on as parsed, to a parameter of its kind
        return 0 if kind(pt) == ty[1] else None
    if ty == "T":
        return 0 if base == "Tensor" else None
    if ty == "T?":   # a tensor that may be None (an optional input, `Tensor()`)
        return 0 if pt == "Tensor?" else None
    if ty == "S":
        return 0 if base == "Scalar" else None
    if ty == "dt":   # a ScalarType: exact for ScalarType, a conversion for ScalarType? (TensorOptions)
        return (1 if pt.endswith("?") else 0) if base == "ScalarType" else None
    if ty in ("layout", "device"):
        return 0 if base == ty.capitalize() else None
    if ty == "dflt":   # an optional parameter left to its default (None)
        return 0 if pt.endswith("?") else None
    if ty == "int":   # an int to an int list too (C++'s IntArrayRef from one int)
        return {"int": 0, "SymInt": 0, "Scalar": 1, "float": 2}.get(base, 3 if kind(pt) == "ints" else None)
    if ty == "double":
        return {"float": 0, "Scalar": 1}.get(base)
    if ty == "bool":
        return {"bool": 0, "Scalar": 2}.get(base)
    return None


def pass_arg(ty, c, pt):
    k = kind(pt)
    if ty == "dt":
        return f"TN_DT({c})"
    if ty in ("layout", "device", "dflt"):
        return c
    if isinstance(ty, tuple) or k == "obj":
        return c
    if k == "ints" and ty == "int":
        return f"TN_IS({c})"
    if k == "scalar":
        return {"S": f"TN_SV({c})", "int": f"TN_SI({c})", "double": f"TN_SD({c})", "bool": f"TN_SB({c})"}[ty]
    if k in ("int", "float", "bool"):
        return c
    if k == "optint":
        return f"TN_I({c})"
    if k == "optfloat":
        return f"TN_F({c})"
    if k == "optbool":
        return f"TN_B({c})"
    raise Unsupported(f"passing {ty} as {pt}")


def default_arg(pt, dflt):
    k = kind(pt)
    if k in ("obj", "optint", "optfloat", "optbool", "str"):
        if k != "obj" and dflt != "None":
            raise Unsupported(f"default {dflt} of {pt}")
        return "NULL"
    if k == "scalar":
        return "TN_SDEF"
    if k == "ints":
        return "TN_IDEF"
    if k == "bool":
        return {"True": "true", "False": "false"}[dflt]
    if k in ("int", "float"):
        if not re.fullmatch(r"-?\d+(\.\d*)?(e-?\d+)?", dflt):
            raise Unsupported(f"default {dflt} of {pt}")
        return dflt
    raise Unsupported(f"default of {pt}")


def comment_text(s):
    """s, safe inside a C comment (formula text holds /*name=*/ comments)."""
    return s.replace("/*", "/ *").replace("*/", "* /")


def overrides_in(formulas_c):
    """The rows src/autograd/formulas.c registers a hand-written formula for (its formulas[] table)."""
    text = open(formulas_c).read()
    table = text[text.index("formulas[] = {"):]
    table = table[:table.index("\n};")]
    return set(re.findall(r"\{TN_ROW_(\w+), f_\w+\}", table))


def blocker_of(why):
    """The helper or construct a row's reason names: `no aten overload f(...)` -> `f()`, a formula
    the parser refused -> its first call, otherwise the reason itself."""
    why = why.removeprefix("unsupported: ")
    m = re.match(r"no (?:aten overload|helper) (\w+)\(", why)
    if m:
        return f"{m.group(1)}()"
    m = re.match(r"formula not parsed: (?:[\w:]+\()?.*?\b(\w+)\(", why)
    if m:
        return f"formula not parsed ({m.group(1)}())"
    m = re.match(r"(\S+)\. is not implemented", why)
    if m:
        return f"op {m.group(1)} not implemented"
    return why


def blockers(unsupported):
    """[(blocker, rows)], most rows first."""
    count = {}
    for why in unsupported.values():
        b = blocker_of(why)
        count[b] = count.get(b, 0) + 1
    return sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))


def backward_table(rows, impl, infos_by_row, cname, formulas_c):
    """(tn_bw_gen.c lines, stats): one C function per row whose formulas translate, and
    tn_bw_gen_for(op), the generated formula of a row (NULL when there is none)."""
    comp = Compiler(rows, impl, cname)
    overrides = overrides_in(formulas_c)
    out = ["/* Generated by tools/bw_formulas.py (via gen_ops.py) from upstream's derivatives.yaml. Do not edit.",
           " * One backward formula per row, calling ops through the typed op API (docs/bw_formulas.md). */",
           '#include "autograd/bw_helpers.h"', ""]
    table, generated, unsupported = [], [], {}
    for ri, r in enumerate(rows):
        info = infos_by_row.get(ri)
        if info is None or r["key"] not in impl or not info.derivatives:
            continue
        row = cname(r["key"])[len("tn_op_"):]
        text, why = comp.compile_row(ri, r, info)
        if text is None:
            unsupported[row] = why
            continue
        generated.append(row)
        if row in overrides:
            out.append(f"/* {r['key'].rstrip('.')}: overridden in formulas.c */")
        out.append(text)
        table.append(f"    [{ri}] = bw_{ri},")
    out.append(f"static const tn_apply_fn tn_bw_gen[{len(rows)}] = {{")
    out += table
    out.append("};")
    out.append("tn_apply_fn tn_bw_gen_for(int op) { return op >= 0 && op < %d ? tn_bw_gen[op] : NULL; }" % len(rows))
    both = sorted(set(generated) & overrides)
    out.append(f"/* rows generated: {len(generated)}; of them overridden by formulas.c: {len(both)}; "
               f"hand-written only (not translated): {len(overrides - set(generated))} */")
    for row, why in sorted(unsupported.items()):   # hand-written in formulas.c, or no formula (refuses by name)
        out.append(f"/* not translated: {row}: {comment_text(why)} */")
    table = blockers(unsupported)
    out.append("/* what blocks the untranslated rows (the first thing the generator could not translate in each),")
    out.append(" * most rows first: the helper or construct to teach it next */")
    out += [f"/* blocker {k:4d} {comment_text(what)} */" for what, k in table]
    stats = dict(generated=generated, overridden=both, unsupported=unsupported, overrides=sorted(overrides),
                 blockers=table)
    return out, stats
