"""The suite runs on both backends (tests/conftest.py): every test that takes ``database`` is
parametrized over SQLite and PostgreSQL, except the ones ``SQLITE_ONLY`` names with a reason."""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest

from tests import conftest


class Parametrized(Exception):
    pass


def metafunc(function: Any, fixtures: list[str], module: str = "tests.test_somewhere") -> Any:
    def parametrize(name: str, values: list[str], indirect: bool) -> None:
        raise Parametrized(name, values, indirect)

    return SimpleNamespace(fixturenames=fixtures, module=SimpleNamespace(__name__=module), function=function,
                           definition=SimpleNamespace(iter_markers=lambda: []), parametrize=parametrize)


def test_a_test_taking_the_database_runs_on_both_backends() -> None:
    def test_x(client: Any) -> None: ...

    with pytest.raises(Parametrized) as raised:
        conftest.pytest_generate_tests(metafunc(test_x, ["client", "app", "database"]))
    assert raised.value.args == ("database", ["sqlite", "postgresql"], True)


def test_a_test_reaching_into_the_sqlite_file_must_be_named_with_its_reason() -> None:
    def test_x(client: Any, db_path: Any) -> None: ...

    with pytest.raises(pytest.fail.Exception, match="SQLITE_ONLY"):
        conftest.pytest_generate_tests(metafunc(test_x, ["client", "db_path", "database"]))
    conftest.pytest_generate_tests(metafunc(test_x, ["client", "db_path", "database"], "tests.test_game_tokens"))


def test_every_sqlite_only_entry_names_a_test_and_says_why() -> None:
    for name, why in conftest.SQLITE_ONLY.items():
        module, _, test = name.partition("::")
        found = importlib.import_module(f"tests.{module}")
        assert not test or callable(getattr(found, test, None)), f"{name} names no test"
        assert len(why.split()) >= 5, f"{name}: say why it runs on SQLite only"
