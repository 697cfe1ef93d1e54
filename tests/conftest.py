"""Shared test set-up. Its folder goes on sys.path, so tests in subfolders import the helpers here
(positions.py, reference.py) as plain modules."""
