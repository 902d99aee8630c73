"""Probe a running service with bad input, forged Slack requests, other teams' tokens and duplicate answers.

Starts `eksbot serve` (this environment's) on SQLite in a temporary data directory, with team-bound API
tokens, a Slack signing secret and Slack's Web API pointed at a closed port (no call leaves the machine), and
rate limiting off. Then, while every request is counted by status:

1. **bad HTTP input**: malformed and mistyped JSON, invalid ids (`team=%00`), booleans for numbers, oversized
   bodies, unknown languages, forged attempt ids, on every `/v1` route;
2. **tenants**: a token bound to team A asks for team B's leaderboard, questions and stats, and grades team
   B's attempt;
3. **forged Slack requests**: unsigned, wrongly signed, stale (six minutes old) and replayed-with-another-body
   requests to `/slack/events`;
4. **answers lost or doubled**: `--players` people each take `--rounds` questions and submit each answer twice
   at once, from two threads; afterwards each one's stats must count every answer exactly once;
5. **hostile knowledge**, while one client asks a question again and again and another calls `/healthz`:
   entries whose bodies make regular expressions backtrack, and dropped into the knowledge folder (a copy)
   the same lines as a document, YAML alias bombs (a document, a note, a quiz file), a quiz file with an
   error, a link to a secret outside the folder, `--files` small documents at once and a 50 MiB file. An
   entry saved afterwards must be answered, the small documents must go live, the secret must never be said.

It prints how many inputs were tried, the status codes seen, the 5xx seen (the target: 0), the answers lost
or doubled (the target: 0), and for the hostile knowledge the answer time (p99 target: 0.5 s), the longest
stall of an answer and of `/healthz`, how long the entry and the documents took to go live and the server's
peak memory. Exit status 1 when a target is missed.

    .venv/bin/python bench/hardening.py
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ROOT, free_port, percentile, proc_status_mb, start_logged_server, stop_server  # noqa: E402
from tests.support.hostile_knowledge import HOSTILE_LINES, drop_hostile_knowledge  # noqa: E402
from tests.support.hostile_knowledge import SECRET as LINKED_SECRET  # noqa: E402

SECRET = "probe-signing-secret"
TOKEN_A, TOKEN_B, TOKEN_ADMIN = "token-team-a", "token-team-b", "token-admin"


class Probe:
    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        self.statuses: Counter[int] = Counter()
        self.failures: list[str] = []
        self._lock = threading.Lock()

    def send(self, method: str, path: str, *, token: str | None = TOKEN_A, expect: range = range(400, 500),
             **kwargs: object) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})  # type: ignore[call-overload]
        if token:
            headers["authorization"] = f"Bearer {token}"
        response = self.http.request(method, path, headers=headers, **kwargs)  # type: ignore[arg-type]
        with self._lock:
            self.statuses[response.status_code] += 1
            if response.status_code not in expect:
                self.failures.append(f"{method} {path} {str(kwargs)[:120]}: {response.status_code} "
                                     f"{response.text[:160]}")
        return response

    def tried(self) -> int:
        return sum(self.statuses.values())


def bad_http_input(probe: Probe) -> None:
    bodies: list[object] = [
        {}, [], "x", 1, None, {"question": ""}, {"question": 5}, {"question": True}, {"question": ["a"]},
        {"question": "x" * 100_000}, {"question": "EFA?", "lang": "fr"}, {"question": "EFA?", "lang": True},
        {"question": "EFA?", "history": "x"}, {"question": "EFA?", "history": ["x"] * 50},
        {"question": "EFA?", "history": [1, 2]}, {"question": "EFA?", "extra": 1}, {"question": "\x00\x00"},
    ]
    for body in bodies:
        probe.send("POST", "/v1/query", json=body)
    for raw in (b"{", b"\xff\xfe\x00", b'{"question": "EFA?"' + b" " * 10, b"null"):
        probe.send("POST", "/v1/query", content=raw, headers={"content-type": "application/json"})
    probe.send("POST", "/v1/query", content=b"question=EFA", headers={"content-type": "text/plain"})
    probe.send("POST", "/v1/query", content=b"{" * 2_000_000, headers={"content-type": "application/json"})
    for body in [{"user": "alice\x00", "team": "teamA"}, {"user": True, "team": "teamA"}, {"user": "a" * 500},
                 {"user": "alice", "team": "teamA", "lang": "xx"}, {"user": "alice", "team": "teamA", "question": True},
                 {"user": "alice", "team": "teamA", "question": 999}, {"user": "alice", "team": "\x00"}]:
        probe.send("POST", "/v1/quiz/next", json=body)
    for body in [{"user": "alice", "attempt_id": "nope", "choice": "A"},
                 {"user": "alice", "attempt_id": "../../etc", "choice": "A"},
                 {"user": "alice", "attempt_id": "x" * 200, "choice": "A"},
                 {"user": "alice", "attempt_id": "abc", "choice": True},
                 {"user": "alice", "attempt_id": "abc", "choice": "Z"}, {"user": "alice"}]:
        probe.send("POST", "/v1/quiz/answer", json=body)
    for query in ("team=%00", "team=teamA&limit=-1", "team=teamA&limit=true", "team=teamA&limit=1000"):
        probe.send("GET", f"/v1/quiz/leaderboard?{query}")
    for query in ("user=%00", "user=" + "x" * 500, "user=alice&team=%00", "user=alice&lang=zz", "team=teamA"):
        probe.send("GET", f"/v1/quiz/stats?{query}")
    for query in ("team=%00", "team=teamA&lang=zz"):
        probe.send("GET", f"/v1/quiz/questions?{query}")
    for path in ("/v1/admin/gaps", "/v1/admin/entries", "/v1/admin/notes"):
        probe.send("GET", path, token=None)
        probe.send("GET", path, token="not-a-token")
    for body in [{}, {"title": ""}, {"title": True, "body": "x"}, {"title": "x", "body": "y", "lang": "qq"},
                 {"title": "x", "body": "y" * 300_000}]:
        probe.send("POST", "/v1/admin/entries", token=TOKEN_ADMIN, json=body)
    for body in [{"question": True, "text": "x"}, {"question": 1, "text": ""}, {"question": -1, "text": "x"}]:
        probe.send("POST", "/v1/admin/notes", token=TOKEN_ADMIN, json=body)
    probe.send("PUT", "/v1/admin/entries/%00", token=TOKEN_ADMIN, json={"title": "x", "body": "y", "version": 1})
    probe.send("DELETE", "/v1/admin/entries/999999", token=TOKEN_ADMIN)


def tenants(probe: Probe) -> None:
    started = probe.send("POST", "/v1/quiz/next", token=TOKEN_B, json={"user": "bob", "lang": "en"},
                         expect=range(200, 201)).json()
    probe.send("POST", "/v1/quiz/answer", token=TOKEN_A, json={"user": "bob", "attempt_id": started["attempt_id"],
                                                              "choice": "A"}, expect=range(403, 405))
    probe.send("POST", "/v1/quiz/answer", token=TOKEN_A, json={"user": "alice", "attempt_id": started["attempt_id"],
                                                              "choice": "A"}, expect=range(403, 405))
    probe.send("GET", "/v1/quiz/leaderboard?team=teamB", token=TOKEN_A, expect=range(403, 404))
    probe.send("GET", "/v1/quiz/questions?team=teamB", token=TOKEN_A, expect=range(403, 404))
    probe.send("POST", "/v1/quiz/next", token=TOKEN_A, json={"user": "alice", "team": "teamB"}, expect=range(403, 404))


def signed(body: bytes, timestamp: int, secret: str = SECRET) -> dict[str, str]:
    base = f"v0:{timestamp}:".encode() + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"x-slack-request-timestamp": str(timestamp), "x-slack-signature": signature,
            "content-type": "application/json"}


def forged_slack(probe: Probe) -> None:
    event = json.dumps({"type": "event_callback", "team_id": "T1", "event_id": "Ev1", "event": {
        "type": "app_mention", "user": "U1", "text": "<@U0BOT> EFA?", "channel": "C1", "ts": "1.1"}}).encode()
    now = int(time.time())
    cases = [
        {"content-type": "application/json"},  # unsigned
        {**signed(event, now, "another-secret")},  # wrongly signed
        {**signed(event, now - 360)},  # stale
        {**signed(b"{}", now)},  # a signature of another body
        {**signed(event, now), "x-slack-request-timestamp": "not-a-number"},
    ]
    for headers in cases:
        probe.send("POST", "/slack/events", token=None, content=event, headers=headers, expect=range(401, 402))
    for body in (b"{", b"\xff", b""):
        probe.send("POST", "/slack/events", token=None, content=body, headers=signed(body, now),
                   expect=range(400, 500))


def answers(probe: Probe, players: int, rounds: int) -> tuple[int, int, int]:
    """Each player answers `rounds` questions, every answer submitted twice at once (one is graded, 200; the
    other is told it was already answered, 409); (answered, lost, doubled)."""
    lost = doubled = 0
    submitted = 0

    def play(player: int) -> tuple[int, int]:
        user = f"p{player}"
        for _ in range(rounds):
            prompt = probe.send("POST", "/v1/quiz/next", json={"user": user, "lang": "en"}, expect=range(200, 201))
            body = {"user": user, "attempt_id": prompt.json()["attempt_id"], "choice": "A"}
            with ThreadPoolExecutor(2) as both:
                sent = [both.submit(probe.send, "POST", "/v1/quiz/answer", json=body, expect=range(200, 410))
                        for _ in range(2)]
                pair = sorted(f.result().status_code for f in sent)
            if pair != [200, 409]:
                probe.failures.append(f"{user}: the same answer twice at once gave {pair}, not one 200 and one 409")
        stats = probe.send("GET", f"/v1/quiz/stats?user={user}", expect=range(200, 201)).json()
        return rounds, int(stats["answered"])

    with ThreadPoolExecutor(min(8, players)) as pool:
        for expected, counted in pool.map(play, range(players)):
            submitted += expected
            lost += max(0, expected - counted)
            doubled += max(0, counted - expected)
    return submitted, lost, doubled


class Stalls:
    """Asks one question again and again, and calls `/healthz`, from two threads, timing every call."""

    QUESTION = "How do I request EFA devices in a pod spec?"

    def __init__(self, base: str, probe: Probe) -> None:
        self.base, self.probe = base, probe
        self.answers: list[float] = []
        self.health: list[float] = []
        self.lost = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._ask, daemon=True),
                        threading.Thread(target=self._health, daemon=True)]

    def __enter__(self) -> Stalls:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _ask(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stop.is_set():
                started = time.perf_counter()
                try:
                    response = http.post("/v1/query", json={"question": self.QUESTION, "lang": "en"},
                                         headers={"authorization": f"Bearer {TOKEN_A}"})
                    ok = response.status_code == 200 and bool(response.json().get("answered"))
                    with self.probe._lock:
                        self.probe.statuses[response.status_code] += 1
                except httpx.HTTPError:
                    ok = False
                self.answers.append(time.perf_counter() - started)
                self.lost += not ok
                time.sleep(0.02)

    def _health(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stop.is_set():
                started = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    http.get("/healthz")
                self.health.append(time.perf_counter() - started)
                time.sleep(0.1)


def until_each(checks: dict[str, Callable[[], bool]], timeout: float) -> dict[str, float | None]:
    """Seconds until each check first held, looked at together; None for one that had not after `timeout`."""
    started = time.perf_counter()
    held: dict[str, float | None] = dict.fromkeys(checks)
    while time.perf_counter() - started < timeout and any(v is None for v in held.values()):
        for name, check in checks.items():
            if held[name] is None and check():
                held[name] = time.perf_counter() - started
        time.sleep(0.2)
    return held


def hostile_knowledge(probe: Probe, base: str, knowledge: Path, outside: Path, files: int) -> dict[str, object]:
    """Feed the running server hostile knowledge while answering; what happened."""
    admin = {"authorization": f"Bearer {TOKEN_ADMIN}"}
    figures: dict[str, object] = {}
    with Stalls(base, probe) as stalls:
        time.sleep(1.0)
        for line in HOSTILE_LINES:
            probe.send("POST", "/v1/admin/entries", token=TOKEN_ADMIN, expect=range(200, 500),
                       json={"title": "Component line", "body": f"A chart:\n\n{line}\n", "lang": "en"})
        drop_hostile_knowledge(knowledge, outside, files)
        tried = len(HOSTILE_LINES) + 8  # the entries, and the files of the folder (the many small ones as one)
        entry = probe.send("POST", "/v1/admin/entries", token=TOKEN_ADMIN, expect=range(201, 202), json={
            "title": "GPU quota for the research team", "lang": "en",
            "body": "The research team has a quota of 64 `nvidia.com/gpu` in namespace `research-train`."}).json()
        http = httpx.Client(base_url=base, timeout=30, headers=admin)

        def cites(question: str, doc: str) -> bool:
            body = http.post("/v1/query", json={"question": question, "lang": "en"}).json()
            return any(c["doc"] == doc for c in body.get("citations", [])[:1])

        last = files - 1
        live = until_each({
            "entry live after (s)": lambda: cites("What is the GPU quota of the research team namespace?",
                                                  f"entries/{entry['id']}"),
            "documents live after (s)": lambda: cites(f"Which crew calibrates widget {last}?", f"many/page-{last}"),
        }, timeout=1800)
        figures.update(live)
        said = http.post("/v1/query", json={"question": "What is the database password?", "lang": "en"}).text
        figures["secret said"] = LINKED_SECRET in said
        http.close()
    figures["tried"] = tried
    figures["answers"] = len(stalls.answers)
    figures["answers lost"] = stalls.lost
    figures["answer p50 / p99 / max (s)"] = (percentile(stalls.answers, 50), percentile(stalls.answers, 99),
                                             max(stalls.answers))
    figures["healthz max (s)"] = max(stalls.health)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--files", type=int, default=5_000, help="small documents dropped in at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eksbot-probe-") as work:
        knowledge, outside = Path(work) / "knowledge", Path(work) / "outside"
        shutil.copytree(ROOT / "knowledge", knowledge)
        outside.mkdir()
        env = {**os.environ, "EKSBOT_DATA_DIR": work, "EKSBOT_RATE_LIMIT": "0", "EKSBOT_LOG_FORMAT": "json",
               "EKSBOT_KNOWLEDGE_DIR": str(knowledge), "EKSBOT_KNOWLEDGE_REFRESH_SECONDS": "0.5",
               "EKSBOT_API_TOKENS": f"{TOKEN_A}:team=teamA,{TOKEN_B}:team=teamB,{TOKEN_ADMIN}",
               "EKSBOT_ADMINS": "UADMIN", "SLACK_BOT_TOKEN": "xoxb-probe", "SLACK_SIGNING_SECRET": SECRET,
               "SLACK_API_URL": f"http://127.0.0.1:{free_port()}/api/"}
        env.pop("DATABASE_URL", None)
        env.pop("EKSBOT_DATABASE_URL", None)
        log = Path(work) / "server.log"
        base, server, ready = start_logged_server(env, log, timeout=300)
        try:
            deadline = time.time() + 60
            while httpx.get(f"{base}/readyz/database", timeout=5).status_code != 200 and time.time() < deadline:
                time.sleep(0.2)
            probe = Probe(base)
            bad_http_input(probe)
            tenants(probe)
            forged_slack(probe)
            bad = probe.tried()
            submitted, lost, doubled = answers(probe, args.players, args.rounds)
            hostile = hostile_knowledge(probe, base, knowledge, outside, args.files)
            peak = proc_status_mb(server.pid, "VmHWM")
            alive = httpx.get(f"{base}/readyz", timeout=5).status_code == 200
        finally:
            stop_server(server)
    five = sum(n for status, n in probe.statuses.items() if status >= 500)
    print(f"ready after {ready:.1f} s; {probe.tried()} requests")
    print("| what | figure | target |\n|---|---|---|")
    print(f"| bad inputs, other teams' requests and forged Slack requests tried | {bad} | |")
    print(f"| statuses seen | {', '.join(f'{s}: {n}' for s, n in sorted(probe.statuses.items()))} | |")
    print(f"| 5xx seen | {five} | 0 |")
    print(f"| answers submitted (each twice at once) | {submitted} | |")
    print(f"| answers lost / counted twice | {lost} / {doubled} | 0 / 0 |")
    print(f"| requests with another status than expected | {len(probe.failures)} | 0 |")
    times: tuple[float, float, float] = hostile["answer p50 / p99 / max (s)"]  # type: ignore[assignment]
    p50, p99, longest = times
    entry_live, docs_live = hostile["entry live after (s)"], hostile["documents live after (s)"]
    print(f"| hostile knowledge tried (entries and files) | {hostile['tried']} | |")
    print(f"| answers while it was read | {hostile['answers']}, lost {hostile['answers lost']} | lost 0 |")
    print(f"| answer p50 / p99 while it was read | {p50:.3f} s / {p99:.3f} s | p99 <= 0.5 s |")
    print(f"| longest stall: an answer / /healthz | {longest:.3f} s / {hostile['healthz max (s)']:.3f} s | |")
    print(f"| entry saved afterwards answered after | {_seconds(entry_live)} | answered |")
    print(f"| {args.files} small documents live after | {_seconds(docs_live)} | live |")
    print(f"| the linked secret said | {'yes' if hostile['secret said'] else 'no'} | no |")
    print(f"| server's peak memory | {peak:.0f} MB | |")
    print(f"| service ready after the probe | {'yes' if alive else 'no'} | yes |")
    for failure in probe.failures[:20]:
        print(f"  unexpected: {failure}")
    knowledge_held = (hostile["answers lost"] == 0 and p99 <= 0.5 and entry_live is not None
                      and docs_live is not None and not hostile["secret said"])
    return 0 if not (five or lost or doubled or probe.failures) and alive and knowledge_held else 1


def _seconds(value: object) -> str:
    return "never" if value is None else f"{value:.1f} s"


if __name__ == "__main__":
    sys.exit(main())
