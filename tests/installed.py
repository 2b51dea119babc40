"""Kibitz built and installed the way a user installs it, once per test run (issue 24).

The fixture ``installed_kibitz`` builds the sdist and the wheel from it (``python -m build``:
the wheel is built from the unpacked sdist, so a file the sdist lacks is missing from the wheel
too), then installs Kibitz with pipx twice, as README's "On a club's laptop" says: from the
built wheel, and from the checkout itself (``pipx install .``, which builds a wheel from the
tree as ``pip install .`` does). Both build from a copy of the checkout as a fresh clone has it,
so that leftovers of an earlier build in the checkout (build/, kibitz.egg-info/SOURCES.txt,
which setuptools reads back) can neither ship nor hide a file. Each pipx install is a fresh virtual environment in a
temporary folder outside the checkout; nothing of the checkout or of the test's own
environment is on its path. The tests that take it (tests/test_packaging.py,
tests/browser/test_installed_pages.py) compare what shipped with the checkout and serve the
pages from the installed ``kibitz``.

Under pytest-xdist the first worker to need it builds and installs under a file lock in the
run's shared temporary folder; the other worker waits and reuses the result (one build per run).
Building needs the build back end from the package index (as ``pip install`` does), like the
rest of ``.ci/run``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The folders of files (not Python modules) that the service reads at run time: the pages'
#: templates, and the static files in every subfolder with the vendored assets and their licences.
DATA_FOLDERS = ("service/web/templates", "service/web/static")
#: How long building and the two installs may take together before the test fails (a loaded
#: 2-core machine; unloaded it is about 30 s).
INSTALL_TIMEOUT = 600


@dataclass(frozen=True)
class Installed:
    """Where a built and installed Kibitz is: the archives and the two pipx environments."""

    sdist: str            #: the source distribution ``python -m build`` made
    wheel: str            #: the wheel it built from that sdist
    kibitz: str           #: the ``kibitz`` console script pipx put on its bin folder (from the wheel)
    python: str           #: the interpreter of that pipx environment
    checkout_python: str  #: the interpreter of the environment ``pipx install <checkout>`` made
    outside: str          #: a folder outside the checkout to run them in


def checkout_listing() -> list[str]:
    """The checkout's files as a fresh clone has them, with the ones not yet committed (``git
    ls-files``: tracked and untracked, less the ignored, such as build/, *.egg-info and
    virtual environments, whose leftovers from an earlier build would otherwise ship or hide
    a missing file); outside git, every file less those folders."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode == 0:
        return sorted(name for name in set(listed.stdout.split("\0")) if name and (ROOT / name).is_file())
    junk = {".git", ".venv", ".ci-venv", "build", "dist", "__pycache__", ".mypy_cache", ".pytest_cache",
            ".ruff_cache", ".hypothesis"}
    return sorted(path.relative_to(ROOT).as_posix() for path in ROOT.rglob("*")
                  if path.is_file() and not junk & set(path.relative_to(ROOT).parts)
                  and not any(part.endswith(".egg-info") for part in path.parts))


def checkout_files() -> set[str]:
    """Every file under :data:`DATA_FOLDERS` in the checkout (:func:`checkout_listing`), as
    ``service/web/static/table/board.js``."""
    return _data_only(set(checkout_listing()))


def _data_only(names: set[str]) -> set[str]:
    return {name for name in names if name.startswith(tuple(folder + "/" for folder in DATA_FOLDERS))}


def wheel_files(wheel: str | Path) -> set[str]:
    """The files of the wheel under :data:`DATA_FOLDERS`."""
    with zipfile.ZipFile(wheel) as archive:
        return _data_only({name for name in archive.namelist() if not name.endswith("/")})


def sdist_files(sdist: str | Path) -> set[str]:
    """The files of the sdist under :data:`DATA_FOLDERS` (without its ``kibitz-<version>/`` top folder)."""
    with tarfile.open(sdist) as archive:
        return _data_only({member.name.partition("/")[2] for member in archive.getmembers() if member.isfile()})


def installed_files(python: str | Path) -> set[str]:
    """The files under :data:`DATA_FOLDERS` of the ``service`` package that ``python`` imports
    (run from a folder outside the checkout)."""
    found = subprocess.run([str(python), "-c", "import service; print(service.__file__)"], cwd="/", env=clean_env(),
                           capture_output=True, text=True, check=True).stdout.strip()
    package = Path(found).parent
    assert ROOT not in package.parents, f"{python} imports service from the checkout: {package}"
    site = package.parent
    return {path.relative_to(site).as_posix() for folder in DATA_FOLDERS for path in (site / folder).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def clean_env(**more: str) -> dict[str, str]:
    """The environment for the installed Kibitz and pipx: this one without anything that could
    put the checkout or the test's environment on a Python path."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONSAFEPATH")}
    env.update(more)
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")


def _pipx(home: Path, *args: str, cwd: Path) -> None:
    _run([sys.executable, "-m", "pipx", *args], cwd=cwd,
         env=clean_env(PIPX_HOME=str(home), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man")))


def build_and_install(folder: Path) -> Installed:
    """Copy the checkout as a fresh clone has it (:func:`checkout_listing`) to ``folder/checkout``;
    build the sdist and the wheel from it into ``folder/dist``; install the wheel with pipx into
    ``folder/pipx-wheel`` and the checkout's copy into ``folder/pipx-checkout``."""
    checkout = folder / "checkout"
    for name in checkout_listing():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    dist = folder / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(checkout)], cwd=folder)
    [sdist], [wheel] = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    _pipx(folder / "pipx-wheel", "install", str(wheel), cwd=folder)
    _pipx(folder / "pipx-checkout", "install", ".", cwd=checkout)  # as README says: from inside a checkout
    outside = folder / "outside"
    outside.mkdir()
    return Installed(sdist=str(sdist), wheel=str(wheel), kibitz=str(folder / "pipx-wheel" / "bin" / "kibitz"),
                     python=str(folder / "pipx-wheel" / "venvs" / "kibitz" / "bin" / "python"),
                     checkout_python=str(folder / "pipx-checkout" / "venvs" / "kibitz" / "bin" / "python"),
                     outside=str(outside))


@pytest.fixture(scope="session")
def installed_kibitz(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Kibitz built and installed (:func:`build_and_install`) once for the whole run."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "installed-kibitz"
    with (shared / "installed-kibitz.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "installed.json"
        if done.exists():
            return Installed(**json.loads(done.read_text()))
        if folder.exists():  # an earlier worker failed half-way: start afresh
            shutil.rmtree(folder)
        folder.mkdir()
        installed = build_and_install(folder)
        done.write_text(json.dumps(asdict(installed)))
        return installed
