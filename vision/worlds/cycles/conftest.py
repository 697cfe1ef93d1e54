"""Doctest collection of the Cycles world: the modules that import bpy are left out where it is missing."""

import importlib.util

# __main__ runs the command line when imported.
collect_ignore = ["__main__.py"]
if importlib.util.find_spec("bpy") is None:
    collect_ignore += ["scene.py", "materials.py"]
