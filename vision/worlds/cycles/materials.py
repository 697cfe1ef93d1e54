"""Cycles materials: printed card, gold and warrior tokens, wood, table tops, skin, ceramic.

Pictures are mapped by object coordinates (no UV unwrap): the object's local x, y in metres
are scaled onto the picture, and the picture's edge pixels, stretched, colour the sides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bpy


def _principled(name: str) -> tuple[Any, Any, Any]:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    return mat, mat.node_tree, bsdf


def _picture(tree: Any, path: Path, width_m: float, height_m: float) -> Any:
    """An image texture node reading ``path`` over a width x height rectangle centred on the origin."""
    nodes, links = tree.nodes, tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (1.0 / width_m, 1.0 / height_m, 1.0)
    mapping.inputs["Location"].default_value = (0.5, 0.5, 0.0)
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = bpy.data.images.load(str(path))
    tex.extension = "EXTEND"
    tex.interpolation = "Linear"
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
    return tex


def printed(name: str, path: Path, width_m: float, height_m: float, gloss: dict[str, float]) -> Any:
    """Printed, varnished card: the picture under a clear coat whose highlight can clip."""
    mat, tree, bsdf = _principled(name)
    tex = _picture(tree, path, width_m, height_m)
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = gloss.get("roughness", 0.4)
    bsdf.inputs["Coat Weight"].default_value = gloss.get("coat_weight", 0.3)
    bsdf.inputs["Coat Roughness"].default_value = gloss.get("coat_roughness", 0.2)
    return mat


def wood(name: str, colour: tuple[float, float, float], seed: float, scale: float = 1.0) -> Any:
    """Natural wood: bands of darker grain running along the object's x axis, warped by noise."""
    mat, tree, bsdf = _principled(name)
    nodes, links = tree.nodes, tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    # Squash x so the rings stretch along the length: grain lines run along the stick.
    mapping.inputs["Scale"].default_value = (8.0 * scale, 120.0 * scale, 120.0 * scale)
    mapping.inputs["Location"].default_value = (seed, seed * 0.37, seed * 0.71)
    wave = nodes.new("ShaderNodeTexWave")
    wave.wave_type = "RINGS"
    wave.rings_direction = "X"
    wave.inputs["Scale"].default_value = 1.0
    wave.inputs["Distortion"].default_value = 6.0
    wave.inputs["Detail"].default_value = 3.0
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (*colour, 1.0)
    ramp.color_ramp.elements[1].color = (colour[0] * 0.5, colour[1] * 0.45, colour[2] * 0.4, 1.0)
    ramp.color_ramp.elements[1].position = 0.85
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], wave.inputs["Vector"])
    links.new(wave.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.55
    return mat


def table(kind: str, colour: tuple[float, float, float], scale: float, offset: float) -> Any:
    """A table top: wood, cloth, stone, laminate or dark paint, each its own texture and gloss."""
    if kind == "wood":
        mat = wood("table", colour, offset, scale * 0.06)
        mat.node_tree.nodes.get("Principled BSDF").inputs["Roughness"].default_value = 0.35
        return mat
    mat, tree, bsdf = _principled("table")
    nodes, links = tree.nodes, tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = {"cloth": 900.0, "stone": 12.0, "laminate": 40.0, "dark": 60.0}[
        kind
    ] * scale
    noise.inputs["Detail"].default_value = 8.0 if kind == "stone" else 2.0
    ramp = nodes.new("ShaderNodeValToRGB")
    dark = {"cloth": 0.7, "stone": 0.75, "laminate": 0.93, "dark": 0.8}[kind]
    ramp.color_ramp.elements[0].color = (colour[0] * dark, colour[1] * dark, colour[2] * dark, 1.0)
    ramp.color_ramp.elements[1].color = (*colour, 1.0)
    links.new(coords.outputs["Object"], noise.inputs["Vector"])
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = {"cloth": 0.95, "stone": 0.25, "laminate": 0.3, "dark": 0.45}[
        kind
    ]
    if kind == "cloth":
        bsdf.inputs["Sheen Weight"].default_value = 0.5
    return mat


def plain(name: str, colour: tuple[float, float, float], roughness: float, coat: float = 0.0) -> Any:
    mat, _tree, bsdf = _principled(name)
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Coat Weight"].default_value = coat
    return mat
