"""Bundled sample positions, for the README, the command line and tests.

>>> "endgame-2p" in sample_names()
True
>>> load_sample("endgame-2p").players
('orange', 'blue')
"""

from __future__ import annotations

from importlib import resources

from engine.position import Position, PositionError


def sample_names() -> list[str]:
    folder = resources.files(__name__)
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def sample_text(name: str) -> str:
    """The JSON text of a sample; PositionError naming the samples there are for an unknown name."""
    if name not in sample_names():
        raise PositionError(f"no sample named {name!r} (samples: {', '.join(sample_names())})")
    return (resources.files(__name__) / f"{name}.json").read_text(encoding="utf-8")


def load_sample(name: str) -> Position:
    return Position.loads(sample_text(name))
