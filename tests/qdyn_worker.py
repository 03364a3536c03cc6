"""Worker of tests/test_quant_dynamic_models.py: run under either torch (ours or upstream).

    python qdyn_worker.py make DIR   seeded float models -> quantize_dynamic -> outputs.npz,
                                     packed weights, state_dicts and whole models saved in DIR
    python qdyn_worker.py load SRC DIR  the other torch's saved state_dicts / whole models (from
                                     SRC) loaded here and run on the same inputs -> DIR/loaded.npz
"""
import os
import sys
import warnings

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.ao.quantization import float16_dynamic_qconfig, per_channel_dynamic_qconfig, quantize_dynamic  # noqa: E402

torch.set_num_threads(1)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 10, bias=False))


def bert():
    from transformers import BertConfig, BertModel
    torch.manual_seed(1)
    cfg = BertConfig(vocab_size=120, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=40)
    return BertModel(cfg).eval()


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(2)
    cfg = LlamaConfig(vocab_size=120, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    return LlamaForCausalLM(cfg).eval()


class StaticMLP(nn.Module):
    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.q, self.dq = QuantStub(), DeQuantStub()
        self.l1, self.r1, self.l2, self.r2, self.l3 = nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 10)

    def forward(self, x):
        return self.dq(self.l3(self.r2(self.l2(self.r1(self.l1(self.q(x)))))))


def static(name):
    """static post-training quantization (x86's qconfig: per-channel weights, reduce_range
    activations; or default_qconfig: per-tensor weights), calibrated on seeded batches"""
    import torch.ao.quantization as tq
    torch.manual_seed(0)
    m = StaticMLP().eval()
    m.qconfig = tq.get_default_qconfig("x86") if name == "static_x86" else tq.default_qconfig
    m = tq.fuse_modules(m, [["l1", "r1"], ["l2", "r2"]])
    p = tq.prepare(m)
    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for _ in range(4):
            p(torch.randn(16, 32, generator=g) * 2)
    return tq.convert(p)


def quantized(name):
    """(quantized model, run(model) -> output tensor, float output)"""
    if name.startswith("static"):
        x = torch.randn(7, 32, generator=torch.Generator().manual_seed(3)) * 2
        m = static(name)
        run = lambda mod: mod(x)
        return m, run, run(m)
    if name.startswith("mlp"):
        m = mlp()
        x = torch.randn(7, 32, generator=torch.Generator().manual_seed(3)) * 2
        run = lambda mod: mod(x)
        qconfig = {"mlp": None, "mlp_per_channel": per_channel_dynamic_qconfig, "mlp_fp16": float16_dynamic_qconfig}[name]
        spec = {nn.Linear: qconfig} if qconfig is not None else {nn.Linear}
        dtype = torch.float16 if name == "mlp_fp16" else torch.qint8
    else:
        m = bert() if name == "bert" else llama()
        ids = torch.randint(0, 120, (2, 12), generator=torch.Generator().manual_seed(4))
        run = (lambda mod: mod(input_ids=ids).last_hidden_state) if name == "bert" else (lambda mod: mod(input_ids=ids).logits)
        spec, dtype = {nn.Linear}, torch.qint8
    with torch.no_grad():
        ref_float = run(m)
        q = quantize_dynamic(m, spec, dtype=dtype)
    return q, run, ref_float


MODELS = ("mlp", "mlp_per_channel", "mlp_fp16", "bert", "llama", "static_x86", "static_per_tensor")


def packed_arrays(q, prefix):
    """every quantized Linear's unpacked weight: integers, scales, zero points (or float16 values), bias"""
    out = {}
    for n, mod in q.named_modules():
        if hasattr(mod, "_packed_params") and hasattr(mod, "weight") and callable(mod.weight):
            w, b = mod._weight_bias()
            if w.is_quantized:
                out[f"{prefix}.{n}.int"] = w.int_repr().numpy()
                if w.qscheme() == torch.per_tensor_affine:
                    out[f"{prefix}.{n}.qp"] = np.array([w.q_scale(), w.q_zero_point()])
                else:
                    out[f"{prefix}.{n}.qp"] = np.concatenate([w.q_per_channel_scales().numpy(), w.q_per_channel_zero_points().numpy()])
            else:
                out[f"{prefix}.{n}.w16"] = w.numpy()
            if b is not None:
                out[f"{prefix}.{n}.bias"] = b.detach().numpy()
        if isinstance(getattr(mod, "scale", None), (float, torch.Tensor)) and hasattr(mod, "zero_point"):
            out[f"{prefix}.{n}.out_qp"] = np.array([float(mod.scale), int(mod.zero_point)])
    return out


def make(d):
    res = {"repr.mlp": np.array(repr(quantized("mlp")[0])), "repr.static": np.array(repr(static("static_x86")))}
    for name in MODELS:
        q, run, ref_float = quantized(name)
        with torch.no_grad():
            res[f"out.{name}"] = run(q).numpy()
        res[f"float.{name}"] = ref_float.numpy()
        res.update(packed_arrays(q, name))
        torch.save(q.state_dict(), os.path.join(d, f"{name}.sd.pt"))
        if name.startswith(("mlp", "static")):
            torch.save(q, os.path.join(d, f"{name}.model.pt"))
    np.savez(os.path.join(d, "outputs.npz"), **res)


def load(src, d):
    res = {}
    for name in MODELS:
        q, run, _ = quantized(name)
        q.load_state_dict(torch.load(os.path.join(src, f"{name}.sd.pt")))
        with torch.no_grad():
            res[f"sd.{name}"] = run(q).numpy()
        if name.startswith(("mlp", "static")):
            whole = torch.load(os.path.join(src, f"{name}.model.pt"), weights_only=False)
            with torch.no_grad():
                res[f"whole.{name}"] = run(whole).numpy()
    np.savez(os.path.join(d, "loaded.npz"), **res)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        load(sys.argv[2], sys.argv[3])
