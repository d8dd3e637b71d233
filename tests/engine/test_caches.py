"""The engine's caches: bounded, thread-safe, clearable, switchable off."""

import threading

import pytest

from npusim.engine import caches
from npusim.engine.caches import Cache, memoized


def test_cache_keeps_at_most_its_limit_dropping_the_oldest():
    cache = Cache("test", 3)
    for i in range(5):
        cache.put(i, str(i))
    assert len(cache) == 3
    assert [cache.get(i) for i in range(5)] == [None, None, "2", "3", "4"]


def test_replacing_a_key_keeps_the_others():
    cache = Cache("test", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 3)
    assert (cache.get("a"), cache.get("b")) == (3, 2)


def test_unhashable_keys_miss_and_are_never_stored():
    cache = Cache("test", 2)
    cache.put(["list"], 1)
    assert len(cache) == 0
    assert cache.get(["list"], "miss") == "miss"


def test_disabled_caches_miss_and_keep_nothing_then_work_again():
    cache = Cache("test", 4)
    cache.put("kept", 1)
    with caches.disabled():
        assert not caches.enabled()
        assert cache.get("kept") is None
        cache.put("new", 2)
        with caches.disabled():  # blocks nest
            pass
        assert not caches.enabled()
    assert caches.enabled()
    assert cache.get("kept") == 1 and cache.get("new") is None


def test_clear_all_reaches_every_cache_alive():
    first, second = Cache("one", 4), Cache("two", 4)
    first.put(1, 1)
    second.put(2, 2)
    caches.clear_all()
    assert len(first) == len(second) == 0


def test_stats_sums_caches_of_one_name():
    a, b = Cache("per-core-test", 4), Cache("per-core-test", 4)
    a.put(1, 1)
    b.put(1, 1)
    b.put(2, 2)
    assert caches.stats()["per-core-test"] == 3


def test_memoized_calls_once_per_argument_tuple_and_not_when_disabled():
    calls = []

    @memoized("test-memo", 8)
    def square(x):
        calls.append(x)
        return x * x

    assert square(3) == square(3) == 9
    assert calls == [3]
    with caches.disabled():
        assert square(3) == 9
    assert calls == [3, 3]


def test_limit_must_be_positive():
    with pytest.raises(ValueError, match="limit"):
        Cache("bad", 0)


def test_threads_filling_one_cache_never_see_an_error():
    cache = Cache("threads", 64)
    errors = []

    def fill(offset):
        try:
            for i in range(20000):
                key = (offset, i)
                cache.put(key, i)
                found = cache.get(key)
                assert found in (None, i)
        except Exception as err:  # pragma: no cover - the assertion below reports it
            errors.append(err)

    threads = [threading.Thread(target=fill, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 64
