"""Free text cannot break a record: the text export keeps names, titles and notes with control
characters on their own line, and the replay's terminal lines carry no control characters."""

from __future__ import annotations

from tests.conftest import create


def test_text_export_keeps_free_text_on_its_own_line(client):
    # a line feed in a name and an escape anywhere are refused now (api.md, "Text people type")
    refused = client.post("/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee\n[Winners \"Zed\"]"],
                                          "title": "Night\x1b[2J"})
    assert refused.status_code == 422 and {"players.3", "title"} <= set(refused.get_json()["errors"])
    players = ["Ann", "Bob", "Cas", "Dee"]
    game = create(client, players=players, title='Night\n[Status "finished"]', options={"limit": 2})
    assert game.post({"type": "deal"}).status_code == 201
    assert game.post({"type": "note", "text": "fine\nHand 9 · dealer Zed\n  Result: fake"}).status_code == 201
    assert game.post({"type": "adjust", "player": "Ann", "amount": 2, "reason": "left\r\nReason: x"}).status_code == 201
    for token in (True, False):
        text = game.get("/export?format=text", token=token).get_data(as_text=True)
        lines = text.splitlines()
        assert not any(line.startswith(("[Winners \"Zed", "Hand 9", "  Result: fake",
                                        "Reason: x")) for line in lines), text
        assert sum(line.startswith("[Status ") for line in lines) == 1
        assert "\x1b" not in text and "\r" not in text
        assert [line for line in lines if line.startswith("Hand ")] == ["Hand 1 · dealer Ann"]
        assert [line for line in lines if line.startswith('  Note: fine\\nHand 9 · dealer Zed\\n  Result: fake')], text


def test_replay_lines_carry_no_terminal_control_characters():
    from replays import timeline

    steps = [{"seq": 3, "hand": 1, "type": "note", "summary": "Note: a\x1b[2Jb\nc", "undone": False, "undone_by": None}]
    lines = timeline.render("Night\x1b]0;pwned\x07", steps)
    assert all("\x1b" not in line and "\x07" not in line and "\n" not in line for line in lines)
