"""`knowbot eval ...`: measure retrieval and answers on labelled data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from bot.cli.state import state
from bot.errors import KnowbotError

if TYPE_CHECKING:
    from bot.verified.evaluation import VerifiedReport

app = typer.Typer(help="Evaluate retrieval and answers.", no_args_is_help=True)
out = Console()


@app.command("retrieval")
def retrieval(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., help="BEIR folder: corpus.jsonl, queries.jsonl, qrels.tsv"),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
    mode: str = typer.Option("hybrid", "--mode", help="hybrid | dense | sparse"),
) -> None:
    """Recall@1/5/10 and MRR@10 of the bot's retriever on a BEIR-layout folder."""
    missing = [
        n for n in ("corpus.jsonl", "queries.jsonl", "qrels.tsv") if not (folder / n).is_file()
    ]
    if missing:
        raise KnowbotError(f"{folder} is not a BEIR folder: missing {', '.join(missing)}.")
    if mode not in ("hybrid", "dense", "sparse"):
        raise KnowbotError(f"--mode must be hybrid, dense or sparse, not {mode!r}.")
    from bot.wiring import open_services
    from knowledge.evaluation import evaluate

    with open_services(state(ctx).settings) as services:
        kb = services.knowledge
        report = evaluate(folder, kb.ingestor, kb.retriever, mode=mode)
    if as_json:
        print(json.dumps(report.as_json()))
        return
    table = Table(title=f"Retrieval on {folder.name} ({report.mode})")
    for column in ("queries", "docs", "recall@1", "recall@5", "recall@10", "MRR@10", "p50 ms"):
        table.add_column(column, justify="right")
    metrics = report.as_json()
    table.add_row(
        str(report.queries),
        str(report.documents),
        *(f"{metrics[k]:.3f}" for k in ("recall@1", "recall@5", "recall@10", "mrr@10")),
        f"{report.query_ms_p50:.1f}",
    )
    out.print(table)


@app.command("qa")
def qa(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help='JSON lines: {"question": ..., "expected_facts": [...]}'),
    as_json: bool = typer.Option(False, "--json", help="Print a one-line JSON summary."),
    results: Path | None = typer.Option(
        None, "--results", help="Also write one JSON line per case (answer, outcome) here."
    ),
) -> None:
    """Answer each question and check the answer states the expected facts and cites a
    source that states them; show each answer's confidence, and how questions marked
    unanswerable were handled."""
    from bot.feedback.qa import read_cases, run_cases
    from bot.wiring import open_services

    cases = read_cases(file)
    with open_services(state(ctx).settings) as services:
        report = run_cases(cases, services.pipeline.answer_now)
    if results is not None:
        results.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in report.rows()),
            encoding="utf-8",
        )
    summary = report.summary()
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
        return
    table = Table(title=f"Answers on {file.name}")
    for column in ("line", "question", "outcome", "confidence", "missing"):
        table.add_column(column)
    for r in report.results:
        table.add_row(
            str(r.case.line), r.case.question, r.outcome, r.confidence, ", ".join(r.missing)
        )
    out.print(table)
    out.print(
        f"{summary['stated']}/{summary['labelled']} answers contain the expected facts; "
        f"{summary['cited']}/{summary['labelled']} also cite a source that contains them. "
        f"Unanswerable: {summary['unanswerable_declined']}/{summary['unanswerable']} declined, "
        f"{summary['unanswerable_low_or_declined']}/{summary['unanswerable']} Low or declined. "
        f"High answers that pass: {summary['high_passed']}. "
        f"Confidence: {summary['confidence']}.",
        highlight=False,
    )


@app.command("verified")
def verified(
    ctx: typer.Context,
    folder: Path = typer.Argument(
        ..., help="BEIR folder whose corpus titles are questions and texts their answers."
    ),
    negatives: Path | None = typer.Option(
        None, "--negatives", help="Questions none of the entries answers, one a line."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Import the FAQ as verified answers in a throwaway scope, match every query as the bot
    would, and count served-right, served-wrong, served-none and negatives served, on the
    half the rule was fitted on and on the held-out half."""
    missing = [
        n for n in ("corpus.jsonl", "queries.jsonl", "qrels.tsv") if not (folder / n).is_file()
    ]
    if missing:
        raise KnowbotError(f"{folder} is not a BEIR folder: missing {', '.join(missing)}.")
    from bot.conversation.verified import fitted_rule
    from bot.verified.evaluation import evaluate_verified, read_negatives
    from bot.wiring import open_services

    strangers = read_negatives(negatives) if negatives is not None else []
    settings = state(ctx).settings
    with open_services(settings) as services:
        kb = services.knowledge
        rule = fitted_rule(kb.embedding_model, min_score=settings.verified_min_score)
        if rule is None:
            raise KnowbotError(
                f"No verified-answer rule is fitted for the embedding model "
                f"{kb.embedding_model}: run benchmarks/fit_verified.py, or set "
                "KNOWBOT_VERIFIED_MIN_SCORE."
            )
        report = evaluate_verified(
            folder,
            services.verified,
            embed=kb.embeddings,
            model=kb.embedding_model,
            rule=rule,
            negatives=strangers,
        )
    if as_json:
        print(json.dumps(report.as_json()))
        return
    _print_verified(report)


def _print_verified(report: VerifiedReport) -> None:
    from bot.verified.evaluation import FIT, HELD_OUT

    rule = report.rule
    table = Table(
        title=f"Verified answers on {Path(report.folder).name} ({report.entries} entries, "
        f"{report.model})"
    )
    for column in ("half", "queries", "right", "wrong", "none", "precision", "negatives served"):
        table.add_column(column, justify="right")
    for name, tally in ((FIT, report.halves[FIT]), (HELD_OUT, report.halves[HELD_OUT]),
                        ("all", report.total())):  # fmt: skip
        row = tally.as_json()
        precision = row["precision"]
        table.add_row(
            name,
            str(row["queries"]),
            str(row["served_right"]),
            str(row["served_wrong"]),
            str(row["served_none"]),
            "-" if precision is None else f"{precision:.3f}",
            f"{row['negatives_served']}/{row['negatives']}",
        )
    out.print(table)
    out.print(
        f"Rule: question weight {rule.question_weight}, min score {rule.min_score}, "
        f"min margin {rule.min_margin} (fitted on the {FIT} half; report the {HELD_OUT} half).",
        highlight=False,
    )
