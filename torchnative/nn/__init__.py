"""torchnative.nn: training-side jobs built over torch (federated learning)."""
