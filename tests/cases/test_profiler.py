"""torch.profiler on CPU (src/core/profiler.c, src/python/profiler.c, the door's and the engine's
events) compared with upstream: the structure of the recorded events, not their times.

Upstream's event list also holds the operators its kernels call below autograd (aten::empty,
as_strided, resolve_conj, ...), which depend on how each kernel is written. The rule both sides
are filtered by (docs/profiler.md): an event is compared when it is a scope (record_function,
a backward node, autograd::engine::evaluate_function), or an operator with a sequence number
(dispatched above autograd with grad mode on), or an operator whose parent is not an operator
(called from Python, a scope or a backward formula). Sequence numbers are compared relative to
the first one of the profile (the counter's absolute value depends on what ran before)."""
from harness import cases

PRELUDE = '''
import json, os, tempfile
from torch.profiler import profile, record_function, ProfilerActivity, schedule
def _is_op(e):
    return e.name.startswith("aten::") or e.name in ("detach", "detach_")
def _kept(e):
    return not _is_op(e) or e.sequence_nr >= 0 or e.cpu_parent is None or not _is_op(e.cpu_parent)
def structure(prof, shapes=False):
    evs = list(prof.events())
    seqs = [e.sequence_nr for e in evs if _kept(e) and e.sequence_nr >= 0]
    base = min(seqs) if seqs else 0
    out = []
    for e in evs:
        if not _kept(e):
            continue
        d, p = 0, e.cpu_parent
        while p is not None:
            d += _kept(p)
            p = p.cpu_parent
        row = (d, e.name, e.sequence_nr - base if e.sequence_nr >= 0 else -1)
        if shapes:
            row += (e.input_shapes, getattr(e, "input_dtypes", None), e.concrete_inputs)
        out.append(row)
    return out
def counts(prof, names):
    return {k.key: k.count for k in prof.key_averages() if k.key in names}
def run(fn, **kw):
    # garbage left by earlier cases in this worker must not be collected inside the window (a GC
    # pass there adds its frees to profile_memory's events, on either side)
    import gc
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], **kw) as prof:
        fn()
    return prof
x = torch.randn(2, 4)
y = torch.randn(2, 4)
'''

TRAIN = '''
m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
def step():
    opt.zero_grad()
    loss = m(x).sum()
    loss.backward()
    opt.step()
'''

cases("profiler_ops", {
    "pointwise": "structure(run(lambda: (x.add(y), torch.mul(x, 2), x.sum(), x.neg_(), x.abs()), record_shapes=True), True)",
    "no_shapes": "structure(run(lambda: (x.add(y), x.sum(dim=1, keepdim=True))))",
    "requires_grad": "w = torch.randn(4, 3, requires_grad=True)\n"
                     "structure(run(lambda: (x @ w).relu().sum(), record_shapes=True), True)",
    "dtypes": "structure(run(lambda: (x.double() + 1, x.half().float(), (x > 0).sum(), x.to(torch.int32).cumsum(0), torch.cat([x, y], 1)), record_shapes=True), True)",
    "scalars": "structure(run(lambda: (x.clamp(min=-0.5, max=0.5), torch.full((2, 2), 3.5), x.permute(1, 0), x.view(-1), x.reshape(4, 2)), record_shapes=True), True)",
    "no_grad": "w = torch.randn(4, 3, requires_grad=True)\n"
               "def f():\n    with torch.no_grad():\n        (x @ w).sum()\n"
               "structure(run(f, record_shapes=True), True)",
    "inference_mode": "def f():\n    with torch.inference_mode():\n        x.add(y).mul(2)\n"
                      "structure(run(f))",
    "queries": "structure(run(lambda: (x.dim(), x.size(0), x.stride(), x.is_complex(), torch.is_floating_point(x), x.numel(), x.storage_offset(), x.is_contiguous())))",
    "conv": "img = torch.randn(1, 3, 6, 6)\nw = torch.randn(4, 3, 3, 3, requires_grad=True)\n"
            "structure(run(lambda: torch.nn.functional.conv2d(img, w, stride=2, padding=1), record_shapes=True), True)",
    "factories": "structure(run(lambda: (torch.zeros(3), torch.ones(2, 2), torch.arange(4), torch.ones_like(x)), record_shapes=True), True)",
}, setup=PRELUDE)

cases("profiler_composite", {
    "linear": "lin = torch.nn.Linear(4, 3)\nstructure(run(lambda: lin(x), record_shapes=True), True)",
    "layer_norm": "w = torch.ones(4, requires_grad=True)\nb = torch.zeros(4, requires_grad=True)\n"
                  "structure(run(lambda: torch.nn.functional.layer_norm(x, (4,), w, b), record_shapes=True), True)",
    "softmax": "z = x.clone().requires_grad_()\n"
               "structure(run(lambda: (torch.softmax(z, -1), torch.log_softmax(z, 0)), record_shapes=True), True)",
    "gelu_dropout": "z = x.clone().requires_grad_()\n"
                    "structure(run(lambda: torch.nn.functional.dropout(torch.nn.functional.gelu(z), 0.0)))",
    "linear_no_bias_3d": "lin = torch.nn.Linear(4, 3, bias=False)\nx3 = torch.randn(2, 5, 4)\n"
                         "structure(run(lambda: lin(x3), record_shapes=True), True)",
    # (cross_entropy itself is not compared: upstream's log_softmax with a dtype calls aten::to even
    # when the dtype is the input's, ours skips it; docs/profiler.md)
    "nll_loss": "logits = torch.randn(4, 6, requires_grad=True)\ntarget = torch.tensor([0, 5, 2, 1])\n"
                "structure(run(lambda: torch.nn.functional.nll_loss(torch.log_softmax(logits, 1), target).backward(), record_shapes=True), True)",
    "contiguous": "structure(run(lambda: (x.contiguous(), x.t().contiguous(), x.contiguous(memory_format=torch.contiguous_format)), record_shapes=True), True)",
    "module_forward": "m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.LayerNorm(8), torch.nn.GELU(), torch.nn.Linear(8, 3), torch.nn.Softmax(-1))\n"
                      "structure(run(lambda: m(x), record_shapes=True), True)",
    "module_counts": "m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))\n"
                     "counts(run(lambda: m(x)), {'aten::linear', 'aten::addmm', 'aten::relu'})",
}, setup=PRELUDE)

cases("profiler_train", {
    "sgd": TRAIN + "opt = torch.optim.SGD(m.parameters(), lr=0.1)\nstep()\nstructure(run(step))",
    "sgd_first_step": TRAIN + "opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)\nstructure(run(step))",
    "adam": TRAIN + "opt = torch.optim.Adam(m.parameters(), lr=0.1)\nstep()\nstructure(run(step))",
    "adam_counts": TRAIN + "opt = torch.optim.Adam(m.parameters(), lr=0.1)\nstep()\n"
                   "counts(run(step), {'Optimizer.step#Adam.step', 'Optimizer.zero_grad#Adam.zero_grad', 'aten::linear', "
                   "'autograd::engine::evaluate_function: AddmmBackward0', 'AddmmBackward0', 'ReluBackward0', "
                   "'autograd::engine::evaluate_function: torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad'})",
    "backward_shapes": "w = torch.randn(4, 3, requires_grad=True)\n"
                       "structure(run(lambda: (x @ w).tanh().sum().backward(), record_shapes=True), True)",
    "retain_grad_mean": "w = torch.randn(4, requires_grad=True)\n"
                        "def f():\n    h = x * w\n    h.retain_grad()\n    h.mean().backward()\n"
                        "structure(run(f))",
}, setup=PRELUDE)

cases("profiler_scopes", {
    "nesting": "def f():\n    with record_function('outer'):\n        x.add(1)\n"
               "        with record_function('inner'):\n            x.mul(2)\n        with record_function('inner'):\n            x.sub(3)\n"
               "structure(run(f))",
    "scope_args": "def f():\n    with record_function('with_args', 'some args'):\n        x.add(1)\n"
                  "[(e.name, e.is_user_annotation if hasattr(e, 'is_user_annotation') else None) for e in run(f).events() if _kept(e)]",
    "decorator": "@record_function('decorated')\ndef g():\n    return x.add(1)\n"
                 "structure(run(g))",
    "counts": "def f():\n    for _ in range(3):\n        with record_function('loop'):\n            x.add(1)\n"
              "counts(run(f), {'loop', 'aten::add'})",
    "enabled_flag": "with profile(activities=[ProfilerActivity.CPU]):\n    inside = torch.autograd._profiler_enabled()\n"
                    "(inside, torch.autograd._profiler_enabled())",
    "record_function_fast": "def f():\n    with torch._C._profiler._RecordFunctionFast('fast'):\n        x.add(1)\n"
                            "structure(run(f))",
}, setup=PRELUDE)

cases("profiler_schedule", {
    "steps": "seen = []\n"
             "def handler(p):\n    seen.append(structure(p))\n"
             "with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=handler) as prof:\n"
             "    for i in range(5):\n        x.add(i)\n        prof.step()\n"
             "seen",
    "step_names": "seen = []\n"
                  "with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=0, active=1, repeat=2), on_trace_ready=lambda p: seen.append([e.name for e in p.events() if e.name.startswith('ProfilerStep')])) as prof:\n"
                  "    for i in range(3):\n        x.mul(i)\n        prof.step()\n"
                  "seen",
    "start_stop": "prof = profile(activities=[ProfilerActivity.CPU])\nprof.start()\nx.add(1)\nprof.stop()\nstructure(prof)",
    "tensorboard": "d = tempfile.mkdtemp()\n"
                   "with profile(activities=[ProfilerActivity.CPU], on_trace_ready=torch.profiler.tensorboard_trace_handler(d)):\n    x.add(1)\n"
                   "files = os.listdir(d)\n"
                   "(len(files), files[0].endswith('.pt.trace.json'), 'aten::add' in {e.get('name') for e in json.load(open(os.path.join(d, files[0])))['traceEvents']})",
}, setup=PRELUDE)

cases("profiler_results", {
    "chrome_trace": "w = torch.randn(4, 3, requires_grad=True)\n"
                    "def f():\n    with record_function('scope'):\n        (x @ w).sum().backward()\n"
                    "prof = run(f, record_shapes=True)\n"
                    "p = os.path.join(tempfile.mkdtemp(), 't.json')\nprof.export_chrome_trace(p)\nj = json.load(open(p))\n"
                    "names = {e['name'] for e in j['traceEvents'] if e.get('ph') == 'X'}\n"
                    "kept = sorted({r[1] for r in structure(prof)})\n"
                    "mm = [e for e in j['traceEvents'] if e.get('name') == 'aten::mm' and e.get('ph') == 'X']\n"
                    "([n in names for n in kept], kept, sorted(j)[:4], mm[0]['args']['Input Dims'], mm[0]['args']['Input type'], "
                    "[e['cat'] for e in j['traceEvents'] if e.get('name') == 'scope'])",
    "metadata": "prof = profile(activities=[ProfilerActivity.CPU])\nprof.start()\nprof.add_metadata('k', 'v')\nprof.add_metadata_json('kj', '[1, 2]')\nx.add(1)\nprof.stop()\n"
                "p = os.path.join(tempfile.mkdtemp(), 't.json')\nprof.export_chrome_trace(p)\nj = json.load(open(p))\n(j.get('k'), j.get('kj'))",
    "kineto_events": "prof = run(lambda: x.add(y), record_shapes=True)\ne = [e for e in prof.profiler.kineto_results.events() if e.name() == 'aten::add'][0]\n"
                     "(e.shapes(), e.dtypes(), e.concrete_inputs(), e.kwinputs(), e.scope(), e.is_async(), e.device_type(), e.activity_type(), "
                     "e.is_user_annotation(), e.linked_correlation_id(), e.flops(), e.nbytes(), e.stack(), e.overload_name(), e.cuda_elapsed_us(), "
                     "e.privateuse1_elapsed_us(), e.is_hidden_event(), e.is_python_function(), e.metadata_json(), e.extra_meta(), e.flow_id(), "
                     "e.flow_type(), e.flow_start(), e.python_id(), e.python_parent_id(), e.python_module_id(), "
                     "e.structured_input_shapes(), e.structured_input_strides(), e.start_thread_id() == e.end_thread_id(), e.fwd_thread_id(), "
                     "e.duration_ns() == e.end_ns() - e.start_ns(), e.end_ns() >= e.start_ns() >= prof.profiler.kineto_results.trace_start_ns(), "
                     "e.device_index() == os.getpid())",
    "overload_names": "prof = run(lambda: (x.add(y), x.add(1), x.sum()), experimental_config=torch._C._profiler._ExperimentalConfig(capture_overload_names=True))\n"
                      "[(e.name(), e.overload_name()) for e in prof.profiler.kineto_results.events() if e.sequence_nr() >= 0]",
    "table": "prof = run(lambda: x.add(y))\nt = prof.key_averages().table(sort_by='cpu_time_total')\n"
             "('aten::add' in t, 'Self CPU time total' in t, prof.key_averages().table(row_limit=0).count('\\n') > 2)",
    "group_by_shape": "prof = run(lambda: (x.add(y), x[:1].add(y[:1])), record_shapes=True)\n"
                      "sorted((k.key, str(k.input_shapes), k.count) for k in prof.key_averages(group_by_input_shape=True) if k.key == 'aten::add')",
    "legacy_api": "with torch.autograd.profiler.profile() as p:\n    x.mul(3).sum()\n"
                  "[(e.name, e.cpu_parent is None) for e in p.function_events if _kept(e)]",
    "legacy_shapes": "with torch.autograd.profiler.profile(record_shapes=True) as p:\n    x.mul(y)\n"
                     "[(e.name, e.input_shapes) for e in p.function_events if _kept(e)]",
    "other_options": "prof = run(lambda: x.add(y), with_flops=True, with_modules=True)\n"
                     "[(e.name, e.flops) for e in prof.events() if e.name == 'aten::add']",
    "flops": "a = torch.randn(2, 3)\nb = torch.randn(3, 5)\nA = torch.randn(4, 2, 3)\nB = torch.randn(4, 3, 5)\nimg = torch.randn(1, 4, 6, 6)\n"
             "def f():\n    a.mm(b); torch.addmm(torch.zeros(5), a, b); A.bmm(B); torch.baddbmm(torch.zeros(4, 2, 5), A, B); a.mul(a); a.add(1); a.sub(a)\n"
             "    torch.nn.functional.conv2d(img, torch.randn(8, 2, 3, 3), groups=2); torch.nn.functional.conv2d(img, torch.randn(8, 4, 2, 2), stride=(2, 1), dilation=(1, 2))\n"
             "prof = run(f, with_flops=True)\n"
             "([(e.name(), e.flops()) for e in prof.profiler.kineto_results.events() if e.flops()], 'Total FLOPs' in prof.key_averages().table())",
    "memory": "a = torch.randn(10, 10)\n"
              "def f():\n    w = a @ a\n    z = torch.empty(1000)\n    del z\n    s = a.sum()\n    c = torch.cat([a, a])\n    del c\n"
              "prof = run(f, profile_memory=True)\n"
              "([e.nbytes() for e in prof.profiler.kineto_results.events() if e.name() == '[memory]'], "
              "sorted((k.key, k.cpu_memory_usage, k.self_cpu_memory_usage, k.count) for k in prof.key_averages() "
              "if k.key in ('aten::empty', 'aten::mm', 'aten::matmul', 'aten::sum', 'aten::cat', '[memory]')), "
              "'CPU Mem' in prof.key_averages().table())",
    "memory_trace": "prof = run(lambda: torch.empty(100), profile_memory=True)\n"
                    "p = os.path.join(tempfile.mkdtemp(), 't.json')\nprof.export_chrome_trace(p)\n"
                    "[(e['ph'], e['args']['Bytes']) for e in json.load(open(p))['traceEvents'] if e.get('name') == '[memory]']",
    "experimental_config": "c = torch._C._profiler._ExperimentalConfig(trace_only=True, custom_profiler_config='')\n"
                           "import copy\nc2 = copy.copy(c)\nc2.trace_only = False\n(c.trace_only, c2.trace_only, c.custom_profiler_config, torch._C._profiler._ExperimentalConfig().trace_only)",
    "supported": "(sorted(str(a) for a in torch._C._autograd._supported_activities()), torch._C._autograd.kineto_available(), torch.profiler.supported_activities() == {ProfilerActivity.CPU})",
    "demangle": "torch._C._demangle('aten::add')",
}, setup=PRELUDE)

cases("profiler_bad", {
    "disable_without_enable": "r = torch._C._autograd._disable_profiler()\n(type(r).__name__, r.events(), torch.autograd._profiler_enabled())",
    "nested_profile": "with profile(activities=[ProfilerActivity.CPU]) as p1:\n    x.add(1)\n"
                      "    with profile(activities=[ProfilerActivity.CPU]) as p2:\n        x.mul(2)\n    x.sub(3)\n"
                      "([r[1] for r in structure(p2)], torch.autograd._profiler_enabled())",
    "reentrant": "p = profile(activities=[ProfilerActivity.CPU])\nwith p:\n    with p:\n        pass",
    "enable_bad_config": "torch._C._autograd._enable_profiler(1, {ProfilerActivity.CPU})",
    "enable_bad_activities": "from torch._C._profiler import ProfilerConfig, ProfilerState, _ExperimentalConfig\n"
                             "cfg = ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False, _ExperimentalConfig())\n"
                             "torch._C._autograd._enable_profiler(cfg, {1})",
    "prepare_bad": "torch._C._autograd._prepare_profiler(None, set())",
    "config_missing_args": "torch._C._profiler.ProfilerConfig(torch._C._profiler.ProfilerState.KINETO)",
    "experimental_bad_kw": "torch._C._profiler._ExperimentalConfig(no_such_option=True)",
    "events_before_exit": "with profile(activities=[ProfilerActivity.CPU]) as p:\n    x.add(1)\n    r = torch.autograd._profiler_enabled()\nr",
    # (_RecordFunctionFast(1) is not compared: upstream's own process aborts on it)
    "exit_bad_handle": "torch.ops.profiler._record_function_exit._RecordFunction(1)",
}, setup=PRELUDE)
