"""What a question asks about, read without a model: its topic words, the phrase it asks
for, the kind of answer it wants, the period and ids it names.

"How much will the policy pay for in-patient AYUSH treatment under Plan B?" asks for an
amount (money), about AYUSH treatment, for Plan B; a passage that answers it names AYUSH
treatment, carries an amount, and is not about another plan. Everything here is
surface English (no tagger exists offline), written for questions in general, not for
any one document.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache

from bot.conversation.periods import Period, period_asked
from bot.conversation.quantities import quantities
from bot.conversation.text import content_words
from knowledge.search.naming import spaced
from knowledge.vocabulary import Vocabulary, active, phrase_pattern

# Words that shape a question without saying what it is about.
_GENERIC = (
    "tell explain know please want need much many long give show list mean meant get detail "
    "details information question answer kind type option options choice choices find let "
    "help like definition "
    "would could also exactly actually currently still already ever able per thing things way "
    "something anything "
    "happen happens say says said regarding related case done rs inr usd eur gbp lakh "
    "crore one two three four five six seven eight nine ten twelve fifteen twenty thirty "
    "fy fiscal q1 q2 q3 q4 ytd"  # a period is when, not what, is asked (see periods)
)
# Words that ask for an amount without saying of what ("what is the cap?").
_AMOUNT_WORDS = (
    "cap limit maximum max minimum min ceiling most least upto amount value number figure "
    "percentage proportion share level total sum change difference reason cause breakdown "
    "respective respectively variance valuation result outcome impact effect trend movement"
)
_MEASURE_NOUNS = (
    r"value|amount|number|figure|percentage|proportion|share|rate|level|total|sum|change"
    r"|difference|reason|cause|breakdown|composition|increase|decrease|growth|variance"
    r"|valuation|result|outcome|impact|effect|trend|movement"
)
# Verbs that frame a yes/no question ("is dental covered?") without naming its subject.
_PREDICATES = (
    "cover covered covers coverage include included includes apply applies applicable allow "
    "allowed allows eligible available pay paid pays payable offer offered offers reimburse "
    "reimbursed reimburses admissible permitted entitled provide provides provided"
)
_PRONOUN_WORDS = "it this that these those they them he she him her its their"
_PRONOUNS = frozenset(_PRONOUN_WORDS.split())
_I = re.IGNORECASE
# Words before which an asked phrase ends ("the room rent | under Plan B").
_ENDS = (
    "under", "in", "for", "of", "on", "with", "within", "if", "when", "during", "from",
    "as per", "according to", "by", "at", "after", "before", "per", "to", "and am", "and is",
    "and are", "and what", "and how", "and can", "and do", "and does",
)  # fmt: skip


# "the reserve balance | expected to decrease": what is said of the phrase, not its words.
_FORECAST = r"(?:expected|estimated|projected|anticipated|forecast|scheduled|likely)"


def _ending(ends: Iterable[str]) -> str:
    return rf"(?=\s+(?:{'|'.join(ends)})\b|\s+{_FORECAST}\s+to\b|\s*[?,.;:!]|\s*$)"


_STOP_AFTER = _ending(_ENDS)
# After a verb or measure that frames it, the phrase runs on through "of" and "from" ("the
# cost of hearing aids", "an injury from scuba diving"): they join its words.
_PHRASE_END = _ending(w for w in _ENDS if w not in ("of", "from"))
_NP = r"(?:(?:a|an|the|my|our|your|any|his|her|their)\s+)?(?P<np>[^?,.;:!]+?)"
_DEFINITION = (
    re.compile(
        r"\bdefin(?:e|es|ed|ition of)\s+(?:an?\s+|the\s+)?['\"‘“]?(?P<np>[^?'\"’”]+?)['\"’”]?"
        + _STOP_AFTER,
        _I,
    ),
    re.compile(rf"\b(?:meant by|meaning of)\s+{_NP}{_STOP_AFTER}", _I),
    re.compile(rf"\bwhat (?:does|do)\s+{_NP}\s+mean\b", _I),
    re.compile(
        r"\b(?:counts?|qualif(?:y|ies)|(?:is|are) (?:considered|regarded|treated)) as\s+"
        + _NP
        + _STOP_AFTER,
        _I,
    ),
)
_AUX = r"(?:does|do|is|are|will|can|would|must|should|did|has|have)"
# Nouns naming an aspect of a thing: "the purpose of the free look period" is about the period.
_ASPECT = (
    r"(?:purpose|nature|status|scope|extent|basis|method|objective|terms?|conditions?|criteria"
    r"|procedure|process)"
)
# "the nature and purpose of": what follows is asked about
_OF_ASPECT = rf"(?:the {_ASPECT}(?:\s+(?:and|&)\s+{_ASPECT})? (?:of|for)\s+)?"
_ASKED = (
    re.compile(
        rf"\bwhat (?:is|are|was|were|will be|would be)\s+{_OF_ASPECT}{_NP}{_STOP_AFTER}", _I
    ),
    re.compile(rf"^\W*(?:what|which)\s+(?P<np>[a-z][a-z\s'-]*?)\s+{_AUX}\b", _I),
    re.compile(
        rf"\bwhat (?:does|do|did)\s+{_NP}\s+(?:say|state|require|provide|include|represent"
        r"|refer to|consist of|comprise|stand for)\b",
        _I,
    ),
    re.compile(rf"\bwhat constitutes?\s+{_NP}{_STOP_AFTER}", _I),
    re.compile(rf"\b(?:information|details?) (?:about|on|regarding)\s+{_NP}{_STOP_AFTER}", _I),
    re.compile(rf"^\W*how (?:is|are|was|were)\s+{_NP}\s+[a-z]+ed\b", _I),  # "... calculated?"
    re.compile(  # "how does the company determine the allowance?": the allowance
        r"^\W*how (?:do|does|did|will|would|can|should)\s+(?:we|it|they|you|I|the (?:company"
        rf"|group|firm|entity|business|management|board))\s+[a-z]+\s+{_NP}{_STOP_AFTER}",
        _I,
    ),
    re.compile(rf"\bhow (?:much|many)\s+(?P<np>[a-z][a-z\s'-]*?)\s+{_AUX}\b", _I),
    re.compile(
        rf"\bhow (?:long|soon) {_AUX}\s+(?:[\w'-]+\s+){{1,3}}?take\s+to\s+{_NP}{_STOP_AFTER}", _I
    ),
    re.compile(rf"\bhow (?:long|soon|often|early|late) {_AUX}\s+{_NP}{_STOP_AFTER}", _I),
    re.compile(
        r"\b(?:cover|covers|reimburse|reimburses|pay for|pays for|include|includes|allow"
        rf"|allows|offer|offers|give|gives)\s+{_NP}{_PHRASE_END}",
        _I,
    ),
    re.compile(
        rf"^\W*(?:is|are|will|would)\s+{_NP}\s+(?:covered|excluded|payable|included|allowed"
        r"|reimbursed|admissible|paid)\b",
        _I,
    ),
    re.compile(  # "the waiting period for treatment of depression": the whole phrase
        r"\b(?:limit|cap|amount|charges?|fee|rate|ratio|period) (?:on|for|of)\s+"
        rf"{_NP}{_PHRASE_END}",
        _I,
    ),
    re.compile(
        r"\b(?:claim|claims|apply|eligible|qualify|covered|insured|paid|reimbursed|compensated)"
        rf" for\s+{_NP}{_PHRASE_END}",
        _I,
    ),
    re.compile(  # "the value of minority interest", "the change in trade receivables"
        rf"\b(?:(?:{_MEASURE_NOUNS})s? (?:of|in|for|from)\s+(?:the\s+)?)+{_NP}"
        r"(?=\s+(?:in|for|during|between|from|as of|at|under)\b|\s*[?,.;:!]|\s*$)",
        _I,
    ),
    re.compile(rf"\bhow (?:much|many) (?:is|are|was|were)\s+{_NP}{_STOP_AFTER}", _I),
    re.compile(
        rf"\bhow much (?:did|does|do|has|have)\s+{_NP}\s+(?:increase|decrease|rise|rose|fall"
        r"|fell|grow|decline|change|drop)",
        _I,
    ),
)
_DURATION_ASKED = (
    r"\bhow (?:long|soon|quickly|early|late)\b|\bhow much (?:time|notice)\b|(?:^|[.?!]\s+)when\b"
    r"|\bwithin how\b"
    r"|\bwhen (?:will|would|does|do|is|are|can|should|shall|must|did)\b"
    r"|\bhow many (?:days|weeks|months|years|hours)\b|\btime limit\b|\bdeadline\b"
)
_MONEY_ASKED = (
    r"\bhow much\b|\b(?:limits?|caps?|amounts?|costs?|prices?|fees?|charges?"
    r"|payable|pay(?:s|out)?|refund|expenses?|spending)\b"
)

# An age asked for ("what is the age limit for children?"), written in years or days
_AGE_ASKED = re.compile(
    r"\b(?:what|which|maximum|minimum|max|min|upper|lower|entry|exit)\s+age\b"
    r"|\bage (?:limits?|bar|range)\b|\bhow old\b",
    _I,
)


@lru_cache(maxsize=8)
def _answer_kinds(vocabulary: Vocabulary) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Which kind of answer a question wants, by its words; the packs in use add the
    periods ("waiting period") and amounts ("premium", "revenue") of their domain."""
    periods = phrase_pattern(vocabulary.period_kinds)
    duration = _DURATION_ASKED + (rf"|{periods}\s+period\b" if periods else "")
    money = "|".join(p for p in (_MONEY_ASKED, phrase_pattern(vocabulary.money_words)) if p)
    return (
        ("age", _AGE_ASKED),
        ("duration", re.compile(duration, _I)),
        ("percent", re.compile(r"\bpercent(?:age)?\b|\bwhat (?:rate|share|proportion)\b|%", _I)),
        ("money", re.compile(money, _I)),
        ("number", re.compile(r"\bhow many\b|\bwhat number\b|\bratio\b", _I)),
        ("quantity", re.compile(r"\b(?:maximum|minimum)\b", _I)),  # of any kind: "minimum stay"
    )


# The kinds of quantity that answer each kind of question ("how much" takes 2% or Rs 500).
WANTED_KINDS = {
    "age": {"duration", "number"},
    "duration": {"duration"},
    "money": {"money", "percent", "fraction", "number"},
    "percent": {"percent", "fraction"},
    "number": {"number", "percent", "fraction"},
    "quantity": {"duration", "money", "percent", "fraction", "number"},
}
# Questions about what a thing is, holds or depends on, or how it is worked out: the
# answer is a description, even when the thing is an amount ("what constitutes audit fees?").
_DESCRIBES = re.compile(
    r"^\W*(?:why|where|who|whom)\b|\bwhat (?:constitutes?|causes?d?|drives?|drove|determines?"
    r"|happens?|accounts? for|accounted for|led to|leads to|contributed to|resulted in"
    r"|(?:is|are|was|were) behind|goes into|went into|go into|explains?|explained|pushed"
    r"|triggered|prompted|fuell?ed|boosted|lifted|dragged|hurt|weighed on)\b"
    r"|\b(?:include[sd]?|consists? of|comprises?d?(?: of)?|represents?|relates? to|subject to"
    r"|used for|attributable to|made up of|mean|defined|reflects?|refers? to|stands? for)\s*\??\s*$"
    r"|\bwhat (?:is|are|was|were) the (?:definition|meaning|purpose|reasons?|basis|method)\b"
    r"|\bwhat (?:[a-z]+\s+)?(?:is|are|was|were) (?:included|contained|comprised) in\b"
    r"|^\W*how (?:is|are|was|were|do|does|did|can|could|should|will|would|must|shall)\b",
    _I,
)
# "increase/ (decrease)", "increase (decrease)", "(decrease) increase": a change either way.
_CHANGE_PAIR = re.compile(
    r"\b(?:increase\s*/?\s*\(?\s*decrease\s*\)?|\(?decrease\)?\s*/?\s*increase)", _I
)
# A quantity worked out from others: a change between periods, a share of a total, an
# average. The amounts it is computed from answer it when no line states it.
_COMPUTED = re.compile(
    r"\b(?:change[sd]?|growth|difference|average|ratio|proportion"
    r"|(?:percentage|share|proportion|fraction) of)\b",
    _I,
)
_HOW_MUCH = re.compile(r"\bhow (?:much|many|long|soon)\b|\bwhen\b", _I)
_LISTING = (
    r"\blist\b|\benumerate\b|\bwhat (?:are|were) (?:all )?the\b|\bwhich (?:documents|items)\b"
)
# An id-like name: a word and a short id ("Plan B", "Option 2", "Tier III", "Zone A").
_ID_NAME = re.compile(
    r"\b([A-Z][a-z]{2,}|[a-z]{3,})\s+([A-HJ-Z]|\d{1,2}|[IVX]{2,4})\b(?![\w%/.,-]\d)"
)
_NOT_ID_WORDS = (
    "the and for with per than rs inr usd age aged last first next past over under above "
    "below about around within after before since from until year years month months day "
    "days week weeks page pages section clause item note table figure exhibit"
)
_NOT_ID_KINDS = frozenset(_NOT_ID_WORDS.split())
_NOT_NP_WORDS = "if when for under in of to and or as whether because"
_LEADING_NOT_NP = frozenset(_NOT_NP_WORDS.split())


@cache
def _word_set(words: str) -> frozenset[str]:
    return frozenset(content_words(words))


@cache
def _frame_forms() -> frozenset[str]:
    """The frame words as written and inflected ("changes", "changed", "limited"), not
    every word of their stem: "effective" names a thing where "effect" frames a question."""
    forms = {f for word in _AMOUNT_WORDS.split() for f in (word, word + "s", word + "es")}
    for word in f"{_GENERIC} {_PREDICATES}".split():
        forms |= {word, word + "s", word + "es", word + "d", word + "ed", word + "ing"}
        if word.endswith("e"):
            forms.add(word[:-1] + "ing")
        if word.endswith("y"):
            forms |= {word[:-1] + "ies", word[:-1] + "ied"}
        if re.search(r"[^aeiou][aeiou][bdgmnpt]$", word):  # "capped", "capping"
            forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    return frozenset(forms)


def topic_words(text: str) -> list[str]:
    """The stems of `text`'s words that are not frame words (see _frame_forms)."""
    frame = _frame_forms()
    return [
        stem
        for token in re.findall(r"[\w'’-]+", text)
        if token.lower() not in frame
        for stem in content_words(token)
    ]


@dataclass(frozen=True)
class IdName:
    """ "Plan B": `kind` "plan", `id` "B"."""

    kind: str
    id: str


@dataclass(frozen=True)
class Focus:
    question: str
    terms: frozenset[str]  # topic stems: no frame words, no document names
    asked: frozenset[str]  # stems of the phrase asked for ("claim settlement ratio")
    head: str  # the stem that phrase is about ("ratio"): an answer must speak of it
    head_word: str  # ... as the question wrote it
    wants: str  # "age" | "duration" | "money" | "percent" | "number" | "quantity" (any) | ""
    ids: tuple[IdName, ...]  # "Plan B"
    listing: bool  # asks for a list
    unknown: frozenset[str] = frozenset()  # asked words the knowledge never uses
    unknown_head: bool = False  # ... among them the word the phrase is about
    pairs: frozenset[tuple[str, str]] = frozenset()  # adjacent topic words ("sum insured")
    ignored: frozenset[str] = frozenset()  # names of documents the question names
    measure: frozenset[str] = frozenset()  # asked stems naming a measure ("waiting period")
    computed: bool = False  # asks for a change, share or average worked out from amounts
    figure: bool = False  # asks what an item was in a stated period: a figure answers
    describes: bool = False  # asks what a thing is, holds, means or is for, why, how or where
    period: Period = field(
        default_factory=Period
    )  # the years (and quarter or year) asked about ("FY 2023")

    @property
    def all_terms(self) -> frozenset[str]:
        return self.terms | self.asked


def focus_of(
    question: str, *, ignore: Iterable[str] = (), vocabulary: Collection[str] | None = None
) -> Focus:
    """Read `question`; words of `ignore` (the names of documents it names) are not topic.

    `vocabulary`: the words the knowledge uses (five letters and more); an asked word of
    that length outside it ("veterinary") means the knowledge cannot answer.
    """
    ignored = {w.lower() for w in ignore}
    text = _CHANGE_PAIR.sub("change", _without(question, ignored))
    frame = _word_set(_GENERIC) | _word_set(_PREDICATES) | _word_set(_AMOUNT_WORDS)
    terms = frozenset(topic_words(text))
    defined = _first_match(_DEFINITION, text, content_words)
    phrase = _first_match(_ASKED, text, _beyond_measure) or _first_match(_ASKED, text, topic_words)
    asked = frozenset(topic_words(f"{defined} {phrase}"))
    stripped = _measure_end(active()).sub("", phrase or defined).strip()
    core = stripped or phrase or defined
    heads = [
        (stem, word)
        for word in re.findall(r"[\w'-]+", core)
        for stem in content_words(word)
        if stem in asked
    ]
    unknown = _unknown(f"{defined} {core}", vocabulary)
    period = period_asked(text)
    describes = bool(_DESCRIBES.search(text))
    return Focus(
        question=question,
        terms=terms or frozenset(content_words(text)),
        asked=asked,
        head=heads[-1][0] if heads else "",
        head_word=heads[-1][1] if heads else "",
        wants=_wants(text),
        ids=ids_in(text),
        listing=bool(_listing(active()).search(text)),
        unknown=unknown,
        unknown_head=bool(heads) and heads[-1][0] in unknown,
        pairs=frozenset(p for p in word_pairs(text) if not (p[0] in frame and p[1] in frame)),
        ignored=frozenset(ignored),
        measure=asked - frozenset(content_words(stripped)),
        computed=bool(_COMPUTED.search(text)),
        period=period,
        figure=bool(period.years) and not describes and bool(_WHAT_WAS.match(text)),
        describes=describes,
    )


def _beyond_measure(phrase: str) -> list[str]:
    """The topic words of a phrase less its ending measure. A phrase that is only a
    measure names the kind of answer wanted, not what it is about: "the waiting period
    for hernia" is about hernia. A question naming nothing else ("how long is the free
    look period?") is about the measure."""
    return topic_words(_measure_end(active()).sub("", phrase))


def word_pairs(text: str) -> frozenset[tuple[str, str]]:
    """Adjacent content words: a phrase in the question found as a phrase in a passage
    ("sum insured", "room rent") says more than the two words found apart."""
    found = content_words(text)
    return frozenset(itertools.pairwise(found))


# A phrase ending in a measure says what kind of quantity is wanted, not what it is about:
# "pre-existing disease waiting period" is about the disease.
_MEASURE_END = (
    r"\b(?:periods?|limits?|amounts?|caps?|durations?|time|maximum|minimum|number|count|total"
    r"|percentage|age|sum)\s*$"
)


@lru_cache(maxsize=8)
def _listing(vocabulary: Vocabulary) -> re.Pattern[str]:
    """Asks for a list, with the things the packs list ("which diseases ...")."""
    things = phrase_pattern(vocabulary.list_nouns)
    return re.compile(_LISTING + (rf"|\bwhich {things}" if things else ""), _I)


@lru_cache(maxsize=8)
def _measure_end(vocabulary: Vocabulary) -> re.Pattern[str]:
    """A phrase's ending measure, with the kind of period the packs name ("waiting")."""
    kinds = phrase_pattern((*vocabulary.period_kinds, "time"))
    return re.compile(rf"\s*(?:{kinds}\s+)?{_MEASURE_END}", re.IGNORECASE)


def _unknown(phrase: str, vocabulary: Collection[str] | None) -> frozenset[str]:
    if vocabulary is None:
        return frozenset()
    long_words = [w for w in re.findall(r"[A-Za-z]+", phrase.lower()) if len(w) >= 5]
    return frozenset(
        stem
        for word in long_words
        if word not in vocabulary and not _inflection_known(word, vocabulary)
        for stem in content_words(word)
    )


def _inflection_known(word: str, vocabulary: Collection[str]) -> bool:
    forms = {word + "s", word + "es", word.rstrip("s"), word[:-2] if word.endswith("es") else word}
    return any(f in vocabulary for f in forms)


def _without(question: str, words: set[str]) -> str:
    if not words:
        return question
    names = "|".join(spaced(w) for w in words)  # "americanexpress": "American Express"
    owner = rf"(?i)\b(?:{names})['’]s\b"  # "AMCOR's restructuring liability"
    # "the tax rate of Corning changed": the rate, not "changed", is asked
    named = rf"(?i)(?:\b(?:of|for|at|from)\s+)?\b(?:{names})\b"
    return re.sub(named, " ", re.sub(owner, " ", question))


def _first_match(
    patterns: Iterable[re.Pattern[str]], text: str, words: Callable[[str], Iterable[str]]
) -> str:
    """The first phrase a pattern captures that says something (`words` finds some)."""
    for pattern in patterns:
        for m in pattern.finditer(text):
            phrase = re.sub(r"\([^)]*\)", " ", m.group("np"))
            phrase = re.split(r"['’]s\s+", phrase)[-1]  # "United India's claim ratio"
            phrase = " ".join(phrase.split()).strip(" '\"‘’“”")
            first = phrase.split()[0].lower() if phrase else ""
            if not phrase or first in _LEADING_NOT_NP or phrase.lower() in _PRONOUNS:
                continue
            if any(words(phrase)):
                return phrase
    return ""


_TIMING = re.compile(
    r"\b(?:annually|yearly|half-yearly|quarterly|monthly|weekly|daily|every (?:year|quarter"
    r"|month|week|day)|in advance|in arrears|at the (?:beginning|start|end) of|on demand"
    r"|immediately|(?:falls?|becomes?|is|are) due)\b",
    _I,
)


_WHEN = re.compile(r"\bwhen\b|\bhow often\b|\bat what (?:time|point|stage)\b", _I)


def states_loosely(text: str, focus: Focus) -> bool:
    """A line that answers without a quantity of the wanted kind written as one: "when?"
    answered "annually, at the beginning of each period"; "what percentage?" answered by a
    figure under a "%" column ("Change %: (59.9)"). A timing word tells when, not how long:
    it does not answer "what grace period do I get?"."""
    wants = focus.wants
    if wants == "duration":
        return bool(_WHEN.search(focus.question) and _TIMING.search(text))
    if wants == "percent":
        return "%" in text and any(not q.is_year for q in quantities(text))
    return False


def _wants(text: str) -> str:
    """The kind of quantity an answer should state; none for a yes/no question ("can I
    opt for it if my sum insured is Rs 3 lakh?") or one asking what something is made of,
    why, where, or how something is done or worked out ("what do the fees include?", "how
    did the company fix its rate?"), unless it also asks how much or when."""
    yes_no = _YES_NO.match(text)
    if (yes_no or _DESCRIBES.search(text)) and not _HOW_MUCH.search(text):
        return ""
    for kind, pattern in _answer_kinds(active()):
        if pattern.search(text):
            return kind
    return ""


# A yes/no question, perhaps after the case it asks about ("If the company cancels my policy,
# do I get a refund?").
_YES_NO = re.compile(
    r"^\W*(?:(?:if|when|once|after|before|in case)\b[^,?]*,\s*)?"
    r"(?:is|are|am|can|could|do|does|did|will|would|shall|should|may|has|have)\b",
    _I,
)


# "What was X in 2019?", "how much was X for FY2022?": asked of a record kept in figures
_WHAT_WAS = re.compile(r"^\W*(?:what (?:is|are|was|were)|how much)\b", _I)


def ids_in(text: str) -> tuple[IdName, ...]:
    """The id-like names a text uses ("Plan B", "Option 2"; not "clause 4" or "page 2")."""
    return tuple(
        IdName(m.group(1).lower(), m.group(2).upper())
        for m in _ID_NAME.finditer(text)
        if m.group(1).lower() not in _NOT_ID_KINDS
        and not (m.group(2).isdigit() and not m.group(1)[0].isupper())
    )


def conflicts(text: str, ids: Iterable[IdName]) -> bool:
    """The text is about a sibling of the asked ids ("Plan C" when "Plan B" was asked)
    and mentions none of them."""
    asked: dict[str, set[str]] = {}
    for wanted in ids:
        asked.setdefault(wanted.kind, set()).add(wanted.id.upper())
    for kind, wanted_ids in asked.items():
        pattern = rf"(?i)\b{re.escape(kind)}s?\s+([A-Z]|\d{{1,2}}|[IVX]{{1,4}})\b"
        named = {m.group(1).upper() for m in re.finditer(pattern, text)}
        if named and not named & wanted_ids:
            return True
    return False
