"""English irregular verb forms and their base form, for keyword search.

Porter stemming joins "chooses", "choosing" and "choose", but not "chose" or "chosen": a note
saying "We chose PostgreSQL" was invisible to "which database did we choose" by its words. FTS5
text and queries both map these forms to the base form before the stemmer sees them.

Forms that are as often another word are left out, because merging them would match the wrong
notes: saw (a saw), left (the left side), felt, rose, ground, wound, bound, lay, lit, bit, fed
(the Fed), led (LED), shot, spat, bore.
"""

from __future__ import annotations

__all__ = ["BASE_FORMS", "base_form"]

_TABLE = """
arise: arose arisen | awake: awoke awoken | become: became | begin: began begun
bend: bent | blow: blew blown | break: broke broken | breed: bred | bring: brought
build: built | buy: bought | catch: caught | choose: chose chosen | cling: clung | come: came
creep: crept | dig: dug | draw: drew drawn | drink: drank drunk | drive: drove driven
eat: ate eaten | fall: fell fallen | fight: fought | find: found | flee: fled | fly: flew flown
forbid: forbade forbidden | forget: forgot forgotten | forgive: forgave forgiven
freeze: froze frozen | get: got gotten | give: gave given | go: went gone | grow: grew grown
hang: hung | hear: heard | hide: hid hidden | hold: held | keep: kept | kneel: knelt
know: knew known | lay: laid | lend: lent | lose: lost | make: made | mean: meant | meet: met
mistake: mistook mistaken | overcome: overcame | pay: paid | prove: proven | ride: rode ridden
ring: rang rung | rise: risen | run: ran | say: said | see: seen | seek: sought | sell: sold
send: sent | shake: shook shaken | shine: shone | show: shown | shrink: shrank shrunk
sing: sang sung | sink: sank sunk | sit: sat | sleep: slept | slide: slid | speak: spoke spoken
speed: sped | spend: spent | spin: spun | stand: stood | steal: stole stolen | stick: stuck
sting: stung | strike: struck stricken | swear: swore sworn | sweep: swept | swim: swam swum
swing: swung | take: took taken | teach: taught | tear: tore torn | tell: told | think: thought
throw: threw thrown | understand: understood | undo: undid undone | wake: woke woken
wear: wore worn | weave: wove woven | weep: wept | win: won | withdraw: withdrew withdrawn
write: wrote written | rewrite: rewrote rewritten | undergo: underwent undergone
"""


def _parse(table: str) -> dict[str, str]:
    """``"base: form form | base: form"`` entries as {form: base}."""
    forms: dict[str, str] = {}
    for entry in table.replace("\n", "|").split("|"):
        if entry.strip():
            base, rest = entry.split(":")
            forms.update(dict.fromkeys(rest.split(), base.strip()))
    return forms


BASE_FORMS: dict[str, str] = _parse(_TABLE)


def base_form(word: str) -> str:
    """The base form of a lower-cased irregular verb form, else the word itself."""
    return BASE_FORMS.get(word, word)
