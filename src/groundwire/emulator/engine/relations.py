"""Checks what connects a claim's names, not only that each name is somewhere in the evidence.

Every entity of an invented relation is usually in the source ("X is similar to Y, where the
court ruled..."); what is missing is a sentence that relates them. Two checks:

* comparisons: a claim that compares (``X is larger than Y``) needs evidence that compares
  too; that both are large, or that they differ in size, says nothing of which is larger;
* roles: two names around the same relation word in the other order (``Alice defeated Bob`` /
  ``Bob defeated Alice``), unless one of the two is passive (``Bob was defeated by Alice``);
* separated names: a name of the claim that no passage of the evidence (a window of up to
  three consecutive sentences) mentions together with any other of the claim's names: the
  evidence never relates it to them. (A fact's
  attributes count as said in each of its sentences; records are exempt, since each line of
  a record is about the entity it describes.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from groundwire.emulator.engine.analysis import Analysis, Token
from groundwire.emulator.engine.lexicon import PASSIVE_MARKERS
from groundwire.emulator.engine.rarity import is_general
from groundwire.emulator.engine.text import FUNCTION_WORD_MARK

_PASSIVE_TERMS = frozenset(FUNCTION_WORD_MARK + marker for marker in PASSIVE_MARKERS)
COMPARISON_TERM = FUNCTION_WORD_MARK + "than"
"""The term of ``than``: a claim holding it may compare two things."""
_NOT_COMPARING = frozenset({FUNCTION_WORD_MARK + "rather", FUNCTION_WORD_MARK + "other"})
_NAMES_PAIRED_AHEAD = 2
"""How many name words ahead a name word is paired with, to look for swapped roles: the
next name's first words. A relation joins neighbouring names; a name beyond them is mostly
another clause's (``stop Lane when Officer Mark Dunn shot him, and Dunn was charged``)."""


def separated_names(
    keys: Sequence[Token], sentences: Sequence[frozenset[str]], everywhere: frozenset[str]
) -> bool:
    """Say whether a name of the claim shares no sentence of the evidence with another of them.

    Only names the evidence holds are compared: a missing name is the missing-key check's.

    ``sentences`` are the terms of the evidence's passages (as indexed: a pronoun's names
    included). A
    name of several words (``New England Patriots``) is one name; ``everywhere`` holds terms
    that count as said in every sentence (attributes, a record's title).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> claim = analyse("Smith coached Jones at Harvard.")
        >>> keys = [t for t in claim.tokens if t.name_like]
        >>> facts = [analyse("Smith coached at Harvard."), analyse("Jones went to Yale.")]
        >>> separated_names(keys, [fact.terms for fact in facts], frozenset())
        True
        >>> separated_names(keys, [analyse("At Harvard, Smith coached Jones.").terms], frozenset())
        False
    """
    found = [name for name in _names(keys) if any(name & terms for terms in sentences)]
    if len(found) < 2:
        return False
    names = found
    for name in names:
        if name & everywhere:
            continue
        others = frozenset().union(*(other for other in names if other is not name))
        if others & everywhere:
            continue
        if not any(name & terms and others & terms for terms in sentences):
            return True
    return False


def relation_said_of_others(
    claim: Analysis,
    sentences: Sequence[frozenset[str]],
    everywhere: frozenset[str],
    said_together: Callable[[frozenset[str], str], bool],
    readings_with: Callable[[str], Sequence[Analysis]],
) -> bool:
    """Say whether the facts give a claim's relation word to another name, never to its own.

    The relation word of a name that opens its clause is the first content word after it, a
    few auxiliaries apart (``Paul Okafor directed it``); of a name after ``by``, the word
    before that (``directed by Amos Thorne``). The claim is read so when the evidence
    (``sentences``, the cited passage's indexed terms) holds the name, no sentence of the facts
    holds both (``said_together``; a pronoun's or a description's names count as said in its
    sentence), and a sentence holding the word (``readings_with``) gives it to another name in
    the same way (``a film directed by Amos Thorne``).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> facts = [analyse("The film was directed by Amos Thorne."),
        ...          analyse("It stars Paul Okafor.")]
        >>> def together(name, term):
        ...     return any(name & fact.terms and term in fact.terms for fact in facts)
        >>> def holding(term):
        ...     return [fact for fact in facts if term in fact.terms]
        >>> def check(claim):
        ...     terms = [fact.terms for fact in facts]
        ...     return relation_said_of_others(analyse(claim), terms, frozenset(), together,
        ...                                    holding)
        >>> check("Paul Okafor directed it."), check("Amos Thorne directed it.")
        (True, False)
    """
    for name, relation in _names_and_relations(claim.tokens, subjects_only=True):
        if relation in everywhere or name & everywhere:
            continue
        if not any(name & terms for terms in sentences) or said_together(name, relation):
            continue
        for reading in readings_with(relation):
            pairs = _names_and_relations(reading.tokens)
            if any(relation == word and not other & name for other, word in pairs):
                return True
    return False


_RELATION_REACH = 3
_AGENT_REACH = 6
_AUXILIARIES = frozenset(
    FUNCTION_WORD_MARK + word
    for word in (
        *("is", "are", "was", "were", "be", "been", "has", "have", "had"),
        *("will", "would", "also", "did", "does", "do", "then", "who"),
    )
)
"""Words that may stand between a name and the word it bears (17, written for the project)."""


def _names_and_relations(
    tokens: Sequence[Token], subjects_only: bool = False
) -> list[tuple[frozenset[str], str]]:
    """Each name run of a sentence with its relation word (see :func:`relation_said_of_others`).

    A sentence's first word is a name only when it is unmistakably one or another name word
    follows it (``Paul Okafor``; ``Stir in`` is no name). With
    ``subjects_only``, a name bears the word after it only when it opens its clause or
    follows a pause (``In contrast, JetBlue ranked``): elsewhere a name before a word is more
    often a modifier (``the Aurora cinema``) than a subject.
    """
    names = [token.name_like and not token.numeric for token in tokens]
    for index, token in enumerate(tokens):
        if names[index] and token.sentence_initial and not token.unmistakable_name:
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            names[index] = following is not None and following.name_like and not following.paused
    found: list[tuple[frozenset[str], str]] = []
    place = 0
    while place < len(tokens):
        if not names[place]:
            place += 1
            continue
        end = place
        while end + 1 < len(tokens) and names[end + 1]:
            end += 1
        name = frozenset(token.term for token in tokens[place : end + 1])
        opens = (
            not place
            or tokens[place].paused
            or tokens[place].clause != tokens[place - 1].clause
            or tokens[place].sentence_initial
        )
        after = _relation_after(tokens, end) if opens or not subjects_only else None
        if after is not None:
            found.append((name, after))
        before = _relation_before(tokens, place)
        if before is not None:
            found.append((name, before))
        place = end + 1
    return found


def _relation_after(tokens: Sequence[Token], end: int) -> str | None:
    """The word right after a name, past auxiliaries only (``Renn has also written``)."""
    clause = tokens[end].clause
    for token in tokens[end + 1 : end + 2 + _RELATION_REACH]:
        if token.clause != clause or token.numeric or token.name_like or token.paused:
            return None
        if token.content:
            return token.term
        if token.term not in _AUXILIARIES:
            return None
    return None


def _relation_before(tokens: Sequence[Token], start: int) -> str | None:
    """The word an agent after ``by`` bears: ``directed by the engineer Ilse Markov``."""
    clause = tokens[start].clause
    reach = max(0, start - _AGENT_REACH)
    if tokens[start].paused:
        return None
    for by in range(start - 1, reach - 1, -1):
        if tokens[by].clause != clause or tokens[by].name_like or tokens[by].paused:
            return None
        if tokens[by].term in _PASSIVE_TERMS:
            for token in reversed(tokens[max(0, by - 1 - _RELATION_REACH) : by]):
                if token.clause != clause or token.name_like or tokens[by].paused:
                    return None
                if token.content and not token.numeric:
                    return token.term
            return None
    return None


def mixed_name(
    keys: Sequence[Token],
    evidence: Sequence[Analysis],
    evidence_terms: frozenset[str],
    said_as_one: Callable[[tuple[str, ...]], bool] = lambda name: False,
) -> bool:
    """Say whether a name of the claim is made of the words of other names in the evidence.

    A name of several words whose words the evidence holds, but never together in one name,
    while it gives the name's last word to another one (``Marston Shaw`` against ``a bookshop
    in Marston run by Helen Shaw``; ``Dunmore Engineering`` against ``Kelland Engineering``),
    is another name. An everyday word before the last (``President Obama``) may be a title.
    ``evidence_terms`` are the evidence's indexed terms (a pronoun's names included);
    ``said_as_one`` says whether some sentence of the facts holds every word of a name.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = analyse("It is a bookshop in Marston run by Helen Shaw.")
        >>> def mixed(claim):
        ...     keys = [t for t in analyse(claim).tokens if t.name_like]
        ...     return mixed_name(keys, [fact], fact.terms)
        >>> mixed("Marston Shaw runs it."), mixed("Helen Shaw runs it.")
        (True, False)
    """
    runs = [run for run in name_runs(keys) if 2 <= len(run) <= _LONGEST_RUN]
    if not runs:
        return False
    said = [
        name
        for reading in evidence
        for name in name_runs([t for t in reading.tokens if t.name_like and not t.numeric])
    ]
    for run in runs:
        if not evidence_terms.issuperset(run) or is_general(run[-2]):
            continue
        if any(set(run) <= set(name) for name in said):
            continue
        other = any(len(name) >= 2 and name[-1] == run[-1] and name[-2] not in run for name in said)
        if other and not said_as_one(run):
            return True
    return False


_LONGEST_RUN = 6


def _names(keys: Sequence[Token]) -> list[frozenset[str]]:
    """The claim's names, a run of name words (adjacent words) being one name."""
    return [frozenset(name) for name in name_runs(keys)]


def name_runs(keys: Sequence[Token]) -> list[tuple[str, ...]]:
    """The claim's names in order, a run of name words (adjacent words) being one name.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> claim = analyse("Sheriff Stanley Glanz met Harris.")
        >>> name_runs([t for t in claim.tokens if t.name_like])
        [('sheriff', 'stanley', 'glanz'), ('harris',)]
    """
    names: list[list[str]] = []
    last_word = -2
    for token in keys:
        if token.numeric:
            continue
        if token.word_index == last_word + 1 and names:
            if token.term not in names[-1]:
                names[-1].append(token.term)
        elif token.word_index != last_word:
            names.append([token.term])
        last_word = token.word_index
    return [tuple(name) for name in names]


def roles_swapped(claim: Analysis, evidence: Sequence[Analysis]) -> bool:
    """Say whether two names stand around the same relation word in the other order.

    Every capitalised word counts as a name here, a sentence's first word too unless the
    evidence writes it in lower case (an opening imperative, ``Use the Windows prompt``, is no
    party to a relation). The order and the shared relation word are what make a swap, and
    paraphrases rarely have both reversed. Only neighbouring names are paired (see
    ``_NAMES_PAIRED_AHEAD``).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> claim = analyse("Alice defeated Bob in 2017.")
        >>> roles_swapped(claim, [analyse("In 2017, Bob defeated Alice.")])
        True
        >>> roles_swapped(claim, [analyse("Bob was defeated by Alice in 2017.")])
        False
    """
    positions = {id(token): index for index, token in enumerate(claim.tokens)}
    written_lower = {
        token.term for reading in evidence for token in reading.tokens if not token.name_like
    }
    names = [
        token
        for token in claim.tokens
        if token.name_like and not (token.sentence_initial and token.term in written_lower)
    ]
    key_terms = {token.term for token in names}
    for first_index, first in enumerate(names):
        for second in names[first_index + 1 : first_index + 1 + _NAMES_PAIRED_AHEAD]:
            if first.term == second.term or first.word_index == second.word_index:
                continue
            between = claim.tokens[positions[id(first)] + 1 : positions[id(second)]]
            relation = _relation_terms(between, key_terms)
            if relation and any(
                _reversed_in(reading, first.term, second.term, relation, _is_passive(between))
                for reading in evidence
            ):
                return True
    return False


def _relation_terms(between: Sequence[Token], key_terms: set[str]) -> frozenset[str]:
    return frozenset(
        t.term for t in between if t.content and not t.numeric and t.term not in key_terms
    )


def _is_passive(between: Sequence[Token]) -> bool:
    return any(token.term in _PASSIVE_TERMS for token in between)


def _reversed_in(
    reading: Analysis, first: str, second: str, relation: frozenset[str], claim_passive: bool
) -> bool:
    tokens = reading.tokens
    first_places = [index for index, token in enumerate(tokens) if token.term == first]
    second_places = [index for index, token in enumerate(tokens) if token.term == second]
    if not first_places or not second_places:
        return False
    first_place, second_place = _closest_pair(first_places, second_places)
    low, high = sorted((first_place, second_place))
    between = tokens[low + 1 : high]
    if not relation & frozenset(t.term for t in between if t.content):
        return False
    order_reversed = first_place > second_place
    return order_reversed != (claim_passive != _is_passive(between))


def _closest_pair(firsts: Sequence[int], seconds: Sequence[int]) -> tuple[int, int]:
    """The two places, one from each ascending list, nearest each other (earliest on ties).

    Found in one merge-like pass rather than by trying every pair.
    """
    best = (firsts[0], seconds[0])
    other = 0
    for place in firsts:
        while other + 1 < len(seconds) and seconds[other + 1] <= place:
            other += 1
        for candidate in seconds[other : other + 2]:
            if abs(place - candidate) < abs(best[0] - best[1]):
                best = (place, candidate)
    return best


def unsupported_comparison(claim: Analysis, evidence: Sequence[Analysis]) -> bool:
    """Say whether the claim compares two things and no sentence of the evidence compares any.

    A comparison is a ``than`` not after ``rather`` or ``other`` and not before a number
    (``more than 500`` is a bound, not a comparison), in the claim as in the evidence.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> claim = analyse("Mule deer have larger ears than white-tailed deer.")
        >>> differ = analyse("The two deer differ in the size of their ears.")
        >>> unsupported_comparison(claim, [differ])
        True
        >>> unsupported_comparison(claim, [analyse("Their ears are larger than a whitetail's.")])
        False
    """
    return compares(claim) and not any(compares(reading) for reading in evidence)


def compares(reading: Analysis) -> bool:
    """Whether a sentence compares two things with ``than`` (see :func:`unsupported_comparison`).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> compares(analyse("It is older than Rome."))
        True
        >>> compares(analyse("It has more than 5 rooms."))
        False
    """
    tokens = reading.tokens
    after: Token | None = None
    for place in range(len(tokens) - 1, -1, -1):
        token = tokens[place]
        if token.term == COMPARISON_TERM:
            before = tokens[place - 1].term if place else ""
            if before not in _NOT_COMPARING and after is not None and not after.numeric:
                return True
        elif token.content:
            after = token
    return False
