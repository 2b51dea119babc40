"""Shapes of the API's responses, for the OpenAPI document (``service/web/openapi.py``).

The views build plain dicts; these schemas describe them. ``state`` and game-specific views
are objects whose fields each rules file lists.
"""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields

#: Game statuses (api.md, ``GET /games/<id>``; recording.md, ``abandon``).
STATUSES = ["in_progress", "finished", "abandoned"]


class ProblemSchema(Schema):
    """An RFC 9457 problem body (``application/problem+json``); some codes add fields
    (``import_invalid``: ``seq``, ``rule_code``, ``rule_message``; ``already_imported``:
    ``game_id``; ``record_damaged``: ``game_id``, ``seq``)."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, metadata={"description": "urn:kibitz:problem:<code>"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable snake_case code"})
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                         metadata={"description": "payload errors: field -> messages"})
    version = fields.Integer(metadata={"description": "the game's current version (errors about a game)"})
    seq = fields.Integer(allow_none=True, metadata={
        "description": "import_invalid: the first event refused; record_damaged: the damaged event (null when "
                       "the games row is what is damaged)"})
    rule_code = fields.String(metadata={"description": "import_invalid, correction_conflict: the rules code of "
                                                       "that refusal"})
    rule_message = fields.String(metadata={"description": "import_invalid: the rules' sentence"})
    game_id = fields.String(metadata={"description": "already_imported: the stored copy of the game; "
                                                     "record_damaged: the damaged game"})
    conflicts_with = fields.Integer(metadata={"description": "correction_conflict: the first later event that no "
                                                            "longer fits after the correction"})
    database = fields.String(metadata={"description": "storage_unavailable from GET /health: what is wrong with the "
                                                      "database (not answering, cannot be reached)"})


class PlayerStateSchema(Schema):
    """One player in ``state.players`` (seat order): ``name`` and the rules file's fields."""

    class Meta:
        unknown = INCLUDE

    name = fields.String(required=True)


class StateSchema(Schema):
    """``state``: the fields every game has (api.md, "State") and each rules file's own."""

    class Meta:
        unknown = INCLUDE

    status = fields.String(required=True, metadata={"enum": STATUSES})
    phase = fields.String(required=True)
    to_act = fields.List(fields.String(), required=True)
    players = fields.List(fields.Nested(PlayerStateSchema), required=True)
    winners = fields.List(fields.String())
    losers = fields.List(fields.String())
    next_dealer = fields.String(allow_none=True, metadata={"description": "between hands: who deals the next one"})


class GameSummarySchema(Schema):
    """A game without its state (lists)."""

    id = fields.String(required=True)
    game = fields.String(required=True)
    title = fields.String(allow_none=True)
    players = fields.List(fields.String(), required=True)
    visibility = fields.String(required=True, metadata={"enum": ["table", "open"]})
    options = fields.Dict(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": STATUSES})
    forked_from = fields.Nested(lambda: ForkedFromSchema(), allow_none=True,
                                metadata={"description": "a what-if fork: the game and seq it branched off"})


#: A SHA-256 in lowercase hex (api.md, "A tamper-evident record").
HASH = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


class GameSchema(GameSummarySchema):
    """A game with ``record_hash`` and ``state`` (the engine's view for this reader)."""

    record_hash = fields.String(required=True, metadata={
        **HASH, "description": "the last event's hash (api.md, 'A tamper-evident record'); its first 12 hex "
                               "digits are the game's fingerprint"})
    state = fields.Nested(StateSchema, required=True)


class CreatedGameSchema(GameSchema):
    """The 201 body of ``POST /games``: the game and its write token (shown only here)."""

    token = fields.String(required=True)
    imported_at = fields.String(metadata={"description": "POST /games/import: when this copy was imported"})


class GameListSchema(Schema):
    """``GET /games``."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class StoredEventSchema(Schema):
    """One stored event."""

    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    recorded_at = fields.String(required=True)
    at = fields.String(allow_none=True, required=True)
    salt = fields.String(metadata={"type": "string", "pattern": "^[0-9a-f]{32}$",
                                   "description": "the event's random salt; only where its data is shown in full"})
    hash = fields.String(required=True, metadata={
        **HASH, "description": "SHA-256 of the previous event's hash and this event's canonical JSON"})


class LoggedEventSchema(StoredEventSchema):
    """One event of ``GET /games/<id>/events``."""

    undone = fields.Boolean(required=True)
    corrected_by = fields.Integer(allow_none=True, required=True,
                                  metadata={"description": "the seq of the correct now in force for it, or null"})


class EventLogSchema(Schema):
    """``GET /games/<id>/events``."""

    events = fields.List(fields.Nested(LoggedEventSchema), required=True)
    version = fields.Integer(required=True)
    next_after = fields.Integer(allow_none=True, required=True)


class UndoTargetSchema(Schema):
    """``target`` of an undo or redo: the action it cancels or restores, in a short phrase."""

    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    summary = fields.String(required=True)


class RecordedSchema(Schema):
    """The 201 body of a recorded event, undo or redo."""

    seq = fields.Integer(required=True)
    version = fields.Integer(required=True)
    event = fields.Nested(StoredEventSchema, required=True)
    state = fields.Nested(StateSchema, required=True)
    target = fields.Nested(UndoTargetSchema, metadata={"description": "undo/redo: the action cancelled or restored; "
                                                                      "correct: the entry as it stood"})
    replacement = fields.Nested(lambda: ReplacementSchema(),
                                metadata={"description": "correct: what took the entry's place"})
    irregularities = fields.List(fields.Nested(lambda: IrregularitySchema()),
                                 metadata={"description": "irregularities this event has just proved"})


class ReplacementSchema(Schema):
    """``replacement`` of a correction: the action put in the entry's place, in a short phrase."""

    type = fields.String(required=True)
    summary = fields.String(required=True)


class DryRunSchema(Schema):
    """The 200 of a write with ``?dry_run=true``: nothing stored or remembered."""

    dry_run = fields.Boolean(required=True, metadata={"enum": [True]})
    state = fields.Nested(StateSchema, required=True, metadata={"description": "the state the write would give"})
    irregularities = fields.List(fields.Nested(lambda: IrregularitySchema()), required=True)
    replayed = fields.Boolean(metadata={"description": "the Idempotency-Key was seen before with this body: the "
                                                       "write would return its first response (the state is now's)"})


class LegalActionSchema(Schema):
    """One action the rules allow now (or a bookkeeping action open now); some games add the
    action's own fields (Stop the Bus ``take``, ``take_all``)."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True)
    player = fields.String(allow_none=True)
    cards = fields.List(fields.Raw(), allow_none=True)
    possible = fields.List(fields.Raw())
    target = fields.Nested(UndoTargetSchema)


class ActionsSchema(Schema):
    """``GET /games/<id>/actions``."""

    version = fields.Integer(required=True)
    actions = fields.List(fields.Nested(LegalActionSchema), required=True)


class StateAtSchema(Schema):
    """``GET /games/<id>/states/<seq>``."""

    seq = fields.Integer(required=True)
    version = fields.Integer(required=True)
    state = fields.Nested(StateSchema, required=True)


class TargetSchema(Schema):
    """The action an undo cancelled or a redo restored."""

    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)


class CorrectionSchema(Schema):
    """An undo, redo or correct whose target action was recorded in the hand."""

    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    reason = fields.String(allow_none=True)
    recorded_at = fields.String(required=True)
    at = fields.String(allow_none=True)
    target = fields.Nested(TargetSchema, required=True)
    action = fields.Dict(metadata={"description": "correct: the action put in the target's place"})
    trick = fields.Integer(allow_none=True, metadata={"description": "trick games: the trick the target joined"})
    turn = fields.Integer(allow_none=True, metadata={"description": "turn games: the turn the target joined"})


class HandSchema(Schema):
    """``GET /games/<id>/hands/<n>``: the game's hand view (rules file) plus corrections."""

    class Meta:
        unknown = INCLUDE

    corrections = fields.List(fields.Nested(CorrectionSchema), required=True)


class PlaySchema(Schema):
    """One play of a trick."""

    player = fields.String(required=True)
    card = fields.Raw(required=True)
    seq = fields.Integer(required=True)
    recorded_at = fields.String(allow_none=True)
    corrected_by = fields.Integer(metadata={"description": "a corrected play: the correct in force"})
    corrected = fields.String(metadata={"description": "a corrected play: 'corrected: Dee played 9♣, not 9♠'"})


class TrickSchema(Schema):
    """``GET /games/<id>/hands/<n>/tricks/<t>``: the game's trick view plus times and
    corrections."""

    class Meta:
        unknown = INCLUDE

    plays = fields.List(fields.Nested(PlaySchema), required=True)
    winner = fields.String(allow_none=True)
    corrections = fields.List(fields.Nested(CorrectionSchema), required=True)


class HealthSchema(Schema):
    """``GET /health``."""

    status = fields.String(required=True)


class ForkedFromSchema(Schema):
    """Where a what-if fork branched off: the original game and the event after which."""

    game = fields.String(required=True)
    seq = fields.Integer(required=True)


class TimelineStepSchema(Schema):
    """One step of ``GET /games/<id>/timeline``."""

    seq = fields.Integer(required=True)
    recorded_at = fields.String(required=True)
    at = fields.String(allow_none=True, required=True)
    type = fields.String(required=True)
    player = fields.String(allow_none=True, required=True)
    hand = fields.Integer(required=True, metadata={"description": "hand/round number (undo/redo: their target's)"})
    summary = fields.String(required=True, metadata={"description": "one line in plain words, with consequences"})
    undone = fields.Boolean(required=True)
    undone_by = fields.Integer(allow_none=True, required=True, metadata={"description": "the undo that cancelled it"})
    target = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "undo/redo: the action's seq; correct: the entry corrected"})
    data = fields.Dict(required=True, metadata={"description": "the event's data as this reader may see it"})
    corrected_by = fields.Integer(allow_none=True, required=True,
                                  metadata={"description": "the correct now in force for this entry, or null"})
    corrected = fields.String(metadata={"description": "a corrected entry: 'corrected: Dee played 9♣, not 9♠'"})
    place = fields.String(required=True, metadata={
        "description": "where it was recorded, as card players say it: 'hand 2, trick 1', 'round 1, turn 3', "
                       "'turn 7', 'hand 2' (a deal); undo, redo, correct: their target's; '' before the first deal"})
    brief = fields.String(required=True, metadata={
        "description": "who did what, in a short phrase ('Cas played 10♣'; a correct: 'Fix: Cas played 8♥, not J♥'); "
                       "'' for game_created, undo, redo and notes"})


class TimelineSchema(Schema):
    """``GET /games/<id>/timeline``."""

    game = fields.String(required=True)
    version = fields.Integer(required=True)
    hand = fields.Integer(allow_none=True, required=True)
    steps = fields.List(fields.Nested(TimelineStepSchema), required=True)


class IrregularitySchema(Schema):
    """A revoke proven by later knowledge."""

    hand = fields.Integer(required=True)
    kind = fields.String(required=True)
    player = fields.String(required=True)
    trick = fields.Integer(required=True)
    seq = fields.Integer(required=True, metadata={"description": "the play that did not follow"})
    proof_seq = fields.Integer(required=True, metadata={"description": "the event that proves it"})
    card = fields.Raw(required=True)
    detail = fields.String(required=True)


class IrregularitiesSchema(Schema):
    """``GET /games/<id>/irregularities``."""

    version = fields.Integer(required=True)
    irregularities = fields.List(fields.Nested(IrregularitySchema), required=True)


class PlayerSeenSchema(Schema):
    """One entry of ``GET /players``."""

    class Meta:
        unknown = INCLUDE

    name = fields.String(required=True)
    games = fields.Integer(required=True)
    finished = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    by_game = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True)


class PlayerListSchema(Schema):
    """``GET /players``."""

    players = fields.List(fields.Nested(PlayerSeenSchema), required=True)
    since = fields.String(allow_none=True, metadata={"description": "the period's first day, YYYY-MM-DD"})
    until = fields.String(allow_none=True, metadata={"description": "the period's last day, YYYY-MM-DD"})


class PlayedGameSchema(Schema):
    """One game of a player's record."""

    class Meta:
        unknown = INCLUDE

    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": STATUSES})
    result = fields.String(required=True)


class PlayerRecordSchema(Schema):
    """``GET /players/<name>``."""

    name = fields.String(required=True)
    key = fields.String(required=True)
    by_game = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True)
    total_games = fields.Integer(required=True)
    games = fields.List(fields.Nested(PlayedGameSchema), required=True)
    next_offset = fields.Integer(allow_none=True, required=True)


class PlayerGamesSchema(Schema):
    """``GET /players/<name>/games`` as json."""

    games = fields.List(fields.Nested(PlayedGameSchema), required=True)


#: The response components of the OpenAPI document, by name (``<name>Schema`` here).
COMPONENTS = ("Problem", "PlayerState", "State", "ForkedFrom", "GameSummary", "Game", "CreatedGame", "GameList",
              "StoredEvent", "LoggedEvent", "EventLog", "UndoTarget", "Replacement", "Irregularity", "Recorded", "DryRun", "LegalAction", "Actions", "StateAt",
              "Target", "Correction", "Hand", "Play", "Trick", "Health", "TimelineStep", "Timeline",
              "Irregularities", "PlayerSeen", "PlayerList", "PlayedGame", "PlayerRecord", "PlayerGames")
