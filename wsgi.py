"""WSGI entry point for any WSGI server (``kibitz serve`` is the one the service is built and measured with).

Requests are answered only when addressed to this machine's own names and addresses or to a
name of ``$KIBITZ_ALLOWED_HOSTS`` (comma-separated; the name a proxy forwards under), as
``kibitz serve --allowed-host`` does (docs/text-and-headers.md). The pages show times in the
zone named by ``$KIBITZ_TIMEZONE`` (an IANA name), else this computer's, as ``kibitz serve
--timezone`` does (docs/club-server.md)."""

from service.cli import lan
from service.web.app import create_app

app = create_app()
app.config["TRUSTED_HOSTS"] = lan.known_hosts("0.0.0.0", lan.allowed_from_environment())
