"""Fitting and training, apart from the product's path: what the readers load from ``vision/data/``
is written here (``armadora bench fit``, ``python -m vision.train.numerals --build``)."""
