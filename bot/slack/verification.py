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
        return None if isinstance(_json(body), dict) else Refusal(400, "the body is not a JSON object")
    if content_type == FORM:
        try:
            form = urllib.parse.parse_qs(body.decode("utf-8", errors="strict"), errors="strict",
                                         keep_blank_values=True)
        except (UnicodeDecodeError, ValueError):
            return Refusal(400, "the body is not a UTF-8 form")
        if "payload" in form and not isinstance(_json(form["payload"][0].encode()), dict):
            return Refusal(400, "the form's payload is not a JSON object")
        return None
    return Refusal(400, f"unsupported content type; Slack sends {JSON} or {FORM}")


def _json(data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
