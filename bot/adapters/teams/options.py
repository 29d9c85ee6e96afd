"""Knobs of the Teams adapter that a deployment never sets but tests and private clouds do.

They are not Settings: the Bot Framework's public-cloud endpoints and Teams' timing limits
are facts of the platform, so production always uses the defaults here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BotFrameworkEndpoints:
    """Where incoming tokens are checked and outgoing ones come from.

    Left unset, botbuilder uses the public cloud. Setting them switches botbuilder to its
    parameterized authentication (meant for sovereign and private clouds); the tests use it to
    check real JWTs against signing keys served on 127.0.0.1."""

    openid_metadata_url: str
    token_issuer: str = "https://api.botframework.com"
    emulator_openid_metadata_url: str = (
        "https://login.microsoftonline.com/botframework.com/v2.0/.well-known/openid-configuration"
    )
    login_url: str = "https://login.microsoftonline.com/botframework.com"
    oauth_scope: str = "https://api.botframework.com"
    oauth_url: str = "https://api.botframework.com"


@dataclass(frozen=True)
class TeamsOptions:
    # Past this, the user is told "still working" and the answer follows when ready.
    still_working_after_s: float = 8.0
    # Teams gives up on a bot's HTTP response after about 15 s: the request ends by this
    # time even if a reply is still being retried (it carries on by itself).
    release_after_s: float = 12.0
    # Waits between attempts when the connector answers 429/5xx or cannot be reached.
    retry_delays_s: tuple[float, ...] = (0.5, 1.0, 2.0)
    retry_after_cap_s: float = 10.0
    # One connector call's timeout: at most this, at least `min_attempt_s`, else what is
    # left of the answer's deadline; no retry starts that the deadline cannot fit.
    connector_timeout_s: float = 10.0
    min_attempt_s: float = 2.0
    # Teams shows a typing indicator for about 3 s; repeat it while the answer is made.
    typing_interval_s: float = 3.0
    # Least time between two streaming updates of an answer (Teams throttles faster ones).
    stream_interval_s: float = 1.0
    # On shutdown, how long unfinished follow-up answers may still take to be delivered.
    drain_timeout_s: float = 10.0
    endpoints: BotFrameworkEndpoints | None = None
