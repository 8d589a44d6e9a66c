"""Word forms: the tenses of English verbs that stemming cannot join.

The full-text index stems with Porter's algorithm, which joins "painted", "paints" and
"painting" to "paint", but not "went" to "go" nor "said" to "say": a question asked in one
tense ("Where did John go?") and a memory told in another ("I went to …", or a retelling in
the present) would share no word. `lemma(word)` gives an irregular verb's base form, so a
token a search matched and a query word are compared as the same word. (Asking the index
for every form of a query's verbs was measured on LoCoMo and cost 1.0 @5: "going", "got"
and "made" are in every other line of talk.) The table is English grammar, not a list
fitted to any data set.
"""

from __future__ import annotations

# base past participle [more forms], one verb a line: the common irregular verbs of English.
_IRREGULAR = """
arise arose arisen arises arising
awake awoke awoken awakes awaking
be was were been is are am being
bear bore born borne bears bearing
beat beat beaten beats beating
become became become becomes becoming
begin began begun begins beginning
bend bent bent bends bending
bet bet bet bets betting
bite bit bitten bites biting
bleed bled bled bleeds bleeding
blow blew blown blows blowing
break broke broken breaks breaking
bring brought brought brings bringing
build built built builds building
burn burnt burned burns burning
buy bought bought buys buying
catch caught caught catches catching
choose chose chosen chooses choosing
come came come comes coming
cost cost cost costs costing
creep crept crept creeps creeping
cut cut cut cuts cutting
deal dealt dealt deals dealing
dig dug dug digs digging
do did done does doing
draw drew drawn draws drawing
dream dreamt dreamed dreams dreaming
drink drank drunk drinks drinking
drive drove driven drives driving
eat ate eaten eats eating
fall fell fallen falls falling
feed fed fed feeds feeding
feel felt felt feels feeling
fight fought fought fights fighting
find found found finds finding
flee fled fled flees fleeing
fly flew flown flies flying
forget forgot forgotten forgets forgetting
forgive forgave forgiven forgives forgiving
freeze froze frozen freezes freezing
get got gotten gets getting
give gave given gives giving
go went gone goes going
grow grew grown grows growing
hang hung hung hangs hanging
have had had has having
hear heard heard hears hearing
hide hid hidden hides hiding
hit hit hit hits hitting
hold held held holds holding
hurt hurt hurt hurts hurting
keep kept kept keeps keeping
know knew known knows knowing
lay laid laid lays laying
lead led led leads leading
learn learnt learned learns learning
leave left left leaves leaving
lend lent lent lends lending
lie lay lain lies lying
light lit lit lights lighting
lose lost lost loses losing
make made made makes making
mean meant meant means meaning
meet met met meets meeting
pay paid paid pays paying
put put put puts putting
quit quit quit quits quitting
read read read reads reading
ride rode ridden rides riding
ring rang rung rings ringing
rise rose risen rises rising
run ran run runs running
say said said says saying
see saw seen sees seeing
seek sought sought seeks seeking
sell sold sold sells selling
send sent sent sends sending
set set set sets setting
shake shook shaken shakes shaking
shine shone shone shines shining
shoot shot shot shoots shooting
show showed shown shows showing
shut shut shut shuts shutting
sing sang sung sings singing
sink sank sunk sinks sinking
sit sat sat sits sitting
sleep slept slept sleeps sleeping
slide slid slid slides sliding
speak spoke spoken speaks speaking
spend spent spent spends spending
spin spun spun spins spinning
split split split splits splitting
spread spread spread spreads spreading
stand stood stood stands standing
steal stole stolen steals stealing
stick stuck stuck sticks sticking
sting stung stung stings stinging
strike struck struck strikes striking
swear swore sworn swears swearing
sweep swept swept sweeps sweeping
swim swam swum swims swimming
swing swung swung swings swinging
take took taken takes taking
teach taught taught teaches teaching
tear tore torn tears tearing
tell told told tells telling
think thought thought thinks thinking
throw threw thrown throws throwing
understand understood understood understands understanding
wake woke woken wakes waking
wear wore worn wears wearing
weep wept wept weeps weeping
win won won wins winning
wind wound wound winds winding
write wrote written writes writing
"""


def _table() -> dict[str, str]:
    lemmas: dict[str, str] = {}
    for line in _IRREGULAR.strip().splitlines():
        words = line.split()
        for word in words:
            lemmas.setdefault(word, words[0])  # a form of two verbs ("lay") keeps the first
    return lemmas


_LEMMAS = _table()


def lemma(word: str) -> str:
    """The base form of an irregular verb's form ("went" → "go"); any other word as it is."""
    return _LEMMAS.get(word.lower(), word.lower())
