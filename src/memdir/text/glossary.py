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

from memdir.text.tokens import fts_query_terms, is_cjk_gram

__all__ = ["GLOSSARY", "JAPANESE", "glossary_bridges"]

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

JAPANESE: tuple[tuple[str, tuple[str, ...]], ...] = (
    # running services
    ("本番", ("production", "prod")),
    ("本番環境", ("production",)),
    ("障害", ("incident", "outage")),
    ("負荷試験", ("load test", "stress test")),
    ("切り戻し", ("rollback", "roll back", "revert")),
    ("監視", ("monitoring", "monitor")),
    ("遅延", ("latency", "delay")),
    ("復旧", ("recovery", "restore")),
    ("再起動", ("restart", "reboot")),
    ("通知", ("notification",)),
    ("接続", ("connection",)),
    ("冗長化", ("redundancy",)),
    ("暗号化", ("encryption",)),
    ("証明書", ("certificate", "cert")),
    ("認証", ("authentication", "auth")),
    ("不具合", ("bug", "defect")),
    ("原因調査", ("investigation", "root cause")),
    ("障害報告", ("incident report", "postmortem")),
    ("振り返り", ("retro", "retrospective", "postmortem")),
    # building and shipping
    ("移行", ("migration", "migrate")),
    ("設定", ("config", "configuration", "settings")),
    ("検証環境", ("staging",)),
    ("開発環境", ("development environment", "dev environment")),
    ("仕様", ("spec", "specification")),
    ("仕様書", ("spec", "specification")),
    ("要件", ("requirement", "requirements")),
    ("差分", ("diff",)),
    ("競合", ("conflict",)),
    ("本番反映", ("deploy", "release")),
    ("審査", ("review", "app review")),
    # work
    ("締め切り", ("deadline",)),
    ("締切", ("deadline",)),
    ("納期", ("deadline", "delivery date")),
    ("承認", ("approval", "approve", "sign-off")),
    ("打ち合わせ", ("meeting",)),
    ("定例", ("weekly meeting", "weekly sync", "regular meeting")),
    ("議事録", ("meeting notes", "minutes")),
    ("引き継ぎ", ("handoff", "handover")),
    ("当番", ("on-call",)),
    ("見積もり", ("estimate", "quote")),
    ("見積書", ("quote",)),
    ("請求書", ("invoice",)),
    ("経費精算", ("expense", "reimbursement")),
    ("出張", ("business trip",)),
    ("有給", ("time off", "pto")),
    ("面接", ("interview",)),
    ("採用", ("hiring",)),
    ("入社", ("onboarding", "start date")),
    ("退職", ("resign", "resignation")),
    ("試作", ("prototype",)),
    ("画面遷移", ("navigation", "screen flow")),
)
"""Each Japanese word of software work that folded (:mod:`memdir.text.variants`) is no word of
:data:`GLOSSARY` (監視 is 监视, where Chinese writes 监控; 本番, 障害, 切り戻し), and its English
words; a Japanese question reaches English notes through them and Chinese notes through the
Chinese words of those English ones, and an English or Chinese question reaches Japanese notes
the same way."""


def _tables() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(English → CJK words, CJK word → the other languages' words)``, in lower case: a
    Chinese word's English words and the Japanese words sharing one (回滚: rollback … 切り戻し),
    a Japanese word's English words and the Chinese words of those (障害: incident, outage,
    故障, 事故, 宕机)."""
    to_cjk: dict[str, list[str]] = {}
    to_others: dict[str, list[str]] = {}
    for word, englishes in (*GLOSSARY, *JAPANESE):
        for english in englishes:
            to_cjk.setdefault(english, []).append(word)
            to_others.setdefault(word, []).append(english)
    japanese = {word for word, _ in JAPANESE}
    for word, englishes in (*GLOSSARY, *JAPANESE):
        others = to_others[word]
        for english in englishes:  # the other CJK language's only (熔断 gets no 熔断器)
            others += [
                w
                for w in to_cjk[english]
                if (w in japanese) != (word in japanese) and w not in others
            ]
    return to_cjk, to_others


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
    """The bigrams a CJK word is cut into as query terms (连接池 → 连接, 接池; the Japanese
    folded and its kana left out: 負荷試験 → 负荷, 荷试, 试验; 切り戻し → 切戾)."""
    return [t for t in fts_query_terms(word) if len(t) == 2 and is_cjk_gram(t)] or [word]


def glossary_bridges(query: str, terms: Sequence[str]) -> dict[str, list[str]]:
    """For each query term, the glossary's words of the other languages: each word of an English
    word or phrase the question writes is given its Chinese and Japanese words (connection pool
    → 连接池; ``pool`` and ``connection`` each; rollback → 回滚, 切り戻し), and each bigram of a
    Chinese or Japanese word it writes that word's English ones and the other CJK language's
    (连接池 → connection pool, given to 连接 and 接池; 障害 → incident, outage, 故障 …)."""
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
