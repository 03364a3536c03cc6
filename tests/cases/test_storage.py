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

# The legacy (non-zip) serialization format: pickle of tensors and storages (StorageBase.__reduce__
# saves that way), torch.save(..., _use_new_zipfile_serialization=False) to a real file (read and
# written through its descriptor) and to a BytesIO, and torch.load of both; StorageBase's
# _write_file / _set_from_file / _new_with_file (python/storage_file.c). A record whose size does
# not match compares the type only: upstream's message prints its format string ("expected %ld got
# %ld24"); ours names the two sizes.
PK = "import pickle, io, os, tempfile\ntorch.manual_seed(0)\nx = torch.randn(3, 4)\n"
cases("legacy_serialization", {
    "pickle_tensor": PK + "pickle.loads(pickle.dumps(x))",
    "pickle_view": PK + "r = pickle.loads(pickle.dumps(x[:, 1:3]))\n(r, r.stride(), r.storage_offset())",
    "pickle_dtypes": PK + "[pickle.loads(pickle.dumps(t)) for t in (torch.arange(6, dtype=torch.int16).view(2, 3).t(), torch.tensor([True, False]), torch.randn(2, dtype=torch.complex64), torch.empty(0), x.bfloat16(), x.double())]",
    "pickle_storage": PK + "s = pickle.loads(pickle.dumps(x.untyped_storage()))\n(s.nbytes(), [s[i] for i in range(8)])",
    "pickle_module": PK + "m = pickle.loads(pickle.dumps(torch.nn.Linear(3, 2)))\n(m.weight, m.bias)",
    "save_real_file_shared": PK + "p = os.path.join(tempfile.mkdtemp(), 'a.pt')\ny = x.view(-1)[2:7]\ntorch.save({'x': x, 'y': y}, p, _use_new_zipfile_serialization=False)\nz = torch.load(p)\nz['y'][0] = 100.0\n(z['x'], z['y'])",
    "save_bytesio": PK + "b = io.BytesIO()\ntorch.save([x, x.double(), x.int()], b, _use_new_zipfile_serialization=False)\nb.seek(0)\ntorch.load(b)",
    "write_file_bytes": PK + "b = io.BytesIO()\ntorch.arange(3, dtype=torch.int32).untyped_storage()._write_file(b, False, True, 4)\nb.getvalue()",
    "write_file_no_size": PK + "b = io.BytesIO()\ntorch.arange(3, dtype=torch.int16).untyped_storage()._write_file(b, False, False, 2)\nb.getvalue()",
    "set_from_file": "import io\ns = torch.UntypedStorage(4)\nr = s._set_from_file(io.BytesIO(b'\\x04' + b'\\0' * 7 + b'abcd'), None, False, 1)\n(r is s, [s[i] for i in range(4)])",
    "set_from_file_offset_bytesio": "import io\ntorch.UntypedStorage(4)._set_from_file(io.BytesIO(b'\\x04' + b'\\0' * 7 + b'abcd'), 3, False, 1)",
    "set_from_file_wrong_size": "import io\ntry:\n    torch.UntypedStorage(4)._set_from_file(io.BytesIO(b'\\x02' + b'\\0' * 7 + b'ab'), None, False, 1)\n    r = 'ok'\nexcept Exception as e:\n    r = type(e).__name__\nr",
    "set_from_file_truncated": "import io\ntorch.UntypedStorage(4)._set_from_file(io.BytesIO(b'\\x04' + b'\\0' * 7 + b'ab'), None, False, 1)",
    "new_with_file": "import os, tempfile\np = os.path.join(tempfile.mkdtemp(), 'r.bin')\nopen(p, 'wb').write(b'\\x03' + b'\\0' * 7 + b'\\x01\\0\\x02\\0\\x03\\0')\nf = open(p, 'rb')\ns = torch.UntypedStorage._new_with_file(f, 2)\n(s.nbytes(), [s[i] for i in range(6)])",
})
