"""The public namespace: what ``knotwork`` exports is what it documents."""

import knotwork


def test_all_names_exist_and_are_documented() -> None:
    for name in knotwork.__all__:
        obj = getattr(knotwork, name)
        if callable(obj) and not isinstance(obj, str):
            assert obj.__doc__, f"knotwork.{name} has no docstring"
    assert sorted(knotwork.__all__) == knotwork.__all__


def test_service_methods_match_the_documented_api() -> None:
    for method in ("add", "add_many", "get", "update", "history", "delete", "list", "search", "close"):
        assert callable(getattr(knotwork.Knotwork, method)), method
    with knotwork.open(":memory:") as mem:
        assert mem.add("context manager works").id
