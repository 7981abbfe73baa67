"""Readings added for memory3's dev misses: a glossary line whose kind the parse misreads ("tokio: Async runtime
for ...") and a manifest's dependency line (knowledge/registers.py); a pet named after "has a dog named", a named
person's favourite and a kind before "fan" (knowledge/observed.py); a group joined by its kind ("joined a chess
club", knowledge/ends.py); and the near neighbours each must not read."""

from __future__ import annotations

import pytest

from tests.knowledge._proposed import needs_parser, proposed, proposed_now


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("tokio: Async runtime for handling concurrent operations", ("tokio", "is_a", "Async runtime")),
    ("clippy: Linting tool for catching common mistakes and enforcing style", ("clippy", "is_a", "Linting tool")),
    ("esbuild: Fast JavaScript bundler used for building the application.", ("esbuild", "is_a", "JavaScript bundler")),
    ("csv-parse: Library for parsing CSV files into JavaScript objects.", ("csv-parse", "is_a", "Library")),
])
def test_a_glossary_line_says_what_kind_of_part_a_package_is(text: str, fact: tuple) -> None:
    assert fact in proposed_now(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "Rust: The entire application is written in Rust.",  # a sentence after the colon, not a kind
    "dotenv: Used for loading environment variables from .env files.",  # a verb phrase
    "note: tool versions are pinned in the lockfile.",  # a common word heads the line
    "Frontend: TypeScript required, explicit return types.",
])
def test_a_glossary_line_without_a_kind_says_no_kind(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] == "is_a" and f[2].lower().endswith(("tool", "runtime", "library"))]
    assert not [f for f in proposed(text) if f[1] == "is_a" and f[0].lower() in ("note", "frontend", "dotenv")]


@needs_parser
@pytest.mark.parametrize("text, facts", [
    ("Melanie has a dog named Luna and a cat named Oliver.", {("Melanie", "owns", "Luna", False),
                                                             ("Melanie", "owns", "Oliver", False)}),
    ("Nate has a new addition to the family, an adopted pet named Max.", {("Nate", "owns", "Max", False)}),
    ("Joanna had a dog named Tilly back in Michigan.", {("Joanna", "owns", "Tilly", True)}),  # over
])
def test_a_pet_named_after_has_is_owned(text: str, facts: set) -> None:
    assert facts <= proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "I have a sister named Amira.",  # a relative, not a possession
    "Nate has a project called Atlas.",  # not an animal
    "I don't have a dog named Rex.",  # negated
    "Maybe Nate has a dog named Rex.",  # hedged
])
def test_what_is_not_a_pet_held_is_not_owned(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] == "owns"]


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("I joined a book club at the Brixton library.", ("User", "member_of", "book club")),
    ("Joanna recently joined a writers group that she finds inspirational.", ("Joanna", "member_of", "writers group")),
    ("John is a member of a hiking club, even though he just joined.", ("John", "member_of", "hiking club")),
])
def test_a_group_joined_by_its_kind_is_a_membership(text: str, fact: tuple) -> None:
    assert fact in proposed_now(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "I joined a club.",  # no word says which club
    "I joined a call with the vendor.",  # not a group
])
def test_a_bare_group_word_is_no_membership(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] == "member_of"]


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("Tim's favorite book is Harry Potter because it is immersive.", ("Tim", "favorite_book", "Harry Potter")),
    ("Tim's favorite fantasy film is Star Wars as it never gets old.", ("Tim", "favorite_fantasy_film", "Star Wars")),
    ("Tim's favorite basketball team is The Wolves and his favorite player is LeBron, admiring his skills.",
     ("Tim", "favorite_player", "LeBron")),  # "his" is the named holder's
])
def test_a_named_persons_favourite_is_read(text: str, fact: tuple) -> None:
    assert fact in proposed_now(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "Tim's favorite book is not Dune.",  # negated
    "John's favorite memory from his wedding day is seeing his wife walking down the aisle.",  # no name after "is"
    "His favorite book is Dune.",  # no named holder in the sentence
])
def test_a_favourite_without_a_named_holder_or_value_is_not_read(text: str) -> None:
    assert not [f for f in proposed(text) if f[1].startswith("favorite_") and f[0] != "User"]


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("I'm a big video game fan too.", ("User", "likes", "video game", False)),
    ("As a Manchester City fan, I can't agree with you.", ("User", "likes", "Manchester City", False)),
    ("I'm not a big video game fan.", ("User", "dislikes", "video game", False)),
])
def test_a_kind_before_fan_is_liked(text: str, fact: tuple) -> None:
    assert fact in proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "Maybe I'm a jazz fan.",  # hedged
    "The ceiling fan is broken.",  # a fan, not a liking
    "I'm a fan.",  # of nothing named
])
def test_a_fan_without_a_kind_or_a_holder_likes_nothing(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] in ("likes", "dislikes")]


@needs_parser
def test_a_manifest_dependency_line_is_a_version_in_use() -> None:
    assert ("express", "uses_version", "5.1.0") in proposed_now('"express": "^5.1.0"')
    assert ("bcryptjs", "uses_version", "2.4.3") in proposed_now('"bcryptjs": "^2.4.3",')


@needs_parser
@pytest.mark.parametrize("text", ['"version": "1.0.0"', '"node": ">=18"', '"name": "travel-stipend"'])
def test_a_manifests_own_fields_and_ranges_are_no_version_in_use(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] == "uses_version"]


@needs_parser
@pytest.mark.parametrize("text", [
    "Painting is a fun way for Melanie to express her feelings.",
    "J.K. Rowling is a significant inspiration for Tim's writing, and he takes notes on her style.",
])
def test_what_a_thing_is_to_someone_is_not_its_kind(text: str) -> None:
    assert not [f for f in proposed(text) if f[1] == "is_a"]


@needs_parser
def test_a_kind_is_still_a_kind() -> None:
    assert [f for f in proposed_now("Ruff is a Python linter.") if f[1:] == ("is_a", "Python linter")]


@needs_parser
def test_a_majority_is_no_holder() -> None:
    assert not [f for f in proposed("We have migrated majority of projects to Jenkins.") if f[0] == "majority"]


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("I enjoy reading mysteries.", ("User", "likes", "mysteries")),
    ("Jolene loves listening to Nils Frahm and Olafur Arnalds during her practice as their music is calming.",
     ("Jolene", "likes", "Olafur Arnalds")),
    ("Besides nature, I also love listening to music, especially jazz.", ("User", "likes", "jazz")),
])
def test_what_a_liked_pastime_is_about_is_liked(text: str, fact: tuple) -> None:
    assert fact in proposed_now(text)


@needs_parser
@pytest.mark.parametrize("text, wrong", [
    ("I don't enjoy watching horror films.", ("User", "likes", "horror films")),  # negated
    ("I love reading books about travel.", ("User", "likes", "books")),  # the phrase is longer than the noun
    ("Besides nature, I also love listening to music, especially jazz.", ("User", "likes", "music")),
])
def test_a_pastimes_object_is_not_liked_when_the_sentence_says_otherwise(text: str, wrong: tuple) -> None:
    assert wrong not in proposed_now(text)


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("wicked.haufe.io uses go.cd as its CI tool.", ("wicked.haufe.io", "uses", "go.cd")),
    ("Christian Couder is the new maintainer of Sharness.", ("Sharness", "has_maintainer", "Christian Couder")),
])
def test_a_dotted_name_is_a_subject_and_a_new_holder_holds_the_role(text: str, fact: tuple) -> None:
    assert fact in proposed_now(text)


@needs_parser
def test_a_real_auxiliary_stays_an_auxiliary() -> None:
    from knotwork.knowledge.nlp import pipeline
    from knotwork.knowledge.repair import mend

    doc = pipeline()("The service has moved to Render.")
    mend(doc)
    assert [t.dep_ for t in doc if t.lower_ == "has"] == ["aux"]
