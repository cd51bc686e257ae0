"""What the README imports from `groundwire` is there: every error class, and the client types."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import pytest

import groundwire
from groundwire import AsyncGroundingClient, GroundingClient, GroundwireError
from tests.test_module_contracts import OPTIONAL


def _error_classes() -> list[type[GroundwireError]]:
    """Every public GroundwireError subclass defined in the package (all modules imported)."""
    for module in pkgutil.walk_packages(groundwire.__path__, "groundwire."):
        needs = OPTIONAL.get(module.name)
        if needs is not None and importlib.util.find_spec(needs.partition(".")[0]) is None:
            continue  # an extra's module, where the extra is not installed
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: list[type[GroundwireError]] = []
    pending = [GroundwireError]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass.__module__.startswith("groundwire.") and subclass not in found:
                pending.append(subclass)
                if not subclass.__name__.startswith("_"):
                    found.append(subclass)
    return found


ERRORS = _error_classes()


def test_from_groundwire_import_invalid_argument_works() -> None:
    from groundwire import InvalidArgument

    assert issubclass(InvalidArgument, GroundwireError)


@pytest.mark.parametrize("error_class", ERRORS, ids=lambda error_class: error_class.__name__)
def test_every_error_class_is_exported_by_name(error_class: type[GroundwireError]) -> None:
    assert getattr(groundwire, error_class.__name__) is error_class
    assert error_class.__name__ in groundwire.__all__


def test_every_name_in_all_can_be_imported() -> None:
    for name in groundwire.__all__:
        assert getattr(groundwire, name) is not None


def test_the_async_clients_repr_is_the_sync_ones_under_its_own_name() -> None:
    options = {"location": "eu", "transport": "rest", "api_version": "v1beta"}
    sync_repr = repr(GroundingClient("my-project", **options))  # type: ignore[arg-type]
    async_repr = repr(AsyncGroundingClient("my-project", **options))  # type: ignore[arg-type]
    assert sync_repr.startswith("GroundingClient(project='my-project', location='eu'")
    assert async_repr == "Async" + sync_repr
