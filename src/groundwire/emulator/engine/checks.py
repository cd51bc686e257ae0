"""The vetoes: what word overlap misses when a claim is only partly right.

Overlap says a claim and a passage share most words; it cannot see that the one number that
differs is the point, that ``not`` flips the meaning, or that winner and loser traded places.
Each check here looks at one such thing and says whether the evidence contradicts the claim:

* key terms: every number, date part and name of the claim must be in the evidence (and a
  quantity must count the same thing in the same unit: :mod:`quantities`);
* negation: a negative claim needs a negative passage about its key word, and a positive claim
  must not match a negative clause better than any positive one, nor use a word that the
  evidence has only as a record's key valued ``no`` or ``False``;
* opposites: the claim says ``increased`` where the evidence only says ``decreased``;
* other values: in evidence of several sentences, the claim's name or number may not stand in
  a slot that one of them fills with another (``born in Warsaw`` when the claim says Paris);
* relations between names (:mod:`relations`): swapped roles, and names never stated together.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from groundwire.emulator.engine.analysis import Analysis, Token
from groundwire.emulator.engine.lexicon import ANTONYMS
from groundwire.emulator.engine.text import word_terms

_COORDINATOR_TERMS = frozenset({"~and", "~or", "~but", "~nor"})
_NEGATING_PREFIXES = ("un", "non")
_SHORTEST_NEGATED_BASE = 4
_SLOT_REACH = 3
_CURRENCY_TERMS = frozenset(word_terms(word)[0] for word in ("dollar", "euro", "pound", "yen"))


def _opposites_by_term() -> dict[str, frozenset[str]]:
    opposites: dict[str, set[str]] = {}
    for one, other in ANTONYMS:
        one_term, other_term = word_terms(one)[0], word_terms(other)[0]
        opposites.setdefault(one_term, set()).add(other_term)
        opposites.setdefault(other_term, set()).add(one_term)
    return {term: frozenset(others) for term, others in opposites.items()}


_OPPOSITES = _opposites_by_term()


OPPOSABLE_TERMS = frozenset(_OPPOSITES)
"""Terms (function words included, ``~more``) that have an opposite in the antonym list."""


def key_tokens(claim: Analysis, is_known_name: Callable[[str], bool]) -> list[Token]:
    """The claim's numbers, date parts and names: terms the evidence must contain.

    A capitalised word counts as a name unless it opens the sentence; an opening word counts
    when it is all capitals or mixed case (``NASA``, ``YouTube``), is followed by another name
    (``Marie Curie``), or ``is_known_name`` says the facts write it capitalised mid-sentence.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> [t.term for t in key_tokens(analyse("Penguins live in Antarctica."), lambda t: False)]
        ['antarctica']
    """
    tokens = claim.tokens
    keys: list[Token] = []
    for position, token in enumerate(tokens):
        if not token.content:
            continue
        if token.numeric or (
            token.name_like
            and (not token.sentence_initial or _opening_name(tokens, position, is_known_name))
        ):
            keys.append(token)
    return keys


def _opening_name(
    tokens: Sequence[Token], position: int, is_known_name: Callable[[str], bool]
) -> bool:
    token = tokens[position]
    if token.unmistakable_name:
        return True
    following = tokens[position + 1] if position + 1 < len(tokens) else None
    if following is not None and following.name_like and following.word_index != token.word_index:
        return True
    return is_known_name(token.term)


def missing_key_terms(
    keys: Iterable[Token], evidence_terms: frozenset[str], related: Callable[[str], Iterable[str]]
) -> list[str]:
    """The key terms the evidence lacks; a name may appear with another ending, a number may not.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> keys = key_tokens(analyse("It sank in 1915."), lambda t: False)
        >>> missing_key_terms(keys, frozenset({"sank", "1912"}), lambda t: ())
        ['1915']
    """
    missing: list[str] = []
    for token in keys:
        if token.term in evidence_terms or token.term in missing:
            continue
        if not token.numeric and any(other in evidence_terms for other in related(token.term)):
            continue
        missing.append(token.term)
    return missing


def negation_conflict(
    claim: Analysis, evidence: Sequence[Analysis], weight: Callable[[str], float]
) -> bool:
    """Say whether the claim and the evidence disagree on negation.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = [analyse("The drug is not approved for children.")]
        >>> negation_conflict(analyse("The drug is approved for children."), fact, lambda t: 1.0)
        True
    """
    evidence_clauses = [
        (frozenset(t.term for t in reading.content_tokens if t.clause == clause), leaning)
        for reading in evidence
        for clause, negative in _clauses(reading)
        for leaning in ((True, False) if clause in reading.negative_questions else (negative,))
    ]
    valued = [
        frozenset(t.term for t in reading.content_tokens if t.clause == clause)
        for reading in evidence
        for clause in reading.valued_negations
    ]
    for clause, negative in _clauses(claim):
        tokens = [t for t in claim.tokens if t.clause == clause]
        terms = frozenset(t.term for t in tokens if t.content)
        if not terms:
            continue
        if negative:
            if _unsupported_negation(tokens, terms, evidence_clauses):
                return True
        elif _matches_negative_clause_best(
            terms, evidence_clauses, weight
        ) or _said_only_negatively(terms, evidence_clauses, valued):
            return True
    return False


def _said_only_negatively(
    terms: frozenset[str],
    evidence_clauses: Sequence[tuple[frozenset[str], bool]],
    valued: Sequence[frozenset[str]],
) -> bool:
    """A word of a positive claim that the evidence's record denies.

    The evidence has it only as a record's key whose value negates it (``Delivery: False``
    against ``offers delivery``).
    """
    negated = frozenset().union(*valued)
    if terms.isdisjoint(negated):
        return False
    affirmed = frozenset().union(*(clause for clause, negative in evidence_clauses if not negative))
    return not (terms & negated) <= affirmed


def _clauses(reading: Analysis) -> list[tuple[int, bool]]:
    clauses = sorted({token.clause for token in reading.tokens})
    return [(clause, clause in reading.negated_clauses) for clause in clauses]


def _unsupported_negation(
    tokens: Sequence[Token],
    terms: frozenset[str],
    evidence_clauses: Sequence[tuple[frozenset[str], bool]],
) -> bool:
    head = _negated_head(tokens)
    if head is not None and any(head in clause_terms for clause_terms, _ in evidence_clauses):
        return not any(head in clause_terms and neg for clause_terms, neg in evidence_clauses)
    sharing = [neg for clause_terms, neg in evidence_clauses if clause_terms & terms]
    return bool(sharing) and not any(sharing)


def _negated_head(tokens: Sequence[Token]) -> str | None:
    """The word a negation is about: the first content word after the cue, else the last before."""
    cue = next((index for index, token in enumerate(tokens) if token.negation), None)
    if cue is None:
        return None
    cue_word = tokens[cue].word_index
    after = [t for t in tokens[cue:] if t.content and t.word_index != cue_word]
    if after:
        return after[0].term
    before = [t for t in tokens[:cue] if t.content and t.word_index != cue_word]
    return before[-1].term if before else None


def _matches_negative_clause_best(
    terms: frozenset[str],
    evidence_clauses: Sequence[tuple[frozenset[str], bool]],
    weight: Callable[[str], float],
) -> bool:
    best = {True: 0.0, False: 0.0}
    for clause_terms, negative in evidence_clauses:
        # fsum: a set's order follows the hash seed, and a plain float sum its order, so two
        # clauses sharing equal weight could tie in one process and not in the next.
        shared = math.fsum(weight(term) for term in terms & clause_terms)
        best[negative] = max(best[negative], shared)
    return best[True] > best[False]


def opposite_meaning(claim: Analysis, evidence: Sequence[Analysis]) -> bool:
    """Say whether the claim uses a word whose opposite, and not the word, is in the evidence.

    Opposites are the antonym list's pairs and a word against its ``un-`` or ``non-`` form
    (``unthickened`` where the evidence says only ``thickened``).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = [analyse("Sales decreased by 5% in 2023.")]
        >>> opposite_meaning(analyse("Sales increased by 5% in 2023."), fact)
        True
        >>> opposite_meaning(analyse("Sales decreased by 5% in 2023."), fact)
        False
        >>> opposite_meaning(analyse("It is unsafe."), [analyse("It is safe.")])
        True
    """
    said = {token.term for reading in evidence for token in reading.tokens}
    for token in claim.tokens:
        term = token.term
        if term in said:
            continue
        if term in OPPOSABLE_TERMS and not said.isdisjoint(_OPPOSITES[term]):
            return True
        base = negated_base(term)
        if base is not None and base in said:
            return True
    return False


def negated_base(term: str) -> str | None:
    """The word that a ``un-`` or ``non-`` form denies, if the term is one.

    Example:
        >>> negated_base("unthicken"), negated_base("uniform"), negated_base("under")
        ('thicken', 'iform', None)
    """
    for prefix in _NEGATING_PREFIXES:
        base = term[len(prefix) :]
        if term.startswith(prefix) and len(base) >= _SHORTEST_NEGATED_BASE and base.isalpha():
            return base
    return None


def conflicting_value(claim: Analysis, keys: Sequence[Token], evidence: Sequence[Analysis]) -> bool:
    """Say whether an evidence sentence gives another value where the claim gives a key term.

    The slot of a key term is the content word just before it (``born`` in ``born in Paris``).
    A sentence that has that word followed by another name (or number, for a number) and does
    not have the claim's term, contradicts the claim: pieces from several sentences must not
    make a claim that each of them contradicts.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> claim = analyse("Marie Curie was born in Paris.")
        >>> keys = [t for t in claim.tokens if t.name_like]
        >>> facts = [analyse("Marie Curie was born in Warsaw."), analyse("Pierre was born here.")]
        >>> conflicting_value(claim, keys, facts)
        True
    """
    claim_terms = claim.terms
    key_places = {id(token) for token in keys}
    for position, token in enumerate(claim.tokens):
        if id(token) not in key_places:
            continue
        slot = _slot_word(claim.tokens, position, key_places)
        if slot is None:
            continue
        for reading in evidence:
            if token.term in reading.terms:
                continue
            for place, said in enumerate(reading.tokens):
                if said.term != slot:
                    continue
                following = _next_content_tokens(reading.tokens, place + 1, _SLOT_REACH)
                if any(
                    t.term not in claim_terms
                    and (t.numeric if token.numeric else t.name_like and not t.numeric)
                    for t in following
                ):
                    return True
    return False


def _slot_word(tokens: Sequence[Token], position: int, key_places: set[int]) -> str | None:
    """The content word whose value the key at ``position`` gives, if there is one.

    None when a coordinator stands between them (in ``385 killed and 342 wounded`` the 342 is
    no value of ``killed``), or when the key is a number that counts the word after it (``the
    five biggest airlines``: what it counts is the quantity check's), or when the word before
    it is a currency sign (``$1,500``: ``$5`` elsewhere is another amount, not another value).
    """
    window = tokens[max(0, position - _SLOT_REACH) : position]
    before = [t for t in window if t.content]
    if not before or id(before[-1]) in key_places or before[-1].numeric:
        return None
    if before[-1].term in _CURRENCY_TERMS:
        return None
    slot_place = max(i for i, t in enumerate(window) if t is before[-1])
    if any(t.term in _COORDINATOR_TERMS for t in window[slot_place + 1 :]):
        return None
    key = tokens[position]
    after = tokens[position + 1] if position + 1 < len(tokens) else None
    counts_next = (
        after is not None
        and after.content
        and not after.numeric
        and after.word_index == key.word_index + 1
    )
    if key.numeric and counts_next:
        return None
    return before[-1].term


def _next_content_tokens(tokens: Sequence[Token], start: int, count: int) -> list[Token]:
    found: list[Token] = []
    for place in range(start, len(tokens)):
        if len(found) == count:
            break
        if tokens[place].content:
            found.append(tokens[place])
    return found
