"""--answer rules: a rule answers only the prompt in front of it (the text written since the last reply).
Real programs on real terminals."""

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


def test_the_same_question_for_different_items_is_answered_each_time(tmp_path):
    script = 'for f in alpha beta gamma delta; do echo "file $f"; read -p "Delete? " x; echo "$f:$x"; done'
    a = aw("--answer", r"Delete\?=y", "bash", "-c", script)
    assert a.code == 0, a.env
    assert len(a.env["context"]["answered"]) == 4
    assert "delta:y" in a.text()
