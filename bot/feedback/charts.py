"""The report's charts as PNG files. Figures are drawn on matplotlib's Agg canvas directly,
never through pyplot: no global figure state, no display needed, safe off the main thread."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from matplotlib import dates
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from bot.feedback.summary import Share

GOOD = "#2e7d32"
BAD = "#c62828"
NEUTRAL = "#546e7a"


def ratings_over_time(days: Sequence[tuple[date, int, int]], path: Path) -> Path:
    fig, ax = _figure(width=8, height=3.2)
    when = [float(dates.date2num(d)) for d, _, _ in days]
    up = [u for _, u, _ in days]
    down = [d for _, _, d in days]
    ax.bar(when, up, color=GOOD, label="positive")
    ax.bar(when, down, bottom=up, color=BAD, label="negative")
    ax.set_ylabel("ratings")
    ax.set_title("Ratings per day")
    ax.legend(loc="upper left", frameon=False)
    ax.xaxis_date()
    ax.xaxis.set_major_formatter(dates.DateFormatter("%d %b"))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.autofmt_xdate()
    return _save(fig, path)


def share_positive(groups: Sequence[Share], title: str, path: Path) -> Path:
    """Share of positive ratings per group, each bar labelled with how many ratings it has
    (a 100% from two ratings should not look like a 100% from two hundred)."""
    fig, ax = _figure(width=7, height=0.6 * max(len(groups), 2) + 1.2)
    labels = [g.label for g in groups]
    values = [100 * g.positive for g in groups]
    colors = [NEUTRAL if g.n == 0 else GOOD if g.positive >= 0.5 else BAD for g in groups]
    ax.barh(labels, values, color=colors)
    for i, g in enumerate(groups):
        text = f"{g.positive:.0%} of {g.n}" if g.n else "no ratings"
        ax.text(min(values[i], 80) + 1, i, text, va="center")
    ax.set_xlim(0, 100)
    ax.invert_yaxis()
    ax.set_xlabel("% positive")
    ax.set_title(title)
    return _save(fig, path)


def counts(labels: Sequence[str], values: Sequence[int], title: str, path: Path) -> Path:
    fig, ax = _figure(width=9, height=0.55 * max(len(labels), 2) + 1.2)
    wrapped = [textwrap.shorten(label, 70, placeholder="…") for label in labels]
    ax.barh(wrapped, values, color=BAD)
    ax.invert_yaxis()
    ax.set_xlabel("down-voted answers" if "source" in title.lower() else "down-votes")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title)
    return _save(fig, path)


def _figure(*, width: float, height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, format="png")
    return path
