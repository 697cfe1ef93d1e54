"""Measuring the scanner: :mod:`~vision.bench.metrics` compares a reading with its truth,
:mod:`~vision.bench.accuracy` runs ``armadora bench scan`` over a folder of photos."""
