"""Stop words for keyword extraction from conversational queries.

One frozenset per language (English, Spanish, Portuguese, Arabic, Chinese, Korean, Japanese),
all lowercase. The lists hold words that say nothing about *what* a memory is about:
articles, pronouns, auxiliaries, prepositions, conjunctions, question words, vague time words
("yesterday", "最近"), vague nouns ("thing", "东西") and request words ("please", "帮我").

Entries that contain a space are *stop phrases* (``"por favor"``, ``"من فضلك"``). A tokenizer
that splits on whitespace never sees them as one token, so :mod:`memdir.text.keywords` removes
them from the query before it splits.

Words that are also common English content words were left out on purpose, because every
list applies to every query: ``may`` (the month), Spanish ``son``/``era``/``sin`` and
Portuguese ``dos`` (as in DoS).
"""

from __future__ import annotations

__all__ = [
    "ARABIC",
    "CHINESE",
    "ENGLISH",
    "JAPANESE",
    "KOREAN",
    "KOREAN_PARTICLES",
    "KOREAN_WORD_PARTICLES",
    "PORTUGUESE",
    "SPANISH",
    "STOP_PHRASES",
    "STOP_WORDS",
]

ENGLISH: frozenset[str] = frozenset(
    {
        # articles and determiners
        "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every",
        "all", "both", "other",
        # pronouns
        "i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he",
        "him", "his", "she", "her", "it", "its", "they", "them", "their",
        # auxiliaries and contraction stems ("don't" splits into "don" + "t")
        "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "do",
        "does", "did", "will", "would", "shall", "should", "can", "could", "might", "must",
        "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "hasn", "haven", "hadn",
        "shouldn", "wouldn", "couldn", "mustn", "needn", "mightn", "shan",
        # the other half of a contraction or a possessive ("don't", "month's", "we'll", "I'd")
        "t", "s", "d", "ll", "m", "re", "ve",
        # prepositions
        "about", "after", "around", "at", "before", "between", "by", "during", "for", "from",
        "in", "into", "of", "off", "on", "over", "through", "to", "under", "until", "up",
        "with", "without",
        # conjunctions and fillers
        "and", "or", "but", "so", "if", "then", "than", "because", "as", "while", "also",
        "just", "not", "no", "very", "really", "there", "here",
        # question words
        "what", "when", "where", "which", "who", "whom", "whose", "why", "how",
        # vague time words
        "yesterday", "today", "tomorrow", "recently", "recent", "ago", "now", "earlier",
        "previously", "last", "currently", "nowadays", "anymore", "still", "ever",
        # adverbs and quantities a question asks with ("how much", "actually")
        "actually", "exactly", "much", "many",
        # vague nouns
        "thing", "things", "stuff", "something", "anything", "everything",
        # request verbs
        "please", "help", "find", "show", "get", "tell", "give", "let", "know", "want", "need",
        # asking whether memory holds something ("do you remember …", "did I mention …")
        "remember", "recall", "mention", "mentioned",
    }
)  # fmt: skip

SPANISH: frozenset[str] = frozenset(
    {
        "el", "la", "los", "las", "un", "una", "unos", "unas", "lo", "al", "del", "de", "en",
        "con", "por", "para", "sobre", "entre", "hasta", "desde", "hacia", "y", "o", "u",
        "pero", "ni", "que", "qué", "quien", "quién", "cual", "cuál", "cuando", "cuándo",
        "donde", "dónde", "como", "cómo", "porque", "yo", "tú", "tu", "él", "ella", "ellos",
        "ellas", "nosotros", "usted", "ustedes", "me", "te", "se", "nos", "le", "les", "mi",
        "mis", "su", "sus", "este", "esta", "estos", "estas", "ese", "esa", "eso", "esto",
        "es", "fue", "ser", "estar", "está", "están", "hay", "ha", "han", "hemos", "muy",
        "más", "ya", "también", "ayer", "hoy", "mañana", "ahora", "antes", "después",
        "recientemente", "cosa", "cosas", "algo", "ayuda", "ayúdame", "busca", "encuentra",
        "muestra", "muéstrame", "dime", "dame",
        "por favor",
    }
)  # fmt: skip

PORTUGUESE: frozenset[str] = frozenset(
    {
        "o", "a", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "das", "em", "no",
        "na", "nos", "nas", "pelo", "pela", "para", "com", "sem", "até", "e", "ou", "mas",
        "nem", "que", "quê", "quem", "qual", "quando", "onde", "como", "porque", "eu", "você",
        "vocês", "ele", "ela", "eles", "elas", "nós", "meu", "minha", "seu", "sua", "nosso",
        "nossa", "isto", "esse", "essa", "isso", "aquele", "aquela", "aquilo", "é", "são",
        "foi", "estar", "está", "estão", "tem", "ter", "há", "muito", "mais", "já", "também",
        "ontem", "hoje", "amanhã", "agora", "depois", "recentemente", "coisa", "coisas",
        "alguma", "ajuda", "ajude", "encontre", "mostre", "diga", "lhe",
        "por favor",
    }
)  # fmt: skip

ARABIC: frozenset[str] = frozenset(
    {
        # pronouns and demonstratives
        "أنا", "أنت", "أنتم", "هو", "هي", "نحن", "هم", "هذا", "هذه", "ذلك", "تلك", "هؤلاء",
        "الذي", "التي", "الذين",
        # prepositions
        "في", "من", "إلى", "الى", "على", "عن", "مع", "بين", "حتى", "منذ", "عند", "لدى",
        # conjunctions, particles, auxiliaries
        "و", "أو", "ثم", "لكن", "بل", "إذا", "اذا", "لأن", "أن", "إن", "كان", "كانت", "قد",
        "لقد", "لا", "لم", "لن",
        # question words
        "ما", "ماذا", "متى", "أين", "كيف", "لماذا", "هل", "أي", "كم",
        # vague time words and nouns
        "أمس", "الأمس", "اليوم", "غدا", "الآن", "مؤخرا", "قبل", "بعد", "سابقا", "شيء",
        "أشياء",
        # request words; the phrases are removed before tokenising
        "ساعدني", "أريد", "أعطني", "أخبرني", "اعرض", "ابحث", "أرني",
        "من فضلك", "لو سمحت",
    }
)  # fmt: skip

CHINESE: frozenset[str] = frozenset(
    {
        # pronouns and demonstratives
        "我", "你", "您", "他", "她", "它", "我们", "你们", "他们", "她们", "它们", "咱们",
        "自己", "大家", "这", "那", "这个", "那个", "这些", "那些", "这里", "那里", "这样",
        "那样", "这么", "那么",
        # particles
        "的", "了", "着", "过", "地", "得", "吗", "呢", "吧", "啊", "呀", "嘛", "么", "之", "个",
        # vague verbs
        "是", "有", "在", "做", "弄", "搞", "进行", "说", "讲", "想", "要", "会", "能", "可以",
        "应该", "需要",
        # conjunctions and adverbs
        "和", "与", "及", "或", "或者", "但", "但是", "而且", "因为", "所以", "如果", "然后",
        "还是", "并且", "跟", "就", "都", "也", "还", "又", "再", "很", "太", "不", "没",
        "没有", "已经",
        # time words
        "之前", "以前", "昨天", "今天", "明天", "前天", "最近", "刚才", "刚刚", "现在", "后来",
        "之后", "以后", "上次", "当时",
        # vague nouns and question words
        "东西", "事情", "事", "什么", "怎么", "怎样", "为什么", "哪", "哪个", "哪里", "哪些",
        "如何", "多少", "一个", "一些", "一下",
        # request words
        "请", "帮", "帮我", "帮忙", "找", "找到", "告诉", "给", "看看", "显示",
    }
)  # fmt: skip

KOREAN_PARTICLES = (
    "에서", "으로", "에게", "한테", "까지", "부터", "처럼", "보다",
    "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만",
)  # fmt: skip
"""The particles a Korean word may end in (일정은, 서버에서), those of two syllables first, so
that the longest is cut: the one list :mod:`memdir.text.tokens` (queries) and
:mod:`memdir.text.keywords` (OpenClaw's keyword extraction) cut by."""
KOREAN_WORD_PARTICLES = ("같이", "마다", "밖에", "대로")
"""Particles that are words too (같이 "together", 대로 "avenue"): OpenClaw's keyword
extraction cuts them as well; a query keeps them, as a word the note may hold."""

KOREAN: frozenset[str] = frozenset(
    {
        # particles
        "은", "는", "이", "가", "을", "를", "의", "에", "에서", "로", "으로", "와", "과", "도",
        "만", "에게", "한테", "께", "까지", "부터", "처럼", "보다", "마다", "밖에", "대로",
        "랑", "이랑", "하고",
        # pronouns and demonstratives
        "나", "저", "너", "우리", "저희", "당신", "그", "그녀", "그들", "이것", "그것",
        "저것", "이거", "그거", "저거", "여기", "거기", "저기",
        # question words
        "뭐", "무엇", "무슨", "누구", "어디", "언제", "어떻게", "왜", "어느", "어떤", "얼마",
        # auxiliaries and copulas
        "하다", "한다", "했다", "했던", "하는", "해서", "되다", "됐다", "있다", "있는",
        "없다", "없는", "이다", "입니다", "합니다",
        # dependent nouns
        "것", "거", "수", "등", "때", "중", "데", "바", "뿐",
        # adverbs
        "좀", "더", "잘", "많이", "아주", "너무", "정말", "진짜", "매우", "다시", "또",
        "그냥", "이미", "아직", "항상",
        # conjunctions
        "그리고", "그러나", "하지만", "그래서", "그런데", "또는", "및", "그러면", "그럼",
        # time words
        "어제", "오늘", "내일", "최근", "지난", "지금", "전에", "이전", "아까", "요즘", "방금",
        # request words
        "주세요", "해주세요", "해줘", "알려줘", "알려주세요", "찾아줘", "찾아주세요",
        "보여줘", "보여주세요", "부탁", "제발",
    }
)  # fmt: skip

JAPANESE: frozenset[str] = frozenset(
    {
        # demonstratives
        "これ", "それ", "あれ", "どれ", "この", "その", "あの", "どの", "ここ", "そこ",
        "あそこ", "どこ",
        # auxiliaries
        "する", "した", "して", "します", "しました", "です", "でした", "ます", "ました",
        "ある", "いる", "なる", "ない",
        # particles and connectors
        "について", "として", "による", "から", "まで", "より", "ので", "けど", "しかし",
        "そして", "また",
        # question words
        "なに", "なん", "何", "なぜ", "どう", "いつ", "だれ", "誰",
        # time words
        "昨日", "今日", "明日", "最近", "前", "今", "先週", "先日",
        # request words
        "ください", "お願い",
    }
)  # fmt: skip

STOP_WORDS: frozenset[str] = ENGLISH | SPANISH | PORTUGUESE | ARABIC | CHINESE | KOREAN | JAPANESE
"""The union of every language's list, single words and phrases alike."""

STOP_PHRASES: frozenset[str] = frozenset(word for word in STOP_WORDS if " " in word)
"""The multi-word entries of :data:`STOP_WORDS`, removed from a query before it is split."""
