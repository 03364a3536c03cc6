"""torchnative: the Python side of the project (tools, CLI). torch._C itself is C (src/)."""
__version__ = "0.1.0"
