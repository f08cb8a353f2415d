"""The words of software work in Chinese and in English: 连接池 and connection pool, 压测 and load
test, 熔断 and circuit breaker, 灰度 and canary, 复盘 and postmortem, 值班 and on-call.

CC-CEDICT (:mod:`memdir.text.bilingual`) is a general dictionary: it has 部署 (deploy) and 回滚
(rollback), but no 连接池, 压测, 告警, 发版, 扩容, 去重 or 工单, and for 熔断 only "melt" and
"blow". Bilingual engineers write their notes in both languages and ask in either, so a table of
the field's words, written by hand, bridges them the same way (:func:`glossary_bridges`); search
keeps the words memory holds (:func:`memdir.search.keyword.query_profile`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["GLOSSARY", "glossary_bridges"]

GLOSSARY: tuple[tuple[str, tuple[str, ...]], ...] = (
    # running services
    ("连接池", ("connection pool",)),
    ("线程池", ("thread pool",)),
    ("压测", ("load test", "stress test", "benchmark")),
    ("熔断", ("circuit breaker",)),
    ("熔断器", ("circuit breaker",)),
    ("限流", ("rate limit", "throttle", "throttling")),
    ("降级", ("degrade", "fallback")),
    ("灰度", ("canary", "gradual rollout")),
    ("回滚", ("rollback", "roll back", "revert")),
    ("发版", ("release",)),
    ("上线", ("launch", "go live", "ship", "rollout")),
    ("下线", ("decommission", "take down")),
    ("扩容", ("scale up", "scale out")),
    ("缩容", ("scale down", "scale in")),
    ("宕机", ("outage", "went down", "crash")),
    ("故障", ("incident", "outage", "failure")),
    ("事故", ("incident",)),
    ("复盘", ("postmortem", "retro", "retrospective")),
    ("告警", ("alert", "alerting")),
    ("报警", ("alert",)),
    ("监控", ("monitoring", "monitor")),
    ("值班", ("on-call", "oncall")),
    ("排查", ("troubleshoot", "investigate", "debug")),
    ("根因", ("root cause",)),
    ("超时", ("timeout",)),
    ("重试", ("retry",)),
    ("重投", ("redelivery", "redeliver")),
    ("死锁", ("deadlock",)),
    ("幂等", ("idempotent", "idempotency")),
    ("去重", ("dedupe", "deduplicate", "deduplication")),
    ("对账", ("reconciliation", "reconcile")),
    ("延迟", ("latency",)),
    ("时延", ("latency",)),
    ("吞吐", ("throughput",)),
    ("吞吐量", ("throughput",)),
    ("并发", ("concurrency", "concurrent")),
    ("内存泄漏", ("memory leak",)),
    ("泄漏", ("leak",)),
    ("心跳", ("heartbeat",)),
    ("消息队列", ("message queue",)),
    ("死信队列", ("dead letter queue",)),
    ("消费者", ("consumer",)),
    ("生产者", ("producer",)),
    ("积压", ("backlog",)),
    # data
    ("数据库", ("database",)),
    ("分区", ("partition",)),
    ("分片", ("shard", "sharding")),
    ("副本", ("replica",)),
    ("主库", ("primary",)),
    ("从库", ("replica", "read replica")),
    ("索引", ("index",)),
    ("缓存", ("cache",)),
    ("回填", ("backfill",)),
    ("迁移", ("migration", "migrate")),
    ("备份", ("backup",)),
    ("快照", ("snapshot",)),
    ("表结构", ("schema",)),
    ("定时任务", ("cron job", "scheduled job")),
    ("埋点", ("tracking", "instrumentation")),
    ("报表", ("report", "dashboard")),
    ("看板", ("dashboard",)),
    # building and shipping
    ("部署", ("deploy", "deployment")),
    ("发布", ("release", "publish")),
    ("预发", ("staging", "pre-release")),
    ("测试环境", ("staging", "test environment")),
    ("生产环境", ("production",)),
    ("线上", ("production",)),
    ("流水线", ("pipeline",)),
    ("构建", ("build",)),
    ("代码评审", ("code review",)),
    ("评审", ("review",)),
    ("合并", ("merge",)),
    ("分支", ("branch",)),
    ("依赖", ("dependency",)),
    ("升级", ("upgrade",)),
    ("补丁", ("patch", "hotfix")),
    ("热修复", ("hotfix",)),
    ("配置", ("config", "configuration")),
    ("密钥", ("secret", "key")),
    ("证书", ("certificate", "cert")),
    ("权限", ("permission", "access")),
    ("鉴权", ("auth", "authentication")),
    ("令牌", ("token",)),
    ("接口", ("api", "endpoint", "interface")),
    ("回调", ("callback", "webhook")),
    ("网关", ("gateway",)),
    ("负载均衡", ("load balancer",)),
    ("容器", ("container",)),
    ("镜像", ("image",)),
    ("集群", ("cluster",)),
    ("节点", ("node",)),
    ("日志", ("log", "logs")),
    ("报错", ("error",)),
    ("白屏", ("blank screen",)),
    ("闪退", ("crash",)),
    ("卡顿", ("lag", "jank")),
    # work
    ("需求", ("requirement", "feature request")),
    ("工单", ("ticket",)),
    ("排期", ("schedule", "timeline")),
    ("里程碑", ("milestone",)),
    ("交接", ("handover", "handoff")),
    ("周会", ("weekly meeting", "weekly sync")),
    ("站会", ("standup",)),
    ("面试", ("interview",)),
    ("终面", ("final interview", "final round")),
    ("候选人", ("candidate",)),
    ("入职", ("onboarding", "start date", "join")),
    ("离职", ("leave", "resign")),
    ("绩效", ("performance review",)),
    ("报销", ("expense", "reimbursement")),
    ("出差", ("business trip",)),
    ("请假", ("leave", "time off")),
    ("原型", ("prototype", "mockup")),
    ("设计稿", ("design", "mockup")),
    ("交互", ("interaction",)),
    ("组件库", ("component library",)),
    ("埋坑", ("pitfall",)),
)
"""Each Chinese word and the English words or phrases it is written as in software work."""


def _tables() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(English → Chinese, Chinese → English)``, both in lower case."""
    to_chinese: dict[str, list[str]] = {}
    to_english: dict[str, list[str]] = {}
    for chinese, englishes in GLOSSARY:
        for english in englishes:
            to_chinese.setdefault(english, []).append(chinese)
            to_english.setdefault(chinese, []).append(english)
    return to_chinese, to_english


_TO_CHINESE, _TO_ENGLISH = _tables()
_ENGLISH = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    + "|".join(
        re.escape(e).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]?")
        for e in sorted(_TO_CHINESE, key=len, reverse=True)
    )
    + r")s?(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_CHINESE = re.compile("|".join(sorted(map(re.escape, _TO_ENGLISH), key=len, reverse=True)))


def _grams(word: str) -> list[str]:
    """The bigrams a Chinese word is cut into as query terms (连接池 → 连接, 接池)."""
    return [word[i : i + 2] for i in range(len(word) - 1)] or [word]


def glossary_bridges(query: str, terms: Sequence[str]) -> dict[str, list[str]]:
    """For each query term, the glossary's words of the other language: each word of an English
    word or phrase the question writes is given its Chinese words (connection pool → 连接池;
    ``pool`` and ``connection`` each), and each bigram of a Chinese word it writes that word's
    English ones (连接池 → connection pool, given to 连接 and 接池)."""
    found: dict[str, list[str]] = {}
    held = set(terms)
    for m in _ENGLISH.finditer(query):
        written = " ".join(re.split(r"[\s-]+", m[0].lower()))
        key = next(
            (k for k in (written, written.removesuffix("s"), m[0].lower()) if k in _TO_CHINESE),
            None,
        )
        if key is None:
            continue
        for word in re.split(r"[\s-]+", m[0].lower()):
            for term in (word, word.removesuffix("s")):
                if term in held:
                    found.setdefault(term, []).extend(_TO_CHINESE[key])
    for m in _CHINESE.finditer(query):
        for gram in _grams(m[0]):
            if gram in held:
                found.setdefault(gram, []).extend(_TO_ENGLISH[m[0]])
    return {t: list(dict.fromkeys(ws)) for t, ws in found.items()}
