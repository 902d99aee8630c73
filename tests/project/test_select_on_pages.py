"""scripts/select_on_pages.py: a constant chosen on the pages tuned on is measured on a page the choice never saw."""

from __future__ import annotations

from types import ModuleType

from tests.support.scripts import load_script


def _script() -> ModuleType:
    return load_script("select_on_pages")


def test_a_page_is_measured_with_the_value_its_neighbours_chose_not_its_own_best() -> None:
    left_one_out = _script().left_one_out
    # 0.5 wins big on page c alone; 0.3 wins on a and b. Left out, c is measured with 0.3 (chosen on a and b),
    # so the figure of a page never seen is not inflated by what c itself prefers.
    results = {0.2: {"a": (5, 10), "b": (5, 10), "c": (2, 10)},
               0.3: {"a": (7, 10), "b": (7, 10), "c": (2, 10)},
               0.5: {"a": (4, 10), "b": (4, 10), "c": (10, 10)}}
    quoted, chosen = left_one_out(results, shipped=0.2)
    # a left out: on b and c, 0.5 gives 14, 0.3 gives 9 → 0.5, a quotes 4; b likewise → 4; c: 0.3 → 2
    assert quoted == 4 + 4 + 2
    assert chosen == {0.2: 0, 0.3: 1, 0.5: 2}


def test_among_equal_values_the_one_shipped_is_kept() -> None:
    left_one_out = _script().left_one_out
    results = {0.1: {"a": (3, 4), "b": (3, 4)}, 0.2: {"a": (3, 4), "b": (3, 4)}, 0.4: {"a": (3, 4), "b": (3, 4)}}
    assert left_one_out(results, shipped=0.2) == (6, {0.1: 0, 0.2: 2, 0.4: 0})
