"""torchnative.adapt: test-time adaptation on device, as a weight delta over frozen base weights.

    from torchnative import adapt
    model = adapt.wrap(model, method=adapt.Tent())   # or EATA(), SAR(), TTT(aux_head, features=...)
    model.online()                                   # each forward adapts, then predicts
    logits = model(batch)

Pure Python over torch: the same code runs on torchnative and on upstream torch. docs/adapt.md
has the API, the methods, the delta lifetime policy and the measured table.
"""
from .core import Adapted, wrap, DELTA_FORMAT
from .methods import Method, Tent, EATA, SAR, TTT, softmax_entropy, norm_parameters, rotate_batch

__all__ = ["wrap", "Adapted", "Method", "Tent", "EATA", "SAR", "TTT", "softmax_entropy",
           "norm_parameters", "rotate_batch", "DELTA_FORMAT"]
