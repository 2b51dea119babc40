"""WSGI entry point: ``waitress-serve wsgi:app`` (or any WSGI server)."""

from service.app import create_app

app = create_app()
