"""People named by their role (:mod:`memdir.text.roles`)."""

from __future__ import annotations

import pytest

from memdir.text.roles import asked_roles, declared_roles


def test_the_names_notes_declare_for_a_role() -> None:
    text = (
        "## People\n- Manager: 周岚 (Zhou Lan). SRE: 老王 (Wang Tao). PM: Priya Nair. "
        "Designer: 林小雨.\n- 上司: 王蕾（Wang Lei）。1on1 は隔週金曜。\n"
        "- 陈卓（Chen Zhuo）: PM、Hanami と 青橙 のスケジュール両方。\n"
    )
    assert declared_roles(text) == {
        "manager": ["周岚", "王蕾"],
        "pm": ["Priya Nair", "陈卓"],
        "designer": ["林小雨"],
    }
    # a role in prose is no declaration
    assert declared_roles("The manager said the PM would decide.") == {}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("上司对我的沟通方式提了什么意见？", [("上司", "manager")]),
        ("What did my manager say about the HC?", [("manager", "manager")]),
        ("老板上周说了什么", [("老板", "manager")]),
        ("Is the boss happy?", [("boss", "manager")]),
        ("Ask the PM about it", [("pm", "pm")]),
        ("设计师给的稿子", [("设计师", "designer")]),
        # another's: a client's boss, a team's manager
        ("青橙老板对赶在十一长假发布的态度？", []),
        ("the manager of the relay team", []),
        ("managerial tasks", []),
        ("Why didn't cert-manager renew the certificate?", []),
        ("pm_tool and manager-ui", []),
    ],
)
def test_a_role_the_question_names_for_the_asker(
    question: str, expected: list[tuple[str, str]]
) -> None:
    assert asked_roles(question) == expected
