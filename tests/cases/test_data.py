"""torch.utils.data compared with upstream: batches (values and order), samplers, default_collate,
num_workers=0 and fork workers (tensors cross processes in shared memory through
torch.multiprocessing's reductions), per-worker seeds, worker_init_fn, a worker's exception,
persistent workers, and shutdown: workers reaped (no zombies) and no shared-memory object left in
/dev/shm, under both sharing strategies. Also storage sharing itself (share_memory_, is_shared,
torch.multiprocessing queues) and Tensor.new, which default_collate's workers call."""
from harness import cases

PRE = """
import os, random, numpy as np
import torch.multiprocessing as tmp
from torch.utils.data import (DataLoader, TensorDataset, Dataset, IterableDataset, RandomSampler, SequentialSampler,
                              BatchSampler, SubsetRandomSampler, WeightedRandomSampler, default_collate, get_worker_info)
def ds(n=10):
    return TensorDataset(torch.arange(2. * n).reshape(n, 2), torch.arange(n))
def gen(s=0):
    g = torch.Generator(); g.manual_seed(s); return g
class NpDS(Dataset):
    def __len__(self): return 7
    def __getitem__(self, i):
        return {"x": np.arange(3, dtype=np.float32) + i, "y": i, "f": i / 2, "s": "s%d" % i, "n": np.int64(i)}
class SeedDS(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i):
        w = get_worker_info()
        return (i, w.id if w else -1, torch.initial_seed(), (w.seed if w else 0), torch.rand(2), random.random(), float(np.random.rand()))
class FailDS(Dataset):
    def __len__(self): return 10
    def __getitem__(self, i):
        if i == 5: raise ValueError("bad item 5")
        return torch.tensor([i])
class KillDS(Dataset):
    def __len__(self): return 10
    def __getitem__(self, i):
        if i == 3: os.kill(os.getpid(), 9)
        return torch.tensor([i])
class It(IterableDataset):
    def __iter__(self):
        w = get_worker_info()
        lo, step = (w.id, w.num_workers) if w else (0, 1)
        return iter([torch.full((2,), float(i)) for i in range(lo, 9, step)])
INIT = []
class InitDS(Dataset):
    def __len__(self): return 4
    def __getitem__(self, i): return torch.tensor(INIT)
def init_fn(wid):
    INIT.append(100 + wid)
def reaped(pid):
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0) and False
    except ChildProcessError:
        return True
def shm_left(pids):
    names = os.listdir('/dev/shm')
    return sorted(n for n in names for p in pids if n.startswith('torch_%d_' % p))
def shutdown_run(strategy, persistent=False):
    old = tmp.get_sharing_strategy()
    tmp.set_sharing_strategy(strategy)
    try:
        dl = DataLoader(ds(12), batch_size=4, num_workers=2, persistent_workers=persistent)
        it = iter(dl)
        batches = list(it)
        pids = [w.pid for w in it._workers]
        alive = [w.is_alive() for w in it._workers]
        held = len(shm_left(pids)) if strategy == 'file_system' else 0   # the batches hold their objects
        values = [[t.tolist() for t in b] for b in batches]
        it._shutdown_workers()
        del it, dl, batches
        import gc, time; gc.collect()
        for _ in range(50):   # upstream's shm manager unlinks asynchronously
            if not shm_left(pids + [os.getpid()]): break
            time.sleep(0.1)
        return values, alive, [reaped(p) for p in pids], held, shm_left(pids + [os.getpid()])
    finally:
        tmp.set_sharing_strategy(old)
"""

loaders = {}
for nw in (0, 2):
    loaders.update({
        f"seq-nw{nw}": f"list(DataLoader(ds(), batch_size=3, num_workers={nw}))",
        f"drop_last-nw{nw}": f"list(DataLoader(ds(), batch_size=3, drop_last=True, num_workers={nw}))",
        f"shuffle_generator-nw{nw}": f"list(DataLoader(ds(), batch_size=4, shuffle=True, generator=gen(3), num_workers={nw}))",
        f"shuffle_global_seed-nw{nw}": f"torch.manual_seed(7)\n[list(DataLoader(ds(), batch_size=4, shuffle=True, num_workers={nw})) for _ in range(2)]",
        f"batch_none-nw{nw}": f"list(DataLoader(ds(5), batch_size=None, num_workers={nw}))",
        f"numpy-nw{nw}": f"list(DataLoader(NpDS(), batch_size=3, num_workers={nw}))",
        f"numpy_shuffle-nw{nw}": f"list(DataLoader(NpDS(), batch_size=2, shuffle=True, generator=gen(1), num_workers={nw}))",
        f"seeds-nw{nw}": f"torch.manual_seed(11); random.seed(1); np.random.seed(1)\nlist(DataLoader(SeedDS(), batch_size=2, num_workers={nw}))",
        f"seeds_generator-nw{nw}": f"random.seed(2); np.random.seed(2)\nlist(DataLoader(SeedDS(), batch_size=2, num_workers={nw}, generator=gen(5)))",
        f"worker_exception-nw{nw}": f"list(DataLoader(FailDS(), batch_size=2, num_workers={nw}))",
        f"iterable-nw{nw}": f"list(DataLoader(It(), batch_size=2, num_workers={nw}))",
        f"sampler_replacement-nw{nw}": f"list(DataLoader(ds(), batch_size=3, num_workers={nw}, sampler=RandomSampler(ds(), replacement=True, num_samples=7, generator=gen(2))))",
        f"batch_sampler-nw{nw}": f"list(DataLoader(ds(), num_workers={nw}, batch_sampler=BatchSampler(SubsetRandomSampler(range(8), generator=gen(4)), 3, False)))",
        f"collate_identity-nw{nw}": f"list(DataLoader(ds(6), batch_size=2, num_workers={nw}, collate_fn=lambda b: b))",
        f"int64_and_bool-nw{nw}": f"list(DataLoader(TensorDataset(torch.arange(6) > 2, torch.arange(6, dtype=torch.int16)), batch_size=4, num_workers={nw}))",
    })
loaders.update({
    "worker_init_fn": "list(DataLoader(InitDS(), batch_size=2, num_workers=2, worker_init_fn=init_fn))",
    "persistent_two_epochs": "dl = DataLoader(ds(), batch_size=3, shuffle=True, generator=gen(9), num_workers=2, persistent_workers=True)\n"
                             "e1 = list(dl); w1 = [w.pid for w in dl._iterator._workers]\ne2 = list(dl); w2 = [w.pid for w in dl._iterator._workers]\n"
                             "(e1, e2, w1 == w2, all(w.is_alive() for w in dl._iterator._workers))",
    "prefetch_factor": "list(DataLoader(ds(9), batch_size=2, num_workers=2, prefetch_factor=1))",
    "worker_killed": "list(DataLoader(KillDS(), batch_size=2, num_workers=2))",
    "multiple_of_workers": "list(DataLoader(ds(11), batch_size=2, num_workers=3, in_order=True))",
    "len": "[len(DataLoader(ds(n), batch_size=3, drop_last=d)) for n in (0, 1, 9, 10) for d in (False, True)]",
    "bad_batch_size": "DataLoader(ds(), batch_size=0)",
    "bad_num_workers": "DataLoader(ds(), num_workers=-1)",
    "shuffle_and_sampler": "DataLoader(ds(), shuffle=True, sampler=SequentialSampler(ds()))",
    "persistent_without_workers": "DataLoader(ds(), persistent_workers=True)",
})
cases("dataloader", loaders, setup=PRE, vars=False)

cases("dataloader_shutdown", {
    "file_descriptor": "shutdown_run('file_descriptor')",
    "file_system": "shutdown_run('file_system')",
    "persistent": "shutdown_run('file_descriptor', persistent=True)",
    "strategy_default": "(tmp.get_sharing_strategy(), sorted(tmp.get_all_sharing_strategies()))",
}, setup=PRE, vars=False)

cases("samplers", {
    "random": "list(RandomSampler(range(10), generator=gen(0)))",
    "random_global": "torch.manual_seed(1)\nlist(RandomSampler(range(10)))",
    "random_replacement": "list(RandomSampler(range(10), replacement=True, num_samples=25, generator=gen(0)))",
    "random_more_than_n": "list(RandomSampler(range(4), num_samples=10, generator=gen(0)))",
    "subset_random": "list(SubsetRandomSampler([3, 5, 7, 9], generator=gen(2)))",
    "weighted": "list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 12, generator=gen(0)))",
    "weighted_no_replacement": "list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 4, replacement=False, generator=gen(0)))",
    "batch": "[list(BatchSampler(SequentialSampler(range(10)), 3, d)) for d in (False, True)]",
    "random_split": "[list(s) for s in torch.utils.data.random_split(range(10), [0.3, 0.7], generator=gen(1))]",
    "bad_num_samples": "RandomSampler(range(3), num_samples=0)",
    "weighted_bad": "WeightedRandomSampler([-1.0, 2.0], 2)",
}, setup=PRE, vars=False)

cases("default_collate", {
    "tensors": "default_collate([torch.ones(2), torch.zeros(2)])",
    "numbers": "default_collate([1, 2, 3]), default_collate([1.5, 2.5]), default_collate([True, False])",
    "strings": "default_collate(['a', 'b'])",
    "nested": "default_collate([{'a': (torch.ones(1), 2), 'b': [np.zeros(2), 'x']}, {'a': (torch.zeros(1), 3), 'b': [np.ones(2), 'y']}])",
    "numpy_scalars": "default_collate([np.float64(1.5), np.float64(2.5)]), default_collate([np.int32(1), np.int32(4)])",
    "numpy_arrays": "default_collate([np.arange(3, dtype=np.int16), np.arange(3, dtype=np.int16)])",
    "namedtuple": "import collections\nP = collections.namedtuple('P', 'x y')\ntuple(default_collate([P(torch.ones(1), 1), P(torch.zeros(1), 2)]))",
    "ragged": "default_collate([torch.ones(2), torch.ones(3)])",
    "uneven_lists": "default_collate([[1, 2], [1]])",
    "numpy_object": "default_collate([np.array(['a']), np.array(['b'])])",
}, setup=PRE, vars=False)

SHARE = """
def child(q, r):
    t = q.get()
    t.add_(1)
    r.put((t.is_shared(), t.sum().item()))
def roundtrip(strategy):
    old = tmp.get_sharing_strategy()
    tmp.set_sharing_strategy(strategy)
    try:
        ctx = tmp.get_context('fork')
        q, r = ctx.Queue(), ctx.Queue()
        p = ctx.Process(target=child, args=(q, r))
        p.start()
        x = torch.arange(6.).reshape(2, 3)
        q.put(x)
        got = r.get(timeout=60)
        p.join(60)
        return got, x, x.is_shared(), p.exitcode
    finally:
        tmp.set_sharing_strategy(old)
"""
cases("share_memory", {
    "share_memory_": "x = torch.arange(5.)\np0 = x.is_shared()\ny = x.share_memory_()\n(p0, x.is_shared(), y is x, x, x.untyped_storage().is_shared())",
    "share_view": "x = torch.arange(8.)\nv = x[2:6]\nv.share_memory_()\nv[0] = 9\n(x.is_shared(), x, v)",
    "share_module": "m = torch.nn.Linear(3, 2)\nm.share_memory()\n[p.is_shared() for p in m.parameters()]",
    "share_twice_same_fd": "s = torch.arange(4.).untyped_storage()\na = s._share_fd_cpu_()\nb = s._share_fd_cpu_()\n(a == b, a[1])",
    "share_empty": "x = torch.empty(0)\nx.share_memory_()\n(x.is_shared(), x.shape)",
    "new_shared": "s = torch.UntypedStorage._new_shared(16)\n(s.is_shared(), s.nbytes())",
    "typed_new_shared": "t = torch.ones(3)._typed_storage()._new_shared(5)\n(t.is_shared(), t.size(), t.dtype)",
    "queue_fd": "roundtrip('file_descriptor')",
    "queue_file_system": "roundtrip('file_system')",
    "set_bad_strategy": "tmp.set_sharing_strategy('nope')",
}, setup=PRE + SHARE, vars=False)

cases("tensor_new", {
    "empty": "torch.ones(2).new().shape",
    "sizes": "(torch.ones(2).new(2, 3).shape, torch.ones(2, dtype=torch.int8).new(torch.Size([4])).dtype)",
    "data": "torch.ones(2, dtype=torch.float64).new([1, 2])",
    "tuple_is_data": "torch.ones(2).new((2, 3))",
    "storage": "torch.ones(2).new(torch.arange(4.).untyped_storage())",
    "typed_storage": "torch.ones(2).new(torch.arange(4.)._typed_storage())",
    "typed_storage_wrong_dtype": "torch.ones(2, dtype=torch.long).new(torch.arange(4.)._typed_storage())",
    "tensor_alias": "a = torch.arange(3.)\nb = torch.ones(2).new(a)\nb[0] = 7\n(a, b.data_ptr() == a.data_ptr())",
    "tensor_wrong_dtype": "torch.ones(2).new(torch.ones(2, dtype=torch.long))",
    "str": "torch.ones(2).new('a')",
    "negative": "torch.ones(2).new(-1)",
}, setup=PRE, vars=False)

# torch.FloatTensor(...) and its siblings: the same legacy constructor as Tensor.new on the
# class's dtype; numpy arrays (any dtype, non-contiguous slices) are data, numpy integer scalars
# and 0-dim integer arrays are sizes (transformers' sinusoidal position tables: marian, pegasus)
cases("legacy_ctor", {
    "np_slices": "import numpy as np\na = np.arange(24.).reshape(4, 6) / 7\n"
                 "(torch.FloatTensor(np.sin(a[:, 0::2])), torch.FloatTensor(np.cos(a[:, 1::2])))",
    "np_f64": "import numpy as np\ntorch.FloatTensor(np.arange(6.).reshape(2, 3) / 3)",
    "np_transposed": "import numpy as np\ntorch.DoubleTensor(np.arange(6.).reshape(2, 3).T)",
    "np_int_to_long": "import numpy as np\ntorch.LongTensor(np.arange(3))",
    "np_int_to_float": "import numpy as np\ntorch.FloatTensor(np.ones((2, 2), dtype=np.int64))",
    "np_bool": "import numpy as np\ntorch.BoolTensor(np.array([0, 1, 2]))",
    "np_0d_float": "import numpy as np\ntorch.FloatTensor(np.array(3.5))",
    "np_empty": "import numpy as np\ntorch.FloatTensor(np.ones((2, 0)))",
    "np_int_scalar_size": "import numpy as np\ntorch.FloatTensor(np.int64(3)).shape",
    "np_int_0d_size": "import numpy as np\ntorch.FloatTensor(np.array(3)).shape",
    "np_int_sizes": "import numpy as np\ntorch.FloatTensor(2, np.int32(3)).shape",
    "new_np_int_size": "import numpy as np\ntorch.ones(2).new(np.int64(4)).shape",
    "np_float_scalar": "import numpy as np\ntorch.FloatTensor(np.float64(2.0))",
    "no_args": "torch.FloatTensor()",
    "list": "torch.IntTensor([[1, 2], [3, 4]])",
    "tuple": "torch.FloatTensor((1, 2))",
    "size": "torch.FloatTensor(torch.Size([2, 3])).shape",
    "ints": "(torch.HalfTensor(2, 3).shape, torch.HalfTensor(2, 3).dtype)",
    "device_kw": "torch.FloatTensor(2, device='cpu').shape",
    "tensor_same_dtype": "a = torch.arange(3.)\nb = torch.FloatTensor(a)\nb[0] = 7\n(a, b.data_ptr() == a.data_ptr())",
    "tensor_other_dtype": "torch.FloatTensor(torch.ones(2).double())",
    "storage": "torch.FloatTensor(torch.arange(4.).untyped_storage())",
    "str": "torch.FloatTensor('ab')",
    "dtype_kw": "torch.FloatTensor(2, dtype=torch.float64)",
    "negative": "torch.LongTensor(-2)",
}, setup=PRE, vars=False)

# default_collate calls torch.stack(batch, 0, out=None): a function with an out= overload takes
# out=None as absent; methods and functions without one reject out=
cases("out_none", {
    "stack": "torch.stack([torch.ones(2), torch.zeros(2)], 0, out=None)",
    "add": "torch.add(torch.ones(2), 1, out=None)",
    "cat_kw": "torch.cat(tensors=[torch.ones(1)], out=None)",
    "no_out_overload": "torch.t(torch.ones(2, 2), out=None)",
    "method": "torch.ones(2).add(1, out=None)",
})
