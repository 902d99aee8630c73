"""Team rounds end to end: signed requests to the real app over HTTP, the fake Slack Web API, and a clock
the test moves (the app's round runner polls every 50 ms against it)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bot.config import Settings
from bot.errors import StorageUnavailableError
from bot.storage import RoundRecord
from tests.support.quiz_helpers import Clock, knowledge
from tests.support.round_helpers import letter_for, round_server
from tests.support.slack_fake import SPECIAL_MENTIONS, Call, FakeSlack, SlackSender, buttons, texts

RUNNER_LOG = "bot.rounds.runner"


@pytest.fixture
def server(settings: Settings, fake_assistant: Any, sqlite_url: str, fake: FakeSlack,
           clock: Clock) -> Iterator[SlackSender]:
    with round_server(settings, fake_assistant, sqlite_url, fake, clock, admins="UADMIN") as sender:
        yield sender


# -- reading what the bot sent ----------------------------------------------------------------------------


def command(slack: SlackSender, fake: FakeSlack, text: str, *, user: str = "U1",
            channel: str = "C1") -> dict[str, Any] | None:
    """Run `/quiz text`; what came back privately through its response URL, if anything (within 1 s)."""
    response, path = slack.command(text, user=user, channel=channel)
    assert response.status_code == 200
    try:
        return fake.wait_for("response", path=path, timeout=1.5)[0].body
    except AssertionError:
        return None


def posted_rounds(fake: FakeSlack) -> list[dict[str, Any]]:
    return [c.body for c in fake.calls("chat.postMessage") if round_buttons(c.body)]


def reveals(fake: FakeSlack) -> list[dict[str, Any]]:
    return [c.body for c in fake.calls("chat.postMessage")
            if c.body.get("text") in ("Team round results", "Resultados de la ronda del equipo")]


def round_buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in buttons(message) if b["action_id"].startswith("round_answer_")]


def round_of(slack: SlackSender, message: dict[str, Any]) -> RoundRecord:
    round_id = json.loads(round_buttons(message)[0]["value"])["r"]
    record = slack.app.state.services.rounds.store.get(round_id)
    assert record is not None
    return record


def choice(message: dict[str, Any], position: int, letter: str) -> dict[str, Any]:
    [found] = [b for b in round_buttons(message) if b["action_id"] == f"round_answer_{position}_{letter}"]
    return found


def click(slack: SlackSender, fake: FakeSlack, message: dict[str, Any], position: int, letter: str, *,
          user: str, wait: bool = True) -> dict[str, Any] | None:
    """A click on the round's channel message; the private reply it got."""
    before = len(fake.calls("chat.postEphemeral"))
    response, _ = slack.click(choice(message, position, letter), user=user, channel=message["channel"],
                              message_ts="1700000001.000100", ephemeral=False)
    assert response.status_code == 200
    if not wait:
        return None
    return fake.wait_for("chat.postEphemeral", before + 1)[before].body


def wait_until(check: Any, timeout: float = 30) -> Any:  # generous: a loaded machine is slow
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("timed out")


def posted_and_open(slack: SlackSender, fake: FakeSlack) -> dict[str, Any]:
    """The round message the runner posted, once the round is open: Slack has the message a moment before the
    runner keeps the round open, and a click in between finds it not open yet."""
    [message] = wait_until(lambda: posted_rounds(fake))
    wait_until(lambda: round_of(slack, message).status == "open")
    return message


def updates_saying(fake: FakeSlack, text: str) -> list[Call]:
    return [c for c in fake.calls("chat.update") if text in " ".join(texts(c.body))]


def shown(message: dict[str, Any]) -> str:
    return "\n".join(texts(message))


def runner_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == RUNNER_LOG and r.levelno >= logging.WARNING]


# -- a whole round ----------------------------------------------------------------------------------------


def test_a_whole_round(server: SlackSender, fake: FakeSlack, clock: Clock) -> None:
    assert command(server, fake, "round 2 en for 30m") is None  # nothing private: the round is in the channel
    [message] = posted_rounds(fake)
    assert message["channel"] == "C1" and message["text"] == "Team round: 2 questions"
    record = round_of(server, message)
    assert record.status == "open" and record.minutes == 30 and len(record.questions) == 2
    assert [b["action_id"] for b in round_buttons(message)] == [
        f"round_answer_{p}_{x}" for p in (0, 1) for x in "ABCD"]
    for b in round_buttons(message):  # a button says which round, question and letter: nothing more
        assert json.loads(b["value"]) == {"r": record.id, "p": int(b["action_id"].split("_")[2]),
                                          "c": b["text"]["text"]}
    body = json.dumps(message, ensure_ascii=False)
    for q in record.questions:
        explanation = [b.text for b in knowledge().question(q.doc_id, q.question, "en").blocks if b.kind == "text"][0]
        assert explanation[:50] not in body
    assert "✅" not in body and "Nobody has answered yet" in body and "<!date^" in body

    right = click(server, fake, message, 0, letter_for(record, 0), user="U1")
    assert right is not None and right["user"] == "U1" and right["channel"] == "C1"
    assert right["text"].startswith("✅") and "📖 Question" in shown(right) and not buttons(right)
    # The count in the channel follows the first answer at once, then at most every 5 seconds.
    [first] = wait_until(lambda: fake.calls("chat.update"))
    assert first.body["channel"] == "C1" and "1 person has answered" in shown(first.body)
    wrong = click(server, fake, message, 0, letter_for(record, 0, right=False), user="U2")
    assert wrong is not None and wrong["text"].startswith("❌") and "the correct answer is" in shown(wrong)
    again = click(server, fake, message, 0, letter_for(record, 0, right=False), user="U1")
    assert again is not None and again["text"].startswith("✅") and "the first answer counts" in shown(again)
    click(server, fake, message, 1, letter_for(record, 1), user="U1")

    time.sleep(0.3)
    assert len(fake.calls("chat.update")) == 1
    clock.advance(seconds=5)
    [update] = wait_until(lambda: updates_saying(fake, "2 people have answered"))
    assert update.body["ts"] == first.body["ts"] and round_buttons(update.body)  # the same message, still open

    clock.advance(minutes=30)
    [reveal] = wait_until(lambda: reveals(fake))
    text = shown(reveal)
    assert "2 people have answered" in text
    for q in record.questions:
        question = knowledge().question(q.doc_id, q.question, "en")
        letter = letter_for(record, record.questions.index(q))
        correct = question.correct_option
        assert correct is not None
        assert f"Correct answer: *{letter}) " in text and f"📖 Question {question.number}" in text
    assert re.search(r"Correct answer: .*· 1 of 2 got it right", text)  # the first question
    assert re.search(r"✅ \*[A-D]\)\* .* — 1", text) and re.search(r"▫️ \*[A-D]\)\* .* — 1", text)
    assert "1. <@U1> · 2/2\n2. <@U2> · 0/2" in text
    closed = wait_until(lambda: updates_saying(fake, "Round over"))
    assert not round_buttons(closed[-1].body)
    time.sleep(0.3)  # the runner keeps polling: still one reveal
    assert len(reveals(fake)) == 1 and len(posted_rounds(fake)) == 1
    stats = server.app.state.services.quiz.stats("U1", team="T1")
    assert (stats.answered, stats.correct) == (2, 2)
    assert server.app.state.services.stores.quiz.reviews("T1", "U2")  # the wrong answer comes back for review

    late = click(server, fake, message, 1, "A", user="U3")
    assert late is not None and "This round is over" in late["text"]


def test_the_starter_or_an_admin_ends_a_round_at_once(server: SlackSender, fake: FakeSlack) -> None:
    command(server, fake, "round en")
    [message] = posted_rounds(fake)
    refused = command(server, fake, "round end en", user="U2")
    assert refused is not None and "Only whoever started the round" in refused["text"]
    ended = command(server, fake, "round end en", user="UADMIN")
    assert ended is not None and "Round ended" in ended["text"]
    [reveal] = wait_until(lambda: reveals(fake))
    assert "ended early by <@UADMIN>" in shown(reveal) and "Nobody answered this time" in shown(reveal)
    late = click(server, fake, message, 0, "A", user="U2")
    assert late is not None and "over" in late["text"]
    assert "no round running" in (command(server, fake, "round end en") or {}).get("text", "")


def test_one_round_per_channel_and_none_in_a_direct_message(server: SlackSender, fake: FakeSlack) -> None:
    command(server, fake, "round")
    busy = command(server, fake, "round 3 en", user="U2")
    assert busy is not None and "already running" in busy["text"]
    dm = command(server, fake, "round en", channel="D123")
    assert dm is not None and "played in a channel" in dm["text"]
    assert len(posted_rounds(fake)) == 1


def test_round_commands_tell_what_is_wrong_with_escaped_text(server: SlackSender, fake: FakeSlack) -> None:
    hostile = command(server, fake, "round en <!channel> <script>")
    assert hostile is not None and "&lt;script&gt;" in hostile["text"]
    assert not any(s in hostile["text"] for s in SPECIAL_MENTIONS)
    assert "Invalid duration" in (command(server, fake, "round en for ever") or {})["text"]
    assert "1 to 10 questions" in (command(server, fake, "round 40 en") or {})["text"]
    assert "/quiz schedule weekly" in (command(server, fake, "round help en") or {})["text"]
    assert "Say the day and time" in (command(server, fake, "schedule weekly someday en") or {})["text"]
    assert "Unknown time zone" in (command(server, fake, "schedule weekly mon 10:00 Mars/Base en") or {})["text"]
    assert not posted_rounds(fake)


def test_schedules_are_added_listed_and_cancelled_by_their_owner(server: SlackSender, fake: FakeSlack) -> None:
    added = command(server, fake, "schedule weekly mon 11:00 2 slurm for 30m Europe/Madrid en")
    assert added is not None and "every Monday at 11:00 (Europe/Madrid), 2 questions on _slurm_" in added["text"]
    command(server, fake, "programar semanal jueves 9:30 es", user="U2")
    listed = command(server, fake, "schedule list en")
    assert listed is not None
    assert "every Monday at 11:00" in listed["text"] and "every Thursday at 09:30 (UTC)" in listed["text"]
    ids = re.findall(r"\*#(\d+)\*", listed["text"])
    assert len(ids) == 2
    refused = command(server, fake, f"schedule cancel {ids[1]} en", user="U1")
    assert refused is not None and "Only whoever scheduled" in refused["text"]
    assert "cancelled" in (command(server, fake, f"schedule cancel {ids[1]} en", user="U2") or {})["text"]
    assert "#" + ids[1] not in (command(server, fake, "schedule list en") or {})["text"]


# -- across restarts and replicas -------------------------------------------------------------------------


def test_a_round_spans_a_restart(settings: Settings, fake_assistant: Any, sqlite_url: str, fake: FakeSlack,
                                 clock: Clock) -> None:
    with round_server(settings, fake_assistant, sqlite_url, fake, clock) as first:
        command(first, fake, "round 1 en")
        [message] = posted_rounds(fake)
        record = round_of(first, message)
        click(first, fake, message, 0, letter_for(record, 0), user="U1")
    clock.advance(minutes=30)  # the process was down half the round
    with round_server(settings, fake_assistant, sqlite_url, fake, clock) as second:
        reply = click(second, fake, message, 0, letter_for(record, 0, right=False), user="U2")
        assert reply is not None and reply["text"].startswith("❌")
        again = click(second, fake, message, 0, "A", user="U1")
        assert again is not None and "the first answer counts" in shown(again)
        assert not reveals(fake)
        clock.advance(minutes=30)
        [reveal] = wait_until(lambda: reveals(fake))
        assert "2 people have answered" in shown(reveal) and "1. <@U1> · 1/1" in shown(reveal)
        time.sleep(0.3)
    assert len(reveals(fake)) == 1 and len(posted_rounds(fake)) == 1


def test_a_scheduled_round_starts_and_ends_on_time_across_restarts(
    settings: Settings, fake_assistant: Any, sqlite_url: str, fake: FakeSlack, clock: Clock
) -> None:
    with round_server(settings, fake_assistant, sqlite_url, fake, clock) as first:
        command(first, fake, "schedule weekly mon 10:00 2 en for 30m")  # START is Monday 09:00 UTC
        clock.advance(minutes=59)
        time.sleep(0.3)
        assert not posted_rounds(fake)
    clock.advance(minutes=2)  # 10:01: the time came while no process was up
    with round_server(settings, fake_assistant, sqlite_url, fake, clock) as second:
        [message] = wait_until(lambda: posted_rounds(fake))
        record = round_of(second, message)
        assert record.schedule_id is not None and "Scheduled by <@U1>" in shown(message)
    clock.advance(minutes=31)  # it ends while no process is up
    with round_server(settings, fake_assistant, sqlite_url, fake, clock):
        wait_until(lambda: reveals(fake))
        time.sleep(0.3)
    assert len(reveals(fake)) == 1 and len(posted_rounds(fake)) == 1


def test_two_replicas_on_postgres_post_grade_and_reveal_once(
    settings: Settings, fake_assistant: Any, postgres_url: str, fake: FakeSlack, clock: Clock
) -> None:
    with round_server(settings, fake_assistant, postgres_url, fake, clock) as one, \
            round_server(settings, fake_assistant, postgres_url, fake, clock) as two:
        command(one, fake, "schedule weekly mon 09:30 1 en for 30m")
        clock.advance(minutes=31)  # both runners see it due
        message = posted_and_open(one, fake)
        record = round_of(one, message)
        people = [f"U{i:02d}" for i in range(10)]

        def clicks(user: str) -> None:  # each person clicks on both replicas at once
            for replica in (one, two):
                click(replica, fake, message, 0, letter_for(record, 0), user=user, wait=False)

        with ThreadPoolExecutor(10) as pool:
            list(pool.map(clicks, people))
        replies = fake.wait_for("chat.postEphemeral", 20)
        assert sum("the first answer counts" in shown(r.body) for r in replies) == 10
        clock.advance(minutes=30)
        [reveal] = wait_until(lambda: reveals(fake))
        time.sleep(0.5)
        assert len(reveals(fake)) == 1 and len(posted_rounds(fake)) == 1
        assert "10 people have answered" in shown(reveal) and "10 of 10 got it right" in shown(reveal)
        assert len(one.app.state.services.stores.quiz.answered_attempts(team="T1")) == 10


def test_fifty_concurrent_clicks_are_each_graded_once(server: SlackSender, fake: FakeSlack, clock: Clock) -> None:
    command(server, fake, "round 1 en")
    [message] = posted_rounds(fake)
    record = round_of(server, message)
    people = [f"U{i:02d}" for i in range(50)]
    letters = {user: letter_for(record, 0, right=i % 2 == 0) for i, user in enumerate(people)}

    def all_click() -> None:
        with ThreadPoolExecutor(50) as pool:
            list(pool.map(lambda u: click(server, fake, message, 0, letters[u], user=u, wait=False), people))

    all_click()
    first = fake.wait_for("chat.postEphemeral", 50)
    assert sorted(c.body["user"] for c in first) == people
    assert not any("first answer counts" in shown(c.body) for c in first)
    assert sum(c.body["text"].startswith("✅") for c in first) == 25
    all_click()  # everyone clicks again, at once
    second = fake.wait_for("chat.postEphemeral", 100)[50:]
    assert all("first answer counts" in shown(c.body) for c in second)
    services = server.app.state.services
    assert len(services.stores.quiz.answered_attempts(team="T1")) == 50
    assert services.rounds.store.people(record.id) == 50
    time.sleep(0.3)
    assert len(fake.calls("chat.update")) == 1  # one update until 5 seconds pass
    clock.advance(seconds=5)
    wait_until(lambda: updates_saying(fake, "50 people have answered"))
    assert len(fake.calls("chat.update")) == 2


# -- a round's message, tagged, is posted once --------------------------------------------------------------


def round_messages(fake: FakeSlack, channel: str = "C1") -> list[dict[str, Any]]:
    """The round messages in a channel now, as Slack keeps them."""
    return [m for m in fake.messages(channel) if (m.get("metadata") or {}).get("event_type") == "eksbot_round"]


def test_a_rounds_message_and_its_reveal_carry_the_rounds_id_and_nothing_is_read_to_post_it(
    server: SlackSender, fake: FakeSlack, clock: Clock
) -> None:
    fake.clock = clock
    command(server, fake, "round 1 en for 30m")
    [message] = posted_rounds(fake)
    record = round_of(server, message)
    assert record.ends_at is not None
    assert message["metadata"] == {"event_type": "eksbot_round", "event_payload": {
        "round_id": record.id, "ends_at": int(record.ends_at.timestamp())}}
    assert "answer" not in json.dumps(message["metadata"]) and record.secret not in json.dumps(message)
    clock.advance(minutes=31)
    [reveal] = wait_until(lambda: reveals(fake))
    assert reveal["metadata"] == {"event_type": "eksbot_round_reveal", "event_payload": {"round_id": record.id}}
    assert not fake.calls("conversations.history")  # a round's first try has nothing to look for


def test_a_round_whose_post_was_not_recorded_is_not_posted_again(
    server: SlackSender, fake: FakeSlack, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slack accepted the round's message, then the process lost it before the database had its ts (a crash,
    here the write failing once): when the lease runs out and the round is taken up again, its message is
    found in the channel and recorded, not posted a second time."""
    fake.clock = clock
    store = server.app.state.services.rounds.store
    mark_open = store.mark_open
    calls = iter([True])

    def lost_once(*args: Any, **kwargs: Any) -> bool:
        if next(calls, False):
            raise StorageUnavailableError("the database is unavailable")
        return mark_open(*args, **kwargs)

    monkeypatch.setattr(store, "mark_open", lost_once)
    command(server, fake, "round 2 en for 30m")
    [first] = round_messages(fake)
    clock.advance(minutes=3)  # the lease of the process that posted it has run out
    record = wait_until(lambda: (r := store.live("T1", "C1")) is not None and r.status == "open" and r)
    time.sleep(0.3)
    assert round_messages(fake) == [first]  # exactly one round message in the channel
    assert record.message_ts == first["ts"]
    assert record.ends_at is not None and int(record.ends_at.timestamp()) == first["metadata"]["event_payload"][
        "ends_at"]  # the end the message shows
    [looked] = fake.calls("conversations.history")
    assert looked.body["channel"] == "C1" and looked.body["include_all_metadata"] in ("1", "true", True)
    assert float(looked.body["oldest"]) <= float(first["ts"]) and 0 < int(looked.body["limit"]) <= 100
    [posted] = posted_rounds(fake)
    click(server, fake, posted, 0, letter_for(record, 0), user="U1")  # the round goes on from that message
    wait_until(lambda: updates_saying(fake, "1 person has answered"))
    assert {c.body["ts"] for c in fake.calls("chat.update")} == {first["ts"]}


def test_a_round_is_posted_when_the_channel_cannot_be_read(
    server: SlackSender, fake: FakeSlack, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """Looking for the message of a round tried before needs channels:history (groups:history in a private
    channel); without it, or rate limited, the round is posted as before and a warning names Slack's error."""
    fake.clock = clock
    fake.fail("chat.postMessage", "internal_error")  # the first try fails: the runner tries again
    fake.fail("conversations.history", "missing_scope")
    assert command(server, fake, "round 1 en") is not None  # "it goes out shortly"
    [message] = wait_until(lambda: round_messages(fake))
    record = wait_until(lambda: (r := round_of(server, message)).status == "open" and r)
    assert record.message_ts == message["ts"] and len(fake.calls("conversations.history")) == 1
    warnings = [r.getMessage() for r in caplog.records if r.name == "bot.slack.rounds" and r.levelno == logging.WARNING]
    assert warnings == ["could not look for a round's message before posting it again, so it is posted: "
                        "SlackApiError (missing_scope)"]


# -- failures end cleanly ---------------------------------------------------------------------------------


def test_a_round_in_a_channel_without_the_bot_tells_the_starter_and_ends(
    server: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail("chat.postMessage", "not_in_channel")
    reply = command(server, fake, "round en")
    assert reply is not None and "I can't post in this channel (not_in_channel)" in reply["text"]
    assert "/invite" in reply["text"]
    time.sleep(0.3)
    assert len(fake.calls("chat.postMessage")) == 1  # not tried again
    assert [w for w in runner_warnings(caplog) if "not_in_channel" in w] == [
        "a round ended: Slack refused its channel (not_in_channel)"]
    assert command(server, fake, "round en") is None  # invited now: a new round goes out
    assert len(fake.calls("chat.postMessage")) == 2


def test_a_scheduled_round_in_a_deleted_channel_ends_and_pauses_its_schedule(
    server: SlackSender, fake: FakeSlack, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    command(server, fake, "schedule weekly mon 09:30 en")
    fake.fail("chat.postMessage", "channel_not_found")
    clock.advance(minutes=31)
    wait_until(lambda: fake.calls("chat.postMessage"))
    time.sleep(0.3)
    clock.advance(days=7)  # next week: paused, so nothing is tried
    time.sleep(0.3)
    assert len(fake.calls("chat.postMessage")) == 1
    assert runner_warnings(caplog) == ["a round ended: Slack refused its channel (channel_not_found); "
                                       "its schedule is paused"]
    listed = command(server, fake, "schedule list en")
    assert listed is not None and "paused (channel_not_found)" in listed["text"]
    resumed = command(server, fake, "schedule resume en")
    assert resumed is not None and "resumed" in resumed["text"]


def test_a_bot_removed_during_a_round_ends_it_and_pauses_the_schedule(
    server: SlackSender, fake: FakeSlack, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    command(server, fake, "schedule weekly mon 09:30 1 en")
    clock.advance(minutes=31)
    message = posted_and_open(server, fake)
    fake.fail("chat.update", "not_in_channel", times=3)
    click(server, fake, message, 0, "A", user="U1")  # the count update finds the bot gone
    wait_until(lambda: [w for w in runner_warnings(caplog) if "not_in_channel" in w])
    late = click(server, fake, message, 0, "B", user="U2")
    assert late is not None and "over" in late["text"]
    clock.advance(hours=2)
    time.sleep(0.3)
    assert not reveals(fake)
    assert runner_warnings(caplog) == ["a round ended: Slack refused its channel (not_in_channel); "
                                       "its schedule is paused"]
    assert "paused (not_in_channel)" in (command(server, fake, "schedule list en") or {})["text"]


def test_a_round_speaks_its_starters_language_and_each_result_the_clickers(
    server: SlackSender, fake: FakeSlack
) -> None:
    store = server.app.state.services.stores.people
    store.set_language("T1", "U1", "en")
    store.set_language("T1", "U2", "es")
    command(server, fake, "round 1")  # U1 chose English: the round is in English for everyone
    [message] = posted_rounds(fake)
    assert message["text"] == "Team round: 1 question"
    record = round_of(server, message)
    spanish = click(server, fake, message, 0, letter_for(record, 0), user="U2")
    assert spanish is not None and "¡Correcto!" in spanish["text"]
    unchosen = click(server, fake, message, 0, letter_for(record, 0), user="U3")  # no choice: the round's
    assert unchosen is not None and "Correct!" in unchosen["text"]
    wait_until(lambda: fake.calls("views.publish"))  # their Home shows the new progress
