"""Caches whose memory is bounded by the text they hold, not only by how many entries they have.

A request may carry a 20 MB word or a 10,000-character fact; an entry-count bound alone lets
a few distinct long texts pin hundreds of megabytes. :func:`text_cache` keeps at most a given
number of characters of keys (values grow with their key: the readings of a text), evicting
the least recently used, and never caches a key longer than its own bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Generic, TypeVar

Value = TypeVar("Value")


class TextCache(Generic[Value]):
    """A function of one string, remembered for recent keys within a budget of characters.

    Example:
        >>> lengths = TextCache(len, max_characters=10, max_key_characters=4)
        >>> lengths("abc"), lengths("abcdefgh"), lengths.cached_characters
        (3, 8, 3)
    """

    def __init__(
        self, function: Callable[[str], Value], max_characters: int, max_key_characters: int
    ) -> None:
        self._function = function
        self._max_characters = max_characters
        self._max_key_characters = max_key_characters
        self._entries: OrderedDict[str, Value] = OrderedDict()
        self._characters = 0
        self._lock = threading.Lock()
        wraps(function)(self)

    @property
    def cached_characters(self) -> int:
        """How many characters of keys the cache holds now."""
        return self._characters

    def __call__(self, key: str) -> Value:
        """The function's value for ``key``, computed once while the key stays cached."""
        if len(key) > self._max_key_characters:
            return self._function(key)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = self._function(key)
        with self._lock:
            if key not in self._entries:
                self._entries[key] = value
                self._characters += len(key)
                while self._characters > self._max_characters:
                    evicted, _ = self._entries.popitem(last=False)
                    self._characters -= len(evicted)
        return value

    def cache_clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._characters = 0


def text_cache(
    max_characters: int, max_key_characters: int
) -> Callable[[Callable[[str], Value]], TextCache[Value]]:
    """Decorate a function of one string with a :class:`TextCache`.

    Example:
        >>> @text_cache(max_characters=1000, max_key_characters=100)
        ... def shout(text: str) -> str:
        ...     return text.upper()
        >>> shout("hi")
        'HI'
    """
    return lambda function: TextCache(function, max_characters, max_key_characters)


class WordCache(Generic[Value]):
    """A function of one short word, remembered for up to ``max_entries`` words.

    Cheaper per call than :class:`TextCache` (:func:`functools.lru_cache` behind a length
    test), so it suits the hottest functions; a word longer than ``max_key_characters`` is
    computed and not kept, so memory stays under ``max_entries`` times that length.

    Example:
        >>> doubled = WordCache(lambda word: word * 2, max_entries=10, max_key_characters=5)
        >>> doubled("ab"), doubled("abcdefg"), doubled.cached_entries
        ('abab', 'abcdefgabcdefg', 1)
    """

    def __init__(
        self, function: Callable[[str], Value], max_entries: int, max_key_characters: int
    ) -> None:
        self._function = function
        self._cached = lru_cache(maxsize=max_entries)(function)
        self._max_key_characters = max_key_characters
        wraps(function)(self)

    @property
    def cached_entries(self) -> int:
        """How many words the cache holds now."""
        return self._cached.cache_info().currsize

    def __call__(self, word: str) -> Value:
        """The function's value for ``word``."""
        if len(word) > self._max_key_characters:
            return self._function(word)
        return self._cached(word)

    def cache_clear(self) -> None:
        """Forget every entry."""
        self._cached.cache_clear()


def word_cache(
    max_entries: int, max_key_characters: int
) -> Callable[[Callable[[str], Value]], WordCache[Value]]:
    """Decorate a function of one word with a :class:`WordCache`.

    Example:
        >>> @word_cache(max_entries=10, max_key_characters=5)
        ... def double(word: str) -> str:
        ...     return word * 2
        >>> double("ab")
        'abab'
    """
    return lambda function: WordCache(function, max_entries, max_key_characters)
