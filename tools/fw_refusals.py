"""Which implemented overloads still refuse forward AD by name (build time view).

Reads the generated build/meson/tn_ops_gen.h (tn_op_defs, tn_op_fw_defs) and
src/autograd/forward_formulas.c: an implemented overload refuses when its forward formula could
not be parsed (kind 3), or its program calls a function that is neither a helper call_fn handles
nor an implemented aten op. Usage: .venv/bin/python tools/fw_refusals.py [build/meson]
"""
import collections
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "meson")
gen = open(os.path.join(build, "tn_ops_gen.h")).read().splitlines()
src = open(os.path.join(root, "src", "autograd", "forward_formulas.c")).read()
helpers = set(re.findall(r'!strcmp\(name, "([A-Za-z_0-9]+)"\)', src))

start = gen.index("static const tn_op_def tn_op_defs[TN_OP_COUNT] = {")
rows = []
for line in gen[start + 1:]:
    if line.startswith("};"):
        break
    m = re.match(r'\s*\{"([^"]*)", "([^"]*)", .*, (tn_op_\w+|NULL)\},$', line)
    rows.append((m.group(1), m.group(2), m.group(3) != "NULL") if m else (None, None, False))
implemented = {n for n, _, i in rows if i}

progs = {}
for line in gen:
    m = re.match(r"static const tn_fw_deriv tn_fw_d(\d+)\[\] = \{(.*)\};$", line)
    if m:
        progs[int(m.group(1))] = m.group(2)
start = gen.index("static const tn_op_fw_def tn_op_fw_defs[TN_OP_COUNT] = {")
refuse = collections.defaultdict(list)
for i, line in enumerate(gen[start + 1:start + 1 + len(rows)]):
    name, ovl, impl = rows[i]
    if not impl:
        continue
    kind = int(re.match(r"\s*\{(\d+),", line).group(1))
    key = f"{name}.{ovl}" if ovl else name
    if kind == 3:
        refuse["(no program: the formula was not parsed)"].append(key)
    elif kind == 1:
        for fn in sorted(set(re.findall(r"\((?:c|m) (\w+)", progs[i]))):
            if fn not in helpers and fn.rstrip("_") not in implemented and fn not in implemented:
                refuse[fn].append(key)
for fn, keys in sorted(refuse.items(), key=lambda kv: -len(kv[1])):
    print(f"{fn}: {len(keys)}: {' '.join(keys)}")
