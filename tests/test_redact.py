"""Secret and PII redaction: what is masked, what is left alone, and the guarantees."""

from __future__ import annotations

import re
import time

import pytest

from memdir.errors import ConfigError, UsageError
from memdir.redact import (
    DEFAULT_PATTERNS,
    Finding,
    RedactionPattern,
    Redactor,
    build_patterns,
)

REDACTOR = Redactor()

PEM = """\
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAx3R2c5m9bQ1pTzL0Wq7yVd8eFh2GkJ4NrS6tUvXa1b2c3d4e
f5g6h7i8j9k0lMnOpQrStUvWxYz0123456789+/abcdefABCDEFghijkl==
-----END RSA PRIVATE KEY-----"""

# (pattern name, text, the exact secret that must disappear)
POSITIVES = [
    ("private_key", f"key:\n{PEM}\nend", PEM),
    (
        "anthropic_api_key",
        "ANTHROPIC_KEY is sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz_-AbCd",
        "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz_-AbCd",
    ),
    (
        "openai_api_key",
        "use sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU_x-Yz for the embeddings",
        "sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU_x-Yz",
    ),
    (
        "openai_api_key",
        "legacy key sk-T3BlbkFJ8x7Ra2Qm9Lp4Zt6Wy1Vu5Ks0Ne3Hd8Gc2Jf7Bx.",
        "sk-T3BlbkFJ8x7Ra2Qm9Lp4Zt6Wy1Vu5Ks0Ne3Hd8Gc2Jf7Bx",
    ),
    (
        "github_token",
        "token ghp_16C7e42F292c6912E7710c838347Ae178B4a in CI",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "github_token",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "github_token",
        "clone with github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZ0123456789abcdef",
        "github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZ0123456789abcdef",
    ),
    (
        "slack_token",
        "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    ("aws_access_key_id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws_secret_access_key",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "google_api_key",
        "maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY ok",
        "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    ),
    ("stripe_key", "STRIPE sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    (
        "jwt",
        "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "bearer_token",
        "Authorization: Bearer 7f3a9c2e1b4d8f6a0e5c9b3d7a1f4e8c",
        "7f3a9c2e1b4d8f6a0e5c9b3d7a1f4e8c",
    ),
    ("url_credentials", "DATABASE_URL=postgres://app:s3cr3tP4ss@db.internal:5432/x", "s3cr3tP4ss"),
    ("secret", "password: hunter2", "hunter2"),
    ("secret", "DB_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    ("secret", '{"client_secret": "abc def 123"}', "abc def 123"),
    ("secret", "dbPassword='p@ss;word'", "p@ss;word"),
    ("secret", "x-api-key: k3y-v4lue-9", "k3y-v4lue-9"),
    ("secret", "passwd => s3cret!", "s3cret!"),
    ("secret", "数据库密码：Abc12345", "Abc12345"),
    ("payment_card", "card 4111 1111 1111 1111 exp 12/27", "4111 1111 1111 1111"),
    ("payment_card", "paid with 5555-5555-5555-4444.", "5555-5555-5555-4444"),
    ("payment_card", "amex 3782 822463 10005", "3782 822463 10005"),
    ("payment_card", "银联卡号6222021234567890128", "6222021234567890128"),
    ("email", "write to john.doe+memdir@example.co.uk today", "john.doe+memdir@example.co.uk"),
    ("email", "[mail](mailto:li.wei@example.cn)", "li.wei@example.cn"),
    ("phone", "call +1 (415) 555-2671 after 5", "+1 (415) 555-2671"),
    ("phone", "UK office +44 20 7946 0958", "+44 20 7946 0958"),
    ("phone", "手机13812345678联系", "13812345678"),
    ("phone", "mobile +86 138 1234 5678", "+86 138 1234 5678"),
    ("phone", "US 415-555-2671 or 415.555.2671", "415-555-2671"),
    ("phone", "desk (415) 555-2671", "(415) 555-2671"),
    ("phone", "Paris 06 12 34 56 78", "06 12 34 56 78"),
    ("phone", "北京 010-12345678", "010-12345678"),
]

NEGATIVES = [
    "Released 1.2.3 and 10.0.19041.1234 on 2024-01-15.",
    "Meeting at 2024-01-15T10:30:00+08:00, moved to 15.01.2024 and 01/02/2024.",
    "See lines 10-20, line 1234, L120-L130 and section 3.14159265358979.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 failed.",
    "Fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8 (0123456789abcdef0123456789abcdef01234567).",
    "The password policy requires 12 characters; I forgot my password again.",
    "Rotate the API key and the access token every 90 days.",
    "max_tokens: 4096, tokens=512, passwords: 3",
    "我们昨天讨论了部署方案，数据库密码在保险库里，手机号以后再说。",
    "Port 8080, call 911, 42 apples, year 2024, build 20240115, pid 12345678.",
    "Timestamps 1712345678901 and 1700000000 are epoch values.",
    "Remote git@github.com:owner/repo.git and pkg@1.2.3 and @decorator.",
    "Random digits 1234567812345678 fail the Luhn check.",
    "Use scikit-learn, sk-learn-compatible-estimators and the bearer of bad news.",
    "Counting 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16.",
    "IP 192.168.100.200 and subnet 10.0.0.0/8.",
]


@pytest.mark.parametrize(("name", "text", "secret"), POSITIVES)
def test_default_pattern_masks_secret(name: str, text: str, secret: str) -> None:
    redacted = REDACTOR.redact(text)
    assert secret not in redacted
    assert f"[REDACTED:{name}]" in redacted


@pytest.mark.parametrize(("name", "text", "secret"), POSITIVES)
def test_finding_spans_the_secret(name: str, text: str, secret: str) -> None:
    found = REDACTOR.findings(text)
    start = text.index(secret)
    assert Finding(name, start, start + len(secret)) in found


def test_every_default_pattern_has_a_positive_example() -> None:
    assert {pattern.name for pattern in DEFAULT_PATTERNS} == {name for name, _, _ in POSITIVES}


@pytest.mark.parametrize("text", NEGATIVES)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert REDACTOR.findings(text) == []
    assert REDACTOR.redact(text) == text


def test_only_the_value_of_a_key_value_pair_is_masked() -> None:
    assert REDACTOR.redact('password = "hunter2"') == 'password = "[REDACTED:secret]"'
    assert REDACTOR.redact("Bearer 7f3a9c2e1b4d8f6a0e5c") == "Bearer [REDACTED:bearer_token]"


def test_specific_pattern_names_the_finding_when_patterns_overlap() -> None:
    text = "OPENAI_API_KEY=sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU"
    assert REDACTOR.redact(text) == "OPENAI_API_KEY=[REDACTED:openai_api_key]"


def test_overlapping_findings_merge_into_one_span() -> None:
    text = "https://bob:pw123456@mail.example.com/inbox"
    assert REDACTOR.redact(text) == "https://bob:[REDACTED:url_credentials]/inbox"


def test_line_count_is_preserved() -> None:
    text = f"# Notes\r\nkey below\n{PEM}\npassword: hunter2\nmail a@example.com\n\nend\n"
    redacted = REDACTOR.redact(text)
    assert "PRIVATE KEY" not in redacted
    assert redacted.splitlines()[-1] == "end"
    assert len(redacted.splitlines()) == len(text.splitlines())
    assert redacted.count("\n") == text.count("\n")
    assert redacted.count("\r\n") == text.count("\r\n")


def test_truncated_private_key_is_masked() -> None:
    text = PEM.rsplit("\n", 1)[0] + "\n(truncated)"
    redacted = REDACTOR.redact(text)
    assert "MIIEowIBAAKCAQEA" not in redacted
    assert redacted.endswith("(truncated)")
    assert redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize(("name", "text", "secret"), POSITIVES)
def test_redaction_is_idempotent(name: str, text: str, secret: str) -> None:
    once = REDACTOR.redact(text)
    assert REDACTOR.redact(once) == once
    assert REDACTOR.findings(once) == []


def test_existing_masks_are_not_masked_again() -> None:
    text = "password: [REDACTED:secret] and token=[REDACTED:github_token]"
    assert REDACTOR.redact(text) == text


def test_custom_mask() -> None:
    redactor = Redactor(mask="<{name} removed>")
    once = redactor.redact("mail a@example.com, password: hunter2")
    assert once == "mail <email removed>, password: <secret removed>"
    assert redactor.redact(once) == once
    assert Redactor(mask="***").redact("a@example.com") == "***"


@pytest.mark.parametrize("mask", ["", "two\nlines"])
def test_mask_must_be_one_non_empty_line(mask: str) -> None:
    with pytest.raises(UsageError):
        Redactor(mask=mask)


def test_disable_a_pattern_by_name() -> None:
    redactor = Redactor(build_patterns(disable=["email"]))
    text = "mail a@example.com, password: hunter2"
    assert redactor.redact(text) == "mail a@example.com, password: [REDACTED:secret]"
    assert "email" not in {pattern.name for pattern in redactor.patterns}


def test_disable_unknown_pattern_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no_such_pattern"):
        build_patterns(disable=["no_such_pattern"])


def test_custom_pattern_from_config() -> None:
    patterns = build_patterns(extra={"employee_id": r"\bEMP-\d{6}\b"})
    redacted = Redactor(patterns).redact("Ticket for EMP-123456 (a@example.com)")
    assert redacted == "Ticket for [REDACTED:employee_id] ([REDACTED:email])"


def test_custom_pattern_masks_only_its_value_group() -> None:
    pattern = RedactionPattern.from_regex("pin", r"(?i:pin)\s*(?P<value>\d{4})\b")
    assert (
        Redactor([pattern]).redact("PIN 1234 and year 2024") == "PIN [REDACTED:pin] and year 2024"
    )


def test_custom_pattern_can_replace_a_disabled_default() -> None:
    patterns = build_patterns(disable=["email"], extra={"email": r"\S+@corp\.example"})
    redactor = Redactor(patterns)
    assert redactor.redact("a@corp.example b@other.com") == "[REDACTED:email] b@other.com"


def test_custom_pattern_name_clash_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="already exists"):
        build_patterns(extra={"email": r"x"})


@pytest.mark.parametrize(("name", "regex"), [("bad name", r"x"), ("broken", r"(unclosed")])
def test_invalid_custom_pattern_is_a_config_error(name: str, regex: str) -> None:
    with pytest.raises(ConfigError):
        build_patterns(extra={name: regex})


def test_duplicate_pattern_names_are_refused() -> None:
    pattern = RedactionPattern("dup", re.compile("x"))
    with pytest.raises(UsageError, match="dup"):
        Redactor([pattern, pattern])


def test_whitespace_only_and_empty_matches_are_ignored() -> None:
    redactor = Redactor([RedactionPattern("blank", re.compile(r"\s+|(?=x)"))])
    assert redactor.redact("a \n b x") == "a \n b x"


def test_finding_to_dict() -> None:
    assert Finding("email", 1, 5).to_dict() == {"name": "email", "start": 1, "end": 5}


def test_empty_redactor_changes_nothing() -> None:
    assert Redactor([]).redact("password: hunter2") == "password: hunter2"


# Shapes that make a careless regex backtrack: long runs that almost match, many starts that
# fail late. A quadratic pattern would take minutes on any one 100 kB piece.
ADVERSARIAL_PIECES = [
    "a" * 100_000,
    "1" * 100_000,
    "-" * 100_000,
    "sk-ant-" * 15_000,
    "-----BEGIN PRIVATE KEY-----\n" * 4_000,
    "-----BEGIN PRIVATE KEY-----" + "----A" * 20_000,
    'password="' * 10_000,
    "a@" * 50_000,
    "a@" + "b." * 50_000,
    "+1 " * 33_000,
    "4111 " * 20_000,
    "eyJaaaaaaaaaaaa." * 6_250,
]


def test_adversarial_megabyte_is_fast() -> None:
    text = "\n".join(ADVERSARIAL_PIECES)
    assert len(text) > 1_000_000
    started = time.perf_counter()
    redacted = REDACTOR.redact(text)
    assert time.perf_counter() - started < 5.0
    assert redacted.count("\n") == text.count("\n")
