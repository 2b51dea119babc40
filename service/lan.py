"""The addresses a tablet on the club's network can open: ``kibitz serve --lan``.

``lan_addresses()`` lists this machine's IPv4 addresses other than loopback and link-local
(psutil reads the network interfaces); ``lan_urls()`` turns them into ``http://addr:port/``;
``terminal_qr()`` draws a URL as a QR code for an 80-column terminal (segno).
"""

from __future__ import annotations

import io
import ipaddress
import socket

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


def lan_urls(port: int) -> list[str]:
    """``http://<address>:<port>/`` for every address of :func:`lan_addresses`."""
    return [f"http://{address}:{port}/" for address in lan_addresses()]


def terminal_qr(url: str) -> str:
    """``url`` as a QR code drawn with block characters (two rows per line), for a terminal."""
    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()
