"""The weekly feedback digest: how many answers, how they were rated, the worst ones with
links back to them, and any scheduled job that failed since the last digest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from urllib.parse import quote

from bot.store.job_runs import JobRun, JobRunStore
from bot.store.rated import Delivery, RatedAnswer, RatedAnswerStore
from bot.verified.gaps import ExpertsGaps

DIGEST_JOB = "digest"
WEEK = timedelta(days=7)
STUCK_AFTER = timedelta(hours=6)  # a run "running" this long died with its process

Style = Literal["slack", "markdown"]
GapsOf = Callable[[datetime, datetime], tuple[ExpertsGaps, ...]]


@dataclass(frozen=True)
class WorstAnswer:
    answer_id: int
    question: str
    confidence: str
    up: int
    down: int
    reasons: tuple[str, ...]
    link: str | None


@dataclass(frozen=True)
class Digest:
    since: datetime
    until: datetime
    answers: int
    rated_answers: int
    up: int
    down: int
    worst: tuple[WorstAnswer, ...]
    failures: tuple[JobRun, ...]
    gaps: tuple[ExpertsGaps, ...] = ()  # per experts channel: what it could answer

    @property
    def share_positive(self) -> float | None:
        total = self.up + self.down
        return self.up / total if total else None


def build_digest(
    rated: RatedAnswerStore,
    runs: JobRunStore,
    *,
    until: datetime,
    slack_workspace_url: str,
    top: int = 5,
    gaps: GapsOf | None = None,
) -> Digest:
    """Since the last digest that was posted (or a week, the first time). `gaps`: the
    questions of the period declined or rated down, per experts channel."""
    since = runs.last_finished(DIGEST_JOB) or until - WEEK
    items = rated.rated(since=since)
    worst = sorted((i for i in items if i.down), key=lambda i: (i.up - i.down, -i.down, i.id))
    worst = worst[:top]
    deliveries = rated.deliveries([i.id for i in worst])
    return Digest(
        since=since,
        until=until,
        answers=rated.answers_since(since),
        rated_answers=len(items),
        up=sum(i.up for i in items),
        down=sum(i.down for i in items),
        worst=tuple(_worst(i, deliveries.get(i.id), slack_workspace_url) for i in worst),
        failures=tuple(_failed(runs.runs(since=since), until)),
        gaps=gaps(since, until) if gaps else (),
    )


def _worst(item: RatedAnswer, delivery: Delivery | None, slack_url: str) -> WorstAnswer:
    return WorstAnswer(
        answer_id=item.id,
        question=str(item.answer["question"]),
        confidence=str(item.answer["confidence"]),
        up=item.up,
        down=item.down,
        reasons=tuple(item.reasons),
        link=link_to(delivery, slack_url) if delivery else None,
    )


def _failed(runs: list[JobRun], until: datetime) -> list[JobRun]:
    return [
        r
        for r in runs
        if r.status == "failed" or (r.status == "running" and until - r.started_at > STUCK_AFTER)
    ]


def link_to(d: Delivery, slack_workspace_url: str) -> str | None:
    """A link that opens the answer in its chat: a Slack permalink, a Teams deep link."""
    if d.platform == "slack":
        ts = d.message_id.replace(".", "")
        return f"{slack_workspace_url.rstrip('/')}/archives/{d.channel}/p{ts}"
    if d.platform == "teams":
        return f"https://teams.microsoft.com/l/message/{quote(d.channel)}/{quote(d.message_id)}"
    return None


def render(digest: Digest, style: Style) -> str:
    """The digest as Slack mrkdwn or as Markdown (Teams), with links in each one's syntax;
    blank lines between parts, because Teams joins single-newline lines into one."""
    bold = "*" if style == "slack" else "**"
    dot = "•" if style == "slack" else "-"
    share = digest.share_positive
    period = f"{digest.since:%Y-%m-%d} to {digest.until:%Y-%m-%d}"
    counts = (
        f"{dot} {digest.answers} answers given; {digest.rated_answers} rated "
        f"({digest.up} up, {digest.down} down"
        + (f", {share:.0%} positive)" if share is not None else ")")
    )
    parts = [f"{bold}knowbot feedback digest{bold} ({period})", counts]
    if digest.worst:
        rows = []
        for w in digest.worst:
            label = _link(f"#{w.answer_id}", w.link, style)
            why = f" — {', '.join(sorted(set(w.reasons)))}" if w.reasons else ""
            rows.append(
                f"{dot} {label} “{_clip(w.question)}” ({w.confidence} confidence, "
                f"{w.down} down, {w.up} up){why}"
            )
        parts.append(f"{bold}Worst answers{bold}\n" + "\n".join(rows))
    else:
        parts.append("No answer was down-voted.")
    for experts in digest.gaps:
        parts.append(_gaps(experts, style))
    if digest.failures:
        rows = []
        for run in digest.failures:
            what = "did not finish" if run.status == "running" else run.detail or "failed"
            rows.append(
                f"{dot} {run.job} at {run.scheduled_for:%Y-%m-%d %H:%M}: {_clip(what, 200)}"
            )
        parts.append(f"{bold}Job failures{bold}\n" + "\n".join(rows))
    return "\n\n".join(parts)


def _gaps(experts: ExpertsGaps, style: Style) -> str:
    bold = "*" if style == "slack" else "**"
    dot = "•" if style == "slack" else "-"
    where = f"<#{experts.experts_channel}>" if style == "slack" else experts.experts_channel
    rows = []
    for gap in experts.gaps[:10]:
        people = "1 asker" if len(gap.askers) == 1 else f"{len(gap.askers)} askers"
        links = " ".join(_link(f"[{n}]", url, style) for n, url in enumerate(gap.links, 1))
        rows.append(f"{dot} “{_clip(gap.question)}” ({people}) {links}".rstrip())
    more = len(experts.gaps) - 10
    if more > 0:
        rows.append(f"{dot} …and {more} more")
    head = f"{bold}Questions declined or rated down, for {where}{bold}"
    return head + "\n" + "\n".join(rows)


def _link(text: str, url: str | None, style: Style) -> str:
    if not url:
        return text
    return f"<{url}|{text}>" if style == "slack" else f"[{text}]({url})"


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
