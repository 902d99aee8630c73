"""Measuring and fitting: query sets, conversation sets and the answerability model's calibration. Only the
command line imports this package; the service never does."""
