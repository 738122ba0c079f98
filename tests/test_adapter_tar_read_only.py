"""`--read-only` and tar: a listing or comparison runs, in every spelling of its mode; extracting, creating
and changing an archive are refused, and so is a listing whose options may run a program or reach another
machine (GNU tar takes abbreviated long options, so an unknown one is refused too)."""

from __future__ import annotations

import pytest

from agentwrap import registry
from agentwrap.safety.readonly import classify


def _read_only(*argv: str) -> bool:
    return classify(list(argv), registry.builtin("tar")).read_only


@pytest.mark.parametrize("argv", [
    ("tar", "tzf", "good.tgz"), ("tar", "-tzf", "good.tgz"), ("tar", "--list", "-f", "good.tgz"),
    ("tar", "--list", "--file=good.tgz", "-v"), ("tar", "-C", "out", "-tf", "a.tar"), ("tar", "-df", "a.tar"),
    ("tar", "-tf", "./odd:name.tar"), ("tar", "-tf", "host:a.tar", "--force-local"), ("tar", "--version"),
])
def test_listing_an_archive_is_read_only(argv: tuple[str, ...]):
    assert _read_only(*argv)


@pytest.mark.parametrize("argv", [
    ("tar", "xzf", "good.tgz"), ("tar", "-czf", "out.tgz", "src"), ("tar", "-rf", "a.tar", "b"),
    ("tar", "-uf", "a.tar", "b"), ("tar", "--delete", "-f", "a.tar", "m"), ("tar", "--extract", "-f", "a.tar"),
])
def test_changing_files_or_the_archive_is_refused(argv: tuple[str, ...]):
    assert not _read_only(*argv)
    assert registry.builtin("tar").effects(list(argv)).read_only is False


@pytest.mark.parametrize("argv", [
    ("tar", "-tf", "a.tar", "--to-command=sh"), ("tar", "-tf", "a.tar", "--to-com=sh"),
    ("tar", "-tf", "a.tar", "-I", "sh"), ("tar", "-t", "--use-compress-program=sh", "-f", "a.tar"),
    ("tar", "-tf", "a.tar", "--checkpoint-action=exec=sh"), ("tar", "-tf", "a.tar", "-F", "script"),
    ("tar", "-tf", "a.tar", "--rsh-command=/bin/sh"), ("tar", "-tf", "a.tar", "--index-file=out"),
    ("tar", "-tf", "host:a.tar"), ("tar", "tfC", "host:a.tar", "dir"), ("tar", "-tf", "a.tar", "-g", "snap"),
])
def test_a_listing_that_may_run_a_program_or_write_a_file_is_refused(argv: tuple[str, ...]):
    assert not _read_only(*argv)
