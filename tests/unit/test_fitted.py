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
