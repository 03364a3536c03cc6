"""pytest wiring for the model tests: one modelcase.Session per pytest session (both sides run
once for all models) and a terminal summary of the measured tolerances. Never imports torch."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import modelcase  # noqa: E402

_SESSIONS = []


@pytest.fixture(scope="session")
def models_session():
    if not _SESSIONS:
        _SESSIONS.append(modelcase.Session())
    return _SESSIONS[0]


def pytest_terminal_summary(terminalreporter):
    for s in _SESSIONS:
        tr = terminalreporter
        tr.write_line("torchnative model tests: reference side %.1fs, subject side %.1fs "
                      "(one worker each, concurrent)" % (s.ref_s, s.sub_s))
        tr.write_line("%-34s %-9s %11s %11s %11s %8s" % ("logits", "dtype", "upstream err",
                                                        "tol (K*err)", "max|sub-ref|",
                                                        "worst/tol"))
        for row in s.measured:
            tr.write_line("%-34s %-9s %11.3e %11.3e %11.3e %8.3f" % row)
        if s.generated:
            same = sum(1 for g in s.generated if g[4])
            lens = sorted({g[3] for g in s.generated})
            tr.write_line("generate: %d/%d runs give identical tokens (new tokens per run: %s)"
                          % (same, len(s.generated), ", ".join(map(str, lens))))
