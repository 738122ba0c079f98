"""--answer rules: a rule answers only the prompt in front of it (the text written since the last reply), and
a reply the program rejects is not sent again and again. Real programs on real terminals."""

from __future__ import annotations

import sys

from conftest import aw

PY = sys.executable


def test_a_rule_does_not_answer_a_later_different_prompt_from_bash_read():
    a = aw("--answer", r"Continue\?=y", "bash", "-c",
           'read -p "Continue? [y/N] " a; read -p "Delete all files? " b; echo "a=$a b=$b"')
    assert a.error is not None and a.error["code"] == "INPUT_REQUIRED", a.env
    assert a.error["prompt"] == "Delete all files?"
    assert "a=y" not in a.text()  # the echo never ran: the tree was ended at the second question
    answered = a.env["context"]["answered"]
    assert [r["prompt"] for r in answered] == ["Continue? [y/N]"]
    note = next(w["message"] for w in a.env["warnings"] if w["code"] == "PROMPT_ANSWERED")
    assert "1 prompt was answered" in note and "'Continue? [y/N]'" in note


def test_a_rule_does_not_answer_a_later_prompt_on_the_same_line():
    # input() without echo: the second question is written on the line of the first
    a = aw("--answer", r"Continue\?\ \[y/N\]=y", PY, "-c",
           "a = input('Continue? [y/N] '); b = input('Name: '); print('a=' + a, 'b=' + b)")
    assert a.error is not None and a.error["code"] == "INPUT_REQUIRED", a.env
    assert a.error["prompt"] == "Name:"
    assert a.error["input_kind"] == "text"  # read from the question asked, not from the one answered
    assert len(a.env["context"]["answered"]) == 1


def test_the_concise_envelope_says_which_prompts_were_answered():
    a = aw("--answer", r"Name:=Ada", "--answer", r"Colour:=blue", PY, "-c",
           "a = input('Name: '); b = input('Colour: '); print(a, b)", detail="concise")
    assert a.code == 0, a.env
    note = next(w["message"] for w in a.env["warnings"] if w["code"] == "PROMPT_ANSWERED")
    assert note == "2 prompts were answered by --answer rules: 'Name:', 'Colour:'"
    assert "Ada" not in note and "blue" not in note  # a reply is never repeated


def test_two_rules_answer_two_prompts_in_turn():
    a = aw("--answer", r"Continue\?=y", "--answer", r"Name:=Ada", PY, "-c",
           "a = input('Continue? [y/N] '); b = input('Name: '); print('a=' + a, 'b=' + b)")
    assert a.code == 0, a.env
    assert "a=y b=Ada" in a.text()
    assert [r["pattern"] for r in a.env["context"]["answered"]] == [r"Continue\?", "Name:"]


def test_a_rejected_reply_is_not_sent_until_the_timeout():
    a = aw("--timeout", "20", "--answer", r"Continue\?=y", "bash", "-c",
           'while true; do read -p "Continue? " a; [ "$a" = yes ] && break; echo "please type yes"; done',
           timeout=40)
    assert a.error is not None and a.error["code"] == "INPUT_REQUIRED", a.env
    assert not a.env["exit"]["timed_out"]
    assert a.wall < 10
    assert len(a.env["context"]["answered"]) == 2
    assert a.text().count("please type yes") == 2
    assert a.error["answer_rejected"] == {"pattern": r"Continue\?", "prompt": "Continue?", "times": 2}
    assert "rejected the reply" in a.error["detail"]


def test_a_question_asked_again_with_nothing_between_is_answered_once():
    a = aw("--timeout", "20", "--answer", "PIN:=0000", PY, "-c", "while True: input('PIN: ')", timeout=40)
    assert a.error is not None and a.error["code"] == "INPUT_REQUIRED", a.env
    assert len(a.env["context"]["answered"]) == 1
    assert a.error["answer_rejected"]["times"] == 1


def test_the_same_question_for_different_items_is_answered_each_time(tmp_path):
    script = 'for f in alpha beta gamma delta; do echo "file $f"; read -p "Delete? " x; echo "$f:$x"; done'
    a = aw("--answer", r"Delete\?=y", "bash", "-c", script)
    assert a.code == 0, a.env
    assert len(a.env["context"]["answered"]) == 4
    assert "delta:y" in a.text()


def test_rm_ri_answers_each_file(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    for name in ("a", "b", "c"):
        (d / name).write_text(name)
    a = aw("--cwd", str(tmp_path), "--answer", r"^rm: .*\?=y", "rm", "-ri", "dir")
    assert a.code == 0, a.env
    assert not d.exists()
    assert len(a.env["context"]["answered"]) == 5  # descend, three files, the directory


def test_a_prompt_redrawn_past_the_bound_falls_back_to_the_screen():
    from agentwrap.pipeline import SINCE_ANSWER_BYTES, Pipeline

    p = Pipeline(max_inline_bytes=4096, store=None, secrets=[])
    p.output("stderr", b"Continue? [y/N] ")
    p.answering()
    assert p.prompt_text() == "" and p.since_answer() == ""
    p.output("stderr", b"Name: ")
    assert p.prompt_text() == "Name:"
    p.output("stdout", b"x" * SINCE_ANSWER_BYTES + b"\n")
    assert p.since_answer() is None  # too much since the reply to compare: real output
