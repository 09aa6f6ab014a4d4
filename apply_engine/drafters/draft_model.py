"""A small draft model with the target's tokenizer proposes greedily, last in the hybrid order."""

from collections.abc import Sequence

from apply_engine.speculative import Target


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix.

    >>> common_prefix([1, 2, 3], [1, 2, 4, 5])
    2
    """
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class DraftModelDrafter:
    """Greedy proposals from a draft model whose cache follows the output (prompt + context)."""

    name = "model"

    def __init__(self, draft: Target, prompt: Sequence[int], max_k: int = 8) -> None:
        self.draft = draft
        self.prompt = list(prompt)
        self.max_k = max_k
        self.fed: list[int] = []  # tokens in the draft model's cache
        self.draft.reset()

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        tokens = [*self.prompt, *context]
        keep = min(common_prefix(self.fed, tokens), len(tokens) - 1)
        self.draft.crop(keep)
        logits = self.draft.forward(tokens[keep:])[-1]  # [vocab]
        self.fed = tokens
        proposal: list[int] = []
        for _ in range(min(k, self.max_k)):
            proposal.append(int(logits.float().argmax()))
            logits = self.draft.forward(proposal[-1:])[-1]
            self.fed = [*self.fed, proposal[-1]]
        return proposal
