"""Check a request to POST /slack/events before anything parses it: Slack's signature over the exact bytes,
a fresh timestamp, and a body of the shape Slack sends (a JSON object, or a form whose `payload` is one).

https://api.slack.com/authentication/verifying-requests-from-slack
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

MAX_AGE = 5 * 60  # seconds: older (or later) requests are refused, so a captured one cannot be replayed
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Refusal:
    status: int  # 401: not from Slack; 400: from Slack (signed) but not a request it sends
    reason: str


def check_request(secret: str, headers: Mapping[str, str], body: bytes, *,
                  clock: Callable[[], float] = time.time) -> Refusal | None:
    """None when the request is signed by Slack with `secret`, recent, and well formed; else why not."""
    timestamp = headers.get("x-slack-request-timestamp", "")
    if not _TIMESTAMP.fullmatch(timestamp) or abs(clock() - int(timestamp)) > MAX_AGE:
        return Refusal(401, "missing, malformed or stale x-slack-request-timestamp")
    signature = headers.get("x-slack-signature", "")
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    if not _SIGNATURE.fullmatch(signature) or not hmac.compare_digest(signature, expected):
        return Refusal(401, "missing or invalid x-slack-signature")
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == JSON:
        data = _json(body)
        if not isinstance(data, dict):
            return Refusal(400, "the body is not a JSON object")
        return _shape_refusal(data)
    if content_type == FORM:
        try:
            form = urllib.parse.parse_qs(body.decode("utf-8", errors="strict"), errors="strict",
                                         keep_blank_values=True)
        except (UnicodeDecodeError, ValueError):
            return Refusal(400, "the body is not a UTF-8 form")
        if "payload" in form:
            payload = _json(form["payload"][0].encode())
            if not isinstance(payload, dict):
                return Refusal(400, "the form's payload is not a JSON object")
            return _shape_refusal(payload)
        return None
    return Refusal(400, f"unsupported content type; Slack sends {JSON} or {FORM}")


def _json(data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


# The fields bolt reads without checking their type, at any depth, and the types Slack sends them with.
_SHAPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("event", "view", "container", "message", "previous_message", "workflow_step"), (dict,)),
    **dict.fromkeys(("user", "channel", "team", "enterprise", "text", "bot_profile"), (str, dict, type(None))),
    **dict.fromkeys(("type", "subtype", "action_id", "block_id", "callback_id", "user_id", "team_id", "channel_id",
                     "channel_type", "bot_id", "thread_ts", "ts", "event_id", "api_app_id", "trigger_id",
                     "response_url", "command", "value", "enterprise_id", "function_execution_id", "tab"),
                    (str, type(None))),
}


def _shape_refusal(data: dict[str, object]) -> Refusal | None:
    problem = _shape_problem(data, depth=0)
    for key in ("actions", "authorizations"):  # lists bolt takes the first object of
        item = data.get(key)
        if key in data and not (isinstance(item, list) and item and all(isinstance(i, dict) for i in item)):
            problem = problem or f"'{key}' is not a list of objects"
    return Refusal(400, f"not a request Slack sends: {problem}") if problem else None


def _shape_problem(value: object, *, depth: int) -> str | None:
    if depth > 8:
        return None
    if isinstance(value, list):
        return next((p for p in (_shape_problem(v, depth=depth + 1) for v in value) if p), None)
    if not isinstance(value, dict):
        return None
    for key, item in value.items():
        expected = _SHAPES.get(key)
        if expected is not None and not isinstance(item, expected):
            return f"'{key}' is {type(item).__name__}"
        problem = _shape_problem(item, depth=depth + 1)
        if problem:
            return problem
    return None
