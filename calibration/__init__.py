"""Calibration profiles: how one copy of the game looks, learnt from a setup photo.

Not built yet: see the calibration issue.
"""
