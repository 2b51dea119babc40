"""What a user's install ships (issue 24): the sdist, the wheel built from it, and the two pipx
installs of README's "On a club's laptop" hold every template and static file of the checkout,
in every subfolder, and nothing else there (``tests/installed.py`` builds and installs once per
run). A file added under service/web/templates or service/web/static that the packaging would leave
out fails here; so did ``package_data = static/*``, which took none of service/web/static/table/ nor
the vendored NoSleep.js with its licence.

The pages served from such an install are loaded in Chromium by
tests/browser/test_installed_pages.py.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.installed import ROOT, Installed, checkout_files, clean_env, installed_files, sdist_files, wheel_files

pytestmark = pytest.mark.timeout(900)  # the build and the two installs, once per run, on a loaded machine


def test_the_checkout_has_files_in_subfolders_to_compare():
    files = checkout_files()
    assert {"service/web/templates/table.html", "service/web/static/table/board.js",
            "service/web/static/vendor/nosleep/NoSleep.min.js", "service/web/static/vendor/nosleep/LICENSE",
            "service/web/static/VENDORED.md"} <= files


def test_the_wheel_ships_every_template_and_static_file(installed_kibitz: Installed):
    shipped = wheel_files(installed_kibitz.wheel)
    assert sorted(checkout_files() - shipped) == [], "missing from the wheel"
    assert sorted(shipped - checkout_files()) == [], "in the wheel but not in the checkout"


def test_the_sdist_ships_every_template_and_static_file(installed_kibitz: Installed):
    shipped = sdist_files(installed_kibitz.sdist)
    assert sorted(checkout_files() - shipped) == [], "missing from the sdist"
    assert sorted(shipped - checkout_files()) == [], "in the sdist but not in the checkout"


def test_pipx_install_of_the_wheel_installs_every_file_outside_the_checkout(installed_kibitz: Installed):
    assert installed_files(installed_kibitz.python) == checkout_files()
    answer = subprocess.run([installed_kibitz.kibitz, "--help"], cwd=installed_kibitz.outside, env=clean_env(),
                            capture_output=True, text=True, timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert "serve" in answer.stdout


def test_pipx_install_of_the_checkout_installs_every_file(installed_kibitz: Installed):
    """``pipx install .`` builds from the tree (a stale build/ folder in the checkout would ship too)."""
    assert installed_files(installed_kibitz.checkout_python) == checkout_files()


def test_the_readme_installs_with_the_commands_tested_here(installed_kibitz: Installed):
    """README's "At the club" installs with ``pipx install .`` in a checkout, or builds with
    ``python -m build`` and installs the wheel it names: the commands tests/installed.py runs."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.split("#")[0].split() for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
                for line in block.splitlines() if "pipx" in line or " build" in line]
    assert ["pipx", "install", "."] in commands
    assert [".venv/bin/python", "-m", "build"] in commands
    assert ["pipx", "install", f"dist/{Path(installed_kibitz.wheel).name}"] in commands
