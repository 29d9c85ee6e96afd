"""Fitted numbers: each fitting script stores its own choice beside the others'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge.search import fitted as fitted_module


def test_a_fitting_script_keeps_what_another_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "fitted.json"
    file.write_text(json.dumps({"fusion_sparse_weight": 0.2}), encoding="utf-8")
    monkeypatch.setattr(fitted_module, "FITTED_FILE", file)
    fitted_module._fitted.cache_clear()
    try:
        fitted_module.store_fitted({"quote_semantic_weight": 0.9})
        assert fitted_module.fitted("fusion_sparse_weight", 0.0) == 0.2
        assert fitted_module.fitted("quote_semantic_weight", 0.6) == 0.9
        assert fitted_module.fitted("never_fitted", 0.5) == 0.5
    finally:
        fitted_module._fitted.cache_clear()


def test_a_floor_better_on_the_fit_half_but_worse_on_the_check_half_is_not_adopted() -> None:
    from benchmarks.ablation import _kept
    from benchmarks.fit_answers import THRESHOLDS, fit

    texts = [f"question {n}?" for n in range(40)]
    fitting = [t for t in texts if _kept(t, "fit")]
    checking = [t for t in texts if not _kept(t, "fit")]
    name = "relevant_min_similarity"
    grid = THRESHOLDS[name][2]
    highest = grid[-1]
    # one question of the fit half is answered at the highest floor only
    good = {(t, f): t != fitting[0] or f == highest for t in texts for f in grid}

    def rows() -> list[dict[str, object]]:
        return [
            {"set": "policies", "question": t, "threshold": name, "value": f, "good": g}
            for (t, f), g in good.items()
        ]

    assert fit(rows(), name, current=0.35)[name] == highest

    good[(checking[0], highest)] = good[(checking[1], highest)] = False  # and two others lost
    result = fit(rows(), name, current=0.35)
    assert result[f"{name}_fit"]["best_on_fit_half"] == highest
    assert result[name] == 0.35


def test_a_weight_better_on_both_halves_that_costs_one_set_two_questions_is_not_adopted() -> None:
    from benchmarks.ablation import _kept
    from benchmarks.fit_answers import THRESHOLDS, fit

    name = "quote_rank_weight"
    grid = THRESHOLDS[name][2]
    current, other = grid[1], grid[2]
    texts = [f"question {n}?" for n in range(60)]
    fitting = [t for t in texts if _kept(t, "fit")]
    checking = [t for t in texts if not _kept(t, "fit")]
    # at `other`, the written set gains two questions on each half ...
    gained = {("written", t) for t in fitting[:2] + checking[:2]}
    # ... and the policies lose two of the check half
    lost = {("policies", t) for t in checking[2:4]}

    def good(name_of_set: str, text: str, value: float) -> bool:
        if value != other:
            return (name_of_set, text) not in gained
        return (name_of_set, text) not in lost

    def rows() -> list[dict[str, object]]:
        return [
            {"set": s, "question": t, "threshold": name, "value": v, "good": good(s, t, v)}
            for s in ("policies", "written")
            for t in texts
            for v in grid
        ]

    result = fit(rows(), name, current=current)
    assert result[f"{name}_fit"]["best_on_fit_half"] == other
    assert result[name] == current
    assert result[f"{name}_fit"]["lost_per_set"]["policies"] == 2

    lost.discard(("policies", checking[3]))  # one question lost is noise: adopted
    assert fit(rows(), name, current=current)[name] == other
