"""What every command receives from the top-level callback."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from bot.settings import Settings


@dataclass
class CliState:
    settings: Settings
    debug: bool = False


def state(ctx: typer.Context) -> CliState:
    obj = ctx.find_root().obj
    assert isinstance(obj, CliState)
    return obj
