"""Everyday English words, so that a claim's added word can be told general or specific.

A short list written for this project (no third-party data): the verbs, adjectives, adverbs
and nouns that any paraphrase or summary reaches for, whatever its subject. A claim word that
is neither one of these, a regular derivation of one (:mod:`rarity`), nor a form of a fact's
word is a specific detail the answer added (``caramel``, ``autoimmune``). The list leaves out
function words (:mod:`lexicon`) and the words of any one field.
"""

GENERAL_WORDS = """
abandon ability able about above abroad absence absent absolute absorb abstract abuse academic
academy accept acceptable access accessible accident accommodate accompany accomplish accord
account accuracy accurate accusation accuse ache achieve acid acknowledge acquire acquisition
acre across act action active activist activity actor actress actual actually adapt add addict
addiction addition additional address adequate adjust adjustment administration admire admission
admit adolescent adopt adult advance advanced advantage adventure advertise advertisement
advertising advice advise advocate affair affect afford affordable afraid aftermath afternoon
afterward again against age agency agenda agent aggression aggressive aging ago agree agreement
agricultural agriculture ahead aid aim air aircraft airline airport aisle alarm album alcohol
alcoholic alert alike alive allegation allege allergy alliance allow allowance ally almost alone
along alongside already alright also alter alternative although altogether always amazing
ambition ambulance amendment amid among amount amusement analysis analyst analyze ancestor
ancient anger angle angry animal anniversary announce announcement annoy annual annually
anonymous another answer antique anxiety anxious anxiously anybody anymore anyone anything
anyway anywhere apart apartment apologize apology apparent apparently appeal appear appearance
appetite applause apple appliance applicant application apply appoint appointment appreciate
approach appropriate approval approve approximately aquarium architect area arena argue argument
arise arm armed army around arrange arrest arrival arrive arrow art article artificial artist
ashamed aside ask asleep aspect assault assemble assembly assess asset assign assignment assist
assistance assistant associate association assume assumption assure athlete athletic atmosphere
attach attack attempt attend attendance attendant attention attic attitude attorney attract
attraction attribute auction audience audit aunt authentic author authority autograph automatic
automatically autumn available avenue average avoid avoidance awake award aware awareness away
awful awkward axis

baby bachelor back background backup backward bacteria bad badge bag baggage bail bake bakery
balance ball ballot ban banana band bank bankrupt bankruptcy banner bar bare barely bargain barn
barrel barrier base basement basic basis basket bat batch bath battery battle beach beam bean
bear beard beast beat beautiful beauty because become bed bedroom bedtime bee beef beer before
beg begin beginning behalf behave behavior behind being belief believe bell belly belong beloved
below belt bench bend beneath benefit beside besides best better beverage beyond bias bible
bicycle bid big bike bill billion bind bird birth birthday bishop bit bite bitter black blade
blame blank blanket blast bleed blend bless blind block blog blood bloody bloom blossom blouse
blow blue board boast boat body bold bolt bomb bond bone bonus book booking boom boost boot
booth border boring born borrow boss both bother bottle bottom bounce bow bowl box boxing boy
bracelet brain brake branch brand brave breach bread break breakdown breakfast breakthrough
breast breath breathe breed breeze bribe brick bride bridge brief briefly bright brilliant bring
broad broadband broadcast broccoli brochure broke broken brook broom brother brown brush brutal
bubble bucket buddy budget buffet bug build building bulb bull bullet bully bump bunch burden
bureau burger burglar burn burst bury bus business bust busy butcher butter button buy buzz

cabbage cabin cable cafe cage cake calculate calendar call calm calorie camera camp campaign
campus canal cancel cancer candidate candle candy cannon canvas canyon cap capable capacity
capital captain capture car carbohydrate carbon card care career careful careless cargo carpet
carrot carry carve case cash cashier casino cast castle casual catalog catch category cattle
cause caution cautious cave cease ceiling celebrate celebration celebrity cell cement cemetery
censor census cent center central century cereal ceremony certain certificate chain chair
chairman challenge champion championship chance change channel chaos chapel chapter character
characteristic characterize charge charity charm chart charter chase cheap cheat check cheek
cheer cheese chemical chemistry cherry chest chew chicken chief child childhood chill chimney
chin chip chocolate choice choose chop chorus church cigarette cinema circle circuit circulate
circumstance cite citizen citizenship city civil civilian claim clap clarify clash class classic
classroom clay clean cleaner clear clearly clerk clever click client cliff climate climb clinic
clinical clip clock close closely closet closure cloth clothes clothing cloud club clue cluster
coach coal coalition coast coastal coat cocktail code coffee coffin coin cold collapse collar
colleague collect collection collective college collision colony color column comb combination
combine come comedy comfort comfortable comfortably command commander comment commercial
commission commit commitment committee common communicate communication community commute
compact companion company compare comparison compassion compensate compensation compete
competent competition competitive compile complain complaint complete completely complex
complicated compliment comply component compose composition compound comprehensive compromise
compulsory computer conceal concede conceive concentrate concept concern concert concession
conclude conclusion concrete condemn condition condo conduct confess confession confidence
confident configuration confine confirm conflict conform confront confuse confusion congratulate
congress connect connection conquer conscience conscious consensus consent consequence
conservative conserve consider considerable considerate consist consistent consistently
conspiracy constant constantly constitute constitution construct construction consult consultant
consume consumer consumption contact contain contaminate contemporary contempt contend content
contest context continent continue continuous contract contractor contradict contrast contribute
contribution control controversial controversy convenience convenient convention conversation
convert conviction convince cook cooker cookie cool cooperate coordinate cope copper copy cord
core cork corn corner corporate corporation correct correspond corridor corrupt corruption cost
costume cottage cotton couch cough council councillor counsel counselor count counter country
countryside county coup couple courage courier course court courtesy cousin cover coverage cozy
crab crack cradle craft cram cramp crane crash crawl crayon crazy cream create creative creature
credible credit creek creep crew crime criminal crisis crisp critic critical criticism criticize
crop cross crossing crowd crowded crown crucial crude cruel crumb crush crust cry cube cucumber
cultivate culture cup cupboard curb cure curiosity curious curl currency current curtain curve
custody custom customer customs cut cute cycle

dad daily dairy dam damage damn damp dance danger dare dark data date daughter dawn day daylight
dead deadline deadly deaf deal dealer dear death debate debt debut decade decay deceive decent
decide decision decisive deck declaration declare decline decorate decorative decrease dedicate
deduct deductible deed deep deer defeat defect defend defendant defender defense deficiency
deficit define definite definitely definition degree delay delegate delete deliberately delicate
delicious delight deliver delivery demand democracy democrat democratic demolish demonstrate
denial dense dentist deny department departure depend dependent deport deposit depression
deprive depth deputy derive descend descent describe desert deserve design designer desire desk
desperate despite dessert destination destiny destroy destruction detail detain detect detective
detention deter determination determine devastate develop development device devil devote
diabetes diagnose diagram dialogue diamond diary dictate dictionary die diesel diet difference
different difficult dig digital dignity dilemma dim dine dinner dip diploma diplomat direct
direction director dirt dirty disability disable disadvantage disagree disagreement disappear
disappoint disapprove disaster discard discharge discipline disclose discomfort discount
discourage discourse discover discrimination discuss discussion disease disguise disgust dish
dismay dismiss disorder display disposal dispose dispute disrupt dissolve distance distant
distinct distinction distinguish distract distress distribute distribution district disturb
ditch dive diverse divide divorce dizzy dock doctor document dog doll dollar dolphin dome
domestic dominate donate donation donkey donor door dose dot double doubt dough dove downtown
dozen draft drag drain drama dramatic drastic draw drawer drawing dread dream dress dresser
drift drill drink drip drive driver drop drown drug drum drunk dry duck due dull dumb dump
durable dusk dust duty dye dynamic

eager ear early earn earnings earth earthquake ease easily east eastern eastward easy eat
ecology economic economist economy edge edible edit edition editor educate education educational
effect effective effectively efficient effort egg ego elbow elder elderly elect election
electric electricity electronic elegance elegant element elementary elevator eliminate elite
else elsewhere email embarrass embassy embrace emerald emerge emergency emission emotion
emotional emperor emphasis emphasize empire employ employee employer employment empower empty
enable enclose encounter encourage encyclopedia end endanger endless endorse endure enemy energy
enforce enforcement engage engine engineer enhance enjoy enjoyable enlarge enormous enough
enroll enrollment ensure enter entertain entertainment enthusiasm entire entitle entrance
entrepreneur entry envelope environment envy epidemic episode equal equality equation equip
equipment equivalent era erase erect erosion error erupt escape essay essence essential
establish estate estimate ethical ethics ethnic evacuate evaluate evaporate evening event
eventually everybody everyday everyone everything everywhere evidence evident evil evolution
evolve exact exactly exaggerate exam examination examine example excavate exceed excellent
except exceptional excerpt excess excessive exchange excite excitement exclaim exclude exclusive
excuse executive exercise exhaust exhausted exhibit exhibition exist existence exit exotic
expand expansion expect expedition expel expense expensive experience experiment expert expire
explain explanation explode exploit explore explosion export expose exposure express extend
extension extent external extinct extra extract extraordinary extreme extremely eye

fabric fabulous face facial facility fact factor factory faculty fade fail faint fair fairy
faith faithful fake fall false fame familiar family famine famous fan fancy fantastic fantasy
far fare farewell farm farmer fascinate fashion fast fat fatal fate father fatigue faucet fault
favor favorite fear feast feather feature federal fee feed feel feeling fellow female feminine
fence ferry fertile fertilizer festival fever few fiber fiction field fierce fifth fifty fig
fight figure file fill film filter final finally finance financial find fine finger finish fire
fireplace firework firm first fish fishing fist fit fix flag flame flash flashlight flat flavor
flaw flee flesh flexible flight flip float flock flood floor flour flow flower flu fluid flush
fly foam focus fog foil fold folk follow fond font food foot footage football forbid force
forecast foreign forest forever forget forgive fork form formal former formula fort fortune
forum forward fossil foster foundation fountain fox fraction fracture fragile fragment frame
frank fraud free freedom freeze freight frequency frequent frequently fresh friction fridge
friend friendly friendship frighten front frost frown frozen fruit frustrate fry fuel fulfill
full fully fume fun function fund funding funeral fungus funny fur furious furniture further
furthermore fuss future

gadget gain galaxy gallery gallon gamble game gaming gang gap garage garbage garden garlic gas
gasoline gate gather gauge gay gaze gear gem gender gene general generally generation generator
generous genius genre gentle gentleman genuine geography germ gesture get ghost giant gift gig
ginger giraffe girl give glad glance glass global glove glow glue goal goat golden golf good
gossip govern government gown grab grace graceful grade gradually graduate graduation graffiti
grain grammar grand grandfather grandmother grant grape graph grasp grass grateful gratitude
grave gravity gray grease great greatly green greet grief grill grin grind grip groan grocery
groom gross ground group grow growth guarantee guard guardian guess guest guide guideline guilty
guitar gum gun guy gym

habit hack hail hair hairdresser half hall halt hammer hand handful handle handsome handy hang
happen happy harbor hard hardly hardware harm harmful harmony harsh harvest hat hate haunt hawk
hay hazard head headache headline headquarters heal health healthy heap hear hearing heart heat
heater heaven heavy hedge heel height helicopter hell hello helmet help helpful hemisphere hence
herb heritage hero hesitate hidden hide high highlight highly highway hike hill hint hip hire
historic historical history hit hobby hockey hold hole holiday hollow holy home homeless
homework honest honey honor hook hop hope hormone horn horrible horror horse hose hospital host
hostage hostile hot hotel hour house household housing however hug huge hum human humble humid
humor hundred hunger hungry hunt hurricane hurry hurt husband hut hydrogen hygiene hymn

ice icon idea ideal identical identification identify identity idle ignorance ignore illegal
illness illusion illustrate image imagine imitate immediate immediately immense immigrant
immigration immune impact impatient imperial implant implement implication imply import
importance important impose impossible impress impression impressive improve impulse inability
inadequate incentive inch incidence incident incline include inclusive income incorporate
increase increasingly incredible indeed independent index indicate indication indifferent
individual indoor industrial industry inevitable inexpensive infamous infant infection infinite
inflate inflation influence influential inform informal information ingredient inhabit
inhabitant inherit initial initially initiative inject injection injure injury inn inner
innocent innovation innovative input inquiry insane insect inside insight insist inspect
inspection inspector inspire install installation instance instant instead instinct institute
institution instruction instrument insult insurance intake integrate integrity intellectual
intelligence intelligent intend intense intensity intent interaction interest interfere interior
intermediate internal interpret interpretation interrupt interval intervention interview
intimate introduce intrude invade invaluable invasion invasive invent invention inventory invest
investigate investigation investigator investment investor invisible invitation invite involve
iron irony irrigation irritate island isolate isolation issue itch item ivory

jacket jail jam jar jaw jealous jeans jelly jet jewelry job jog join joint joke journal
journalist journey joy joyful judge judgment juice jump junior junk jury justice justify

keep kettle key keyboard kick kid kidnap kidney kill kind king kingdom kiss kit kitchen kite
knee knife knit knob knock knot know knowledge

label labor laboratory lace lack ladder lady lake lamb lamp land landlord landmark landscape
lane language lap laptop large largely laser last late lately later latest latter laugh launch
law lawn lawsuit lawyer lay layer lazy lead leader leadership leaf league leak lean leap learn
learner lease least leather leave lecture left leg legacy legal legend legislation leisure lemon
lend length lens less lesson let letter level lever liability liberal liberty library license
lick lid lie life lifestyle lifetime lift light lighthouse lightly lightning like likely
likewise limb limestone limit limited line linen link lion lip liquid list listen literally
literature little live liver living lizard load loan lobby lobster local locate location lock
lodge log logic lone lonely long look loose lord lose loss lottery loud lounge love lovely low
lower loyal luck lucky lump lunch lung lure luxury

machine mad magazine magic magnet magnificent maid mail main mainland mainly maintain
maintenance major majority make makeup male mammal man manage manager mandate mango manipulate
manner mansion manual manufacture manufacturer map marathon marble march margin marine mark
marker market marketing marriage married marsh martial marvelous masculine mask mass massive
master mat match mate material math matter mattress mature maximum maybe mayor maze meadow meal
mean meaning meanwhile measure meat mechanic mechanism medal media mediate medical medicine
meditation medium meet meeting melody melt member membership memorable memorial memory menace
mental mention menu merchant mercy mere merely merge merit mess message messenger metal metaphor
meter method microphone microwave middle midnight midst migrate migration mild mile military
militia milk mill million mind mine mineral minimum minister ministry minor minority mint minus
minute miracle mirror miserable misery miss missile mission mist mistake mix mixture moan mob
mobile mock mode model moderate modern modest modify molecule moment money monitor monk monkey
monopoly monster month monument mood moon mop moral morale moreover morning mortgage mosquito
moss mostly motel mother motion motivate motive motor mount mountain mourn mouse moustache mouth
move movement movie mud mug multiple murder muscle museum mushroom music musician mustard mute
mutual mystery myth

nail naked name nap napkin narrative narrow nasty nation national nationwide native natural
nature naval navy near nearby nearly neat necessarily necessary neck need negative neglect
negotiate negotiation neighbor neighborhood neither nephew nerve nervous nest net network
neutral never nevertheless new newly news newspaper next nice niece night nightmare noble nobody
nod noise nominate nominee none nonetheless noodle noon nor norm normal north northern nose
notable note notebook nothing notice notify notion nourish novel novelist nowhere nuclear number
numerous nurse nursery nut nutrition

oak oath obesity obey object objection objective obligation obscure observation observe obsess
obstacle obtain obvious obviously occasion occasionally occupation occupy occur ocean odd offend
offender offense offensive offer office officer official offspring oil okay old olive omit once
onion online onto open opening opera operate operation operator opinion opponent opportunity
oppose opposite opposition opt optimistic option oral orange orbit orchestra ordeal order
ordinary organ organic organization organize orient origin original ornament orphan otherwise
ought ourselves outbreak outcome outdoor outfit outlet outline output outrage outside
outstanding oval oven overall overcome overdue overhead overlook overnight overseas overtime
overweight owe owl own owner oxygen oyster

pace pack package pact pad paddle page pail pain painful paint painting pair pajamas palace pale
pamphlet pan pancake panel panic pants paper parachute parade paragraph parallel parcel pardon
parent parish parking parliament parrot part partial participant participate particular
particularly partly partner partnership party pass passage passenger passion passive password
past pasta pastry pasture patch patent path patience patient patrol patron pattern pause
pavement paw pay peace peach peak peanut pear pearl peasant pebble pedal pedestrian peel peer
penalty pencil penny pension people pepper percentage perfect perfectly perform performance
perfume perhaps peril period perish permanent permanently permission permit persist person
personal persuade pet petition petrol pharmacy phase phenomenon philosophy phone photo
photograph photographer phrase physical physician physics piano pick pickle picture pie piece
pier pig pigeon pile pill pillow pilot pin pine pink pint pioneer pipe pirate pistol pitch pity
place plague plain plan planet planning plant plantation plastic plate platform play player
plead pleasant please pleasure pledge plenty plot plug plum plumber plunge plus pocket poem poet
poetry point poison pole police policy political poll pollution pony pool poor pop popular
population porch pork port portable portion portrait pose position positive possess possession
possibility possible possibly post postpone posture pot potato potential pound pour poverty
powder power powerful practical practice praise pray prayer preach precaution precise precisely
predator predict prefer preference pregnancy pregnant premier premium preparation prepare
prescribe prescription presence present presentation preserve preside president presidential
press pressure prestige pretty prevail prevent prevention previous previously prey price prick
pride priest primary prime prince princess principal principle print prior priority prison
prisoner privacy private privilege prize probably probe problem procedure proceed process
produce product productive profession professional professor proficient profile profit profound
program progress prohibit project prolong prominent promise promote promotion prompt proof
propaganda proper property propose prosecute prosecutor prospect prosper prosperity protect
protection protein protest proud prove proverb provide provided province provision prune
psychiatrist psychological pub public publication publicity publish pudding pull pulse pump
pumpkin punch punish punishment pupil puppy purchase pure purple purpose purse pursue push put
puzzle

qualification qualify quality quantity quarrel quarter queen quest question queue quick quiet
quilt quite quiz quota quote

rabbit race racial racing racism rack radar radiation radical radio rage raid rail railway rain
rainbow raise rally ranch random range rank ransom rapid rapidly rare rarely rash rat rate
rating ratio raw ray reach react reaction read reader readily ready real realistic reality
realize realm rear reason reasonable rebel rebuild recall receipt receive receiver recent
reception recession recipe recipient reckless reckon reclaim recognize recommend recommendation
record recover recovery recreation recruit recycle red reduce reduction refer referee reference
refine reflect reform refrigerator refuge refugee refund refuse regard regardless regime region
register regret regular regulate regulation rehearse reign reinforce reject rejection relate
relationship relative relatively relax relay release relevant reliable reliance relic relief
relieve religion religious reluctant rely remain remark remarkable remedy remember remind
reminder remote removal remove renew renovate rent rental repair repeat repeatedly replace
replacement reply reporter represent reproduce reptile republic reputation request require
rescue research resemble reservation reserve residence resident residential resign resist
resistance resolution resolve resort resource respect respective respectively respond response
responsibility responsible rest restaurant restless restore restrict restriction result resume
retail retain retire retirement retreat retrieve return reunion reveal revenue reverse review
revise revival revive revolution revolve reward rhythm rib ribbon rice rich rid ride rider ridge
ridiculous rifle right rim ring rinse riot ripe rise risk ritual rival river road roast rob
robbery robe robot rock rod role roll romantic roof rookie room root rope rose rot rotate rotten
rough round route routine row royal rub rubber rubbish rude rug ruin rule rumble rumor run
runway rural rush rust

sack sacred sacrifice sad saddle safe safety saint sake salad salary sale salmon salon salt
sample sanction sand sandwich sane satellite satisfaction satisfy sauce sausage savage save
scale scan scandal scar scare scared scatter scenario scene scent schedule scheme scholar
scholarship school science scientific scientist scissors scold scoop score scrap scratch scream
screen script scrub scrutiny sculpture sea seafood seal search seaside season seasoning seat
second secondary secondhand secret secretary section sector secure security sediment see seed
seek seem segment seize seldom select selection sell senate senator send senior sense sensible
sensitive sentence sentiment separate sequel sequence sergeant series serious servant serve
service serving session set setting settle settlement severe sew sewage sex sexual shade shadow
shake shall shallow shame shape share shark sharp shave shed sheep sheet shelf shell shelter
sheriff shield shift shine ship shirt shiver shock shoe shoot shop shopping shore short shortage
shortly shot shoulder shout shovel show shower shrink shrug shut shutdown shy sibling sick side
sidewalk siege sigh sight sign signal signature significant silence silent silk silly silver
similar similarly simple simply sing singer single sink sip siren sister sit site situation size
skeleton sketch ski skill skin skull sky slam slap slave sleep sleeve slice slide slight
slightly slip slogan slope slot slow slowly slum small smart smash smell smile smoke smooth
snack snake snap sneak sneeze sniff snow soak soap sob soccer social socially society sock sofa
soft software soil solar soldier sole solid solitary solution solve somebody somehow someone
something sometime somewhat somewhere son song soon sophisticated sorrow sorry sort soul sound
soup sour source south southern soy spa space spade spare spark sparkle sparrow speak speaker
spear special specialist species specific specifically specimen spectacular spectator speech
speed spell spend spice spicy spider spill spin spine spirit spiritual spit splash split sponge
sponsor spoon sport spot spouse sprain spray spread spring sprinkle spy squad square squeeze
squirrel stab stable stack stadium staff stage stain stair stake stall stamp stance stand
standard stapler star stare start starve statement station statistic statue status stay steady
steal steam steel steep steer stem step stew stick stiff stir stitch stock stomach stone stool
stop storage store storey storm story stove straight strain strand strange stranger strap
strategy straw strawberry stray stream street strength stress stretch strict strike string strip
stripe stroke stroll strong structure struggle stubborn stuck studded student studio study stuff
stumble stun stupid sturdy style subject submit subscribe subsidy substance substantial
substitute subtle subtract suburb suburban succeed success successful successor suck sudden
suddenly suffer suffix sugar suggest suggestion suicide suit suitable suitcase sulfur sum summer
summit sun sunlight sunrise sunset sunshine super superb supervise supervisor supplement supply
support supporter suppose supreme sure surface surge surgeon surgery surname surplus surprise
surprised surprising surrender surround surveillance survey survival survive suspect suspend
suspicion suspicious sustain swallow swamp swan swear sweat sweater sweep sweet swell swift swim
swing switch sword syllable symbol sympathy symptom syndrome syrup system

table tablet tackle tactic tag tail take tale talent talk tan tangle tank tap tape tar target
tariff task taste tavern tax taxi tea teach teacher team teammate tear tease teaspoon technical
technique technology teen teenager telephone telescope television temper temperature temple
temporary tenant tend tendency tender tennis tension tent term terminal terms terrace terrible
terrify territory terror terrorist test testimony text thank thaw theater theft theme theory
therapist therapy thick thigh thin thing think third thirst thirty thorn thorough thoroughly
thought thousand thread threat threaten thrill thrive throat throne through throughout throw
thumb thunder thus ticket tidy tie tight tile timber time timid tin tiny tip tire tired tissue
title toast tobacco toe together toilet toll tomato tomb tomorrow ton tone tongue tonight tool
tooth top topic torch tornado torture total touch tough tour tourist tournament toward towel
tower town toxic toy trace track tractor trade trader tradition traffic tragedy tragic trail
trailer train tram tranquil transaction transfer transform transition translate transmit
transparent transport transportation trap trash travel tray tread treasure treat treatment
treaty tree tremendous trench trend trial tribe tribute trick trigger trim trip triumph troop
trophy tropical trouble trousers truck true truly trunk trust truth try tube tuition tulip tumor
tune tunnel turkey turn turtle tutor twice twig twin twist type typhoon typical typically

ugly ultimate ultimately umbrella unable unanimous uncertain uncle uncover undergo underground
underline underlying undermine understand understanding undertake underwear unemployed
unemployment unfair unfortunately uniform unify union unique unit unite unity universe
university unknown unless unlike unlikely until unusual upgrade uphold upon upper upright uproar
upset upstairs urban urge urgent use used useful user usual usually utility utmost

vacation vaccine vacuum vague valid valley valuable value van vanish vapor variety vary vast
vault vegetable vehicle veil vein velvet vendor ventilation venture verb verdict verify verse
version versus vertical vessel veteran veterinary vibrate vice victim victory video view village
vine vinegar vintage vinyl violate violence violent violin virgin virtual virtually virtue virus
visible vision visit visitor visual vital vitamin vocabulary vocal voice volcano volume
volunteer vote vow voyage vulnerable

wage waist wait waiter walk walker wall wallet wander want war ward wardrobe warehouse warn
warrant warrior wary washer wasp waste watch watchful water waterfall wave way weak weaken
wealth weapon wear weather weave web wedding weed week weekend weep weight weird welcome welder
welfare west western wet whatever wheat wheel whenever whereas wherever whip whiskey whisper
whistle white whole wicked wide widely widen widespread widow width wife wig wild wildlife
willing willow win wind window wine wing winner winter wipe wire wise wish wit withdraw withhold
witness wizard wolf woman wonder wood wooden wool word work worker world worm worried worry
worse worship worst worth wound wrap wrist write writer writing wrong

yacht yard yawn year yell yellow yesterday yet yield yogurt young youth

zero zone
"""
