"""Print the project's C sources (or, with 'py', its own Python package files) for meson."""
import os, sys
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
want_py = len(sys.argv) > 1 and sys.argv[1] == "py"
top = "torchnative" if want_py else "src"
out = []
for d, _, fs in os.walk(os.path.join(root, top)):
    for f in fs:
        if f.endswith(".py" if want_py else ".c"):
            out.append(os.path.relpath(os.path.join(d, f), root))
print("\n".join(sorted(out)))
