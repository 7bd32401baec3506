/**
 * `npx tsx bench/dedup/make-pairs.ts`: writes bench/dedup/pairs.jsonl, the labelled set the
 * duplicate threshold is measured on (bench/dedup.bench.ts, docs/decisions/memory.md, "No
 * duplicates"). Each line: `{ "a", "b", "same", "family", "why" }`.
 *
 * `same: true`: the same fact reworded (what an agent storing it again in other words writes).
 * `same: false`: a different fact that looks alike: the value changed, a time qualifier added
 * ("was … until 2024"), negated, about someone else, or a neighbouring attribute. A false merge
 * of these would drop the newer fact, which is why the set leans on them.
 *
 * Families are templates over a few values each, so that the set covers wording and values
 * without being written out by hand; the output is deterministic.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

interface Family {
  name: string;
  values: Array<Record<string, string>>;
  /** The stored note. */
  base: string;
  /** The same fact in other words. */
  same: string[];
  /** Different facts that look alike, each with what differs. */
  different: Array<[string, string]>;
}

const FAMILIES: Family[] = [
  {
    name: 'dentist',
    values: [{ x: 'Dr Park', y: 'Dr Moreau' }, { x: 'Dr Alvarez', y: 'Dr Chen' }],
    base: 'My dentist is {x}',
    same: ['{x} is my dentist', 'I go to {x} for my teeth', 'my dentist: {x}'],
    different: [
      ['My dentist was {x} until 2024', 'time qualifier'],
      ['My dentist is {y}', 'value'],
      ["My sister's dentist is {x}", 'someone else'],
      ['My doctor is {x}', 'neighbouring attribute'],
    ],
  },
  {
    name: 'coffee',
    values: [{ x: 'oat milk', y: 'cow milk' }, { x: 'no sugar', y: 'two sugars' }],
    base: 'Takes coffee with {x}',
    same: ['Likes their coffee with {x}', 'Coffee: with {x}', 'They drink coffee with {x}'],
    different: [
      ['Takes coffee with {y}', 'value'],
      ['Used to take coffee with {x}, not any more', 'no longer'],
      ['Takes tea with {x}', 'neighbouring attribute'],
      ['Never takes coffee with {x}', 'negation'],
    ],
  },
  {
    name: 'city',
    values: [{ x: 'Lyon', y: 'Lille' }, { x: 'Berlin', y: 'Bern' }, { x: 'Porto', y: 'Lisbon' }],
    base: 'Lives in {x}',
    same: ['The owner lives in {x}', 'Home is in {x}', 'Based in {x}'],
    different: [
      ['Lived in {x} until 2022', 'time qualifier'],
      ['Lives in {y}', 'value'],
      ['Their parents live in {x}', 'someone else'],
      ['Works in {x}', 'neighbouring attribute'],
    ],
  },
  {
    name: 'employer',
    values: [{ x: 'Acme', y: 'Globex' }, { x: 'Initech', y: 'Umbrella' }],
    base: 'Works at {x} as an engineer',
    same: ['Is an engineer at {x}', 'Employer: {x} (engineer)', 'Their job is engineer at {x}'],
    different: [
      ['Worked at {x} as an engineer until March', 'time qualifier'],
      ['Works at {y} as an engineer', 'value'],
      ['Works at {x} as a manager', 'neighbouring attribute'],
      ['Is interviewing at {x} for an engineer role', 'not yet'],
    ],
  },
  {
    name: 'allergy',
    values: [{ x: 'penicillin', y: 'aspirin' }, { x: 'peanuts', y: 'shellfish' }],
    base: 'Allergic to {x}',
    same: ['Has an allergy to {x}', 'Is allergic to {x}', 'Allergy: {x}'],
    different: [
      ['Allergic to {y}', 'value'],
      ['Not allergic to {x}', 'negation'],
      ['Their son is allergic to {x}', 'someone else'],
      ['Was tested for a {x} allergy, negative', 'negation'],
    ],
  },
  {
    name: 'meeting',
    values: [{ x: 'Monday at 10', y: 'Tuesday at 10' }, { x: 'Friday at 3pm', y: 'Friday at 4pm' }],
    base: 'Weekly team meeting on {x}',
    same: ['The team meets every week on {x}', 'Team meeting: weekly, {x}', 'Has the weekly team meeting {x}'],
    different: [
      ['Weekly team meeting on {y}', 'value'],
      ['Weekly team meeting on {x} was cancelled', 'no longer'],
      ['Monthly board meeting on {x}', 'neighbouring attribute'],
      ['Weekly team meeting on {x} until the summer', 'time qualifier'],
    ],
  },
  {
    name: 'pet',
    values: [{ x: 'a cat named Miso', y: 'a cat named Tofu' }, { x: 'a dog named Rex', y: 'a dog named Max' }],
    base: 'Has {x}',
    same: ['Owns {x}', 'Their pet: {x}', 'Lives with {x}'],
    different: [
      ['Has {y}', 'value'],
      ['Had {x}, who died last year', 'no longer'],
      ['Their neighbour has {x}', 'someone else'],
      ['Wants {x}', 'not yet'],
    ],
  },
  {
    name: 'language',
    values: [{ x: 'Spanish', y: 'Portuguese' }, { x: 'German', y: 'Dutch' }],
    base: 'Speaks {x} fluently',
    same: ['Is fluent in {x}', 'Fluent {x} speaker', 'Speaks fluent {x}'],
    different: [
      ['Speaks {y} fluently', 'value'],
      ['Is learning {x}', 'not yet'],
      ['Speaks a little {x}', 'degree'],
      ['Their wife speaks {x} fluently', 'someone else'],
    ],
  },
  {
    name: 'birthday',
    values: [{ x: '3 May', y: '13 May' }, { x: '21 October', y: '21 November' }],
    base: 'Birthday is on {x}',
    same: ['Born on {x}', 'Their birthday: {x}', 'Celebrates their birthday on {x}'],
    different: [
      ['Birthday is on {y}', 'value'],
      ["Mother's birthday is on {x}", 'someone else'],
      ['Wedding anniversary is on {x}', 'neighbouring attribute'],
      ['Birthday party moved to {x}', 'neighbouring attribute'],
    ],
  },
  {
    name: 'diet',
    values: [{ x: 'vegetarian', y: 'vegan' }, { x: 'pescatarian', y: 'vegetarian' }],
    base: 'Is {x}',
    same: ['Eats a {x} diet', 'Follows a {x} diet', 'Diet: {x}'],
    different: [
      ['Is {y}', 'value'],
      ['Was {x} for ten years, eats meat now', 'no longer'],
      ['Is trying to become {x}', 'not yet'],
      ['Their partner is {x}', 'someone else'],
    ],
  },
  {
    name: 'car',
    values: [{ x: 'a blue Golf', y: 'a blue Polo' }, { x: 'a Tesla Model 3', y: 'a Tesla Model Y' }],
    base: 'Drives {x}',
    same: ['Their car is {x}', 'Owns and drives {x}', 'Car: {x}'],
    different: [
      ['Drives {y}', 'value'],
      ['Sold {x} last year', 'no longer'],
      ['Wants to buy {x}', 'not yet'],
      ['Their daughter drives {x}', 'someone else'],
    ],
  },
  {
    name: 'wake',
    values: [{ x: '6:30', y: '7:30' }, { x: '5 am', y: '5 pm' }],
    base: 'Wakes up at {x} on weekdays',
    same: ['Gets up at {x} on weekdays', 'On weekdays they wake at {x}', 'Weekday wake-up time: {x}'],
    different: [
      ['Wakes up at {y} on weekdays', 'value'],
      ['Wakes up at {x} on weekends', 'neighbouring attribute'],
      ['Goes to bed at {x} on weekdays', 'neighbouring attribute'],
      ['Used to wake up at {x} on weekdays', 'no longer'],
    ],
  },
  {
    name: 'instruction',
    values: [{ x: 'British English', y: 'American English' }, { x: 'metric units', y: 'imperial units' }],
    base: 'Always answer in {x}',
    same: ['Please always use {x} in answers', 'Answers should be in {x}', 'Use {x} when answering'],
    different: [
      ['Always answer in {y}', 'value'],
      ['Never answer in {x}', 'negation'],
      ['Write emails in {x}', 'neighbouring attribute'],
      ['Answer in {x} only when asked', 'condition'],
    ],
  },
  {
    name: 'flight',
    values: [{ x: 'Gatwick', y: 'Heathrow' }, { x: 'Schiphol', y: 'Eindhoven' }],
    base: 'Prefers flying out of {x}',
    same: ['Likes to fly from {x}', 'Preferred airport: {x}', 'Would rather depart from {x}'],
    different: [
      ['Prefers flying out of {y}', 'value'],
      ['Avoids flying out of {x}', 'negation'],
      ['Prefers flying into {x}', 'neighbouring attribute'],
      ['Prefers the train to {x}', 'neighbouring attribute'],
    ],
  },
  {
    name: 'child',
    values: [{ x: 'Emma', y: 'Emily', n: '7', m: '8' }, { x: 'Noah', y: 'Noel', n: '12', m: '2' }],
    base: 'Has a daughter named {x}, age {n}',
    same: ['Their daughter {x} is {n} years old', 'Daughter: {x}, {n}', 'Is the parent of {x}, a {n}-year-old girl'],
    different: [
      ['Has a daughter named {y}, age {n}', 'value'],
      ['Has a daughter named {x}, age {m}', 'value'],
      ['Has a son named {x}, age {n}', 'neighbouring attribute'],
      ['Their sister has a daughter named {x}, age {n}', 'someone else'],
    ],
  },
  {
    name: 'budget',
    values: [{ x: '500', y: '5000' }, { x: '1,200', y: '1,500' }],
    base: 'Monthly rent is {x} euros',
    same: ['Pays {x} euros rent a month', 'Rent: {x} EUR per month', 'Their rent comes to {x} euros monthly'],
    different: [
      ['Monthly rent is {y} euros', 'value'],
      ['Monthly rent was {x} euros until January', 'time qualifier'],
      ['Monthly salary is {x} euros', 'neighbouring attribute'],
      ['Yearly rent is {x} euros', 'neighbouring attribute'],
    ],
  },
  {
    name: 'team',
    values: [{ x: 'Arsenal', y: 'Chelsea' }, { x: 'the Lakers', y: 'the Celtics' }],
    base: 'Supports {x}',
    same: ['Is a fan of {x}', 'Favourite team: {x}', 'Cheers for {x}'],
    different: [
      ['Supports {y}', 'value'],
      ['Hates {x}', 'negation'],
      ['Used to support {x}', 'no longer'],
      ['Their brother supports {x}', 'someone else'],
    ],
  },
  {
    name: 'event',
    values: [{ x: 'Rome', y: 'Milan', d: 'June' }, { x: 'Kyoto', y: 'Tokyo', d: 'April' }],
    base: 'Trip to {x} in {d}',
    same: ['Travelling to {x} in {d}', 'Going to {x} in {d}', '{d}: trip to {x}'],
    different: [
      ['Trip to {y} in {d}', 'value'],
      ['Trip to {x} in {d} is cancelled', 'no longer'],
      ['Went to {x} last {d}', 'time qualifier'],
      ['Their boss has a trip to {x} in {d}', 'someone else'],
    ],
  },
];

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? `{${key}}`);
}

const lines: string[] = [];
for (const family of FAMILIES) {
  for (const values of family.values) {
    const a = fill(family.base, values);
    for (const s of family.same) lines.push(JSON.stringify({ a, b: fill(s, values), same: true, family: family.name, why: 'reworded' }));
    for (const [d, why] of family.different) lines.push(JSON.stringify({ a, b: fill(d, values), same: false, family: family.name, why }));
    // The same words written again another way (case, spacing, a full stop): the text rule's part.
    lines.push(JSON.stringify({ a, b: `  ${a.toLowerCase().replace(/ /g, '  ')}.`, same: true, family: family.name, why: 'respelled' }));
    // Pairs between rewordings too: the stored note need not be the plain form.
    const [s1, s2] = family.same;
    lines.push(JSON.stringify({ a: fill(s1!, values), b: fill(s2!, values), same: true, family: family.name, why: 'reworded' }));
    lines.push(JSON.stringify({ a: fill(s1!, values), b: fill(family.different[0]![0], values), same: false, family: family.name, why: family.different[0]![1] }));
  }
}
const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'pairs.jsonl');
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`${lines.length} pairs written to ${path.relative(process.cwd(), out)}`);
