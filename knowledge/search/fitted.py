"""Numbers fitted on dev data rather than set by hand (issue 19): the fitting scripts under
`benchmarks/` write `fitted.json` beside this module, with the measurements behind each
choice, and the code reads the choice here."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FITTED_FILE = Path(__file__).with_name("fitted.json")


@cache
def _fitted() -> dict[str, Any]:
    if not FITTED_FILE.is_file():
        return {}
    return dict(json.loads(FITTED_FILE.read_text(encoding="utf-8")))


def fitted(name: str, default: float) -> float:
    """The fitted value of `name`, or `default` when none was fitted."""
    return float(_fitted().get(name, default))


def store_fitted(values: dict[str, Any]) -> None:
    """Write `values` into the fitted numbers, keeping what other fitting scripts stored."""
    merged = {**_fitted(), **values}
    FITTED_FILE.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    _fitted.cache_clear()
