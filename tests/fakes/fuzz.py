"""Hypothesis strategies for hostile request bodies: real Slack and Teams payloads with one
field replaced by something of the wrong kind (or removed), JSON that is not an object,
nesting far past any parser's comfort, strings with NUL bytes and lone surrogates, and
plain garbage. Shared by the endpoint fuzz tests and `benchmarks/fuzz_endpoints.py`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from hypothesis import strategies as st

from tests.adapters.slack import payloads as slack
from tests.adapters.teams import activities as teams

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
NASTY_STRINGS = ["", "\x00", "a\x00b", "\ud800", "x\udfffy", "<@U0KNOWBOT>", "💥" * 3, "1" * 300]


@dataclass(frozen=True)
class Body:
    raw: bytes
    content_type: str

    def __repr__(self) -> str:  # hypothesis prints the failing example: keep it readable
        return f"Body({self.raw[:300]!r}{'…' if len(self.raw) > 300 else ''}, {self.content_type})"


def strings() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(NASTY_STRINGS), st.text(max_size=12))


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value, kept small (the deep ones come from `deep_json`)."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        strings(),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(strings(), inner, max_size=3)
        ),
        max_leaves=6,
    )


def deep_json() -> st.SearchStrategy[str]:
    """The nesting that used to raise RecursionError: 1,000-deep lists, 20,000-deep dicts."""
    lists = st.integers(min_value=65, max_value=1000).map(lambda n: "[" * n + "]" * n)
    dicts = st.integers(min_value=65, max_value=20000).map(lambda n: '{"a":' * n + "1" + "}" * n)
    return st.one_of(lists, dicts)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any, *, delete: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    if not rest and delete:
        del copy[head]
    else:
        copy[head] = _replaced(copy[head], rest, new, delete=delete)
    return copy


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """`base` with one to three fields replaced by any JSON value or removed."""
    value = base
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(value)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        new = draw(json_values())
        value = _replaced(value, path, new, delete=draw(st.booleans()))
    return value


def as_json(value: Any) -> Body:
    return Body(json.dumps(value).encode("utf-8", "surrogatepass"), JSON)


def as_form(fields: dict[str, Any]) -> Body:
    return Body(urlencode(fields, errors="surrogatepass").encode(), FORM)


def garbage() -> st.SearchStrategy[Body]:
    """Bodies no platform sends: non-objects, deep nesting, broken JSON, random bytes."""
    return st.one_of(
        json_values().map(as_json),
        deep_json().map(lambda text: Body(text.encode(), JSON)),
        st.sampled_from(['"str"', "null", "[]", "123", '{"a": ', "{}", ""]).map(
            lambda text: Body(text.encode(), JSON)
        ),
        st.binary(max_size=64).map(lambda raw: Body(raw, JSON)),
    )


def _slack_bases() -> list[Callable[[], dict[str, Any]]]:
    def click() -> dict[str, Any]:
        form = slack.reason_click(value="1:wrong", response_url="http://127.0.0.1:9/respond")
        return dict(json.loads(_form_payload(form)))

    def shortcut() -> dict[str, Any]:
        form = slack.message_shortcut(
            "knowbot_forget_thread",
            channel=slack.CHANNEL,
            ts=slack.new_ts(),
            thread_ts=None,
            response_url="http://127.0.0.1:9/respond",
        )
        return dict(json.loads(_form_payload(form)))

    return [
        lambda: slack.mention("what is the PED waiting period?"),
        lambda: slack.message("and for Plan B?", thread_ts=slack.new_ts()),
        lambda: slack.direct_message("how do I submit a claim?"),
        lambda: slack.reaction("-1", ts=slack.new_ts()),
        lambda: slack.edited(),
        lambda: {"type": "url_verification", "challenge": "abc", "token": "t"},
        click,
        shortcut,
    ]


def _form_payload(form: str) -> str:
    from urllib.parse import parse_qs

    return parse_qs(form)["payload"][0]


def slack_bodies() -> st.SearchStrategy[Body]:
    """What reaches POST /slack/events from a hostile or broken sender."""
    base = st.sampled_from(_slack_bases()).map(lambda make: make())
    interactive = base.filter(lambda b: b.get("type") in ("block_actions", "message_action"))
    command = slack.slash_command(
        "/knowbot-forget", "x", channel=slack.DM, response_url="http://127.0.0.1:9/r"
    )
    return st.one_of(
        base.flatmap(mutated).map(as_json),
        interactive.flatmap(mutated).map(lambda p: as_form({"payload": json.dumps(p)})),
        json_values().map(lambda p: as_form({"payload": json.dumps(p)})),
        st.dictionaries(strings(), strings(), max_size=4).map(as_form),
        st.just(Body(command.encode(), FORM)),
        garbage(),
    )


def teams_bodies(service_url: str) -> st.SearchStrategy[Body]:
    """What reaches POST /api/messages: activities replying to `service_url`, broken."""
    bases: list[Callable[[], dict[str, Any]]] = [
        lambda: teams.message(service_url, "What is the PED waiting period?"),
        lambda: teams.channel_mention(service_url, "How do I claim?"),
        lambda: teams.reaction(service_url, teams.personal(), "bot-message-1", added=["like"]),
        lambda: teams.feedback_invoke(service_url, teams.personal(), "1", reaction="dislike"),
        lambda: (
            teams.feedback_invoke(service_url, teams.personal(), "1", reaction="like")
            | {"name": "adaptiveCard/action"}
        ),
    ]
    base = st.sampled_from(bases).map(lambda make: make())
    return st.one_of(base.flatmap(mutated).map(as_json), garbage())
