"""Calibration: how one copy of the game looks, and how a setup photo teaches it.

:mod:`calibration.profile` is the profile format (``docs/profile-format.md``) and the
reference kit's profile; :mod:`calibration.setup` learns a profile from a
setup photo; :mod:`calibration.commands`
is ``armadora calibrate``.
"""
