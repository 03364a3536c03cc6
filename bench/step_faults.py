"""Page faults, user / system CPU and wall time per AdamW step of the SmolLM2-135M-shaped Llama (the
bench worker's model and step: bench/bench_models.py), on whichever torch runs it; then the peak RSS.
Run side by side: OMP_NUM_THREADS=1 .venv/bin/python bench/step_faults.py [steps]; the same with
.venv-ref/bin/python (docs/speed_training.md, session 35)."""
import resource, sys, time, warnings, os
warnings.filterwarnings("ignore")
import torch, transformers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import CONFIG  # noqa: E402

torch.manual_seed(0)
m = transformers.LlamaForCausalLM(transformers.LlamaConfig(**CONFIG)).train()
opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
g = torch.Generator().manual_seed(1)
ids = torch.randint(0, 49152, (1, 128), generator=g)
def step():
    opt.zero_grad()
    m(ids, labels=ids, use_cache=False).loss.backward()
    opt.step()
step()
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 4):
    r0 = resource.getrusage(resource.RUSAGE_SELF); t = time.perf_counter()
    step()
    r1 = resource.getrusage(resource.RUSAGE_SELF); w = time.perf_counter() - t
    print("wall %.3f user %.3f sys %.3f minflt %d" % (w, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime, r1.ru_minflt - r0.ru_minflt))
print("maxrss MB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
