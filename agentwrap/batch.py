"""One batch of committed output and the forms of it that several stages need, each computed once.

The redactor, the capture and the salient scanner each read every batch whole: lower-casing it, counting
its newlines and encoding it are full passes over tens of megabytes, and each of them used to make its
own. A `Batch` makes each form on first request and hands the same one to whoever asks next; a stage
takes its batch through `Batch.of`, so a form lent is always of the very text it reads.
"""

from __future__ import annotations


class Batch:
    __slots__ = ("_lower", "_newlines", "_utf8", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._utf8: bytes | None = None
        self._lower: bytes | None = None
        self._newlines = -1

    @staticmethod
    def of(text: str, lent: Batch | None) -> Batch:
        """`lent` when it was made of this very text, else a new batch of it (a stage that redacted or cut
        the text reads other text than the batch it was handed)."""
        return lent if lent is not None and lent.text is text else Batch(text)

    def utf8(self) -> bytes | None:
        """The text's UTF-8 bytes, or None when it holds a lone surrogate (each stage has its own rule
        for those). For ASCII text, one byte per character."""
        if self._utf8 is None:
            try:
                self._utf8 = self.text.encode()
            except UnicodeEncodeError:
                return None
        return self._utf8

    def ascii_lower(self) -> bytes | None:
        """The lower-cased bytes of ASCII text (one per character, as `text.lower().encode()`), else None."""
        if self._lower is None and self.text.isascii():
            self._lower = self.utf8().lower()  # type: ignore[union-attr]  # ASCII encodes: a copy, then one pass
        return self._lower

    def newlines(self) -> int:
        if self._newlines < 0:
            self._newlines = self.text.count("\n")
        return self._newlines
