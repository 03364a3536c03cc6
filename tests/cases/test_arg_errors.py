"""The TypeError upstream's Python argument parser raises for a call no overload takes, message
included (src/python/arg_errors.c, docs/arg_errors.md): one plausible signature's specific error
(wrong type by position or keyword, too many / missing positional arguments, unexpected keyword),
else "received an invalid combination of arguments" with every visible signature and why it did
not match, keyword arguments in the order upstream's std::unordered_map iterates them; Tensor
lists with a non-tensor element; int lists that fail to unpack; METH_NOARGS methods. Also
Tensor.to with a Python number (upstream binds it as the `other` tensor). Each case returns
(type, message)."""
from harness import cases

ERR = """
def err(f):
    try:
        r = f()
        return ("ok", str(r.dtype) if hasattr(r, "dtype") else type(r).__name__)
    except Exception as e:
        return (type(e).__name__, str(e))
t = torch.ones(2)
m = torch.ones(2, 2)
"""

cases("arg_errors_specific", {   # one signature, or one plausible by argument count
    "positional_type": "err(lambda: torch.relu(3))",
    "manual_numel": "err(lambda: torch.numel([1]))",
    "manual_get_device": "err(lambda: torch.get_device(1, 2))",
    "manual_nonzero": "err(lambda: torch.nonzero(t, as_tuple=3))",
    "manual_nonzero_kw": "err(lambda: torch.nonzero(t, foo=3))",
    "positional_type_nn": "err(lambda: torch.nn.functional.linear(t, 3))",
    "positional_type_special": "err(lambda: torch.special.expit(3))",
    "positional_type_method": "err(lambda: t.index_select(0, [1]))",
    "keyword_type": "err(lambda: torch.exp(t, out=3))",
    "keyword_type_dtype": "err(lambda: torch.zeros(2, dtype='float'))",
    "keyword_type_bool": "err(lambda: torch.nonzero(t, as_tuple=3))",
    "keyword_type_memory_format": "err(lambda: torch.empty(2, memory_format=1))",
    "keyword_none_not_allowed": "err(lambda: t.unsqueeze(dim=None))",
    "keyword_float_for_int": "err(lambda: torch.topk(t, k=1.5))",
    "keyword_fft": "err(lambda: torch.fft.fft(t, n='a'))",
    "keyword_softmax_dim": "err(lambda: torch.softmax(t, dim='a'))",
    "number_for_alpha": "err(lambda: torch.add(t, other=t, alpha='a'))",
    "too_many_positional": "err(lambda: torch.add(t, t, t, t))",
    "too_many_positional_one": "err(lambda: torch.exp(t, t))",
    "too_many_positional_kw": "err(lambda: torch.add(t, 1, 2, alpha=3))",
    "too_many_positional_method": "err(lambda: t.mm(t, t))",
    "too_many_from_to": "err(lambda: torch.nn.functional.softplus(t, 1, 2, 3))",
    "missing_positional": "err(lambda: torch._C._nn.linear(t))",
    "missing_positional_method": "err(lambda: t.mm())",
    "missing_with_kwargs": "err(lambda: torch.sum(t, foo=1, bar=2))",
    "missing_size": "err(lambda: torch.ones(foo=1))",
    "missing_mm": "err(lambda: torch.mm(t, mat3=t))",
    "unexpected_keyword": "err(lambda: torch.sub(t, t, x=1))",
    "unexpected_keyword_factory": "err(lambda: torch.ones(2, dtype=torch.float, foo=1))",
    "unexpected_keyword_method": "err(lambda: t.mm(mat2=t, x=2))",
    "intlist_not_list": "err(lambda: torch.zeros('a'))",
    "intlist_float": "err(lambda: torch.zeros(1.5))",
    "intlist_float_tensor": "err(lambda: torch.zeros(torch.tensor(2.)))",
    "intlist_tensor": "err(lambda: torch.zeros(torch.tensor([2, 3])))",
    "intlist_first_element": "err(lambda: torch.zeros(['a', 1]))",
    "intlist_first_element_method": "err(lambda: t.expand([1.5]))",
    "intlist_varargs_float": "err(lambda: torch.zeros(1.5, 2))",
    "intlist_varargs_method": "err(lambda: t.expand(1.5, 2))",
    "intlist_repeat": "err(lambda: t.repeat('a'))",
    "intlist_new_zeros": "err(lambda: t.new_zeros('a'))",
    "number_fill": "err(lambda: torch.full((2,), 'a'))",
    "number_end": "err(lambda: torch.arange('a'))",
    "str_equation": "err(lambda: torch.einsum(1, 2))",
    "sum_method_dim_kw": "err(lambda: t.sum(dim='x', keepdim=3, dtype=5))",
    "sum_dim_kw": "err(lambda: torch.sum(t, dim='x', keepdim=3, dtype=5))",
    "mm_other": "err(lambda: torch.mm(t, 3))",
    "mm_method_other": "err(lambda: t.mm(3))",
}, setup=ERR)

cases("arg_errors_combination", {   # several plausible signatures: the list
    "clamp_str": "err(lambda: torch.clamp(t, 'a'))",
    "view_float": "err(lambda: t.view(1.5))",
    "view_none": "err(lambda: t.view())",
    "mean_many": "err(lambda: torch.mean(t, 'a', 'b', 'c', 'd', 'e'))",
    "where_two": "err(lambda: torch.where(t, 1))",
    "max_str": "err(lambda: torch.max(t, 'a'))",
    "max_three": "err(lambda: torch.max(t, t, t))",
    "sort_stable_int": "err(lambda: torch.sort(t, stable=1))",
    "randn_generator": "err(lambda: torch.randn(2, generator=3))",
    "masked_fill_str": "err(lambda: t.masked_fill(t > 0, 'a'))",
    "linalg_norm": "err(lambda: torch.linalg.norm(t, ord='x', dim=1.5))",
    "addmm_five": "err(lambda: torch.addmm(m, m, m, 1, 2))",
    "mm_three": "err(lambda: torch.mm(m, m, m))",
    "mm_one": "err(lambda: torch.mm(m))",
    "sum_method_float": "err(lambda: t.sum(1.5))",
    "sum_method_list": "err(lambda: t.sum([1.5]))",
    "sum_method_kw_list": "err(lambda: t.sum(dim=[1.5]))",
    "add_one_arg": "err(lambda: torch.add(t))",
    "add_no_args": "err(lambda: torch.add())",
    "unrecognized_keywords": "err(lambda: t.add_(t, alpha=2, beta=3))",
    "keywords_incorrect": "err(lambda: t.clamp(min=t, max=1))",
    "keywords_order_2": "err(lambda: torch.clamp(t, min=t, max=1))",
    "keywords_order_3": "err(lambda: torch.clamp(t, a=1, b=2, c=3))",
    "keywords_order_5": "err(lambda: torch.clamp(t, a=1, b=2, c=3, d=4, e=5))",
    "keywords_order_7": "err(lambda: torch.clamp(t, dim=1, keepdim=2, dtype=3, out=4, foo=5, bar=6, baz=7))",
    "keywords_order_14": "err(lambda: torch.clamp(t, zz=1, yy=2, xx=3, ww=4, vv=5, uu=6, tt=7, ss=8, rr=9, qq=10, pp=11, oo=12, nn=13, mm=14))",
    "keywords_mm": "err(lambda: torch.mm(m, mat2=m, mat2x=1))",
    "keywords_only": "err(lambda: torch.mm(mat2=m, input=m, out=3))",
    "tuple_arg_desc": "err(lambda: t.view((1.5,)))",
    "list_arg_desc": "err(lambda: t.masked_fill([1, 'a'], 2))",
}, setup=ERR)

cases("arg_errors_lists", {
    "tensor_list_int": "err(lambda: torch.cat([1, 2]))",
    "tensor_list_second": "err(lambda: torch.cat((t, 1), 0))",
    "tensor_list_str": "err(lambda: torch.stack([t, 's']))",
    "unpack_view": "err(lambda: t.view(2, 'a'))",
    "unpack_expand": "err(lambda: t.expand(2, 'a'))",
    "unpack_permute": "err(lambda: t.permute(0, 'x'))",
    "unpack_reshape": "err(lambda: t.reshape([1, 'a']))",
    "unpack_zeros": "err(lambda: torch.zeros([1, 'a']))",
    "unpack_zeros_varargs": "err(lambda: torch.zeros(2, 1.5))",
    "noargs_method": "err(lambda: t.exp(1))",
    "noargs_method_kw": "err(lambda: t.exp(a=1))",
    "noargs_method_both": "err(lambda: t.exp(1, a=1))",
    "noargs_bound_method": "err(lambda: getattr(t, 'exp')(1))",
    "noargs_get_device": "err(lambda: t.get_device(1))",
    "noargs_ok": "(t.exp(), t.neg_().neg_(), t.get_device())",
    "list_then_more_positional": "err(lambda: t.permute((0, 1), 5))",
    "list_then_more_positional_view": "err(lambda: m.view((2, 2), 3))",
    "squeeze_tuple_complex": "err(lambda: m.clone().squeeze_((1, 2), 1j))",
    "method_nonzero": "err(lambda: t.nonzero(1, 2))",
    "dtype_method_positional": "err(lambda: t.half(1))",
    "dtype_method_memory_format": "err(lambda: t.float(memory_format=3))",
    "dtype_method_ok": "(t.double(memory_format=torch.contiguous_format), t.bool(memory_format=None))",
    "cpu_positional": "err(lambda: t.cpu(t))",
    "cpu_memory_format": "(lambda r: (r, r is t))(t.cpu(memory_format=torch.contiguous_format))",
    "size_str": "err(lambda: t.size('a'))",
    "size_two": "err(lambda: t.size(1.5, 2))",
    "size_kw": "err(lambda: t.size(dim=1.5))",
    "size_foo": "err(lambda: t.size(foo=1))",
    "size_bool": "err(lambda: t.size(True))",
    "stride_tuple": "err(lambda: t.stride((1, 2)))",
    "size_ok": "(t.size(), t.size(0), t.size(None), t.size(dim=-1), t.stride(torch.tensor(0)))",
    "requires_grad_device": "err(lambda: t.clone().requires_grad_(torch.device('cpu')))",
    "requires_grad_int": "err(lambda: t.clone().requires_grad_(1))",
    "requires_grad_ok": "(t.clone().requires_grad_(False).requires_grad, t.clone().requires_grad_().requires_grad)",
    "item_arg": "err(lambda: t[0].item('a'))",
    "contiguous_positional": "err(lambda: t.contiguous(None))",
    "contiguous_bad_kw": "err(lambda: t.contiguous(keepdim=1.5))",
    "cpu_channels_last": "torch.ones(1, 2, 3, 3).cpu(memory_format=torch.channels_last).stride()",
}, setup=ERR)

cases("aliases", {   # torch.spmm / dsmm are mm, hsmm is hspmm, saddmm is sspaddmm (errors name the canonical)
    "spmm": "torch.spmm(m, m)",
    "dsmm": "torch.dsmm(m, m)",
    "spmm_name": "(torch.spmm.__name__, torch.dsmm.__name__, torch.hsmm.__name__, torch.saddmm.__name__)",
    "spmm_error": "err(lambda: torch.spmm(m))",
    "hsmm_error": "err(lambda: torch.hsmm(1j, m))",
}, setup=ERR)

cases("to_python_number", {   # upstream binds a bool / float / complex to to(Tensor other)
    "to_bool": "t.to(True)",
    "to_float": "t.to(3.5)",
    "to_complex": "t.to(1j)",
    "to_float_non_blocking": "t.to(2.5, True)",
    "to_bool_copy": "(lambda r: (r, r is t))(t.to(False, copy=True))",
    "to_int_is_device": "err(lambda: t.to(3))",
}, setup=ERR)
