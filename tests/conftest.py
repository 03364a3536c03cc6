"""pytest wiring for the torchnative comparison harness (tests/harness).

Makes `harness` importable from any test module, provides the session-scoped `tn_runner`
fixture (one reference and one subject worker process for all cases of the session) and prints
a one-line harness summary at the end. This process never imports torch.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.runner import Runner  # noqa: E402

_RUNNER = []


@pytest.fixture(scope="session")
def tn_runner(request):
    r = Runner(request.session.items)
    _RUNNER.append(r)
    return r


def pytest_terminal_summary(terminalreporter):
    for r in _RUNNER:
        terminalreporter.write_line(r.summary())
