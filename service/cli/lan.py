"""The addresses a tablet on the club's network can open: ``kibitz serve --lan``.

``lan_addresses()`` lists this machine's IPv4 addresses other than loopback and link-local
(psutil reads the network interfaces); ``lan_urls()`` turns them into ``http://addr:port/``;
``terminal_qr()`` draws a URL as a QR code for an 80-column terminal (segno);
``known_hosts()`` is the list of host names a request may be addressed to (Flask's
``TRUSTED_HOSTS``: a request naming any other host is refused, docs/text-and-headers.md).
"""

from __future__ import annotations

import io
import ipaddress
import os
import socket
from collections.abc import Iterable

import psutil
import segno


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a LAN can reach (no loopback, no link-local), sorted,
    private ranges (192.168/16, 10/8, 172.16/12) first."""
    found: set[str] = set()
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family != socket.AF_INET:
                continue
            ip = ipaddress.IPv4Address(address.address)
            if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
                continue
            found.add(str(ip))
    return sorted(found, key=lambda text: (not ipaddress.IPv4Address(text).is_private, ipaddress.IPv4Address(text)))


#: The names of this computer that only this computer reaches.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1")
#: The environment variable of more host names (comma-separated), for ``wsgi.py``.
ALLOWED_HOSTS_ENV = "KIBITZ_ALLOWED_HOSTS"
#: Listening addresses that mean "every address of this machine".
EVERY_ADDRESS = ("", "0.0.0.0", "::")


def known_hosts(listen_host: str, allowed: Iterable[str] = ()) -> list[str]:
    """The host names a request to this server may carry in its ``Host`` header (Flask's
    ``TRUSTED_HOSTS``; the port is not compared): the loopback names, this machine's own name
    (``socket.gethostname()``, also with ``.local``), the address it listens on, every
    address of :func:`lan_addresses` when it listens on every address (``--lan``, ``--host
    0.0.0.0``), and the ``allowed`` names (``kibitz serve --allowed-host``, a proxy's or a DNS
    name). Any other ``Host`` (a name an attacker's DNS points here: DNS rebinding, or a
    forged header that would put another site in a share link) is refused with a 400.

    An IPv6 address is not a name Werkzeug's check can match: such a server is opened under
    a name (``localhost``, or one given with ``allowed``)."""
    names = [*LOOPBACK_HOSTS]
    machine = socket.gethostname()
    if machine:
        names += [machine, f"{machine}.local"]
    if listen_host in EVERY_ADDRESS:
        names += lan_addresses()
    else:
        names.append(listen_host)
    names += [name.strip() for name in allowed if name.strip()]
    return list(dict.fromkeys(name.lower() for name in names))


def allowed_from_environment() -> list[str]:
    """The names of ``$KIBITZ_ALLOWED_HOSTS`` (comma-separated), for ``wsgi.py``."""
    return [name.strip() for name in os.environ.get(ALLOWED_HOSTS_ENV, "").split(",") if name.strip()]


def lan_urls(port: int) -> list[str]:
    """``http://<address>:<port>/`` for every address of :func:`lan_addresses`."""
    return [f"http://{address}:{port}/" for address in lan_addresses()]


def terminal_qr(url: str) -> str:
    """``url`` as a QR code drawn with block characters (two rows per line), for a terminal."""
    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()
