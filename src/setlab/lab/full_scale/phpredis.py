"""What phpredis's ``$redis->multi()`` sends in each of its modes, as a stored run recorded it
(``reference/measure_phpredis.py``: PHP with phpredis against a private Redis, counted by
``INFO commandstats``). The lab cannot run PHP; the stored run is what the book shows."""

from __future__ import annotations

from dataclasses import dataclass

from setlab.lab import reference

REFERENCE = "phpredis-reference"


@dataclass(frozen=True)
class ModeRow:
    """One ``multi()`` mode: the commands the server counted for one SET and one INCR in it."""

    mode: str  #: "default", "Redis::MULTI" or "Redis::PIPELINE"
    multi: int
    exec: int
    set: int
    incr: int

    @property
    def transaction(self) -> bool:
        """Whether the server ran the commands as a MULTI/EXEC transaction."""
        return self.multi == 1 and self.exec == 1


@dataclass(frozen=True)
class PhpredisReference:
    run: reference.RunInfo
    phpredis: str  #: the extension's version
    modes: tuple[ModeRow, ...]

    @classmethod
    def load(cls) -> PhpredisReference:
        doc = reference.load(REFERENCE)
        rows = tuple(ModeRow(r["mode"], **r["calls"]) for r in doc.data["rows"])
        return cls(doc.run, doc.data["client"]["phpredis"], rows)

    def mode(self, name: str) -> ModeRow:
        for row in self.modes:
            if row.mode == name:
                return row
        raise KeyError(f"the reference run has no multi() mode {name}")
