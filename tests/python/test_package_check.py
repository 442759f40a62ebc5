"""The guard that makes the wheel runs test the installed package (package_check.py)."""

from __future__ import annotations

from pathlib import Path

import inspection_client

from package_check import installed_problem, origin

HERE = Path(inspection_client.__file__).parent


def test_a_package_from_elsewhere_is_refused(tmp_path: Path) -> None:
    problem = installed_problem(tmp_path)
    assert problem == f"inspection_client was imported from {(HERE / '__init__.py').resolve()}, not from the package installed in {tmp_path}"


def test_a_module_the_distribution_does_not_hold_is_refused(tmp_path: Path) -> None:
    stray = tmp_path / "inspection_client" / "__init__.py"
    problem = installed_problem(tmp_path, stray)
    assert problem is not None
    assert problem.startswith(f"{stray.resolve()} is not"), problem


def test_the_header_names_the_package_folder() -> None:
    assert origin().startswith("inspection-client ")
    assert origin().endswith(f" from {HERE}")
