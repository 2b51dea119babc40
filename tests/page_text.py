"""What a person reads on a served page, parsed from its HTML with the standard library: the
text outside ``<script>`` and ``<style>``, line by line, and the page's links (for the tests
that read pages for raw data and for words a card player would not use)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Elements whose text is a line of its own on the page.
BLOCKS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "div", "section", "caption", "dt", "dd", "tr", "br",
          "nav", "ol", "ul", "summary", "figcaption", "label", "button", "option", "legend", "header", "main",
          "footer", "output", "span"}


class PageText(HTMLParser):
    """Feed it a page: ``lines`` holds the text read, one entry per block element (raw, see
    :meth:`text`), ``whole`` all of it in order with nothing between the pieces, ``links`` every
    ``<a href>``."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = [""]
        self.pieces: list[str] = []
        self.links: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        if tag in BLOCKS:
            self.lines.append("")
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1
        if tag in BLOCKS:
            self.lines.append("")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.lines[-1] += data
            self.pieces.append(data)

    @property
    def whole(self) -> str:
        """Every piece of text read, joined as it came."""
        return "".join(self.pieces)

    def text(self) -> list[str]:
        """The lines a person reads: white space folded, empty lines left out."""
        return [line for line in (re.sub(r"\s+", " ", raw).strip() for raw in self.lines) if line]
