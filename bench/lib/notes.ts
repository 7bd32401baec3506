/**
 * Notes as an owner writes them, and questions as an agent asks them, for the search rows.
 *
 * The text is what search meets in use: short sentences with stop words, names, places, dates
 * and a vocabulary of some thousands of words, each content word in a small share of the notes.
 * A synthetic set of a few dozen words repeated over 10,000 entries would put most words in an
 * eighth of the entries or more, where the in-memory index keeps an array as long as the index
 * for each (owner-index.ts), and push the owner past the index's bound into the slower scan of
 * its rows: a row measured that way would time the fallback, not the search people get.
 *
 * Everything is generated from fixed seeds: every run seeds and asks the same.
 */

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const list = (words: string) => words.split(',').map((word) => word.trim().replace(/\s+/g, ' '));

const PEOPLE = list(`
  Emma, Liam, Olivia, Noah, Ava, Lucas, Sofia, Mateo, Mia, Ethan, Chloe, Arjun, Priya, Kenji, Yuki,
  Fatima, Omar, Lena, Jonas, Ingrid, Pablo, Lucia, Tomasz, Agnieszka, Dmitri, Irina, Kwame, Amara,
  Siobhan, Declan, Marta, Henrik, Astrid, Rafael, Beatriz, Chen, Mei, Hamid, Leila, Grace, Samuel,
  Nadia, Viktor, Elena, Theo, Margot, Felix, Clara, Hugo, Rosa, Ibrahim, Zara, Oscar, Freya, Milan
`);
const RELATIONS = list(`
  daughter, son, sister, brother, mother, father, aunt, uncle, cousin, niece, nephew, grandmother,
  grandfather, partner, wife, husband, neighbour, landlord, manager, colleague, friend, mentor,
  accountant, lawyer, dentist, doctor, physiotherapist, plumber, electrician, babysitter, tutor,
  coach, vet, pharmacist, hairdresser, mechanic, architect, therapist, trainer, barber
`);
const PLACES = list(`
  Lisbon, Porto, Madrid, Barcelona, Valencia, Paris, Lyon, Marseille, Berlin, Munich, Hamburg,
  Vienna, Zurich, Geneva, Milan, Rome, Naples, Florence, Amsterdam, Rotterdam, Brussels, Antwerp,
  Copenhagen, Stockholm, Oslo, Helsinki, Dublin, Edinburgh, Glasgow, Manchester, Bristol, London,
  Prague, Warsaw, Krakow, Budapest, Athens, Istanbul, Toronto, Montreal, Vancouver, Boston,
  Chicago, Denver, Seattle, Austin, Mexico City, Bogota, Lima, Santiago, Tokyo, Osaka, Kyoto,
  Seoul, Singapore, Bangkok, Sydney, Melbourne, Auckland, Nairobi, Cairo, Marrakesh, Reykjavik
`);
const FOODS = list(`
  peanuts, shellfish, gluten, lactose, eggs, sesame, soy, strawberries, kiwi, mustard, celery,
  cilantro, mushrooms, olives, anchovies, blue cheese, oysters, coconut, walnuts, almonds
`);
const DISHES = list(`
  sourdough bread, ramen, paella, lasagne, pad thai, falafel, risotto, tacos, dumplings, curry,
  pho, goulash, moussaka, gnocchi, bibimbap, ceviche, tagine, pierogi, shakshuka, biryani
`);
const ACTIVITIES = list(`
  running, swimming, cycling, climbing, yoga, pilates, rowing, tennis, badminton, squash, chess,
  piano lessons, guitar practice, pottery, woodworking, birdwatching, gardening, photography,
  choir rehearsal, salsa classes, kayaking, sailing, skiing, surfing, hiking, boxing, fencing,
  volleyball, football, basketball, archery, knitting, calligraphy, origami, journaling
`);
const DAYS = list(`Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday`);
const MONTHS = list(`January, February, March, April, May, June, July, August, September, October, November, December`);
const THINGS = list(`
  passport, car insurance, health insurance, gym membership, phone contract, broadband, mortgage,
  rent, council tax, electricity bill, water bill, streaming subscription, library card,
  driving licence, residence permit, pension plan, savings account, credit card, tax return,
  warranty, lease, parking permit, season ticket, domain name, cloud storage, vaccination record
`);
const COMPANIES = list(`
  Acme, Globex, Initech, Umbrella Labs, Stark Freight, Wayne Logistics, Hooli, Vandelay Imports,
  Soylent Foods, Cyberdyne, Tyrell Systems, Wonka Confections, Oscorp, Gringotts Bank, Monarch
  Travel, Nakatomi Trading, Pied Piper, Dunder Paper, Sterling Cooper, Prestige Worldwide
`);
const PROJECTS = list(`
  Zephyr, Aurora, Borealis, Cascade, Meridian, Orion, Quasar, Halcyon, Nimbus, Solstice, Tundra,
  Juniper, Kestrel, Lighthouse, Mosaic, Pinnacle, Redwood, Sapphire, Trident, Voyager
`);
const TOPICS = list(`
  budget review, hiring plan, product launch, security audit, quarterly report, customer churn,
  pricing change, data migration, office move, onboarding guide, vendor contract, roadmap,
  incident review, accessibility fixes, performance tuning, marketing campaign, sales forecast,
  compliance training, board meeting, partner integration, mobile release, user research
`);
const PREFERENCES = list(`
  aisle seats on flights, window seats on trains, quiet hotel rooms, morning meetings, late dinners,
  black coffee, green tea, oat milk, dark chocolate, early check-in, paper books, podcasts on
  history, jazz in the evening, working from cafes, standing desks, handwritten notes, short
  emails, video calls with the camera off, vegetarian restaurants, spicy food, cold showers
`);
const COLOURS = list(`red, blue, green, yellow, purple, orange, grey, white, black, silver, teal, navy`);
const CARS = list(`Toyota Corolla, Honda Civic, Volkswagen Golf, Renault Clio, Skoda Octavia, Tesla Model 3, Fiat Panda, Volvo V60, Mazda 3, Ford Focus`);
const HABITS = list(`
  go to bed around eleven, wake up at half past six, read before sleeping, walk the dog after lunch,
  cook at home on weekdays, meditate for ten minutes, stretch every morning, avoid screens after
  nine, drink two litres of water, call my parents on Sundays, plan the week on Monday morning
`);

type Pick = <T>(items: readonly T[]) => T;
const TEMPLATES: Array<(pick: Pick, n: () => number) => string> = [
  (p) => `My ${p(RELATIONS)} ${p(PEOPLE)} is allergic to ${p(FOODS)}.`,
  (p) => `I prefer ${p(PREFERENCES)}, as ${p(PEOPLE)} from ${p(PLACES)} does.`,
  (p) => `My ${p(RELATIONS)} is ${p(PEOPLE)}, who lives in ${p(PLACES)}.`,
  (p, n) => `${p(PEOPLE)}'s birthday is on ${p(MONTHS)} ${1 + (n() % 28)}; ${p(PEOPLE)} suggested a dinner with ${p(DISHES)}.`,
  (p) => `I do ${p(ACTIVITIES)} every ${p(DAYS)} with ${p(PEOPLE)}.`,
  (p, n) => `The ${p(THINGS)} renews on ${p(MONTHS)} ${1 + (n() % 28)} and costs ${20 + (n() % 480)} euros a year.`,
  (p, n) => `Invoice INV-${1000 + (n() % 9000)} from ${p(COMPANIES)} was paid on ${p(MONTHS)} ${1 + (n() % 28)}.`,
  (p) => `Project ${p(PROJECTS)} is about the ${p(TOPICS)}; ${p(PEOPLE)} leads it from ${p(PLACES)}.`,
  (p) => `Meeting with ${p(PEOPLE)} from ${p(COMPANIES)} about the ${p(TOPICS)} moved to ${p(DAYS)}.`,
  (p) => `I learned to make ${p(DISHES)} from ${p(PEOPLE)} when we stayed in ${p(PLACES)}.`,
  (p, n) => `Flight to ${p(PLACES)} on ${p(MONTHS)} ${1 + (n() % 28)}: booking reference ${String.fromCharCode(65 + (n() % 26))}${String.fromCharCode(65 + (n() % 26))}${100 + (n() % 900)}, seat ${1 + (n() % 40)}C.`,
  (p) => `My car is a ${p(COLOURS)} ${p(CARS)}; the ${p(RELATIONS)} who services it is ${p(PEOPLE)}.`,
  (p) => `Since moving to ${p(PLACES)} I ${p(HABITS)} and ${p(HABITS)}.`,
  (p) => `Do not schedule anything on ${p(DAYS)} evenings: ${p(ACTIVITIES)} with ${p(PEOPLE)}.`,
  (p) => `${p(PEOPLE)} recommended a ${p(RELATIONS)} in ${p(PLACES)} called ${p(PEOPLE)}.`,
  (p, n) => `Remember to renew the ${p(THINGS)} before ${p(MONTHS)}; the number is ${100000 + (n() % 900000)}.`,
  (p) => `We are planning a trip to ${p(PLACES)} and ${p(PLACES)} next ${p(MONTHS)} to try ${p(DISHES)}.`,
  (p) => `I never eat ${p(FOODS)} and avoid ${p(FOODS)} when ordering ${p(DISHES)}.`,
  (p) => `${p(PEOPLE)} at ${p(COMPANIES)} asked for the ${p(TOPICS)} draft by ${p(DAYS)}.`,
  (p) => `Our ${p(RELATIONS)} ${p(PEOPLE)} started ${p(ACTIVITIES)} and loves it.`,
];

/** The i-th note: the same text for the same i on every run. */
export function ownerNote(i: number): string {
  const random = seeded(1_000_003 + i);
  const pick: Pick = (items) => items[Math.floor(random() * items.length)]!;
  const n = () => Math.floor(random() * 1_000_000);
  return TEMPLATES[i % TEMPLATES.length]!(pick, n);
}

/** A knowledge-base document of about `bytes` characters: notes under headings, as a person's notes file reads. */
export function noteDocument(i: number, bytes: number): string {
  const random = seeded(7_000_001 + i);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let text = `# ${pick(TOPICS)} notes ${i}\n`;
  for (let section = 0, note = i * 1_000; text.length < bytes; section++) {
    text += `\n## ${pick(PROJECTS)}: ${pick(TOPICS)}\n\n`;
    for (let k = 0; k < 6 && text.length < bytes; k++) text += `${ownerNote(note++ * 7 + 3)} `;
    text += '\n';
  }
  return text.slice(0, bytes);
}

const QUESTIONS: Array<(pick: Pick) => string> = [
  (p) => `what is my ${p(RELATIONS)} allergic to`,
  (p) => `who is ${p(PEOPLE)} and where do they live`,
  (p) => `when is ${p(PEOPLE)}'s birthday`,
  (p) => `which day do I do ${p(ACTIVITIES)}`,
  (p) => `when does the ${p(THINGS)} renew and how much does it cost`,
  (p) => `was the invoice from ${p(COMPANIES)} paid`,
  (p) => `who leads the ${p(TOPICS)} project`,
  (p) => `when is the meeting about the ${p(TOPICS)} with ${p(COMPANIES)}`,
  (p) => `how did I learn to cook ${p(DISHES)}`,
  (p) => `what is the booking reference for the flight to ${p(PLACES)}`,
  (p) => `who services my ${p(CARS)}`,
  (p) => `do I ${p(HABITS)}`,
  (p) => `can we meet on ${p(DAYS)} evening for ${p(ACTIVITIES)}`,
  (p) => `which ${p(RELATIONS)} in ${p(PLACES)} was recommended to me`,
  (p) => `what trips am I planning to ${p(PLACES)}`,
  (p) => `foods to avoid when ordering ${p(DISHES)} for ${p(PEOPLE)}`,
  (p) => `what did ${p(PEOPLE)} ask me to send by ${p(DAYS)}`,
  (p) => `does anyone in my family do ${p(ACTIVITIES)}`,
];

/** Questions no two of which are the same string (see ownerQuestion). */
export const DISTINCT_QUESTIONS = QUESTIONS.length * PLACES.length * PEOPLE.length * MONTHS.length;

/**
 * The k-th question: an agent's sentence about the notes, ending with three of the owner's own
 * words that spell k in the mixed radix of their lists. The question's template (k's last digit)
 * and those words tell k apart, so no two of the first DISTINCT_QUESTIONS are the same string
 * and no cache keyed on the query answers one of them.
 */
export function ownerQuestion(k: number): string {
  const random = seeded(31_337 + k * 2_654_435);
  const pick: Pick = (items) => items[Math.floor(random() * items.length)]!;
  let rest = Math.floor(k / QUESTIONS.length);
  const digit = <T>(items: readonly T[]): T => {
    const item = items[rest % items.length]!;
    rest = Math.floor(rest / items.length);
    return item;
  };
  return `${QUESTIONS[k % QUESTIONS.length]!(pick)} ${digit(PLACES)} ${digit(PEOPLE)} ${digit(MONTHS)}`;
}
