"""The small word lists the grounding engine needs to read English and a few other languages.

Everything here is data: function words that carry no claim, a light thesaurus of frequent
factual synonyms, irregular English forms, number words, month names, negation cues and the
phrases of assistant small talk. Keeping the lists in one place keeps the algorithms readable.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a text block, as a set."""
    return frozenset(text.split())


STOPWORDS: frozenset[str] = _words(
    """
    a an the this that these those it its it's they them their there here he she his her him we
    our us you your i me my mine who whom whose which what when where why how is are was were
    be been being am do does did done doing have has had having will would shall should can
    could may might must ought of in on at by for from to into onto with within without about
    above below over under between among through during before after since until upon via per
    across along around and or but nor so yet if then than as also too very just only even
    still already such some any each every all both either most more much many several various
    other another same own few lot lots not no never none cannot says said say saying report
    reports reported reporting according stated states state stating notes noted claims claimed
    claim claiming told tells approximately roughly nearly almost around about estimated estimate
    some over more less located situated based known called named include includes including
    included
    currently now today ever once again well while whereas although though however because out
    true therefore thus hence additionally furthermore moreover overall finally lastly also
    conversely meanwhile likewise similarly instead
    mention mentions mentioned suggest suggests suggested describe describes described
    highlight highlights highlighted summarize summarizes summarized summarise summarises
    summarised discuss discusses discussed explain explains explained emphasize emphasizes
    emphasized emphasise emphasises emphasised indicate indicates indicated
    note noting due despite rather whether whichever whatever whoever whereby thereby
    typically usually generally often sometimes commonly frequently normally mostly mainly
    primarily largely especially particularly specifically essentially basically actually
    really simply
    up down off le la les de des du un une et est en à au aux pour par sur dans que qui été il
    elle ce cette son sa ses d l el los las del y es con se su sus al lo más o os as do da dos
    das um uma é em na mais der die das den dem des ein eine einer und ist sind war im mit von
    zu für auf il lo gli di della è per che het een van op и в на с по из у к о что это
    является η ο το οι τα της του των και είναι σε με
    """
)
"""Function words, hedges and attribution verbs: they never carry a claim on their own."""

NEGATION_CUES: frozenset[str] = _words(
    """
    not no never neither nor none nobody nothing nowhere cannot without false ne pas jamais aucun
    aucune nunca ningún ninguna ningun tampoco nicht kein keine keinen keiner keinem nie
    niemals não nem niet geen не нет ни δεν μην όχι
    """
)
"""Words that turn a clause negative (``n't`` endings are handled by the tokeniser)."""

NEGATION_CHARACTERS: frozenset[str] = frozenset("不没沒未无無")
"""Chinese negation characters; a run of Chinese text containing one is negative."""

NEGATION_SUFFIXES: tuple[str, ...] = ("ない", "ません", "なかった", "않", "없", "못", "ไม่")
"""Japanese, Korean and Thai negation markers found inside unspaced runs."""

CLAUSE_BREAK_WORDS: frozenset[str] = _words(
    "but however although though whereas while yet except mais pero aber sondern но"
)
"""Words that start a new clause, so that a negation does not reach past them."""

ENGLISH_FUNCTION_WORDS: frozenset[str] = _words(
    "the is are was were and of that with this these have has been from which it its their to "
    "for be"
)
"""Function words of English that other languages rarely write: a sentence with one is English."""

SUBORDINATORS: frozenset[str] = _words("if unless until because when whenever whether")
"""Words that open a subordinate clause: a negation inside it (``if he doesn't learn``) does not
reach the main clause, nor one in the main clause into it."""

CLAUSE_STARTING_PRONOUNS: frozenset[str] = _words(
    "it they he she we i you which who this these those there"
)
"""After a comma these start a new clause (``..., it is open Tuesday``)."""

PASSIVE_MARKERS: frozenset[str] = _words("by por par durch")
"""Agent markers of the passive voice (``was defeated by``), which reverse subject and object."""

_SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("movie", "film", "films", "movies"),
    ("large", "big", "bigger", "biggest", "largest", "larger", "huge"),
    ("high", "tall", "taller", "tallest", "highest", "higher"),
    ("small", "little", "tiny", "smallest", "smaller"),
    ("long", "longest", "longer", "lengthy"),
    ("old", "oldest", "older", "ancient"),
    ("fast", "quick", "rapid", "fastest", "quickest", "rapidly", "quickly"),
    ("start", "begin", "began", "begun", "commence", "starts", "begins"),
    ("end", "finish", "complete", "conclude", "ended", "finished", "completed", "concluded"),
    ("found", "establish", "established", "founded", "founding"),
    ("acquire", "buy", "bought", "purchase", "purchased", "acquired", "acquisition"),
    ("defeat", "beat", "beaten", "defeated", "overcame", "overcome"),
    ("die", "died", "death", "dies", "dying"),
    ("author", "writer", "writers", "authors"),
    ("doctor", "physician", "doctors", "physicians"),
    ("vehicle", "car", "cars", "automobile", "automobiles", "vehicles"),
    ("aircraft", "airplane", "aeroplane", "plane", "airplanes", "planes"),
    ("help", "assist", "aid", "helps", "assists", "helped", "assisted"),
    ("reduce", "lower", "decrease", "cut", "reduced", "lowered", "decreased", "reduces", "lowers"),
    ("increase", "rise", "rose", "risen", "raise", "boost", "increased", "rises", "raised"),
    ("display", "screen", "displays", "screens"),
    ("cost", "price", "priced", "costs", "prices"),
    ("people", "person", "persons", "individuals", "individual"),
    ("famous", "renowned", "celebrated", "well-known"),
    ("build", "built", "construct", "constructed", "erect", "erected"),
    ("produce", "manufacture", "manufactured", "produced", "produces", "manufactures"),
    ("win", "won", "receive", "received", "earn", "earned", "wins", "receives"),
    ("release", "launch", "released", "launched", "releases", "launches"),
    ("main", "major", "primary", "principal", "chief"),
    ("country", "nation", "countries", "nations"),
    ("drug", "medication", "medicine", "drugs", "medications", "medicines"),
    ("disease", "illness", "sickness", "diseases", "illnesses"),
    ("researcher", "scientist", "researchers", "scientists"),
    ("company", "firm", "corporation", "companies", "firms"),
    ("child", "children", "kid", "kids"),
    ("day", "daily", "days"),
    ("week", "weekly", "weeks"),
    ("month", "monthly", "months"),
    ("year", "annual", "yearly", "annually", "years"),
    ("metre", "meter", "metres", "meters", "m"),
    ("kilometre", "kilometer", "kilometres", "kilometers", "km"),
    ("centimetre", "centimeter", "centimetres", "centimeters", "cm"),
    ("kilogram", "kilograms", "kg", "kilo", "kilos"),
    ("percent", "per cent", "%", "pct"),
    ("dollar", "dollars", "$", "usd"),
    ("euro", "euros", "€", "eur"),
    ("pound", "pounds", "£", "gbp"),
    ("celsius", "°c", "℃"),
    ("fahrenheit", "°f", "℉"),
    ("mile", "miles", "mi"),
    ("hour", "hours", "h", "hr", "hrs"),
    ("minute", "minutes", "min", "mins"),
    ("second", "seconds", "sec", "secs"),
    ("inch", "inches", "in."),
    ("injure", "wound", "hurt", "injured", "wounded", "injuries", "injury", "wounds"),
    ("kill", "slay", "killed", "slain", "kills", "killing", "killings"),
    ("seek", "pursue", "sought", "pursued", "seeks", "pursues", "seeking", "pursuing"),
    ("charge", "accuse", "charged", "accused", "charges", "accuses", "accusation"),
    ("arrest", "detain", "arrested", "detained", "arrests", "detains"),
    ("show", "reveal", "showed", "shown", "revealed", "shows", "reveals"),
    ("need", "require", "needed", "required", "needs", "requires", "requirement"),
    ("allow", "permit", "let", "allowed", "permitted", "allows", "permits"),
    ("try", "attempt", "tried", "attempted", "tries", "attempts"),
    ("choose", "select", "pick", "chose", "chosen", "selected", "picked"),
    ("keep", "retain", "kept", "retained", "keeps", "retains"),
    ("get", "obtain", "got", "obtained", "gets", "obtains", "gotten"),
    ("use", "utilize", "utilise", "used", "using", "utilized", "utilised", "uses", "usage"),
    ("hard", "difficult", "harder", "tough"),
    ("easy", "simple", "easier", "simpler"),
    ("near", "close", "nearby"),
    ("often", "frequently", "commonly"),
    ("enough", "sufficient", "adequate"),
    ("street", "st", "streets"),
    ("avenue", "ave", "av", "avenues"),
    ("boulevard", "blvd", "boulevards"),
    ("parkway", "pkwy", "pky"),
    ("road", "rd", "roads"),
    ("highway", "hwy", "highways"),
    ("suite", "ste"),
)

SYNONYMS: dict[str, str] = {word: group[0] for group in _SYNONYM_GROUPS for word in group}
"""Maps a word (casefolded) to the first word of its synonym group."""

IRREGULAR_FORMS: dict[str, str] = {
    "wrote": "write",
    "written": "write",
    "grew": "grow",
    "grown": "grow",
    "led": "lead",
    "made": "make",
    "took": "take",
    "taken": "take",
    "became": "become",
    "ran": "run",
    "saw": "see",
    "seen": "see",
    "held": "hold",
    "gave": "give",
    "given": "give",
    "got": "get",
    "went": "go",
    "gone": "go",
    "came": "come",
    "fell": "fall",
    "fallen": "fall",
    "sold": "sell",
    "taught": "teach",
    "thought": "think",
    "brought": "bring",
    "left": "leave",
    "met": "meet",
    "paid": "pay",
    "spoke": "speak",
    "spoken": "speak",
    "chose": "choose",
    "chosen": "choose",
    "drove": "drive",
    "driven": "drive",
    "flew": "fly",
    "flown": "fly",
    "flies": "fly",
    "kept": "keep",
    "knew": "know",
    "known": "know",
    "shown": "show",
    "sank": "sink",
    "sunk": "sink",
    "struck": "strike",
    "stood": "stand",
    "swam": "swim",
    "threw": "throw",
    "thrown": "throw",
    "wore": "wear",
    "worn": "wear",
    "sang": "sing",
    "sung": "sing",
    "ate": "eat",
    "eaten": "eat",
    "drew": "draw",
    "drawn": "draw",
    "hid": "hide",
    "lay": "lie",
    "lain": "lie",
    "lies": "lie",
    "sent": "send",
    "spent": "spend",
    "lost": "lose",
    "felt": "feel",
    "heard": "hear",
    "found": "found",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "teeth": "tooth",
    "feet": "foot",
    "geese": "goose",
    "data": "datum",
    "bacteria": "bacterium",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "analyses": "analysis",
    "theses": "thesis",
    "crises": "crisis",
    "species": "species",
    "series": "series",
    "news": "news",
    "bus": "bus",
    "gas": "gas",
    "its": "its",
}
"""Irregular English verb and noun forms mapped to their base form."""

ANTONYMS: tuple[tuple[str, str], ...] = (
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("increase", "decrease"),
    ("high", "low"),
    ("large", "small"),
    ("before", "after"),
    ("first", "last"),
    ("north", "south"),
    ("east", "west"),
    ("win", "lose"),
    ("open", "closed"),
    ("maximum", "minimum"),
    ("above", "below"),
    ("older", "younger"),
    ("earlier", "later"),
    ("early", "late"),
    ("positive", "negative"),
    ("profit", "loss"),
    ("gain", "loss"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("approve", "reject"),
    ("accept", "reject"),
    ("cheap", "expensive"),
    ("strong", "weak"),
    ("hot", "cold"),
    ("best", "worst"),
    ("better", "worse"),
    ("fast", "slow"),
    ("legal", "illegal"),
    ("alive", "dead"),
    ("import", "export"),
    ("acquire", "sell"),
    ("male", "female"),
    ("public", "private"),
    ("safe", "unsafe"),
    ("effective", "ineffective"),
    ("majority", "minority"),
    ("allow", "ban"),
    ("allow", "prohibit"),
    ("permanent", "temporary"),
    ("high", "lower"),
    ("cheaper", "expensive"),
    ("cheap", "pricey"),
    ("fewer", "more"),
)
"""Word pairs of opposite meaning: a claim with one, evidence with only the other, disagree."""

UNIT_WORDS: dict[str, str] = {
    "cm": "cm",
    "mm": "mm",
    "km": "km",
    "kg": "kg",
    "g": "g",
    "m": "m",
    "mah": "mah",
    "gb": "gb",
    "tb": "tb",
    "mb": "mb",
    "mhz": "mhz",
    "ghz": "ghz",
    "kw": "kw",
    "w": "w",
    "v": "v",
    "kwh": "kwh",
    "mg": "mg",
    "ml": "ml",
    "l": "l",
    "ft": "ft",
    "mi": "mi",
    "h": "h",
    "s": "s",
    "min": "min",
    "mph": "mph",
    "am": "am",
    "pm": "pm",
    "bc": "bc",
    "ad": "ad",
    "k": "k",
}
"""Unit suffixes that may be glued to a number (``5km``, ``4000mAh``); split off as words."""

ORDINAL_SUFFIXES: frozenset[str] = frozenset({"st", "nd", "rd", "th", "er", "e", "ème", "º", "ª"})
"""Suffixes that make a number an ordinal (``19th``); the ordinal matches the plain number."""

MEASURES: dict[str, tuple[str, ...]] = {
    "length": (
        "km kilometre kilometer kilometres kilometers",
        "mile miles mi",
        "m metre meter metres meters",
        "cm centimetre centimeter centimetres centimeters",
        "mm millimetre millimeter millimetres millimeters",
        "ft foot feet",
        "inch inches",
        "yard yards",
    ),
    "mass": (
        "kg kilogram kilograms",
        "g gram grams",
        "mg milligram milligrams",
        "lb lbs pound pounds",
        "oz ounce ounces",
        "ton tons tonne tonnes",
    ),
    "volume": (
        "l litre liter litres liters",
        "ml millilitre milliliter millilitres milliliters",
        "gallon gallons",
        "quart quarts",
        "pint pints",
    ),
    "temperature": ("celsius", "fahrenheit"),
    "time": (
        "min minute minutes",
        "h hour hours",
        "day days",
        "week weeks",
        "month months",
        "year years",
    ),
    "money": ("dollar dollars", "euro euros", "yen"),
}
"""Units of measure by what they measure, each unit's spellings together: ``5 km`` is no ``5
miles``, ``3 hours`` no ``3 days``, ``5 litres`` is ``5 liters``."""

ORDINALS: dict[str, int] = {
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
    "fortieth": 40,
    "fiftieth": 50,
    "sixtieth": 60,
    "seventieth": 70,
    "eightieth": 80,
    "ninetieth": 90,
}
"""Ordinal words from ``third`` on (``first`` and ``second`` stay words: ``1st`` is ``first``)."""

UNITS: dict[str, int] = {
    "twice": 2,
    "thrice": 3,
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "twentieth": 20,
    "hundredth": 100,
    "dozen": 12,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "dix": 10,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "diez": 10,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "zehn": 10,
}
"""Number words worth a fixed value (``eleven`` is 11; ordinals match cardinals)."""

UNITS.update(ORDINALS)

MULTIPLIERS: dict[str, int] = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "trillion": 1_000_000_000_000,
    "millions": 1_000_000,
    "millones": 1_000_000,
    "millón": 1_000_000,
    "milliarden": 1_000_000_000,
    "milliards": 1_000_000_000,
    "mil": 1_000,
    "mille": 1_000,
    "tausend": 1_000,
    "bn": 1_000_000_000,
    "mn": 1_000_000,
}
"""Number words that multiply what comes before them (``2.1 million``, ``fifty thousand``)."""

MONTHS: dict[str, int] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
    "janvier": 1,
    "février": 2,
    "mars": 3,
    "avril": 4,
    "mai": 5,
    "juin": 6,
    "juillet": 7,
    "août": 8,
    "septembre": 9,
    "octobre": 10,
    "novembre": 11,
    "décembre": 12,
    "enero": 1,
    "febrero": 2,
    "marzo": 3,
    "abril": 4,
    "mayo": 5,
    "junio": 6,
    "julio": 7,
    "agosto": 8,
    "septiembre": 9,
    "octubre": 10,
    "noviembre": 11,
    "diciembre": 12,
    "januar": 1,
    "februar": 2,
    "märz": 3,
    "juni": 6,
    "juli": 7,
    "oktober": 10,
    "dezember": 12,
}
"""Month names (English, French, Spanish, German), written capitalised in English."""

TITLE_ABBREVIATIONS: frozenset[str] = _words(
    """
    mr mrs ms dr prof sr jr st mt gen col lt sgt capt rev no nos fig vol c ca approx vs cf e.g
    i.e al ft dept est op pp
    """
)
"""Abbreviations after whose period a sentence never ends (``Dr. Chen``, ``c. 1495``)."""

SMALL_TALK_WORDS: frozenset[str] = _words(
    """
    hi hello hey greetings welcome thanks thank thx you your yours there sure certainly course
    absolutely okay ok alright yes great good question excellent morning afternoon evening day
    night happy glad help helps helped helpful hope let me check look see find search here is
    are what i found below following summary short quick brief overview answer answers
    information info more details detail anything else can could would like know ask asking
    reaching out reach patience please feel free cheers bye goodbye sorry up no nope yeah yep
    apologies wait moment second sec few main points point key the a an of for that this to and
    with about it in me my we our us be do have will with on at so if bonjour salut merci hola
    gracias buenos días dias hallo danke guten tag ciao grazie olá obrigado obrigada привет
    здравствуйте спасибо 你好 您好 谢谢 谢 こんにちは ありがとう 안녕하세요 감사합니다 สวัสดี ขอบคุณ
    """
)
"""Words of assistant small talk: a sentence made only of these states no fact."""

SMALL_TALK_OPENERS: tuple[str, ...] = (
    "let me",
    "let's",
    "i'll",
    "i will",
    "i'd be happy",
    "i would be happy",
    "i'm happy",
    "i am happy",
    "i'm glad",
    "i am glad",
    "i hope",
    "hope this helps",
    "happy to help",
    "glad to help",
    "feel free",
    "please let me know",
    "let me know",
    "thanks",
    "thank you",
    "you're welcome",
    "you are welcome",
    "is there anything",
    "sorry",
    "i'm sorry",
    "i apologize",
    "i apologise",
    "here is",
    "here are",
    "here's",
    "below is",
    "below are",
    "good question",
    "great question",
    "i can help",
    "i can check",
    "one moment",
)
"""Openings that mark a sentence as the assistant talking about itself, not about the world."""

SOURCE_WORDS: frozenset[str] = _words(
    "passage passages source sources document documents context provided given"
)
"""Words by which an answer speaks of the facts it was given rather than of the world."""

SILENCE_NEGATIONS: frozenset[str] = _words("not no none unable cannot neither nor without")
"""Negations that, with a source word and a verb of telling, say the sources are silent."""

TELLING_WORDS: frozenset[str] = _words(
    """
    provide provides provided mention mentions mentioned contain contains include includes
    specify specifies specified say says state states stated give gives discuss discusses
    address addresses answer information details detail indicate indicates explain explains
    """
)
"""Verbs (and nouns) of telling: what a source does or does not do for a question."""

US_STATES: dict[str, str] = {
    "AL": "alabama",
    "AK": "alaska",
    "AZ": "arizona",
    "AR": "arkansas",
    "CA": "california",
    "CO": "colorado",
    "CT": "connecticut",
    "DE": "delaware",
    "FL": "florida",
    "GA": "georgia",
    "HI": "hawaii",
    "ID": "idaho",
    "IL": "illinois",
    "IN": "indiana",
    "IA": "iowa",
    "KS": "kansas",
    "KY": "kentucky",
    "LA": "louisiana",
    "ME": "maine",
    "MD": "maryland",
    "MA": "massachusetts",
    "MI": "michigan",
    "MN": "minnesota",
    "MS": "mississippi",
    "MO": "missouri",
    "MT": "montana",
    "NE": "nebraska",
    "NV": "nevada",
    "NH": "new hampshire",
    "NJ": "new jersey",
    "NM": "new mexico",
    "NY": "new york",
    "NC": "north carolina",
    "ND": "north dakota",
    "OH": "ohio",
    "OK": "oklahoma",
    "OR": "oregon",
    "PA": "pennsylvania",
    "RI": "rhode island",
    "SC": "south carolina",
    "SD": "south dakota",
    "TN": "tennessee",
    "TX": "texas",
    "UT": "utah",
    "VT": "vermont",
    "VA": "virginia",
    "WA": "washington",
    "WV": "west virginia",
    "WI": "wisconsin",
    "WY": "wyoming",
    "DC": "district of columbia",
    "ON": "ontario",
    "QC": "quebec",
    "BC": "british columbia",
    "AB": "alberta",
}
"""Postal codes of US states and a few Canadian provinces, as business records write them."""

ACRONYMS: dict[str, str] = {
    "US": "United States",
    "USA": "United States",
    "UK": "United Kingdom",
    "GB": "Great Britain",
    "UN": "United Nations",
    "EU": "European Union",
    "NYC": "New York City",
    "UAE": "United Arab Emirates",
    "USSR": "Soviet Union",
    "NZ": "New Zealand",
    "PRC": "China",
    "DRC": "Democratic Republic of the Congo",
}
"""Common all-capital short forms of countries, cities and unions (dots dropped: ``U.S.``), and
the full name each stands for. Read only when written in capitals: ``US`` is not ``us``."""

NAME_ALIASES: dict[str, str] = {"Britain": "United Kingdom", "Holland": "Netherlands"}
"""Capitalised one-word names commonly used for a country with a longer name."""

AUXILIARIES: frozenset[str] = _words(
    "will would can could shall should may might must is are was were has have had does did"
)
"""Auxiliary and modal verbs; after ``and`` one opens a second predicate of the subject."""
