"""A PostgreSQL cluster of a test's own (``tests/postgres_cluster.sh``), for the tests that stop,
restart or pause their database server: they never touch the shared ``KIBITZ_TEST_POSTGRES``
server. :func:`cluster` is the fixture; :class:`Cluster` stops and starts the server in place,
and pauses every one of its processes (``SIGSTOP``, the postmaster too) and resumes them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.postgres import REQUIRE

SCRIPT = Path(__file__).with_name("postgres_cluster.sh")


def pg_bin() -> Path | None:
    """The bin folder of the PostgreSQL server, found as tests/postgres_cluster.sh finds it."""
    if os.environ.get("KIBITZ_PG_BIN"):
        return Path(os.environ["KIBITZ_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: [
        int(part) if part.isdigit() else 0 for part in p.parts[-3].split(".")])
    return found[-1].parent if found else None


def as_owner(*command: str) -> list[str]:
    """``command`` run as the ``postgres`` user when this is root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else list(command)


def no_server_found() -> None:
    """Skip the test (fail it under ``KIBITZ_REQUIRE_POSTGRES=1``): no PostgreSQL server here."""
    why = "no PostgreSQL server found in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1 but {why}")
    pytest.skip(why)


class Cluster:
    """A cluster of tests/postgres_cluster.sh in ``folder``, stopped and started in place."""

    def __init__(self, bin_dir: Path, folder: Path, url: str) -> None:
        self.bin, self.folder, self.url = bin_dir, folder, url
        self.port = urlparse(url).port
        self.paused: list[int] = []

    def stop(self) -> None:
        """``pg_ctl -m fast stop``: the server ends every connection and exits."""
        subprocess.run(as_owner(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w",
                                "stop"), check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        """Start the server again, with the options tests/postgres_cluster.sh starts it with, on the same port."""
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c max_connections=200"
        subprocess.run(as_owner(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-l",
                                str(self.folder / "server.log"), "-w", "-t", "60", "-o", options, "start"),
                       check=True, capture_output=True, timeout=90)

    def postmaster(self) -> int:
        """The process id of the server's postmaster (the first line of ``postmaster.pid``)."""
        return int((self.folder / "data" / "postmaster.pid").read_text().split("\n", 1)[0])

    def processes(self) -> list[int]:
        """The postmaster and every process it started (its backends, checkpointer, walwriter …)."""
        postmaster = self.postmaster()
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the process ended meanwhile
            if int(fields[1]) == postmaster:
                children.append(int(stat.parent.name))
        return [postmaster, *children]

    def pause(self) -> list[int]:
        """Stop every process of the server with SIGSTOP, the postmaster first (so that it starts
        no new one meanwhile): the server answers nothing, while its kernel still accepts and
        acknowledges TCP. Returns the processes paused."""
        postmaster = self.postmaster()
        os.kill(postmaster, signal.SIGSTOP)
        self.paused = [postmaster]
        for pid in self.processes()[1:]:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            self.paused.append(pid)
        return list(self.paused)

    def resume(self) -> None:
        """SIGCONT every process :meth:`pause` stopped (nothing when none is paused)."""
        paused, self.paused = self.paused, []
        for pid in paused:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                continue


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """A new cluster of the test's own, removed afterwards (resumed first if the test paused it)."""
    bin_dir = pg_bin()
    if bin_dir is None or not (bin_dir / "pg_ctl").exists() or shutil.which("bash") is None:
        no_server_found()
        raise AssertionError("unreachable")
    top = Path(tempfile.mkdtemp(prefix="kibitz-cluster-"))
    top.chmod(0o755)  # the postgres user (as root) must reach the cluster inside
    folder = top / "cluster"
    made: Cluster | None = None
    try:
        started = subprocess.run([str(SCRIPT), "start", str(folder)], capture_output=True, text=True, timeout=120,
                                 env={**os.environ, "KIBITZ_PG_BIN": str(bin_dir)})
        assert started.returncode == 0, started.stderr
        made = Cluster(bin_dir, folder, started.stdout.strip())
        yield made
    finally:
        if made is not None:
            made.resume()
        subprocess.run([str(SCRIPT), "stop", str(folder)], capture_output=True, timeout=120,
                       env={**os.environ, "KIBITZ_PG_BIN": str(bin_dir)})
        shutil.rmtree(top, ignore_errors=True)
