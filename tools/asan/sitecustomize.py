"""Loaded by `make test-asan`: makes `import torch._C` load the sanitizer build of our extension
(TN_ASAN_C points at it) instead of the one installed in .venv. Nothing else changes."""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_PATH = os.environ.get("TN_ASAN_C")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "torch._C" or not _PATH:
            return None
        loader = importlib.machinery.ExtensionFileLoader(name, _PATH)
        return importlib.util.spec_from_file_location(name, _PATH, loader=loader)


sys.meta_path.insert(0, _Finder())
