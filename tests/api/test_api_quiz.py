"""The quiz over HTTP, through the application and its real engine and database."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from bot.api import create_app
from bot.config import Settings
from bot.services import Services
from tests.support.api_helpers import client_for
from tests.support.quiz_helpers import right_letter, wrong_letter


def draw(client: TestClient, user: str = "alice", **extra: object) -> dict:
    response = client.post("/v1/quiz/next", json={"user": user, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def test_draw_reveals_no_answer(client: TestClient) -> None:
    prompt = draw(client, lang="en")
    assert set(prompt) == {"attempt_id", "question", "prompt", "options"}
    assert [o["key"] for o in prompt["options"]] == ["A", "B", "C", "D"]
    assert all(set(o) == {"key", "text"} for o in prompt["options"])


def test_answer_grades_once_and_a_second_answer_is_409(client: TestClient) -> None:
    prompt = draw(client, lang="en")
    right = right_letter(prompt)
    first = client.post("/v1/quiz/answer", json={"user": "alice", "attempt_id": prompt["attempt_id"], "choice": right})
    assert first.status_code == 200
    body = first.json()
    assert body["correct"] is True and body["correct_choice"] == right
    assert body["citation"]["question"] == prompt["question"] and body["explanation"]
    again = client.post("/v1/quiz/answer", json={"user": "alice", "attempt_id": prompt["attempt_id"], "choice": right})
    assert again.status_code == 409
    assert again.json()["result"]["correct"] is True
    stats = client.get("/v1/quiz/stats", params={"user": "alice"}).json()
    assert stats["answered"] == 1 and stats["correct"] == 1


def test_wrong_answer_counts_and_comes_back_for_review(client: TestClient) -> None:
    prompt = draw(client, "bob", lang="es")
    wrong = wrong_letter(prompt)
    body = client.post("/v1/quiz/answer", json={"user": "bob", "attempt_id": prompt["attempt_id"],
                                                "choice": wrong, "confidence": "sure"}).json()
    assert body["correct"] is False and body["correct_choice"] != wrong
    stats = client.get("/v1/quiz/stats", params={"user": "bob", "lang": "es"}).json()
    assert stats["answered"] == 1 and stats["correct"] == 0 and stats["accuracy"] == 0.0
    board = client.get("/v1/quiz/leaderboard").json()
    assert [e["user"] for e in board["entries"]] == ["bob"]
    hardest = client.get("/v1/quiz/questions").json()["questions"]
    assert hardest[0]["question"] == prompt["question"] and hardest[0]["accuracy"] == 0.0


def test_stats_name_topics_in_the_language_asked_or_played(client: TestClient) -> None:
    prompt = draw(client, "erin", lang="en", topic="karpenter")
    client.post("/v1/quiz/answer", json={"user": "erin", "attempt_id": prompt["attempt_id"],
                                         "choice": right_letter(prompt)})
    played = client.get("/v1/quiz/stats", params={"user": "erin"})  # the default language is Spanish
    assert played.status_code == 200
    body = played.json()
    assert body["lang"] == "en" and body["per_topic"]["Karpenter"] == {"answered": 1, "correct": 1, "accuracy": 1.0}
    assert body["per_topic"]["Slinky and Slurm"] == {"answered": 0, "correct": 0, "accuracy": None}
    asked = client.get("/v1/quiz/stats", params={"user": "erin", "lang": "es"}).json()
    assert asked["lang"] == "es" and "Slinky y Slurm" in asked["per_topic"]
    refused = client.get("/v1/quiz/stats", params={"user": "erin", "lang": "fr"})
    assert refused.status_code == 422 and "lang" in refused.text


def test_topic_filter_and_unknown_topic(client: TestClient) -> None:
    assert draw(client, topic="slurm", lang="en")["question"] in (3, 4)
    assert draw(client, topic="almacenamiento", lang="es")["question"] == 8
    missing = client.post("/v1/quiz/next", json={"user": "alice", "topic": "paella", "lang": "es"})
    assert missing.status_code == 404
    assert "Karpenter" in missing.json()["topics"]


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"user": "mallory"}, 403),
        ({"attempt_id": "no-such-attempt"}, 404),
        ({"choice": "Z"}, 422),
        ({"choice": ""}, 422),
        ({"confidence": "maybe"}, 422),
        ({"user": "   "}, 422),
    ],
)
def test_bad_answers_get_4xx_with_a_reason(client: TestClient, change: dict, status: int) -> None:
    prompt = draw(client, lang="en")
    payload = {"user": "alice", "attempt_id": prompt["attempt_id"], "choice": "A", **change}
    response = client.post("/v1/quiz/answer", json=payload)
    assert response.status_code == status
    assert response.json()["error"]
    stats = client.get("/v1/quiz/stats", params={"user": "alice"}).json()
    assert stats["answered"] == 0


def test_bad_draws_get_422(client: TestClient) -> None:
    assert client.post("/v1/quiz/next", json={"user": ""}).status_code == 422
    assert client.post("/v1/quiz/next", json={"user": "a", "lang": "fr"}).status_code == 422
    assert client.get("/v1/quiz/stats").status_code == 422
    assert client.get("/v1/quiz/leaderboard", params={"limit": 0}).status_code == 422


@pytest.mark.parametrize(
    "payload",
    [{"user": "u" * 129}, {"user": "a\x00b"}, {"user": "ok", "team": "t" * 65}, {"user": "ok", "team": "   "}],
)
def test_users_and_teams_that_cannot_be_stored_are_422(client: TestClient, payload: dict) -> None:
    response = client.post("/v1/quiz/next", json=payload)
    assert response.status_code == 422 and response.json()["error"]


def test_malformed_attempt_id_is_422(client: TestClient) -> None:
    response = client.post("/v1/quiz/answer", json={"user": "alice", "attempt_id": "x\x00y", "choice": "A"})
    assert response.status_code == 422


def test_while_the_database_is_down_quiz_routes_are_503_and_questions_are_still_answered(
    settings: Settings, services_without_database: Services
) -> None:
    client = TestClient(create_app(settings, services=services_without_database))
    for response in (client.post("/v1/quiz/next", json={"user": "alice"}),
                     client.get("/v1/quiz/stats", params={"user": "alice"}),
                     client.get("/v1/quiz/leaderboard")):
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
        assert response.json()["error"].startswith("database unavailable")
        assert "secret_user" not in response.text and "127.0.0.1" not in response.text
    assert client.post("/v1/query", json={"question": "How do I enable EFA for NCCL?"}).status_code == 200


@pytest.mark.parametrize(
    ("path", "params"),
    [("/v1/quiz/questions", {"team": "\x00"}), ("/v1/quiz/questions", {"team": ""}),
     ("/v1/quiz/leaderboard", {"team": "a\x00"}), ("/v1/quiz/stats", {"user": "alice", "team": "\x1b"}),
     ("/v1/quiz/stats", {"user": " "}), ("/v1/quiz/questions", {"team": "t" * 65})],
)
def test_query_parameters_are_checked_like_body_fields(client: TestClient, path: str, params: dict) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 422 and response.json()["error"]


def test_a_token_bound_to_a_user_or_team_cannot_play_as_anyone_else(settings: Settings, services: Services) -> None:
    from pydantic import SecretStr


    scoped = settings.model_copy(update={"api_tokens_raw": SecretStr(
        "alice-token:user=alice, team-token:team=platform, both-token:team=platform:user=bob, admin-token")})
    client = client_for(scoped, services)

    def as_(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    assert client.post("/v1/quiz/next", json={"user": "mallory"}, headers=as_("alice-token")).status_code == 403
    prompt = client.post("/v1/quiz/next", json={"user": "alice"}, headers=as_("alice-token"))
    assert prompt.status_code == 200
    stolen = {"user": "mallory", "attempt_id": prompt.json()["attempt_id"], "choice": "A"}
    assert client.post("/v1/quiz/answer", json=stolen, headers=as_("alice-token")).status_code == 403
    assert client.get("/v1/quiz/stats", params={"user": "mallory"}, headers=as_("alice-token")).status_code == 403

    # A team-bound token plays in its team (by default too) and reads only its team's boards.
    refused = client.post("/v1/quiz/next", json={"user": "carol", "team": "other"}, headers=as_("team-token"))
    assert refused.status_code == 403 and "platform" in refused.json()["error"]
    drawn = client.post("/v1/quiz/next", json={"user": "carol"}, headers=as_("team-token")).json()
    graded = client.post("/v1/quiz/answer", json={"user": "carol", "attempt_id": drawn["attempt_id"], "choice": "A"},
                         headers=as_("team-token"))
    assert graded.status_code == 200
    board = client.get("/v1/quiz/leaderboard", headers=as_("team-token")).json()
    assert board["team"] == "platform" and [e["user"] for e in board["entries"]] == ["carol"]
    assert client.get("/v1/quiz/leaderboard", params={"team": "default"}, headers=as_("team-token")).status_code == 403
    assert client.get("/v1/quiz/questions", headers=as_("team-token")).json()["team"] == "platform"
    assert client.post("/v1/quiz/next", json={"user": "dave"}, headers=as_("both-token")).status_code == 403
    assert client.get("/v1/quiz/stats", params={"user": "bob"}, headers=as_("both-token")).status_code == 200
    # An unbound token acts for anyone, as before; only it reads what concerns everyone (the knowledge gaps).
    assert client.post("/v1/quiz/next", json={"user": "mallory"}, headers=as_("admin-token")).status_code == 200
    assert client.get("/v1/admin/gaps", headers=as_("admin-token")).status_code == 200
    for bound in ("alice-token", "team-token", "both-token"):
        assert client.get("/v1/admin/gaps", headers=as_(bound)).status_code == 403

    # Another team's attempt is unknown to a team-bound token: not graded, its answer not shown.
    other_team = services.quiz.next_question("carol", team="research", question=3, lang="en")
    crossed = client.post("/v1/quiz/answer", json={"user": "carol", "attempt_id": other_team.attempt_id,
                                                   "choice": "A"}, headers=as_("team-token"))
    assert crossed.status_code == 404 and "result" not in crossed.json()
    assert services.quiz.stats("carol", team="research").answered == 0
    # A token bound to a person only acts in the default team: no other team's boards, draws or attempts.
    for path, params in (("/v1/quiz/leaderboard", {"team": "research"}), ("/v1/quiz/questions", {"team": "research"}),
                         ("/v1/quiz/stats", {"user": "alice", "team": "research"})):
        assert client.get(path, params=params, headers=as_("alice-token")).status_code == 403, path
    assert client.post("/v1/quiz/next", json={"user": "alice", "team": "research"},
                       headers=as_("alice-token")).status_code == 403
    theirs = services.quiz.next_question("alice", team="research", question=2, lang="en")
    assert client.post("/v1/quiz/answer", json={"user": "alice", "attempt_id": theirs.attempt_id, "choice": "A"},
                       headers=as_("alice-token")).status_code == 404


@pytest.mark.parametrize("raw", ["tok:role=admin", "tok:user=", "tok:user=a:user=b", ":user=alice"])
def test_a_malformed_token_entry_stops_the_start_without_showing_the_token(settings: Settings, raw: str) -> None:
    from pydantic import SecretStr

    from bot.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        create_app(settings.model_copy(update={"api_tokens_raw": SecretStr(f"fine-token, {raw}")}))
    assert "EKSBOT_API_TOKENS entry 2" in str(info.value) and "tok" not in str(info.value).replace("token", "")


def test_stats_before_any_answer_have_no_accuracy_anywhere(client: TestClient) -> None:
    stats = client.get("/v1/quiz/stats", params={"user": "newcomer", "lang": "en"}).json()
    assert stats["answered"] == 0 and stats["accuracy"] is None
    assert stats["per_topic"] and all(t["accuracy"] is None for t in stats["per_topic"].values())
