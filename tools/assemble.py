"""Assemble upstream torch's pure-Python tree into a site-packages folder.

Source: an upstream torch 2.13.0 installation (a site-packages folder holding torch/ and its
.dist-info) or a wheel file. Every pure-Python file of torch/, torchgen/, functorch/ and torch's
.dist-info is kept unchanged; every native file is dropped (torch/lib, torch/bin, torch/include,
torch/test, any *.so/*.dll/*.dylib/*.a). Our own _C extension is installed beside it by the build;
this script adds the two native leftovers upstream's import needs: an empty
torch/lib/libtorch_global_deps.so (built from an empty C file) and the torch/bin/torch_shm_manager
marker.

usage: assemble.py SOURCE DEST_SITE_PACKAGES
       assemble.py --requires DEST_SITE_PACKAGES   (print torch's own Python dependencies, one
                                                    per line, for pip install -r)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

TOP = ("torch/", "torchgen/", "functorch/")
DROP_DIRS = ("torch/lib/", "torch/bin/", "torch/include/", "torch/test/", "torch/share/")
DROP_EXT = (".so", ".dll", ".dylib", ".a", ".lib", ".pyd")


def keep(rel):
    if rel.startswith("torch-") and ".dist-info/" in rel:
        return not rel.endswith("RECORD")  # RECORD lists files we drop; pip must not trust it
    if not rel.startswith(TOP) or rel.startswith(DROP_DIRS):
        return False
    base = rel.rsplit("/", 1)[-1]
    return not (base.endswith(DROP_EXT) or ".so." in base or "__pycache__" in rel)


def files_from_dir(src):
    for root, dirs, files in os.walk(src):
        for f in files:
            full = os.path.join(root, f)
            yield os.path.relpath(full, src).replace(os.sep, "/"), full


def requires(site):
    dist = [d for d in os.listdir(site) if d.startswith("torch-") and d.endswith(".dist-info")]
    out = []
    for line in open(os.path.join(site, dist[0], "METADATA")):
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            out.append(line.split(":", 1)[1].strip().replace(" ", ""))
    print("\n".join(out))


def main():
    if sys.argv[1] == "--requires":
        return requires(sys.argv[2])
    src, dest = sys.argv[1], sys.argv[2]
    os.makedirs(dest, exist_ok=True)
    n = 0
    if zipfile.is_zipfile(src):
        with zipfile.ZipFile(src) as z:
            for info in z.infolist():
                if not info.is_dir() and keep(info.filename):
                    z.extract(info, dest)
                    n += 1
    else:
        for rel, full in files_from_dir(src):
            if keep(rel):
                out = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(full, out)
                n += 1
    dist = [d for d in os.listdir(dest) if d.startswith("torch-") and d.endswith(".dist-info")]
    if len(dist) != 1 or "2.13.0" not in dist[0]:
        sys.exit(f"assemble: expected exactly one torch-2.13.0 .dist-info in the source, found {dist}")
    # The native leftovers upstream's import reads.
    os.makedirs(os.path.join(dest, "torch/lib"), exist_ok=True)
    os.makedirs(os.path.join(dest, "torch/bin"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "empty.c")
        open(c, "w").write("/* satisfies upstream's dlopen of libtorch_global_deps */\n")
        subprocess.check_call([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o",
                               os.path.join(dest, "torch/lib/libtorch_global_deps.so"), c])
    marker = os.path.join(dest, "torch/bin/torch_shm_manager")
    open(marker, "w").write("#!/bin/sh\necho 'torchnative: torch_shm_manager is not implemented' >&2\nexit 1\n")
    os.chmod(marker, 0o755)
    # Byte-compile, as pip does when it installs a wheel: without cached bytecode every
    # `import torch` recompiles ~940 modules (measured: 4.0 s instead of 1.6 s).
    import compileall
    for top in TOP:
        # quiet=2: upstream ships files only newer Pythons compile (py312_intrinsics.py)
        compileall.compile_dir(os.path.join(dest, top), quiet=2, workers=0)
    print(f"assemble: {n} upstream files into {dest}")


if __name__ == "__main__":
    main()
