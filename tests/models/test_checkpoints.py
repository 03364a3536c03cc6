"""torch.save / torch.load checkpoints cross between upstream and torchnative.

Each side (.venv-ref: upstream 2.13.0, .venv: torchnative) runs as a subprocess of its own
interpreter; pytest never imports torch. A state dict of tensors (f32, bf16, int64, bool, a
non-contiguous view, a pair sharing one storage, 0-dim, empty) is saved by each side (to a path
and to a BytesIO); every file is loaded by both sides with weights_only=True, weights_only=False
and mmap=True, and what was loaded (dtype, shape, stride, storage offset, raw storage bytes,
values, storage sharing) must agree bit for bit. A truncated and a corrupted file must raise the
same exception type on both sides."""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")
SUB = os.path.join(ROOT, ".venv", "bin", "python")
SIDES = {"ref": REF, "sub": SUB}

WORKER = r'''
import io, json, sys
import torch

def state():
    base = (torch.arange(24, dtype=torch.float32) * 0.37 - 2.5).reshape(4, 6)
    shared = torch.arange(10, dtype=torch.float32) * -1.25
    return {
        "f32": base,
        "bf16": base.to(torch.bfloat16),
        "i64": torch.arange(-5, 5, dtype=torch.int64) * 123456789012,
        "bool": torch.arange(7) % 3 == 0,
        "view": base[:, 1::2],            # non-contiguous, storage offset 1, shares base
        "shared_a": shared[2:6],
        "shared_b": shared[5:],
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
    }

def describe(d):
    out = {}
    for k, t in sorted(d.items()):
        out[k] = {
            "dtype": str(t.dtype), "shape": list(t.shape), "stride": list(t.stride()),
            "offset": t.storage_offset(),
            "storage": bytes(t.untyped_storage()).hex(),
            "values": repr(t.tolist()),
        }
    ptr = lambda k: d[k].untyped_storage().data_ptr()
    out["_sharing"] = [ptr("view") == ptr("f32"), ptr("shared_a") == ptr("shared_b"),
                       ptr("f32") != ptr("shared_a")]
    return out

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "save":
    path, bufpath = args
    torch.save(state(), path)
    b = io.BytesIO()
    torch.save(state(), b)
    open(bufpath, "wb").write(b.getvalue())
    print(json.dumps(describe(state())))
elif cmd == "load":
    res = {}
    for path in args:
        for mode, kw in (("wo", {"weights_only": True}), ("full", {"weights_only": False}),
                         ("mmap", {"mmap": True, "weights_only": True})):
            try:
                res[path + ":" + mode] = describe(torch.load(path, **kw))
            except Exception as e:
                res[path + ":" + mode] = {"error": type(e).__name__, "msg": str(e)[:300]}
    print(json.dumps(res))
'''


def run(side, *args):
    p = subprocess.run([SIDES[side], "-c", WORKER, *args], capture_output=True, text=True, timeout=300,
                       cwd=ROOT)
    assert p.returncode == 0, "%s side failed:\n%s" % (side, p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("ckpt")
    files, described = {}, {}
    for side in SIDES:
        files[side] = (str(d / ("%s_path.pt" % side)), str(d / ("%s_buffer.pt" % side)))
        described[side] = run(side, "save", *files[side])
    return d, files, described


def test_saved_state_identical(saved):
    _, _, described = saved
    assert described["sub"] == described["ref"]


@pytest.mark.parametrize("writer", ["ref", "sub"])
@pytest.mark.parametrize("reader", ["ref", "sub"])
def test_load_bit_identical(saved, writer, reader):
    _, files, described = saved
    loaded = run(reader, "load", *files[writer])
    expect = described["ref"]
    for key, got in loaded.items():
        assert "error" not in got, "%s loading %s (written by %s): %s: %s" % (
            reader, key, writer, got.get("error"), got.get("msg"))
        assert got == expect, "%s loading %s (written by %s) differs" % (reader, key, writer)


def test_archives_are_standard_zip(saved):
    import zipfile
    _, files, _ = saved
    for side, (path, buf) in files.items():
        for f, prefix in ((path, os.path.splitext(os.path.basename(path))[0]), (buf, "archive")):
            with zipfile.ZipFile(f) as z:
                assert z.testzip() is None, (side, f)   # CRCs agree
                names = z.namelist()
                assert all(n.startswith(prefix + "/") for n in names), (side, names)
                assert {prefix + "/" + n for n in ("data.pkl", "byteorder", "version",
                                                   ".data/serialization_id")} <= set(names)
                for info in z.infolist():
                    assert info.compress_type == zipfile.ZIP_STORED
                    if info.filename.startswith(prefix + "/data/"):
                        with open(f, "rb") as fh:   # storage bytes are 64-byte aligned in the file
                            fh.seek(info.header_offset + 26)
                            hdr = fh.read(4)
                        data_at = info.header_offset + 30 + hdr[0] + 256 * hdr[1] + hdr[2] + 256 * hdr[3]
                        assert data_at % 64 == 0, (side, info.filename, data_at)


def test_bad_files_raise_alike(saved):
    d, files, _ = saved
    with open(files["ref"][0], "rb") as fh:
        good = fh.read()
    first_cd = good.find(b"PK\x01\x02")
    second_local = good.find(b"PK\x03\x04", 4)
    bad = {
        "truncated_half": good[: len(good) // 2],
        "truncated_tail": good[:-10],
        "corrupt_central": good[:first_cd] + b"XX" + good[first_cd + 2:],
        "corrupt_local": good[:second_local] + b"PX" + good[second_local + 2:],
        "not_zip_tiny": b"PK\x03\x04",
    }
    paths = []
    for name, data in bad.items():
        p = str(d / (name + ".pt"))
        with open(p, "wb") as fh:
            fh.write(data)
        paths.append(p)
    ref = run("ref", "load", *paths)
    sub = run("sub", "load", *paths)
    for key in ref:
        assert "error" in ref[key], key
        assert sub[key].get("error") == ref[key]["error"], (key, ref[key], sub[key])
