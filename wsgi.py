"""WSGI entry point for any WSGI server (``kibitz serve`` is the one the service is built and measured with)."""

from service.app import create_app

app = create_app()
