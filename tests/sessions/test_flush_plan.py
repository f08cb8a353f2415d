"""The flush plan and trigger, ported from spec §15 (cases 97-99, OpenClaw's ``index.test`` and
``agent-runner-memory.test``) plus the upstream failures spec §16 lists."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from memdir.config import load_config, parse_byte_size
from memdir.errors import ConfigError
from memdir.sessions import FlushSettings, build_flush_plan, decide_flush, flush_threshold
from memdir.sessions.flush import DEFAULT_PROMPT, DEFAULT_SYSTEM_PROMPT, current_time_line

from .conftest import NOW

NEW_YORK = ZoneInfo("America/New_York")


# -- spec 97: the plan's target and time line -----------------------------------------------
def test_plan_targets_the_users_day_and_states_the_time_in_both_zones() -> None:
    plan = build_flush_plan(FlushSettings(), now=NOW, zone=NEW_YORK, zone_name="America/New_York")
    assert plan.relative_path == "memory/2026-02-16.md"
    line = (
        "Current time: Monday, February 16th, 2026 - 10:00 AM (America/New_York) / "
        "2026-02-16 15:00 UTC"
    )
    assert plan.prompt.endswith("\n" + line)
    assert plan.prompt.count("Current time:") == 1
    assert "YYYY-MM-DD" not in plan.prompt and "YYYY-MM-DD" not in plan.system_prompt
    assert "memory/2026-02-16.md" in plan.prompt and "memory/2026-02-16.md" in plan.system_prompt


def test_the_date_is_the_users_not_utcs() -> None:
    late = datetime(2026, 2, 17, 3, 30, tzinfo=UTC)  # still the 16th in New York
    plan = build_flush_plan(FlushSettings(), now=late, zone=NEW_YORK, zone_name="America/New_York")
    assert plan.relative_path == "memory/2026-02-16.md"
    assert "Monday, February 16th, 2026 - 10:30 PM (America/New_York)" in plan.prompt
    assert "2026-02-17 03:30 UTC" in plan.prompt


def test_an_existing_current_time_line_is_not_duplicated() -> None:
    custom = FlushSettings(prompt="Save the facts. Current time: whenever. NO_REPLY if none.")
    plan = build_flush_plan(custom, now=NOW, zone=NEW_YORK, zone_name="America/New_York")
    assert plan.prompt.count("Current time:") == 1
    assert "Current time: whenever." in plan.prompt


@pytest.mark.parametrize(
    ("day", "ordinal"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (22, "22nd")]
)
def test_current_time_line_ordinals(day: int, ordinal: str) -> None:
    moment = datetime(2026, 3, day, 9, 5, tzinfo=UTC)
    assert f"March {ordinal}, 2026 - 9:05 AM (UTC)" in current_time_line(moment, UTC, "UTC")


# -- spec 98: defaults, custom prompts, byte sizes --------------------------------------------
def test_flush_defaults_match_upstream() -> None:
    settings = FlushSettings.from_config(load_config(Path.cwd(), env={}))
    assert settings.enabled
    assert settings.soft_threshold_tokens == 4000
    assert settings.force_transcript_bytes == 2 * 1024 * 1024
    assert settings.reserve_tokens == 20000
    assert settings.context_window == 200_000


def test_the_default_prompt_asks_to_append_to_the_one_daily_file() -> None:
    for phrase in (
        "APPEND",
        "do not overwrite",
        "timestamped variant",
        "YYYY-MM-DD.md",
        "NO_REPLY",
    ):
        assert phrase in DEFAULT_PROMPT
    assert DEFAULT_PROMPT.startswith("Pre-compaction memory flush.")
    assert "read-only" in DEFAULT_SYSTEM_PROMPT and "NO_REPLY" in DEFAULT_SYSTEM_PROMPT


def test_custom_prompts_get_the_missing_safety_hints_and_no_reply() -> None:
    custom = FlushSettings(prompt="Write down what matters.", system_prompt="You keep notes.")
    plan = build_flush_plan(custom, now=NOW, zone=UTC, zone_name="UTC")
    for text in (plan.prompt, plan.system_prompt):
        assert "memory/2026-02-16.md" in text
        assert "APPENDED" in text and "do not overwrite" in text
        assert "read-only" in text
        assert "NO_REPLY" in text
    assert plan.prompt.startswith("Write down what matters.\n\n")
    assert plan.system_prompt.startswith("You keep notes.\n\n")


def test_a_custom_prompt_that_has_the_hints_is_kept_as_it_is() -> None:
    complete = build_flush_plan(FlushSettings(), now=NOW, zone=UTC, zone_name="UTC")
    again = FlushSettings(prompt=DEFAULT_PROMPT, system_prompt=DEFAULT_SYSTEM_PROMPT)
    assert build_flush_plan(again, now=NOW, zone=UTC, zone_name="UTC") == complete


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("3mb", 3_145_728),
        ("3 MiB", 3_145_728),
        ("1.5kb", 1536),
        ("512kb", 524_288),
        ("2048", 2048),
        (10, 10),
        ("9" * 400 + ".5", int("9" * 400) + 0),
    ],
)
def test_byte_sizes(text: object, size: int) -> None:
    assert parse_byte_size(text) == size


@pytest.mark.parametrize("bad", ["-1", "lots", "3 parsecs", -5, True, 1.5])
def test_bad_byte_sizes_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_byte_size(bad)


def test_flush_settings_from_env_and_bad_values_name_the_key(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={"MEMDIR_FLUSH_FORCE_TRANSCRIPT_BYTES": "3mb"})
    assert config["flush.force_transcript_bytes"] == 3_145_728
    # Upstream falls back to the default for an invalid number; memdir says what is wrong.
    with pytest.raises(ConfigError, match=r"flush\.soft_threshold_tokens"):
        load_config(tmp_path, env={"MEMDIR_FLUSH_SOFT_THRESHOLD_TOKENS": "-4000"})
    with pytest.raises(ConfigError, match=r"flush\.force_transcript_bytes"):
        load_config(tmp_path, overrides={"flush.force_transcript_bytes": "huge"})


# -- spec 99 and §11.2: the trigger -------------------------------------------------------------
def test_threshold_is_window_minus_reserve_minus_soft() -> None:
    assert flush_threshold(FlushSettings()) == 176_000
    assert flush_threshold(FlushSettings(), context_window=100_000) == 76_000


def test_80k_of_a_100k_window_flushes() -> None:
    decision = decide_flush(FlushSettings(), prompt_tokens=80_000, context_window=100_000)
    assert decision.due and decision.reason == "tokens"
    assert (decision.threshold, decision.projected_tokens) == (76_000, 80_000)


def test_the_count_is_projected_over_the_next_turn() -> None:
    settings = FlushSettings()
    below = decide_flush(settings, prompt_tokens=170_000)
    assert not below.due and below.reason == "below-threshold"
    projected = decide_flush(
        settings, prompt_tokens=170_000, output_tokens=2_000, pending_tokens=4_000
    )
    assert projected.due and projected.projected_tokens == 176_000


def test_no_count_means_no_token_trigger_but_the_size_trigger_still_works() -> None:
    settings = FlushSettings()
    assert decide_flush(settings, prompt_tokens=None).reason == "no-token-count"
    assert decide_flush(settings, prompt_tokens=0, pending_tokens=999_999).reason == (
        "no-token-count"
    )
    big = decide_flush(settings, prompt_tokens=None, transcript_bytes=2 * 1024 * 1024)
    assert big.due and big.reason == "transcript-size"
    assert not decide_flush(
        FlushSettings(force_transcript_bytes=0), prompt_tokens=None, transcript_bytes=10**9
    ).due


def test_at_most_once_per_compaction_cycle() -> None:
    decision = decide_flush(FlushSettings(), prompt_tokens=190_000, flushed_this_cycle=True)
    assert not decision.due and decision.reason == "already-flushed"
    quiet = decide_flush(FlushSettings(), prompt_tokens=1_000, flushed_this_cycle=True)
    assert quiet.reason == "below-threshold"


def test_disabled_never_flushes() -> None:
    decision = decide_flush(
        FlushSettings(enabled=False), prompt_tokens=10**6, transcript_bytes=10**9
    )
    assert not decision.due and decision.reason == "disabled"


def test_the_runtimes_larger_reserve_wins_over_the_floor() -> None:
    # upstream #25880: the threshold used the floor, not the reserve compaction really keeps
    assert flush_threshold(FlushSettings(), reserve_tokens=40_000) == 156_000
    assert flush_threshold(FlushSettings(), reserve_tokens=10_000) == 176_000
    assert decide_flush(FlushSettings(), prompt_tokens=160_000, reserve_tokens=40_000).due


def test_a_small_window_still_gets_a_threshold() -> None:
    # 8k - 20k - 4k would be negative (upstream: never flush); the floor is capped at a quarter
    # of the window and the soft margin at half of what is left.
    assert flush_threshold(FlushSettings(), context_window=8_000) == 3_000
    assert flush_threshold(FlushSettings(), context_window=32_000) == 20_000
    assert decide_flush(FlushSettings(), prompt_tokens=3_500, context_window=8_000).due
