"""Pooled connections the server dropped (a restart, an idle timeout) cost no question."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from bot.db.engine import create_engine

_PID = sa.text("SELECT pg_backend_pid()")


def _backend(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(_PID).scalar_one())


def _drop(db_url: URL, pid: int) -> None:
    admin = sa.create_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        admin.dispose()


def test_an_idle_connection_the_server_dropped_is_replaced_before_use(db_url: URL) -> None:
    engine = create_engine(db_url, pool_size=1, ping_after_idle_s=0.2)
    try:
        first = _backend(engine)
        _drop(db_url, first)
        time.sleep(0.3)
        assert _backend(engine) != first  # no error: the ping found it dead
    finally:
        engine.dispose()


def test_a_connection_dropped_while_in_use_fails_once_and_the_pool_recovers(
    db_url: URL,
) -> None:
    engine = create_engine(db_url, pool_size=1, ping_after_idle_s=60.0)
    try:
        first = _backend(engine)
        _drop(db_url, first)
        with pytest.raises(sa.exc.OperationalError):
            _backend(engine)  # used moments ago, so not pinged: this query meets the drop
        assert _backend(engine) != first
    finally:
        engine.dispose()
