"""A second synthetic world: phone photos of the kit path-traced with Blender's Cycles.

Written from the kit's specification alone (board-spec.md, position-format.md and the
reference board art), so the scanner can be measured on photos that no fit has seen.
Only this package imports ``bpy`` (the optional ``render`` extra); the product never does.
``python -m vision.worlds.cycles render OUT_DIR --set reference|copies ...`` renders a set.
"""
