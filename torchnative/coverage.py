"""Print operator coverage: implemented overloads (src/ops/*.def) out of upstream's aten overloads
(native_functions.yaml shipped in the assembled torchgen). usage: python -m torchnative.coverage [--json]"""
import glob
import json
import os
import sys


def implemented(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "src", "ops", "*.def"))):
        family = os.path.basename(path)[:-4]
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                out.append((family, line if "." in line else line + "."))
    return out


def upstream_overloads():
    import torchgen  # pure Python, part of the assembled upstream tree
    import yaml

    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
    keys = []
    for e in yaml.safe_load(open(path)):
        name, _, ov = e["func"].split("(", 1)[0].partition(".")
        keys.append(f"{name}.{ov}")
    return keys


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    impl = implemented(root)
    total = upstream_overloads()
    fams = {}
    for fam, _ in impl:
        fams[fam] = fams.get(fam, 0) + 1
    report = {"implemented": len(impl), "upstream_total": len(total), "by_family": fams}
    if "--json" in sys.argv:
        print(json.dumps(report, indent=1))
    else:
        print(f"implemented overloads: {len(impl)} / {len(total)} upstream aten overloads "
              f"({100 * len(impl) / len(total):.1f}%)")
        for fam, n in sorted(fams.items()):
            print(f"  {fam:12} {n}")


if __name__ == "__main__":
    main()
