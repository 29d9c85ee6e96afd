"""A faithful statement reworded the way a language model writes it: the same facts in
plainer words, clauses reordered, a passive turned active (or back), number words written
as numbers, a lead-in ("Under the policy, ..."), two statements merged into one sentence.

The rules are generic English, written for no question or document in particular. Each
one keeps what the statement says: no figure, name, negation or direction changes (the
faults are planted afterwards, into the reworded text). A statement is reworded by every
rule that applies, each drawn with the case's RNG, so no two answers read alike.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_I = re.IGNORECASE
REWORD_SHARE = 0.85  # each applicable plain-word rule is used this often
REORDER_SHARE = 0.8  # an applicable reordering (condition, heading, period, voice)
LEAD_SHARE = 0.5  # a first bullet opens with a lead-in
MERGE_SHARE = 0.5  # two statements citing the same block become one sentence

# Formal or legal wording and what a model writes instead (no negation, direction or
# quantity word is touched).
_PLAIN: tuple[tuple[str, str], ...] = (
    (r"\bshall not\b", "will not"),
    (r"\bshall be\b", "will be"),
    (r"\bshall\b", "will"),
    (r"\bprior to\b", "before"),
    (r"\bsubsequent to\b", "after"),
    (r"\b(?:in respect of|with respect to|in relation to|in regard to)\b", "for"),
    (r"\bpertaining to\b", "about"),
    (r"\b(?:in accordance with|pursuant to|as per)\b", "under"),
    (r"\bin excess of\b", "more than"),
    (r"\bupto\b", "up to"),
    (r"\bcommencement\b", "start"),
    (r"\bexpenses incurred\b", "costs"),
    (r"\bavailed\b", "used"),
    (r"\butili[sz](?:ed|ation)\b", "use"),
    (r"\bobtained\b", "got"),
    (r"\bapproximately\b", "about"),
    (r"\bprimarily\b", "mainly"),
    (r"\b(?:due to|as a result of|owing to)\b", "because of"),
    (r"\bwhichever is lower\b", "whichever is less"),
    (r"\bthe said\b", "the"),
    (r"\bpayable\b", "paid"),
    (r"\badmissible\b", "allowed"),
    (r"\bin the event of\b", "in case of"),
    (r"\bin the event that\b", "if"),
    (r"\bnotwithstanding\b", "despite"),
    (r"\bper annum\b", "a year"),
    (r"\brequired\b", "needed"),
    (r"\bterminated\b", "ended"),
    (r"\bsufficient\b", "enough"),
    (r"\badditional\b", "extra"),
    (r"\bpurchased\b", "bought"),
    (r"\binclusive of\b", "including"),
    (r"\bcompared (?:to|with)\b", "against"),
    (r"\bthereafter\b", "after that"),
    (r"\bhereinafter\b", ""),
    (r"\bis applicable\b", "applies"),
    (r"\bare applicable\b", "apply"),
    (r"\bamounted to\b", "came to"),
    (r"\bin order to\b", "to"),
    (r"\bmay be\b", "can be"),
    (r"\bany one\b", "one"),
    (r"\bfrom the date of\b", "from"),
    (r"\bat the time of\b", "at"),
    (r"\bby virtue of\b", "through"),
    (r"\bin the case of\b", "for"),
    (r"\bmentioned\b", "listed"),
    (r"\bspecified\b", "set out"),
    (r"\bas follows\b", "below"),
    (r"\b(is|are) excluded\b", r"\1 not covered"),
)
_ONES = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_NUMBER_WORDS = rf"(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(_ONES[1:10])}))?|{'|'.join(_ONES)}"
_SPELLED = re.compile(rf"(?<=\d)\s*\(\s*(?:{_NUMBER_WORDS})\s*\)", _I)  # "36 (thirty six)"
_WORDED = re.compile(rf"\b({_NUMBER_WORDS})(?=\s+(?:days?|months?|years?|weeks?|hours?)\b)", _I)
_CONDITION = r"if|when|where|unless|once|provided|as long as|until|after|before"
_TAIL_CONDITION = re.compile(
    rf"^(?P<main>[^,;]{{12,}}?),?\s+(?P<cond>(?:{_CONDITION})\s[^,;]{{6,}})$"
)
_HEAD_CONDITION = re.compile(
    rf"^(?P<cond>(?:{_CONDITION})\s[^,;]{{6,}}),\s+(?P<main>[^,;]{{12,}})$", _I
)
_HEADING = re.compile(r"^(?P<head>[^:.;]{3,90}):\s+(?P<body>\S.{10,})$")
_PARTICIPLES = {
    "pay": "paid", "cover": "covered", "reimburse": "reimbursed", "indemnify": "indemnified",
    "provide": "provided", "bear": "borne", "accept": "accepted", "refund": "refunded",
    "deduct": "deducted", "settle": "settled", "consider": "considered",
}  # fmt: skip
_INFINITIVES = {done: verb for verb, done in _PARTICIPLES.items()}
_ACTIVE = re.compile(
    rf"^(?P<subj>The \w+(?: \w+)?) (?P<aux>will|shall|may|can) (?P<verb>{'|'.join(_PARTICIPLES)})"
    r" (?P<obj>[^,;]{6,})$"
)
_PASSIVE = re.compile(
    rf"^(?P<obj>[^,;]{{6,}}?) (?P<aux>will|shall|may|can) be (?P<verb>{'|'.join(_INFINITIVES)})"
    r" by (?P<subj>the \w+(?: [A-Z]\w+)?)(?P<rest>[^,;]*)$"
)
_WHEN = r"(?:[A-Za-z]+ )?[\w/-]*\d\d\b"  # "2019", "fiscal 2019", "Q3 2019", "FY19"
_TIMED = re.compile(rf"^(?P<label>[^,;]{{2,80}}?) was (?P<value>[^\s;]+) in (?P<when>{_WHEN})")
_FIGURE = r"[$€£(-]*\s?\d(?:[\d,.]*\d)?\)?%?(?: (?:million|billion|thousand))?"
_TIMED_FRONT = re.compile(
    rf"^In (?P<when>[^,]{{2,20}}), (?P<label>[^,;]{{2,80}}?) was (?P<value>{_FIGURE})"
)
_LABELLED = re.compile(
    r"^(?P<label>[^():]{2,80}) \((?P<header>[^()]{2,60})\): (?P<value>[$€£(-]*\s?\d\S*)$"
)
_CHANGE = re.compile(
    rf"^(?P<label>[^,;]{{2,80}}?) (?P<verb>rose|fell) from (?P<a>{_FIGURE}) in (?P<p1>{_WHEN}) to "
    rf"(?P<b>{_FIGURE}) in (?P<p2>{_WHEN})"
)
_COVER = re.compile(
    r"^(?P<obj>[^,;]{6,}?) (?:is|are|will be|shall be) (?P<neg>not )?covered\b(?P<rest>.*)$"
)
_LOWER_OK = frozenset(
    (
        "the",
        "a",
        "an",
        "any",
        "all",
        "this",
        "these",
        "that",
        "those",
        "such",
        "each",
        "every",
        "in",
        "on",
        "for",
        "under",
        "during",
        "as",
        "expenses",
        "expense",
        "costs",
        "claims",
        "claim",
        "coverage",
        "benefits",
        "benefit",
        "cash",
        "net",
        "total",
        "if",
        "when",
        "where",
        "unless",
        "once",
        "provided",
        "long",
        "until",
        "after",
        "before",
    )
)

Rule = Callable[[str, random.Random], str]


def reworded(text: str, rng: random.Random, *, lead: str = "") -> str:
    """`text` as a model would put it: plain words, numbers as digits, one reordering,
    and `lead` (a lead-in such as "Under the policy, ") when given."""
    out = _numbers_as_digits(text.strip().rstrip(";"))
    out = _plain_words(out, rng)
    for rule in rng.sample(_REORDERINGS, len(_REORDERINGS)):
        changed = rule(out, rng)
        if changed != out:
            out = changed
            break
    out = _tidy(out)
    return _led(out, lead) if lead else _capital(out)


def merged(first: str, second: str, rng: random.Random) -> str:
    """Two statements as one sentence, the way a model runs on: "A; b", "A, and b"."""
    a = first.rstrip(" .;")
    b = _lowered(second.strip())
    return rng.choice([f"{a}; {b}", f"{a}, and {b}", f"{a} — {b}"])


def lead_in(source: str, rng: random.Random) -> str:
    """A lead-in for an answer drawn from a rulebook or from a company's report."""
    if source == "policy":
        return rng.choice(
            ["Under the policy, ", "According to the policy, ", "The policy says that ",
             "As the policy puts it, ", "In short, "]
        )  # fmt: skip
    return rng.choice(
        ["According to the report, ", "The notes show that ", "Per the filing, ",
         "The report says that ", "In short, "]
    )  # fmt: skip


def _numbers_as_digits(text: str) -> str:
    text = _SPELLED.sub("", text)
    return _WORDED.sub(lambda m: str(_value(m.group(1))), text)


def _value(words: str) -> int:
    parts = re.split(r"[\s-]+", words.lower())
    total = 0
    for part in parts:
        total += _TENS.get(part, 0) or (_ONES.index(part) if part in _ONES else 0)
    return total


def _plain_words(text: str, rng: random.Random) -> str:
    for pattern, plain in _PLAIN:
        if rng.random() < REWORD_SHARE:
            text = re.sub(pattern, _replacer(plain), text, flags=_I)
    return text


def _replacer(plain: str) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        return _cased(m.expand(plain), m.group())

    return replace


def _cased(plain: str, written: str) -> str:
    return plain[:1].upper() + plain[1:] if written[:1].isupper() and plain else plain


def _condition_moved(text: str, rng: random.Random) -> str:
    """ "A if B" is "If B, A", and the other way round."""
    body, stop = _unstopped(text)
    if m := _HEAD_CONDITION.match(body):
        return f"{m['main'][0].upper()}{m['main'][1:]} {_lowered(m['cond'])}{stop}"
    if (m := _TAIL_CONDITION.match(body)) and rng.random() < REORDER_SHARE:
        return f"{m['cond'][0].upper()}{m['cond'][1:]}, {_lowered(m['main'])}{stop}"
    return text


def _heading_moved(text: str, rng: random.Random) -> str:
    """ "Heading: what it says" is "What it says (heading)" or "For heading, what it says"."""
    m = _HEADING.match(text)
    if not m or rng.random() >= REORDER_SHARE or re.search(r"\d\s*$|, ", m["head"]):
        return text
    body, head = m["body"].rstrip(" .;"), m["head"].strip()
    if rng.random() < 0.5:
        return f"{_capital(body)} ({head})"
    return f"For {head}, {_lowered(body)}"


def _period_moved(text: str, rng: random.Random) -> str:
    """ "Revenue was 1,204 in 2019" and "In 2019, revenue was 1,204" trade places; a
    labelled cell "Revenue (2019): 1,204" reads "The 2019 figure for revenue is 1,204"."""
    if rng.random() >= REORDER_SHARE:
        return text
    if m := _TIMED.match(text):
        rest = text[m.end() :]
        return f"In {m['when']}, {m['label']} stood at {m['value']}{rest}"
    if m := _TIMED_FRONT.match(text):
        label = m["label"][0].upper() + m["label"][1:]
        return f"{label} stood at {m['value']} in {m['when']}{text[m.end() :]}"
    if m := _CHANGE.match(text):
        rest = text[m.end() :]
        return (
            f"Between {m['p1']} and {m['p2']}, {_lowered(m['label'])} {m['verb']} from "
            f"{m['a']} to {m['b']}{rest}"
        )
    if m := _LABELLED.match(text):
        return f"The {m['header']} figure for {m['label']} is {m['value']}"
    return text


def _voice_turned(text: str, rng: random.Random) -> str:
    """ "The Company will pay X" is "X will be paid by the Company", and back."""
    body, stop = _unstopped(text)
    if rng.random() >= REORDER_SHARE:
        return text
    if m := _ACTIVE.match(body):
        done = _PARTICIPLES[m["verb"]]
        return f"{_capital(m['obj'])} {m['aux']} be {done} by {_lowered(m['subj'])}{stop}"
    if m := _COVER.match(body):
        cover = "no cover" if m["neg"] else "cover"
        return f"There is {cover} for {_lowered(m['obj'])}{m['rest']}{stop}"
    if m := _PASSIVE.match(body):
        verb = _INFINITIVES[m["verb"]]
        subj = m["subj"][0].upper() + m["subj"][1:]
        return f"{subj} {m['aux']} {verb} {_lowered(m['obj'])}{m['rest']}{stop}"
    return text


_REORDERINGS: tuple[Rule, ...] = (_condition_moved, _heading_moved, _period_moved, _voice_turned)


def _unstopped(text: str) -> tuple[str, str]:
    stop = "." if text.endswith(".") else ""
    return text.rstrip(" ."), stop


def _tidy(text: str) -> str:
    return re.sub(r"\s+([,.;)])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lowered(text: str) -> str:
    """The first word in lower case when it is a common word ("The waiting period ..."),
    kept as written when it is a name ("Plan A", "AYUSH")."""
    first = text.split(" ", 1)[0]
    if first.lower() in _LOWER_OK and not first.isupper():
        return text[:1].lower() + text[1:]
    return text


def _led(text: str, lead: str) -> str:
    return lead + _lowered(text)
