"""The English pipeline's attribute ruler, with its one-token tag and word rules looked up instead of matched.

spaCy's ``attribute_ruler`` in ``en_core_web_sm`` holds 179 rules, 148 of them one token long and keyed by the
fine-grained tag, the lower-cased word or both (its tag map: ``{"TAG": "NN"}`` → ``POS=NOUN``). It runs every rule
through spaCy's ``Matcher`` over every token, which cost as much CPU as the dependency parser on conversation turns
(bench/enrich_profile.py; bench/RESULTS.md, "Peers, round 5"). :func:`speed_up` keeps the ruler and its way of
applying what matched (every match found on the tokens as the tagger left them, then applied in rule order, so a
later rule wins), and only finds the one-token tag/word rules by dictionary lookup; the other rules (dependency
labels, ``IN``/``REGEX`` values, two-token rules, spaces) still go through a ``Matcher`` of their own. The matches,
and so the tokens' attributes, are the same (checked over every text of the benchmark sets by
tests/knowledge/test_attribute_lookup.py and bench/enrich_profile.py's graph dump).
"""

from __future__ import annotations

from typing import Any

#: Token attributes a one-token rule may test to be looked up, and how to read each from a token.
_READ = {"TAG": lambda t: t.tag_, "LOWER": lambda t: t.lower_, "DEP": lambda t: t.dep_, "IS_SPACE": lambda t: t.is_space}
#: The attribute a rule is filed under, in order of preference (the most selective first).
_INDEX = ("LOWER", "TAG", "DEP", "IS_SPACE")

Test = tuple[str, str, Any]  # (attribute, "==" | "in" | "not in", value or frozenset)


def _tests(token: dict[str, Any]) -> list[Test] | None:
    """A one-token pattern as tests on plain attributes; None if it uses anything else."""
    tests: list[Test] = []
    for attr, value in token.items():
        if attr not in _READ:
            return None
        if isinstance(value, (str, bool)):
            tests.append((attr, "==", value))
        elif isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("IN", "NOT_IN"):
            op, values = next(iter(value.items()))
            if not all(isinstance(v, str) for v in values):
                return None
            tests.append((attr, "in" if op == "IN" else "not in", frozenset(values)))
        else:
            return None
    return tests or None


def _passes(values: dict[str, Any], tests: list[Test]) -> bool:
    for attr, op, want in tests:
        got = values[attr]
        if (got == want) if op == "==" else (got in want) if op == "in" else (got not in want):
            continue
        return False
    return True


def speed_up(nlp: Any) -> bool:
    """Replace the ``match`` of ``nlp``'s attribute ruler with the lookup; False if there is none to replace."""
    if "attribute_ruler" not in nlp.pipe_names:
        return False
    from spacy.matcher import Matcher

    ruler = nlp.get_pipe("attribute_ruler")
    strings = nlp.vocab.strings
    filed: dict[tuple[str, Any], list[tuple[int, list[Test]]]] = {}
    rest = Matcher(nlp.vocab)
    keys: list[int] = []
    for i, rule in enumerate(ruler.patterns):  # rule i is the ruler's attribute set i (its match key is str(i))
        keys.append(strings.add(str(i)))
        alternatives = [_tests(a[0]) if len(a) == 1 else None for a in rule["patterns"]]
        if any(t is None for t in alternatives):
            rest.add(keys[i], rule["patterns"])  # several tokens, or tests the lookup does not read: matched
            continue
        for tests in alternatives:
            attr, op, want = next(t for a in _INDEX for t in tests if t[0] == a and t[1] != "not in")  \
                if any(t[1] != "not in" for t in tests) else (None, None, None)
            if attr is None:
                rest.add(keys[i], rule["patterns"])
                break
            for value in (want if op == "in" else (want,)):
                filed.setdefault((attr, value), []).append((i, tests))

    def match(doc: Any) -> list[tuple[int, int, int, int]]:
        found = {(int(strings[m_id]), m_id, s, e) for m_id, s, e in rest(doc, allow_missing=True, as_spans=False)}
        for tok in doc:
            values = {attr: read(tok) for attr, read in _READ.items()}
            for attr in _INDEX:
                for i, tests in filed.get((attr, values[attr]), ()):
                    if _passes(values, tests):
                        found.add((i, keys[i], tok.i, tok.i + 1))
        return sorted(found)  # by rule: later rules are applied last and win, as the ruler's own match orders them

    ruler.match = match
    return True
