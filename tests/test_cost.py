"""The verify-cost curve: measured once, never decreasing, interpolated, and kept on disk."""

import torch

from apply_engine.drafters.cost import CostCurve, load_curve, measure_cost_curve, save_curve
from tests.helpers_models import MarkovTarget


def test_cost_curve_is_measured_up_to_the_longest_pass_and_never_decreases() -> None:
    target = MarkovTarget(torch.zeros(8, 8))
    curve = measure_cost_curve(target, [1, 2, 3], max_n=40)
    assert curve.sizes == (1, 2, 4, 8, 16, 32, 40)
    assert all(a <= b for a, b in zip(curve.seconds, curve.seconds[1:], strict=False))
    assert target.tokens == [1, 2, 3]  # the cache holds the context again


def test_cost_curve_interpolates_between_sizes_and_extends_past_the_last() -> None:
    curve = CostCurve((1, 8, 32), (1.0, 2.0, 5.0))
    assert curve(1) == 1.0 and curve(4) < curve(8) < curve(20) < curve(32) < curve(64)
    assert curve(64) == 9.0  # the last slope, 1/8 per token


def test_a_saved_curve_loads_back_and_a_missing_one_is_none(tmp_path) -> None:
    curve = CostCurve((1, 2, 64), (0.1, 0.17, 0.5))
    save_curve(tmp_path / "cost" / "c.json", curve)
    assert load_curve(tmp_path / "cost" / "c.json") == curve
    assert load_curve(tmp_path / "nothing.json") is None


def test_a_cost_curve_that_cannot_be_saved_is_only_measured_again(tmp_path) -> None:
    (tmp_path / "file").write_text("")  # a cache "directory" that is a file: nothing can go under it
    save_curve(tmp_path / "file" / "c.json", CostCurve((1, 2), (1.0, 2.0)))
    assert load_curve(tmp_path / "file" / "c.json") is None
