"""Drafters: each proposes the target's next tokens with one verb, propose(context, k) -> list[int].

An empty list means "no guess": the step then decodes one token plainly.
"""
