"""The protocol's wire format is unchanged: a scripted session (tests/transcripts.py)
writes, byte for byte, the lines recorded in tests/data/protocol_transcripts.jsonl."""

from __future__ import annotations

from transcripts import PATH, read, record


def test_recorded_transcripts_replay_byte_for_byte():
    recorded, now = read(), record()
    assert len(now) == len(recorded), f"{len(now)} requests now, {len(recorded)} recorded in {PATH.name}"
    for i, (old, new) in enumerate(zip(recorded, now, strict=True)):
        assert new == old, f"request {i + 1} of {PATH.name} is answered differently:\n{old}\n---\n{new}"
    # The lines name the game's phases, decisions and every kind of event.
    text = "\n".join(recorded)
    for word in ('"phase": "play"', '"decision": "answer"', '"event": "showdown"', '"event": "duel"', '"over": true'):
        assert word in text
