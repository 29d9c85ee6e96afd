"""`knowbot feedback report`: a static HTML page of charts that answers the questions people
ask about the bot's ratings — is it getting better, is High confidence really better than
Low, which intents and prompt versions disappoint, which questions and sources to fix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from bot.feedback import charts
from bot.feedback.export import failed_checks
from bot.feedback.summary import (
    CONFIDENCE_ORDER,
    DownVoted,
    Share,
    by_day,
    confidence_of,
    down_voted_sources,
    intent_of,
    most_down_voted,
    prompt_of,
    shares,
    totals,
)
from bot.store.rated import RatedAnswer

INDEX = "index.html"
NO_FEEDBACK = (
    "No feedback yet: nobody has rated an answer. Ratings appear here once staff react to "
    "the bot's answers."
)


@dataclass(frozen=True)
class Section:
    title: str
    takeaway: str
    image: str | None
    extra: str = ""


def write_report(items: Sequence[RatedAnswer], out_dir: Path) -> Path:
    """Write index.html and its PNGs into `out_dir`; return the page's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.png"):  # charts from an earlier run would mislead
        stale.unlink()
    page = out_dir / INDEX
    if not items:
        page.write_text(_page("<p class='empty'>" + escape(NO_FEEDBACK) + "</p>"), "utf-8")
        return page
    body = _summary(items) + "".join(_section(s) for s in _sections(items, out_dir))
    page.write_text(_page(body), encoding="utf-8")
    return page


def _sections(items: Sequence[RatedAnswer], out: Path) -> list[Section]:
    days = by_day(items)
    confidence = shares(items, confidence_of, CONFIDENCE_ORDER)
    intents = shares(items, intent_of)
    versions = sorted(shares(items, prompt_of), key=lambda s: s.label)
    worst = most_down_voted(items)
    sources = down_voted_sources(items)
    sections = [
        Section(
            "Ratings over time",
            f"{sum(u + d for _, u, d in days)} ratings over {len(days)} day(s).",
            charts.ratings_over_time(days, out / "ratings_over_time.png").name,
        ),
        Section(
            "Is High confidence really better than Low?",
            _compare(confidence),
            charts.share_positive(
                confidence, "Share positive by confidence", out / "by_confidence.png"
            ).name,
        ),
        Section("Checks that failed on rated answers", _failed_checks(items), None),
        Section(
            "By intent",
            _extremes(intents),
            charts.share_positive(intents, "Share positive by intent", out / "by_intent.png").name,
        ),
        Section(
            "By prompt version",
            _extremes(versions),
            charts.share_positive(
                versions, "Share positive by prompt version", out / "by_prompt.png"
            ).name,
        ),
    ]
    if worst:
        image = charts.counts(
            [w.question for w in worst],
            [w.down for w in worst],
            "Most down-voted questions",
            out / "down_voted_questions.png",
        )
        sections.append(
            Section(
                "Most down-voted questions",
                f"{len(worst)} question(s) drew down-votes; the worst first.",
                image.name,
                _questions(worst),
            )
        )
        image = charts.counts(
            [s for s, _ in sources],
            [n for _, n in sources],
            "Sources cited in down-voted answers",
            out / "down_voted_sources.png",
        )
        sections.append(
            Section(
                "Sources most often cited in down-voted answers",
                "Outdated or unclear passages here are the first to check.",
                image.name,
            )
        )
    else:
        sections.append(Section("Most down-voted questions", "No answer was down-voted.", None))
    return sections


def _summary(items: Sequence[RatedAnswer]) -> str:
    total = totals(items)
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<p class='summary'>{total.n} ratings on {len(items)} answers: "
        f"<b>{total.positive:.0%} positive</b> ({total.up} up, {total.down} down). "
        f"Generated {generated}.</p>"
        f"<p class='summary'>{escape(calibration(items))}</p>"
    )


def calibration(items: Sequence[RatedAnswer]) -> str:
    """Share positive per confidence level: what High, Medium and Low turned out to mean."""
    groups = shares(items, confidence_of, CONFIDENCE_ORDER)
    line = " · ".join(f"{g.label} {g.positive:.0%} of {g.n}" for g in groups if g.n)
    return f"Calibration (share rated positive per level): {line or 'no ratings yet'}."


def _failed_checks(items: Sequence[RatedAnswer]) -> str:
    """Which checks failed on down-voted answers, against up-voted ones: a check that
    fails as often on answers staff liked is not telling right from wrong."""
    down: Counter[str] = Counter()
    up: Counter[str] = Counter()
    for item in items:
        failed = failed_checks(item.answer.get("scores") or {})
        (down if item.verdict == "negative" else up).update(failed)
    names = sorted(set(down) | set(up), key=lambda c: (-down[c], c))
    if not names:
        return "No rated answer failed a check."
    parts = [f"{c.replace('_', ' ')}: {down[c]} down-voted, {up[c]} up-voted" for c in names]
    return "; ".join(parts) + "."


def _compare(groups: Sequence[Share]) -> str:
    rated = [g for g in groups if g.n]
    parts = [f"{g.label}: {g.positive:.0%} positive of {g.n}" for g in rated]
    high = next((g for g in rated if g.label == "High"), None)
    low = next((g for g in rated if g.label == "Low"), None)
    verdict = ""
    if high and low:
        verdict = (
            " High-confidence answers are rated better, as they should be."
            if high.positive > low.positive
            else " High-confidence answers are not rated better than Low ones: "
            "the confidence checks need a look."
        )
    return "; ".join(parts) + "." + verdict


def _extremes(groups: Sequence[Share]) -> str:
    rated = [g for g in groups if g.n]
    if len(rated) < 2:
        return "; ".join(f"{g.label}: {g.positive:.0%} positive of {g.n}" for g in rated) + "."
    best = max(rated, key=lambda g: g.positive)
    worst = min(rated, key=lambda g: g.positive)
    return (
        f"Best: {best.label} ({best.positive:.0%} of {best.n}); "
        f"worst: {worst.label} ({worst.positive:.0%} of {worst.n})."
    )


def _questions(worst: Sequence[DownVoted]) -> str:
    rows = []
    for w in worst:
        reasons = ", ".join(sorted(set(w.reasons))) or "no reason given"
        rows.append(
            f"<li><b>{escape(w.question)}</b> — {w.down} down, {w.up} up "
            f"over {w.answers} answer(s); reasons: {escape(reasons)}</li>"
        )
    return "<ol>" + "".join(rows) + "</ol>"


def _section(s: Section) -> str:
    image = f"<img src='{escape(s.image)}' alt='{escape(s.title)}'>" if s.image else ""
    heading = f"<h2>{escape(s.title)}</h2><p>{escape(s.takeaway)}</p>"
    return f"<section>{heading}{image}{s.extra}</section>"


def _page(body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>knowbot feedback</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; color: #222; }}
img {{ max-width: 100%; }} section {{ margin-bottom: 2.5rem; }} .empty {{ font-size: 1.2rem; }}
</style></head>
<body><h1>knowbot feedback</h1>
{body}
</body></html>
"""
