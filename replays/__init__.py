"""Reads built on the engine alone: rebuild a stored log, the state at a seq, the event
log with ``undone``, hands and tricks with ``recorded_at`` and corrections.

Nothing here knows Flask or SQLite: functions take a game's engine module and the stored
events (``{"seq", "type", "data", "recorded_at", "at"}`` dicts, oldest first).
"""
