"""The offline fallback: which sentences it keeps, in English, Chinese and both, within budget."""

from __future__ import annotations

import pytest

from memdir.errors import UsageError
from memdir.llm import EXTRACTIVE, ChatModel, ExtractiveSummarizer
from memdir.llm.extractive import sentence_signals, split_sentences
from memdir.text import weighted_length

ENGLISH_NOTES = """# Standup 2026-03-02

Good morning everyone. How was the weekend?
We decided to move billing to PostgreSQL 16. The old MySQL box is slow.
Alice prefers Tuesday releases. Honestly, it was a long call.
Bob will send the migration plan by Friday. Thanks all!
- [ ] rotate the API key in `deploy/secrets.env`

```python
decided = True  # code is not prose
```
The weather is nice.
We decided to move billing to PostgreSQL 16.
"""

CHINESE_NOTES = """## 周会

大家好。
我们决定下周三发布2.0版本。
开会开了很久，大家都很累！
王先生更喜欢用深色主题；李老师说没问题。
记得在周五之前提交报告
好的，谢谢。
我们决定下周三发布2.0版本。
"""


@pytest.fixture
def fallback() -> ExtractiveSummarizer:
    return ExtractiveSummarizer(reason="testing")


def test_english_keeps_decisions_preferences_dates_names_identifiers_and_todos(
    fallback: ExtractiveSummarizer,
) -> None:
    result = fallback.summarize(ENGLISH_NOTES)
    assert result.text == (
        "- We decided to move billing to PostgreSQL 16.\n"
        "- The old MySQL box is slow.\n"
        "- Alice prefers Tuesday releases.\n"
        "- Bob will send the migration plan by Friday.\n"
        "- [ ] rotate the API key in `deploy/secrets.env`"
    )
    assert (result.model, result.provider, result.finish_reason) == (EXTRACTIVE, EXTRACTIVE, "stop")
    assert (result.input_tokens, result.output_tokens) == (0, 0)


def test_chinese_splits_on_cjk_punctuation_and_newlines(fallback: ExtractiveSummarizer) -> None:
    assert split_sentences(CHINESE_NOTES) == [
        "大家好。",
        "我们决定下周三发布2.0版本。",
        "开会开了很久，大家都很累！",
        "王先生更喜欢用深色主题；",
        "李老师说没问题。",
        "记得在周五之前提交报告",
        "好的，谢谢。",
        "我们决定下周三发布2.0版本。",
    ]
    assert fallback.summarize(CHINESE_NOTES).text == (
        "- 我们决定下周三发布2.0版本。\n"
        "- 王先生更喜欢用深色主题；\n"
        "- 李老师说没问题。\n"
        "- 记得在周五之前提交报告"
    )


def test_mixed_conversation_keeps_roles_and_skips_commands_system_and_no_reply(
    fallback: ExtractiveSummarizer,
) -> None:
    messages = [
        {"role": "system", "content": "We decided nothing here: these are instructions."},
        {
            "role": "user",
            "content": "我们决定用 Postgres 做 billing。Also, I prefer tabs over spaces.",
        },
        {"role": "assistant", "content": "Got it! 我会记得你喜欢 tabs。"},
        {"role": "user", "content": "/new session on 2026-03-02"},
        {"role": "assistant", "content": "NO_REPLY"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Deadline: 3月5日 for the 2.0 launch."}],
        },
    ]
    assert fallback.summarize(messages).text == (
        "- user: 我们决定用 Postgres 做 billing。\n"
        "- user: Also, I prefer tabs over spaces.\n"
        "- assistant: 我会记得你喜欢 tabs。\n"
        "- user: Deadline: 3月5日 for the 2.0 launch."
    )


@pytest.mark.parametrize(
    ("sentence", "signals"),
    [
        ("We agreed to ship on 2026-04-01.", {"decision", "date", "number"}),
        ("I really hate Monday meetings.", {"preference", "date", "name"}),
        ("Remember to call the bank at 9:30 tomorrow.", {"todo", "date", "number"}),
        ("Ping @dana about PROJ-42 and https://x.io/y.", {"identifier", "name", "number"}),
        ("The fix is in src/memdir/llm/http.py since v0.3.1.", {"identifier", "number"}),
        ("我们选定了方案B。", {"decision"}),
        ("她不喜欢香菜。", {"preference"}),
        ("明天上午十点开会。", {"date"}),
        ("张经理要三个人。", {"name", "number"}),
        ("The weather was lovely.", set()),
        ("好的，谢谢。", set()),
    ],
)
def test_sentence_signals(sentence: str, signals: set[str]) -> None:
    assert sentence_signals(sentence) == signals


def test_splitting_respects_abbreviations_decimals_urls_and_quotes() -> None:
    text = (
        "Dr. Smith paid 3.50 dollars, e.g. for coffee. See https://example.com/a.b?c=1 now! "
        "J. Doe agreed.他说：“我们走吧。”然后离开了。Really? Yes."
    )
    assert split_sentences(text) == [
        "Dr. Smith paid 3.50 dollars, e.g. for coffee.",
        "See https://example.com/a.b?c=1 now!",
        "J. Doe agreed.",
        "他说：“我们走吧。”",
        "然后离开了。",
        "Really?",
        "Yes.",
    ]


def test_markdown_structure_is_not_prose() -> None:
    text = (
        "# Decided heading\n<!-- decided in a comment -->\n| a | b |\n|---|---|\n"
        "> - quoted bullet we decided on\n1. numbered item due Friday\n***\n"
        "~~~\ndecided in a fence\n~~~\n"
    )
    assert split_sentences(text) == [
        "| a | b |",
        "quoted bullet we decided on",
        "numbered item due Friday",
    ]


def test_the_budget_keeps_the_best_in_source_order(fallback: ExtractiveSummarizer) -> None:
    text = (
        "I met Bob.\n"  # name: 1
        "We decided to use Redis for the cache.\n"  # decision + name: 4
        "It has 3 nodes.\n"  # number: 1
        "Alice prefers short meetings every Monday.\n"  # preference + date + name: 6
    )
    full = fallback.summarize(text)
    assert full.text.count("\n") == 3 and not full.truncated
    budget = len(
        "- We decided to use Redis for the cache.\n- Alice prefers short meetings every Monday."
    )
    result = fallback.summarize(text, max_chars=budget)
    assert result.text == (
        "- We decided to use Redis for the cache.\n- Alice prefers short meetings every Monday."
    )
    assert result.truncated and len(result.text) <= budget
    # On a tie the later sentence wins: "It has 3 nodes." over "I met Bob."
    tie = fallback.summarize(text, max_chars=budget + len("\n- It has 3 nodes."))
    assert tie.text.splitlines() == [
        "- We decided to use Redis for the cache.",
        "- It has 3 nodes.",
        "- Alice prefers short meetings every Monday.",
    ]


def test_repeats_and_contained_sentences_are_kept_once(fallback: ExtractiveSummarizer) -> None:
    text = (
        "We chose Postgres.\n"
        "WE CHOSE POSTGRES!!\n"
        "We chose Postgres for billing on 2026-01-12.\n"
        "We chose Ｐｏｓｔｇｒｅｓ.\n"
    )
    assert fallback.summarize(text).text == "- We chose Postgres for billing on 2026-01-12."


def test_an_oversized_sentence_is_cut_to_fit(fallback: ExtractiveSummarizer) -> None:
    long = "We decided that " + "the cache layer " * 60 + "moves to Redis."
    capped = fallback.summarize(long)
    assert capped.text.endswith("…") and len(capped.text) <= 2 + 400
    tiny = fallback.summarize(long, max_chars=40)
    assert tiny.text.startswith("- We decided that") and tiny.text.endswith("…")
    assert len(tiny.text) <= 40 and tiny.truncated


def test_nothing_worth_keeping(fallback: ExtractiveSummarizer) -> None:
    chat = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi! How can I help?"},
    ]
    assert fallback.summarize("Thanks, sounds good.\n好的。").text == ""
    answer = fallback.complete(chat)
    assert answer.text == "NO_REPLY" and answer.silent and answer.model == EXTRACTIVE


def test_complete_reads_the_conversation_within_max_tokens(fallback: ExtractiveSummarizer) -> None:
    chat = [
        {
            "role": "user",
            "content": "我们决定把数据库迁移到PostgreSQL，时间定在三月十五日下午两点，由王先生负责。",
        },
        {"role": "assistant", "content": "I'll note that Alice prefers email over Slack."},
    ]
    assert isinstance(fallback, ChatModel)
    full = fallback.complete(chat, system="Summarise. We decided to ignore this.")
    assert full.text.splitlines() == [
        "- user: 我们决定把数据库迁移到PostgreSQL，时间定在三月十五日下午两点，由王先生负责。",
        "- assistant: I'll note that Alice prefers email over Slack.",
    ]
    short = fallback.complete(chat, max_tokens=20)
    assert short.truncated
    assert weighted_length(short.text) / 4 <= 20


async def test_async_twins_give_the_same_answers(fallback: ExtractiveSummarizer) -> None:
    chat = [{"role": "user", "content": "Remember: the demo is on Friday at 10am."}]
    assert await fallback.acomplete(chat) == fallback.complete(chat)
    assert await fallback.asummarize(ENGLISH_NOTES, max_chars=90) == fallback.summarize(
        ENGLISH_NOTES, max_chars=90
    )


def test_deterministic_and_says_why_it_is_used() -> None:
    one, two = ExtractiveSummarizer(reason="OPENAI_API_KEY is not set"), ExtractiveSummarizer()
    assert one.summarize(CHINESE_NOTES + ENGLISH_NOTES) == two.summarize(
        CHINESE_NOTES + ENGLISH_NOTES
    )
    assert one.reason == "OPENAI_API_KEY is not set" and "OPENAI_API_KEY" in repr(one)
    one.close()


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_bad_budgets_are_usage_errors(fallback: ExtractiveSummarizer, bad: object) -> None:
    with pytest.raises(UsageError):
        fallback.summarize("We decided.", max_chars=bad)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        fallback.complete([{"role": "user", "content": "x"}], max_tokens=bad)  # type: ignore[arg-type]
