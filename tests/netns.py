"""Machines of their own for the tests of a league over several machines: Linux network
namespaces joined by veth pairs to a bridge, with addresses of their own (10.77.0.0/24), made
with iproute2 (``ip netns``) and removed afterwards, even when the test fails. Nothing of the
machine's own network is touched: every interface, the bridge included, is created inside a
namespace of the test's own (``ip -n NS link add … peer … netns OTHER``), never in the
machine's.

:func:`unavailable` says why namespaces cannot be made here (not root, no ``ip``, a kernel or
container that refuses), or None. :class:`Network` makes them; :func:`inside` moves the calling
thread into one (``setns``), so that the sockets it opens, and the threads it starts, are that
machine's.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import TracebackType

#: The network the machines share.
PREFIX = "10.77.0"
CLONE_NEWNET = 0x40000000
#: The start of every namespace this module makes: ``kbz-<pid>-<random>-<machine>``.
_NAME = re.compile(r"^kbz-(\d+)-[0-9a-f]{6}-")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=check)


def unavailable() -> str | None:
    """Why network namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (CAP_SYS_ADMIN); .ci/run runs as root"
    if shutil.which("ip") is None:
        return "no ip command (apt-get install iproute2)"
    probe = f"kbz-{os.getpid()}-{uuid.uuid4().hex[:6]}-probe"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"ip netns add failed here: {made.stderr.strip()}"
    try:
        bridge = _ip("-n", probe, "link", "add", "br0", "type", "bridge", check=False)
        if bridge.returncode != 0:
            return f"no bridge can be made in a network namespace here: {bridge.stderr.strip()}"
        veth = _ip("-n", probe, "link", "add", "v0", "type", "veth", "peer", "name", "v1", check=False)
        if veth.returncode != 0:
            return f"no veth pair can be made in a network namespace here: {veth.stderr.strip()}"
    finally:
        _ip("netns", "del", probe, check=False)
    return None


def remove_leftovers() -> None:
    """Remove the namespaces an earlier run of these tests left behind when it was killed
    (those named after a process that no longer runs)."""
    listed = _ip("netns", "list", check=False).stdout.split("\n")
    for line in listed:
        name = line.split(" ", 1)[0]
        found = _NAME.match(name)
        if found and not os.path.exists(f"/proc/{found.group(1)}"):
            _ip("netns", "del", name, check=False)


class Network:
    """One namespace per machine (``machines``: name -> its last address byte), each with an
    ``eth0`` at ``10.77.0.<byte>/24`` whose veth peer is a port of a bridge in a namespace of
    its own (the switch). Use as a context manager: every namespace is deleted on leaving
    (their interfaces, and the processes' sockets in them, go with them)."""

    def __init__(self, machines: Mapping[str, int]) -> None:
        self.tag = f"kbz-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.machines = dict(machines)
        self.made: list[str] = []

    def namespace(self, machine: str) -> str:
        """The namespace of ``machine`` (``switch``: the bridge's)."""
        return f"{self.tag}-{machine}"

    def address(self, machine: str) -> str:
        """The address of ``machine``."""
        return f"{PREFIX}.{self.machines[machine]}"

    def command(self, machine: str, args: Sequence[str]) -> list[str]:
        """``args`` run on ``machine`` (``ip netns exec``, which execs it: the same process id)."""
        return ["ip", "netns", "exec", self.namespace(machine), *args]

    def __enter__(self) -> Network:
        remove_leftovers()
        try:
            switch = self.namespace("switch")
            self._add(switch)
            _ip("-n", switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", switch, "link", "set", "br0", "up")
            for machine in self.machines:
                there = self.namespace(machine)
                self._add(there)
                port = f"p-{machine}"[:15]
                _ip("-n", there, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", switch)
                _ip("-n", there, "addr", "add", f"{self.address(machine)}/24", "dev", "eth0")
                _ip("-n", there, "link", "set", "eth0", "up")
                _ip("-n", switch, "link", "set", port, "master", "br0")
                _ip("-n", switch, "link", "set", port, "up")
        except BaseException:
            self.remove()
            raise
        return self

    def cut(self, machine: str) -> None:
        """Cut ``machine`` off the network: its port of the switch goes down, so what is sent to
        it is dropped (nothing is refused, nothing answers)."""
        _ip("-n", self.namespace("switch"), "link", "set", f"p-{machine}"[:15], "down")

    def mend(self, machine: str) -> None:
        """Join ``machine`` to the network again (after :meth:`cut`)."""
        _ip("-n", self.namespace("switch"), "link", "set", f"p-{machine}"[:15], "up")

    def _add(self, namespace: str) -> None:
        _ip("netns", "add", namespace)
        self.made.append(namespace)
        _ip("-n", namespace, "link", "set", "lo", "up")

    def remove(self) -> None:
        """Delete every namespace made (never raises)."""
        while self.made:
            _ip("netns", "del", self.made.pop(), check=False)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.remove()


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


@contextmanager
def inside(namespace: str) -> Iterator[None]:
    """Move the calling thread into network namespace ``namespace`` for the block (sockets opened
    and threads started meanwhile are that namespace's), and back afterwards."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        there = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
        try:
            _setns(there)
        finally:
            os.close(there)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(own)
