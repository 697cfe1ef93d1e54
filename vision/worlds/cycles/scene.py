"""The Blender scene of a plan, path-traced with Cycles into a linear HDR picture.

Each photo starts from Blender's empty factory scene, so nothing carries over from the
previous one. The render is written as OpenEXR (scene-linear, unclipped) and read back as
floats: exposure, white balance and clipping belong to the phone (phone.py), not to Blender.
"""

from __future__ import annotations

import math
import zlib
from pathlib import Path
from typing import Any

import bpy
import cv2
import numpy as np
from mathutils import Matrix
from numpy.typing import NDArray

from vision.worlds.cycles import art, materials
from vision.worlds.cycles.camera import look_rotation
from vision.worlds.cycles.colour import kelvin_rgb, rgb255_linear
from vision.worlds.cycles.plan import MM, Piece, Plan


def _prism(name: str, outline: NDArray[Any], z0: float, z1: float, smooth_sides: bool) -> Any:
    """A flat solid: the (N, 2) outline (counter-clockwise) extruded from z0 to z1."""
    n = len(outline)
    verts = [(float(x), float(y), z0) for x, y in outline] + [(float(x), float(y), z1) for x, y in outline]
    faces = [tuple(range(n - 1, -1, -1)), tuple(range(n, 2 * n))]
    faces += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    if smooth_sides:
        for poly in mesh.polygons[2:]:
            poly.use_smooth = True
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _bevel(obj: Any, width: float) -> None:
    mod = obj.modifiers.new("bevel", "BEVEL")
    mod.width = width
    mod.segments = 2
    mod.limit_method = "ANGLE"


def _circle(r: float, n: int = 64) -> NDArray[Any]:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def _rounded_square(half: float, corner: float, per_corner: int = 6) -> NDArray[Any]:
    pts = []
    for k, (cx, cy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        centre = np.array([cx * (half - corner), cy * (half - corner)])
        for a in np.linspace(k * math.pi / 2, (k + 1) * math.pi / 2, per_corner):
            pts.append(centre + corner * np.array([math.cos(a), math.sin(a)]))
    return np.array(pts)


def _place(obj: Any, x: float, y: float, z: float, angle_deg: float) -> None:
    obj.location = (x, y, z)
    obj.rotation_euler = (0.0, 0.0, math.radians(angle_deg))


def _save(picture: NDArray[Any], path: Path) -> Path:
    cv2.imwrite(str(path), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR))
    return path


def build(plan: Plan, workdir: Path) -> None:
    """Make the plan's scene in Blender's current (emptied) file."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    kit = plan.kit
    rng = np.random.default_rng(plan.seed + 7919)

    # The table.
    table = _prism("table", np.array([[-3, -3], [3, -3], [3, 3], [-3, 3]], float), -0.03, 0.0, False)
    t = plan.table
    table.data.materials.append(materials.table(t["kind"], tuple(t["colour"]), t["scale"], t["offset"]))

    # The board.
    bw, bh = (v * MM for v in kit.board_mm)
    if plan.kind != "empty":
        face = _save(
            art.board_face(kit, zlib.crc32((kit.name or "reference").encode())), workdir / "face.png"
        )
        board = _prism(
            "board",
            np.array([[-bw / 2, -bh / 2], [bw / 2, -bh / 2], [bw / 2, bh / 2], [-bw / 2, bh / 2]]),
            0.0,
            plan.board_top,
            False,
        )
        _bevel(board, 0.0003)
        board.data.materials.append(materials.printed("card", face, bw, bh, plan.card))

    # The pieces.
    textures: dict[str, Any] = {}
    for i, piece in enumerate(plan.pieces):
        _piece(plan, piece, i, workdir, textures, rng)

    if plan.hand is not None:
        _hand(plan.hand, plan.board_top)
    if plan.cup is not None:
        _cup(plan.cup)

    _lights(plan)
    _camera(plan)
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background")
    bg.inputs["Color"].default_value = (*kelvin_rgb(plan.world_kelvin), 1.0)
    bg.inputs["Strength"].default_value = plan.world_strength
    scene.world = world


def _piece(plan: Plan, piece: Piece, i: int, workdir: Path, textures: dict[str, Any], rng: Any) -> None:
    kit = plan.kit
    thick = kit.token_mm * MM
    if piece.what == "gold":
        d = kit.gold_mm * MM
        key = f"gold{piece.value}"
        if key not in textures:
            path = _save(art.gold_face(piece.value, kit.gold_mm, rng), workdir / f"{key}.png")
            gloss = {"roughness": 0.3, "coat_weight": 0.4, "coat_roughness": 0.15}
            textures[key] = materials.printed(key, path, d, d, gloss)
        obj = _prism(f"gold{i}", _circle(d / 2), 0.0, thick, True)
        _bevel(obj, 0.0003)
        obj.data.materials.append(textures[key])
        mat = textures[key]
    elif piece.what == "warrior":
        s = kit.warrior_mm * MM
        key = f"warrior-{piece.colour}"
        if key not in textures:
            colour = kit.colour(piece.colour)
            picture = art.warrior_back(colour, kit.emblem(piece.colour), kit.warrior_mm, rng)
            path = _save(picture, workdir / f"{key}.png")
            gloss = {"roughness": 0.35, "coat_weight": 0.3, "coat_roughness": 0.2}
            textures[key] = materials.printed(key, path, s, s, gloss)
        obj = _prism(f"warrior{i}", _rounded_square(s / 2, 3 * MM), 0.0, thick, True)
        _bevel(obj, 0.0003)
        obj.data.materials.append(textures[key])
        mat = textures[key]
    else:
        length, width, height = piece.dims
        base = rgb255_linear((0xB5, 0x83, 0x5A))
        wood_colour = (base[0] * piece.tint[0], base[1] * piece.tint[1], base[2] * piece.tint[2])
        hl, hw = length / 2, width / 2
        obj = _prism(f"stick{i}", np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]]), 0.0, height, False)
        _bevel(obj, 0.0006)
        mat = materials.wood(f"wood{i}", wood_colour, float(rng.uniform(0, 50)))
        obj.data.materials.append(mat)
    del mat
    _place(obj, piece.x, piece.y, piece.z, piece.angle)


def _hand(spot: dict[str, float], top: float) -> None:
    """A hand reaching in at the board's edge: a palm and five rounded fingers, skin-coloured."""
    tones = np.array([[0.62, 0.42, 0.32], [0.45, 0.28, 0.18], [0.25, 0.14, 0.09]])
    tone = spot["tone"] * (len(tones) - 1)
    lo = int(tone)
    hi = min(lo + 1, len(tones) - 1)
    skin = tuple(float(v) for v in tones[lo] * (1 - (tone - lo)) + tones[hi] * (tone - lo))
    mat = materials.plain("skin", skin, 0.45)  # type: ignore[arg-type]
    s = spot["scale"]
    parts = [((0.0, 0.0, 0.022), (0.045, 0.05, 0.016))]
    for k, (fx, length) in enumerate(((-0.03, 0.07), (-0.011, 0.085), (0.009, 0.08), (0.027, 0.065))):
        parts.append(((fx, 0.05 + length / 2 - 0.01, 0.014 - 0.002 * k), (0.009, length / 2, 0.008)))
    parts.append(((0.05, 0.02, 0.015), (0.01, 0.035, 0.009)))
    parent = bpy.data.objects.new("hand", None)
    bpy.context.scene.collection.objects.link(parent)
    for n, (loc, scale) in enumerate(parts):
        bpy.ops.mesh.primitive_uv_sphere_add(segments=24, ring_count=12, location=loc)
        obj = bpy.context.active_object
        obj.name = f"hand{n}"
        obj.scale = scale
        obj.data.materials.append(mat)
        for poly in obj.data.polygons:
            poly.use_smooth = True
        obj.parent = parent
    parent.location = (spot["x"], spot["y"], top)
    parent.rotation_euler = (0.0, 0.0, math.radians(spot["heading"] - 90.0))
    parent.scale = (s, s, s)


def _cup(spot: dict[str, float]) -> None:
    """A mug beside the board: glossy ceramic, a handle, coffee inside."""
    colour = tuple(float(v) for v in np.array([0.8, 0.78, 0.72]) * (0.3 + 0.7 * spot["tone"]))
    ceramic = materials.plain("ceramic", colour, 0.15, coat=0.5)  # type: ignore[arg-type]
    r = 0.04 * spot["scale"]
    body = _prism("cup", _circle(r, 48), 0.0, 0.09, True)
    body.data.materials.append(ceramic)
    coffee = _prism("coffee", _circle(r * 0.88, 48), 0.0, 0.0905, True)
    coffee.data.materials.append(materials.plain("coffee", (0.05, 0.025, 0.01), 0.05))
    bpy.ops.mesh.primitive_torus_add(major_radius=0.025, minor_radius=0.006, location=(r + 0.01, 0, 0.045))
    handle = bpy.context.active_object
    handle.rotation_euler = (math.pi / 2, 0, 0)
    handle.data.materials.append(ceramic)
    for obj in (body, coffee):
        obj.location = (spot["x"], spot["y"], 0.0)
    handle.location = (spot["x"] + r + 0.012, spot["y"], 0.045)


def _lights(plan: Plan) -> None:
    for n, light in enumerate(plan.lights):
        if light.kind == "pinpoint":
            data = bpy.data.lights.new(f"light{n}", "POINT")
            data.shadow_soft_size = light.size[0]
        else:
            data = bpy.data.lights.new(f"light{n}", "AREA")
            data.shape = "RECTANGLE"
            data.size, data.size_y = light.size
        data.energy = light.power
        data.color = kelvin_rgb(light.kelvin)
        obj = bpy.data.objects.new(f"light{n}", data)
        bpy.context.scene.collection.objects.link(obj)
        pos = np.array(light.position)
        rot = look_rotation(np.array(light.target) - pos, np.array([0.0, 1.0, 0.0]))
        obj.matrix_world = _matrix(rot, pos)
        obj.visible_camera = False  # seen in the card's gloss, not floating in the frame


def _matrix(rot: NDArray[Any], pos: NDArray[Any]) -> Matrix:
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = pos
    return Matrix(m.tolist())


def _camera(plan: Plan) -> None:
    cam = plan.camera
    data = bpy.data.cameras.new("phone")
    data.lens = cam.lens_mm
    data.sensor_width = cam.sensor_mm
    data.sensor_fit = "HORIZONTAL" if cam.width >= cam.height else "VERTICAL"
    if data.sensor_fit == "VERTICAL":
        data.sensor_height = cam.sensor_mm
    data.shift_x, data.shift_y = cam.shift_x, cam.shift_y
    data.clip_start = 0.01
    data.dof.use_dof = True
    data.dof.focus_distance = plan.focus_distance
    data.dof.aperture_fstop = plan.fstop
    obj = bpy.data.objects.new("phone", data)
    bpy.context.scene.collection.objects.link(obj)
    obj.matrix_world = _matrix(np.array(cam.rotation), np.array(cam.position))
    bpy.context.scene.camera = obj


def render(plan: Plan, workdir: Path, *, samples: int, threads: int) -> NDArray[Any]:
    """Build and path-trace the plan; the linear RGB picture (H, W, 3) float32, row 0 at the top."""
    build(plan, workdir)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = samples
    cycles.use_adaptive_sampling = True
    cycles.use_denoising = True
    cycles.denoiser = "OPENIMAGEDENOISE"
    # OIDN on one thread is a large part of the frame: the balanced network, and guide passes
    # (albedo, normal) taken as rendered rather than denoised themselves first.
    cycles.denoising_quality = "BALANCED"
    cycles.denoising_prefilter = "FAST"
    cycles.seed = plan.seed % (2**31)
    # Few bounces: a flat board on a table needs little more, and the frame time is the budget.
    cycles.max_bounces = 3
    cycles.diffuse_bounces = 1
    cycles.glossy_bounces = 1
    cycles.transmission_bounces = 2
    cycles.transparent_max_bounces = 2
    cycles.caustics_reflective = False
    cycles.caustics_refractive = False
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
    scene.render.resolution_x = plan.width
    scene.render.resolution_y = plan.height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    scene.view_settings.view_transform = "Standard"
    out = workdir / "render.exr"
    scene.render.filepath = str(out)
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(str(out))
    pixels = np.empty(plan.width * plan.height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rgb = pixels.reshape(plan.height, plan.width, 4)[::-1, :, :3]
    return np.ascontiguousarray(rgb)
