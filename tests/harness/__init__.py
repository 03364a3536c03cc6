"""Test harness comparing torchnative's torch with upstream torch 2.13.0 (see runner.py).

Public API for test modules: `cases`, `case`, `Case`; for harness tests: `Runner`, `compare`,
`run_batch`. Importing this package never imports torch.
"""
from .case import Case, case, cases
from .comparator import compare, describe, report
from .runner import Runner, run_batch

__all__ = ["Case", "case", "cases", "compare", "describe", "report", "Runner", "run_batch"]
