"""Print the project's C sources (or, with 'py', its own Python package files) for meson."""
import os, sys
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
kind = sys.argv[1] if len(sys.argv) > 1 else "c"
top = "torchnative" if kind == "py" else "src/ops" if kind == "def" else "src"
ext = {"py": ".py", "def": ".def", "c": ".c"}[kind]
out = []
# TN_EXCLUDE: colon-separated path prefixes left out of a development build (work in progress).
skip = [e for e in os.environ.get("TN_EXCLUDE", "").split(":") if e]
for d, _, fs in os.walk(os.path.join(root, top)):
    for f in fs:
        if f.endswith(ext):
            rel = os.path.relpath(os.path.join(d, f), root)
            if not any(rel.startswith(e) for e in skip):
                out.append(rel)
print("\n".join(sorted(out)))
