"""API suite: gemmkit.threads(n), the thread-limit block and decorator.

Runs natively and under Pyodide (where the default count is 1: no pool);
no numpy needed.  Each test leaves the setting as it found it, which is
what threads() itself must do: the "setting" is the pair (count, source),
the source being dispatch_info()["threads_source"].
"""

import math

import pytest

import gemmkit
from apihelpers import restore_thread_setting, thread_setting

setting = thread_setting


@pytest.fixture
def original():
    """The setting before the test, put back afterwards (some tests change it)."""
    before = setting()
    yield before
    restore_thread_setting(before)


def test_exported():
    assert "threads" in gemmkit.__all__
    assert gemmkit.threads is not None and callable(gemmkit.threads)


def test_default_source(original):
    count, source = original
    assert count >= 1
    if gemmkit.dispatch_info()["backend"] == "pyodide" and source == "cores":
        assert count == 1, "Pyodide has no worker pool: one thread"


@pytest.mark.parametrize("n", [1, 2, 3])
def test_block_sets_and_restores(original, n):
    with gemmkit.threads(n) as entered:
        assert entered is None
        assert setting() == (n, "set_num_threads")
    assert setting() == original


def test_restores_the_default_not_a_copy_of_it(original):
    # From the default (no explicit setting) threads() must return to the
    # default itself, not to set_num_threads(<the default's count>).
    gemmkit.set_num_threads(0)
    default = setting()
    assert default[1] != "set_num_threads"
    with gemmkit.threads(default[0]):
        assert setting() == (default[0], "set_num_threads")
    assert setting() == default


def test_restores_an_explicit_setting(original):
    try:
        gemmkit.set_num_threads(3)
        with gemmkit.threads(1):
            assert gemmkit.get_num_threads() == 1
        assert setting() == (3, "set_num_threads")
    finally:
        gemmkit.set_num_threads(original[0] if original[1] == "set_num_threads" else 0)


def test_nesting(original):
    with gemmkit.threads(2):
        with gemmkit.threads(3):
            assert gemmkit.get_num_threads() == 3
            with gemmkit.threads(1):
                assert gemmkit.get_num_threads() == 1
            assert gemmkit.get_num_threads() == 3
        assert setting() == (2, "set_num_threads")
    assert setting() == original


def test_exception_in_the_block_restores_and_propagates(original):
    class Boom(Exception):
        pass

    with pytest.raises(Boom), gemmkit.threads(1):
        assert gemmkit.get_num_threads() == 1
        raise Boom
    assert setting() == original
    # A gemmkit error from inside the block as well.
    with pytest.raises(gemmkit.ArgumentError), gemmkit.threads(2):
        gemmkit.set_num_threads(-1)
    assert setting() == original


def test_same_object_entered_again(original):
    limit = gemmkit.threads(2)
    with limit:
        with gemmkit.threads(3):
            with limit:
                assert gemmkit.get_num_threads() == 2
            assert gemmkit.get_num_threads() == 3
        assert gemmkit.get_num_threads() == 2
    assert setting() == original


def test_decorator(original):
    @gemmkit.threads(2)
    def count():
        return gemmkit.get_num_threads()

    @gemmkit.threads(1)
    def recurse(depth):
        inner = recurse(depth - 1) if depth else []
        return [gemmkit.get_num_threads(), *inner]

    assert count() == 2
    assert setting() == original
    assert recurse(3) == [1, 1, 1, 1]
    assert setting() == original
    assert count.__name__ == "count"


def test_decorated_function_raising(original):
    @gemmkit.threads(1)
    def fail():
        raise KeyError("x")

    with pytest.raises(KeyError):
        fail()
    assert setting() == original


@pytest.mark.parametrize("bad", [0, -1, 1.5, math.nan, math.inf, "2", None, True, [1]],
                         ids=repr)
def test_bad_counts_refused_at_the_call(original, bad):
    with pytest.raises(gemmkit.ArgumentError) as exc:
        gemmkit.threads(bad)
    assert str(exc.value).startswith("gemmkit: ")
    assert "thread count" in str(exc.value)
    assert setting() == original


def test_integral_counts_accepted(original):
    with gemmkit.threads(2.0):
        assert gemmkit.get_num_threads() == 2
    with gemmkit.threads(2**64):  # clamped to the core's range, as set_num_threads is
        assert gemmkit.get_num_threads() == 1024
    assert setting() == original


def test_repr():
    assert repr(gemmkit.threads(4)) == "gemmkit.threads(4)"
