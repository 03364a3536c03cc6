"""Storage: owned, borrowed from a Python buffer, memory-mapped from a file (compared with upstream)."""
from harness import cases

MK = "import os, tempfile\np = os.path.join(tempfile.mkdtemp(), 'f.bin')\nopen(p, 'wb').write(bytes(range(16)))\n"

cases("from_file", {
    "private": MK + "s = torch.UntypedStorage.from_file(p, False, 16)\n(s.nbytes(), [s[i] for i in range(16)])",
    "private_view": MK + "s = torch.UntypedStorage.from_file(p, False, 16)\nt = torch.empty(0, dtype=torch.uint8)\nt.set_(s, 0, (16,), (1,)) if hasattr(t, 'set_') else None\nlist(torch.frombuffer(bytearray(open(p, 'rb').read()), dtype=torch.int32))",
    "private_no_write_back": MK + "s = torch.UntypedStorage.from_file(p, False, 16)\ns.fill_(7)\n(s[0], open(p, 'rb').read()[0])",
    "shared_grows": MK + "s = torch.UntypedStorage.from_file(p, True, 32)\n(s.nbytes(), os.path.getsize(p))",
    "shared_writes_back": MK + "s = torch.UntypedStorage.from_file(p, True, 16)\ns.fill_(9)\ndel s\nopen(p, 'rb').read()[:4]",
    "too_small": MK + "torch.UntypedStorage.from_file(p, False, 100)",
    "missing": "torch.UntypedStorage.from_file('/nonexistent/file.bin', False, 8)",
    "bad_type": "torch.UntypedStorage.from_file(3.5, False, 8)",
})

cases("storage", [
    "s = torch.UntypedStorage(8)\ns.fill_(3)\n[s[i] for i in range(8)]",
    "torch.UntypedStorage(4).nbytes()",
    "torch.UntypedStorage(-1)",
    "torch.ones(3).untyped_storage().nbytes()",
    "s = torch.ones(2).untyped_storage()\ns[8]",
    "x = torch.arange(6.)\ny = x[2:]\ny.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
])

cases("frombuffer", [
    "torch.frombuffer(bytearray(b'abcd'), dtype=torch.uint8)",
    "torch.frombuffer(bytearray(range(16)), dtype=torch.int32)",
    "torch.frombuffer(bytearray(range(16)), dtype=torch.float32, count=2, offset=4)",
    "b = bytearray(8)\nt = torch.frombuffer(b, dtype=torch.uint8)\nt[1] = 5\nb[1]",
    "torch.frombuffer(bytearray(3), dtype=torch.int32)",
    "torch.frombuffer(b'', dtype=torch.uint8)",
])

cases("storage_slice", [
    "s = torch.UntypedStorage(8)\ns.fill_(1)\nv = s[2:6]\nv.fill_(5)\n(v.nbytes(), [s[i] for i in range(8)])",
    "s = torch.UntypedStorage(8)\ns[-3:].nbytes()",
    "s = torch.UntypedStorage(8)\ns[1:5:2]",
    "s = torch.UntypedStorage(8)\ns[6:2].nbytes()",
    "s = torch.UntypedStorage(4)\ns['a']",
])

# torch.asarray over an UntypedStorage (safetensors' get_tensor path): a 1-d alias of all its bytes.
SB = "s = torch.UntypedStorage(16)\ns.fill_(1)\n"
cases("asarray_storage", [
    SB + "a = torch.asarray(s)\n(a, a.data_ptr() == s.data_ptr())",
    SB + "a = torch.asarray(s, dtype=torch.uint8)\n(a, a.data_ptr() == s.data_ptr())",
    SB + "a = torch.asarray(s, dtype=torch.float32)\n(a, a.data_ptr() == s.data_ptr())",
    SB + "a = torch.asarray(s, dtype=torch.float64, copy=True)\n(a, a.data_ptr() == s.data_ptr())",
    SB + "a = torch.asarray(s[2:6], dtype=torch.uint8)\n(a, a.data_ptr() - s.data_ptr())",
    SB + "torch.asarray(s, dtype=torch.uint8, copy=False)",
    "(torch.asarray(torch.UntypedStorage(7), dtype=torch.float32).shape, torch.asarray(torch.UntypedStorage(7)).shape)",
    "x = torch.arange(4.)\na = torch.asarray(x.untyped_storage(), dtype=torch.float32)\na[0] = 7\nx",
    "x = torch.arange(6, dtype=torch.int16)\ntorch.asarray(x.untyped_storage()[2:10], dtype=torch.uint8).view(torch.int16)",
])

# The instance __dict__ of tensors and storages (upstream's TensorBase has one): copy.deepcopy of a
# plain tensor reads it (Tensor._clear_non_serializable_cached_data), so deepcopy of any module with
# buffers (BatchNorm's running statistics) depended on it.
cases("instance_dict", [
    "import copy\nt = torch.arange(3.)\nc = copy.deepcopy(t)\n(c, c.data_ptr() != t.data_ptr())",
    "t = torch.ones(2)\nt.tag = 'x'\n(t.__dict__, vars(t))",
    "import copy\nt = torch.ones(2)\nt.tag = [1]\nc = copy.deepcopy(t)\n(c.tag, c.tag is t.tag)",
    "import copy\nm = torch.nn.BatchNorm2d(3)\nm(torch.arange(24.).reshape(2, 3, 2, 2))\nc = copy.deepcopy(m)\n(c.running_mean, c.running_var, c.num_batches_tracked, c.weight)",
    "torch.ones(2).untyped_storage().__dict__",
    "t = torch.ones(2)\nt.__dict__ = 3",
])
