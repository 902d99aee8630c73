"""A fake Slack on 127.0.0.1, for tests: the Web API, response URLs and Socket Mode, recording every call.

`FakeSlack` answers the Web API methods the bot uses (`auth.test`, `chat.postMessage`, `chat.postEphemeral`,
`chat.update`, `conversations.history`, `reactions.add`, `reactions.remove`, `views.publish`, `views.open`,
`assistant.threads.setStatus`, `.setTitle` and `.setSuggestedPrompts`, `apps.connections.open`), any POST to
`/response/<id>` (a `response_url`) and a Socket Mode WebSocket at `/socket`. Bodies are parsed whether
form-encoded or JSON. Like Slack, it refuses messages and views over Block Kit's limits (50 blocks per message,
100 per view, 3,000 characters per section text) with `invalid_blocks`, and a modal Slack would refuse
(`modal_problem`: long titles, inputs over 3,000 characters, metadata over 3,000) with `invalid_arguments`.
`wait_for` blocks until enough calls of a kind arrived; `opened` gives the modals opened, with their ids.
Each channel keeps the messages posted in it (as `chat.update` left them, with their metadata), which
`conversations.history` reads back as Slack does (newest first, between `oldest` and `latest`, up to `limit`,
the metadata only with `include_all_metadata`) and `messages` gives. A message's ts counts up from
1700000001; with a `clock` (a test's), it is that clock's time instead, so it compares with the bot's times.

`SlackSender` plays Slack's other half: it signs requests exactly as Slack does (v0 HMAC-SHA256 of
`v0:{timestamp}:{body}`) and posts events (JSON), slash commands, button clicks, message shortcuts and modal
submissions (form-encoded) to the bot. `bot_server` runs the real FastAPI application with uvicorn, pointed at the fake.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from aiohttp import WSMsgType, web
from pydantic import SecretStr

BOT_USER = "UBOT"
BOT_ID = "BBOT"
TEAM = "T1"
BOT_TOKEN = "xoxb-test-bot-token-0123456789"
APP_TOKEN = "xapp-test-app-token-0123456789"
SIGNING_SECRET = "test-signing-secret-0123456789abcdef"
JSON_FIELDS = ("blocks", "attachments", "metadata", "view", "prompts")
BLOCK_LIMITS = {"chat.postMessage": 50, "chat.postEphemeral": 50, "chat.update": 50, "views.publish": 100}
SECTION_LIMIT = 3000
SPECIAL_MENTIONS = ("<!channel>", "<!here>", "<!everyone>")  # what must never reach a channel


@dataclass(frozen=True)
class Call:
    kind: str  # the Web API method ("chat.postMessage"), "response" (a response_url), or "socket_ack"
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    reply: dict[str, Any] = field(default_factory=dict)  # what the fake answered (a Web API method)

    def dump(self) -> str:
        """The whole body as JSON text, to look for text anywhere in it."""
        return json.dumps(self.body, ensure_ascii=False)


class FakeSlack:
    """The fake Slack servers (Web API, response URLs, Socket Mode) in a thread with its own event loop."""

    def __init__(self, token: str = BOT_TOKEN, clock: Callable[[], datetime] | None = None) -> None:
        self.token = token
        self.clock = clock  # what a message's ts says, when set
        self._calls: list[Call] = []
        self._channels: dict[str, list[dict[str, Any]]] = {}  # each channel's messages, oldest first
        self._changed = threading.Condition()
        self._failures: dict[str, list[str]] = {}
        self._http_failures: dict[str, list[tuple[int, int | None]]] = {}
        self._ts = itertools.count(1)
        self._view_ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._sockets: list[web.WebSocketResponse] = []
        self.url = ""

    # -- life --------------------------------------------------------------------------------------

    def start(self) -> FakeSlack:
        started = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(started,), daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("the fake Slack server did not start")
        return self

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> FakeSlack:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _serve(self, started: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/response/{name}", self._response)
        app.router.add_get("/socket", self._socket)
        self._runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        started.set()
        loop.run_forever()
        loop.close()

    async def _shutdown(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- what tests use ----------------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"

    def response_url(self, name: str) -> str:
        return f"{self.url}/response/{name}"

    def calls(self, kind: str | None = None, *, path: str | None = None) -> list[Call]:
        with self._changed:
            return [c for c in self._calls if (kind is None or c.kind == kind) and (path is None or c.path == path)]

    def wait_for(self, kind: str, count: int = 1, *, path: str | None = None, timeout: float = 20) -> list[Call]:
        """The calls of `kind` (and `path`) once at least `count` arrived; AssertionError after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [c for c in self._calls if c.kind == kind and (path is None or c.path == path)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.kind, c.path) for c in self._calls]
                    raise AssertionError(f"waited {timeout} s for {count} {kind} call(s) at {path}; got {seen}")
                self._changed.wait(left)

    def opened(self, count: int = 1) -> list[dict[str, Any]]:
        """The modals opened with `views.open`, as Slack returned them (with their ids), once `count` were."""
        return [c.reply["view"] for c in self.wait_for("views.open", count) if c.reply.get("ok")]

    def messages(self, channel: str) -> list[dict[str, Any]]:
        """The messages in a channel now (as posted, then updated), oldest first."""
        with self._changed:
            return [dict(m) for m in self._channels.get(channel, [])]

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """Make the next `times` calls of a Web API method answer `{"ok": false, "error": error}`."""
        with self._changed:
            self._failures.setdefault(method, []).extend([error] * times)

    def fail_http(self, method: str, status: int, times: int = 1, retry_after: int | None = None) -> None:
        """Make the next `times` calls of a Web API method answer HTTP `status` (429 with `retry_after`)."""
        with self._changed:
            self._http_failures.setdefault(method, []).extend([(status, retry_after)] * times)

    def send_envelope(self, envelope: dict[str, Any]) -> None:
        """Send a Socket Mode envelope to every connected client."""
        assert self._loop is not None

        async def send() -> None:
            for ws in self._sockets:
                await ws.send_json(envelope)

        asyncio.run_coroutine_threadsafe(send(), self._loop).result(10)

    # -- handlers ----------------------------------------------------------------------------------

    def _record(self, call: Call) -> None:
        with self._changed:
            self._calls.append(call)
            self._changed.notify_all()

    async def _body(self, request: web.Request) -> dict[str, Any]:
        raw = await request.read()
        body: dict[str, Any] = dict(urllib.parse.parse_qsl(request.query_string))
        if not raw:
            return body
        if request.content_type == "application/json":
            body.update(json.loads(raw))
        else:
            body.update(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))
            for name in JSON_FIELDS:
                if isinstance(body.get(name), str):
                    body[name] = json.loads(body[name])
        return body

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        body = await self._body(request)
        headers = dict(request.headers)
        reply, status, reply_headers = self._answer(method, body, headers)
        self._record(Call(method, request.path, body, headers, reply))
        return web.json_response(reply, status=status, headers=reply_headers)

    def _answer(self, method: str, body: dict[str, Any],
                headers: dict[str, str]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The answer to a Web API call: (the JSON, the HTTP status, headers)."""
        token = headers.get("Authorization", "").removeprefix("Bearer ") or str(body.get("token", ""))
        with self._changed:
            failures = self._failures.get(method)
            error = failures.pop(0) if failures else None
            http_failures = self._http_failures.get(method)
            http_failure = http_failures.pop(0) if http_failures else None
        if http_failure is not None:
            status, retry_after = http_failure
            retry = {"Retry-After": str(retry_after)} if retry_after is not None else {}
            return {"ok": False, "error": "ratelimited" if status == 429 else "fatal_error"}, status, retry
        if error is not None:
            return {"ok": False, "error": error}, 200, {}
        if method == "apps.connections.open":
            if not token.startswith("xapp-"):
                return {"ok": False, "error": "not_allowed_token_type"}, 200, {}
            return {"ok": True, "url": self.url.replace("http", "ws", 1) + "/socket"}, 200, {}
        if token != self.token:
            return {"ok": False, "error": "invalid_auth"}, 200, {}
        return self._reply(method, body), 200, {}

    def _reply(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        number = next(self._ts)
        ts = f"{1700000000 + number}.000100" if self.clock is None else \
            f"{int(self.clock().timestamp())}.{number % 1_000_000:06d}"
        if method in BLOCK_LIMITS and not within_limits((body.get("view") or body).get("blocks") or [],
                                                        BLOCK_LIMITS[method]):
            return {"ok": False, "error": "invalid_blocks"}
        if method == "auth.test":
            return {"ok": True, "url": "https://t1.example.slack.com/", "team": "Test team", "user": "eksbot",
                    "team_id": TEAM, "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "chat.postMessage":
            message = {"type": "message", "text": body.get("text", ""), "user": BOT_USER, "bot_id": BOT_ID, "ts": ts}
            kept: dict[str, Any] = {**message, **{k: body[k] for k in ("blocks", "metadata", "thread_ts") if k in body}}
            with self._changed:
                self._channels.setdefault(str(body.get("channel")), []).append(kept)
            return {"ok": True, "channel": body.get("channel"), "ts": ts, "message": message}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": ts}
        if method == "chat.update":
            with self._changed:
                for kept in self._channels.get(str(body.get("channel")), []):
                    if kept["ts"] == body.get("ts"):
                        kept.update({k: body[k] for k in ("text", "blocks", "metadata") if k in body})
            return {"ok": True, "channel": body.get("channel"), "ts": body.get("ts"), "text": body.get("text", "")}
        if method == "conversations.history":
            return self._history(body)
        if method in ("reactions.add", "reactions.remove") or method.startswith("assistant.threads."):
            return {"ok": True}
        if method == "views.publish":
            return {"ok": True, "view": {"id": "V1", **(body.get("view") or {})}}
        if method == "views.open":
            if not body.get("trigger_id"):
                return {"ok": False, "error": "invalid_trigger_id"}
            view = body.get("view") or {}
            problem = modal_problem(view)
            if problem:
                return {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": [problem]}}
            return {"ok": True, "view": {**view, "id": f"VM{next(self._view_ids)}", "hash": f"h{time.time()}",
                                         "state": {"values": {}}, "team_id": TEAM, "app_id": "A1", "bot_id": BOT_ID}}
        return {"ok": False, "error": "unknown_method"}

    def _history(self, body: dict[str, Any]) -> dict[str, Any]:
        """A channel's messages as `conversations.history` gives them: newest first, one page."""
        if not body.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        oldest, latest = float(body.get("oldest") or 0), float(body.get("latest") or "inf")
        inclusive = str(body.get("inclusive", "")).lower() in ("1", "true")
        limit = min(int(body.get("limit") or 100), 999)

        def within(ts: str) -> bool:
            return oldest <= float(ts) <= latest if inclusive else oldest < float(ts) < latest

        with self._changed:
            found = [dict(m) for m in reversed(self._channels.get(str(body["channel"]), [])) if within(m["ts"])]
        if str(body.get("include_all_metadata", "")).lower() not in ("1", "true"):
            for message in found:
                message.pop("metadata", None)
        return {"ok": True, "messages": found[:limit], "has_more": len(found) > limit, "pin_count": 0,
                "response_metadata": {"next_cursor": ""}}

    async def _response(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._record(Call("response", request.path, body, dict(request.headers)))
        return web.Response(text="ok")

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"},
                            "debug_info": {"host": "fake", "approximate_connection_time": 3600}})
        self._record(Call("socket_connect", request.path, {}, dict(request.headers)))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._record(Call("socket_ack", request.path, json.loads(msg.data)))
        finally:
            self._sockets.remove(ws)
        return ws


MODAL_TEXT_LIMIT = 24  # a modal's title, submit and close
INPUT_LIMIT = 3000  # a plain_text_input's max_length, and its initial value


def modal_problem(view: dict[str, Any]) -> str | None:
    """What Slack would refuse in a modal (views.open, or a view_submission's `update`), or None."""
    if view.get("type") != "modal":
        return "view type must be modal"
    for name in ("title", "submit", "close"):
        text = view.get(name)
        if text is None and name != "title":
            continue
        if not isinstance(text, dict) or text.get("type") != "plain_text" or not text.get("text"):
            return f"{name} must be a plain_text object"
        if len(text["text"]) > MODAL_TEXT_LIMIT:
            return f"{name} is over {MODAL_TEXT_LIMIT} characters"
    blocks = view.get("blocks") or []
    if not within_limits(blocks, 100):
        return "blocks over Block Kit's limits"
    if any(b.get("type") == "input" for b in blocks) and "submit" not in view:
        return "a modal with inputs needs submit"
    if len(view.get("private_metadata", "")) > 3000 or len(view.get("callback_id", "")) > 255:
        return "private_metadata over 3000 or callback_id over 255 characters"
    block_ids = [b["block_id"] for b in blocks if "block_id" in b]
    if len(block_ids) != len(set(block_ids)):
        return "duplicate block_id"
    for block in blocks:
        if block.get("type") != "input":
            continue
        label, element = block.get("label") or {}, block.get("element") or {}
        if label.get("type") != "plain_text" or not 1 <= len(label.get("text", "")) <= 2000:
            return "an input's label must be plain_text of 1 to 2000 characters"
        if element.get("type") == "plain_text_input":
            most = element.get("max_length", INPUT_LIMIT)
            if most > INPUT_LIMIT or len(element.get("initial_value", "")) > most:
                return "a plain_text_input's max_length or initial_value is too long"
    return None


def within_limits(blocks: list[dict[str, Any]], most: int) -> bool:
    """Whether blocks keep Block Kit's limits: how many, and the length of each section's text."""
    texts = [b["text"]["text"] for b in blocks if b.get("type") == "section" and isinstance(b.get("text"), dict)]
    return len(blocks) <= most and all(len(text) <= SECTION_LIMIT for text in texts)


# -- Slack's requests to the bot --------------------------------------------------------------------


def sign(body: bytes, timestamp: int, secret: str = SIGNING_SECRET) -> str:
    """`v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}` under the signing secret, as Slack signs."""
    digest = hmac.new(secret.encode(), b"v0:%d:%s" % (timestamp, body), hashlib.sha256).hexdigest()
    return f"v0={digest}"


class SlackSender:
    """Sends signed requests to the bot's POST /slack/events, as Slack does; response URLs go to `fake`."""

    def __init__(self, base: str, fake: FakeSlack, secret: str = SIGNING_SECRET) -> None:
        self.base = base
        self.fake = fake
        self.secret = secret
        self._ids = itertools.count(1)
        self._http = httpx.Client(base_url=base, timeout=10)
        self.app: Any = None  # the FastAPI application, when `bot_server` made it

    def close(self) -> None:
        self._http.close()

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids)}"

    def post(self, body: bytes, content_type: str, *, timestamp: int | None = None, secret: str | None = None,
             signature: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        timestamp = int(time.time()) if timestamp is None else timestamp
        sent = {
            "content-type": content_type,
            "x-slack-request-timestamp": str(timestamp),
            "x-slack-signature": signature if signature is not None else sign(body, timestamp, secret or self.secret),
            **(headers or {}),
        }
        return self._http.post("/slack/events", content=body, headers=sent)

    def event(self, event: dict[str, Any], *, event_id: str | None = None, retry: int | None = None,
              **kwargs: Any) -> tuple[httpx.Response, str]:
        """An `event_callback`; returns the response and the event id."""
        event_id = event_id or self.next_id("Ev")
        body = json.dumps(event_body(event, event_id)).encode()
        headers = dict(kwargs.pop("headers", None) or {})
        if retry is not None:
            headers |= {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"}
        return self.post(body, "application/json", headers=headers, **kwargs), event_id

    def command(self, text: str, *, user: str = "U1", channel: str = "C1", command: str = "/quiz",
                **kwargs: Any) -> tuple[httpx.Response, str]:
        """A slash command; returns the response and the path its response_url posts land on."""
        name = self.next_id("cmd")
        form = command_form(command, text, user=user, channel=channel, response_url=self.fake.response_url(name))
        body = urllib.parse.urlencode(form).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs), f"/response/{name}"

    def click(self, button: dict[str, Any], *, user: str = "U1", channel: str = "C1",
              message_ts: str = "1700000000.000001", ephemeral: bool = True,
              **kwargs: Any) -> tuple[httpx.Response, str]:
        """A click on `button` (an element of a message the bot sent); returns the response and the
        path its response_url posts land on."""
        name = self.next_id("act")
        payload = action_payload(button, user=user, channel=channel, message_ts=message_ts, ephemeral=ephemeral,
                                 response_url=self.fake.response_url(name))
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs), f"/response/{name}"

    def shortcut(self, message: dict[str, Any], *, user: str = "U1", channel: str = "C1",
                 callback_id: str = "add_to_knowledge", **kwargs: Any) -> httpx.Response:
        """A message shortcut on `message` (a message as Slack shows it: text, user, ts)."""
        payload = message_action_payload(message, user=user, channel=channel, callback_id=callback_id,
                                         response_url=self.fake.response_url(self.next_id("sc")))
        return self.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                         "application/x-www-form-urlencoded", **kwargs)

    def submit(self, view: dict[str, Any], values: dict[str, str] | None = None, *, user: str = "U1",
               **kwargs: Any) -> httpx.Response:
        """Submit a modal the bot opened (`view`, as `FakeSlack.opened` returns it), with its inputs as they
        start, and `values` (by block id) typed over them. The response is the bot's acknowledgement."""
        payload = view_submission_payload(view, filled(view, values or {}), user=user)
        return self.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                         "application/x-www-form-urlencoded", **kwargs)

    def view_action(self, action: dict[str, Any], *, user: str = "U1") -> httpx.Response:
        """An action on the Home tab (`action`: action_id, type, value or selected_option)."""
        payload = view_action_payload(action, user=user)
        return self.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                         "application/x-www-form-urlencoded")


def view_action_payload(action: dict[str, Any], *, user: str) -> dict[str, Any]:
    """A click or a choice on the Home tab: a view container, no channel and no response_url."""
    return {
        "type": "block_actions", "user": {"id": user, "username": user.lower(), "team_id": TEAM},
        "api_app_id": "A1", "token": "unused-verification-token", "team": {"id": TEAM, "domain": "t1"},
        "container": {"type": "view", "view_id": "V1"}, "trigger_id": "1.2.trigger",
        "view": {"id": "V1", "type": "home", "callback_id": "home"},
        "actions": [{"block_id": "b", "action_ts": str(time.time()), **action}],
    }


def message_action_payload(message: dict[str, Any], *, user: str, channel: str, callback_id: str,
                           response_url: str) -> dict[str, Any]:
    """A message shortcut, as Slack sends it."""
    return {
        "type": "message_action", "token": "unused-verification-token", "action_ts": f"{time.time():.6f}",
        "team": {"id": TEAM, "domain": "t1"}, "user": {"id": user, "username": user.lower(), "team_id": TEAM,
                                                        "name": user.lower()},
        "channel": {"id": channel, "name": "training"}, "is_enterprise_install": False, "enterprise": None,
        "callback_id": callback_id, "trigger_id": "1.2.trigger", "response_url": response_url,
        "message_ts": message.get("ts", "1700000000.000001"), "message": {"type": "message", **message},
    }


def filled(view: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """A modal's `state.values` as Slack sends them on submit: each input as it starts (its initial value or
    option), or as `values` (by block id: a text, or an option's value) says."""
    state: dict[str, Any] = {}
    for block in view.get("blocks") or []:
        if block.get("type") != "input":
            continue
        element = block["element"]
        typed = values.get(block["block_id"])
        if element["type"] == "static_select":
            value = typed if typed is not None else (element.get("initial_option") or {}).get("value")
            option = next((o for o in element["options"] if o["value"] == value), None)
            item: dict[str, Any] = {"type": "static_select", "selected_option": option}
        else:
            item = {"type": element["type"], "value": typed if typed is not None else element.get("initial_value")}
        state[block["block_id"]] = {element["action_id"]: item}
    return state


def view_submission_payload(view: dict[str, Any], values: dict[str, Any], *, user: str) -> dict[str, Any]:
    return {
        "type": "view_submission", "team": {"id": TEAM, "domain": "t1"},
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
        "api_app_id": "A1", "token": "unused-verification-token", "trigger_id": "1.3.trigger",
        "view": {**view, "state": {"values": values}, "root_view_id": view.get("id"), "previous_view_id": None},
        "response_urls": [], "is_enterprise_install": False, "enterprise": None,
    }


def home_opened_event(user: str = "U1", *, tab: str = "home") -> dict[str, Any]:
    return {"type": "app_home_opened", "user": user, "channel": f"D{user}", "tab": tab,
            "event_ts": f"{time.time():.6f}"}


def assistant_thread_started_event(user: str = "U1", *, channel: str = "D1",
                                   thread_ts: str = "1700000200.000100") -> dict[str, Any]:
    return {"type": "assistant_thread_started", "event_ts": f"{time.time():.6f}", "assistant_thread": {
        "user_id": user, "channel_id": channel, "thread_ts": thread_ts,
        "context": {"channel_id": "C1", "team_id": TEAM, "enterprise_id": None},
    }}


def event_body(event: dict[str, Any], event_id: str) -> dict[str, Any]:
    return {
        "token": "unused-verification-token", "team_id": TEAM, "api_app_id": "A1", "event": event,
        "type": "event_callback", "event_id": event_id, "event_time": int(time.time()),
        "authorizations": [{"enterprise_id": None, "team_id": TEAM, "user_id": BOT_USER, "is_bot": True,
                            "is_enterprise_install": False}],
        "is_ext_shared_channel": False, "event_context": f"ctx-{event_id}",
    }


def command_form(command: str, text: str, *, user: str, channel: str, response_url: str) -> dict[str, str]:
    return {
        "token": "unused-verification-token", "team_id": TEAM, "team_domain": "t1", "channel_id": channel,
        "channel_name": "training", "user_id": user, "user_name": user.lower(), "command": command, "text": text,
        "api_app_id": "A1", "is_enterprise_install": "false", "response_url": response_url,
        "trigger_id": "1.2.trigger",
    }


def action_payload(button: dict[str, Any], *, user: str, channel: str, message_ts: str, ephemeral: bool,
                   response_url: str) -> dict[str, Any]:
    return {
        "type": "block_actions", "user": {"id": user, "username": user.lower(), "team_id": TEAM},
        "api_app_id": "A1", "token": "unused-verification-token", "team": {"id": TEAM, "domain": "t1"},
        "container": {"type": "message", "message_ts": message_ts, "channel_id": channel,
                      "is_ephemeral": ephemeral},
        "channel": {"id": channel, "name": "training"}, "trigger_id": "1.2.trigger",
        "response_url": response_url,
        "actions": [{"type": "button", "action_id": button["action_id"], "block_id": "b",
                     "text": button["text"], "value": button.get("value", ""), "action_ts": str(time.time())}],
    }


def message_event(text: str, *, ts: str = "1700000100.000200", user: str = "U1", channel: str = "C1",
                  kind: str = "app_mention", **extra: Any) -> dict[str, Any]:
    event = {"type": kind, "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
    if kind == "message":
        event["channel_type"] = "im" if channel.startswith("D") else "channel"
    return event | extra


# -- reading what the bot sent ----------------------------------------------------------------------


def texts(message: dict[str, Any]) -> list[str]:
    """Every text of a message: the fallback, section and context texts, button labels."""
    out = [str(message.get("text", ""))]
    for block in message.get("blocks") or []:
        if "text" in block:
            out.append(block["text"]["text"])
        for element in block.get("elements", []):
            out.append(element["text"]["text"] if isinstance(element.get("text"), dict) else element.get("text", ""))
    return out


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in message.get("blocks") or [] if b["type"] == "actions" for e in b["elements"]]


def button(message: dict[str, Any], action_id: str) -> dict[str, Any]:
    found = [b for b in buttons(message) if b["action_id"] == action_id]
    assert found, f"no {action_id} button in {[b['action_id'] for b in buttons(message)]}"
    return found[0]


# -- the real application, served ---------------------------------------------------------------------


@contextmanager
def bot_server(settings: Any, services: Any, fake: FakeSlack) -> Iterator[SlackSender]:
    """The real FastAPI app (Slack on), served by uvicorn on loopback, its Web API calls going to `fake`."""
    from bot.api import create_app
    from bot.services import Services

    configured = slack_settings(settings, fake)
    app = create_app(configured, services=Services.assemble(configured, services.assistant, services.stores.database))
    with serve(app, fake) as sender:
        yield sender


@contextmanager
def serve(app: Any, fake: FakeSlack) -> Iterator[SlackSender]:
    """Serve a FastAPI app made with Slack on; yields a sender of signed requests to it."""
    from tests.support.api_helpers import running_server

    with running_server(app) as base:
        sender = SlackSender(base, fake)
        sender.app = app
        try:
            yield sender
        finally:
            sender.close()


def slack_settings(settings: Any, fake: FakeSlack) -> Any:
    return settings.model_copy(update={
        "slack_bot_token": SecretStr(BOT_TOKEN), "slack_signing_secret": SecretStr(SIGNING_SECRET),
        "slack_app_token": SecretStr(APP_TOKEN), "slack_api_url": fake.api_url,
    })
