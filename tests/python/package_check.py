"""Which ``inspection_client`` the tests run: the one a virtual environment installed from the
built wheel, or the sources. ``cargo xtask ci`` runs the conformance suite in a fresh
environment per Python version with ``INSPECTION_CLIENT_INSTALLED_IN`` set to it, and
conftest.py stops the run before any test if the package came from anywhere else (a
``PYTHONPATH``, the source tree) or was not installed as a distribution."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import inspection_client

DISTRIBUTION = "inspection-client"


def origin() -> str:
    """The package's version and folder, for pytest's header."""
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed)"
    return f"{DISTRIBUTION} {version} from {Path(inspection_client.__file__).parent}"


def installed_problem(expected: Path, module_file: Path | None = None) -> str | None:
    """Why the imported package is not the one installed under ``expected``, or None."""
    module = (module_file or Path(inspection_client.__file__)).resolve()
    if not module.is_relative_to(expected.resolve()):
        return f"inspection_client was imported from {module}, not from the package installed in {expected}"
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return f"{module} is not part of an installed {DISTRIBUTION} distribution"
    if Path(str(dist.locate_file("inspection_client/__init__.py"))).resolve() != module:
        return f"{module} is not the file the installed {DISTRIBUTION} distribution holds"
    return None
