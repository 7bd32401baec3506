/**
 * The Porter stemming algorithm (M. F. Porter, 1980), the one SQLite's `porter` tokenizer
 * applies, so that the in-memory search index (owner-index.ts, ranker.ts) reduces words to the
 * stems the FTS5 index holds: "deploying", "deployed" and "deploys" all become "deploy".
 *
 * Works on lower-case words. Words shorter than three letters, or longer than 64, are kept as
 * they are (as SQLite keeps them); so are letters outside a–z, which no rule mentions.
 */

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  // "y" is a vowel after a consonant ("happy"), a consonant at the start or after a vowel ("toy").
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** The measure m of a stem: how many vowel-consonant sequences it holds, [C](VC){m}[V]. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "snow"). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  if (!isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const last = w[n - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
}

/**
 * Applies the first rule (longest suffix first) whose suffix ends the word: when the stem before
 * it meets the condition, the suffix is replaced. A matching suffix whose condition fails ends
 * the step, as the algorithm says; no shorter suffix is tried.
 */
function replaceSuffix(w: string, rules: ReadonlyArray<readonly [string, string]>, condition: (stem: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, w.length - suffix.length);
      return condition(stem) ? stem + replacement : w;
    }
  }
  return w;
}

const byLength = (rules: Array<[string, string]>) => rules.sort((a, b) => b[0].length - a[0].length);

const STEP2 = byLength([
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
]);

const STEP3 = byLength([['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']]);

const STEP4 = byLength(
  ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map(
    (s): [string, string] => [s, ''],
  ),
);

export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64) return word;
  let w = word;

  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);

  // Step 1b: -ed and -ing.
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    let cut: string | undefined;
    if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) cut = w.slice(0, -2);
    else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) cut = w.slice(0, -3);
    if (cut !== undefined) {
      w = cut;
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += 'e';
    }
  }

  // Step 1c: a final y after a vowel-bearing stem becomes i.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + 'i';

  // Steps 2 and 3: double and single suffixes.
  w = replaceSuffix(w, STEP2, (stem) => measure(stem) > 0);
  w = replaceSuffix(w, STEP3, (stem) => measure(stem) > 0);

  // Step 4: suffixes dropped from long stems; -ion only after s or t.
  if (w.endsWith('ion')) {
    const stem = w.slice(0, -3);
    if (measure(stem) > 1 && /[st]$/.test(stem)) w = stem;
  } else {
    w = replaceSuffix(w, STEP4, (stem) => measure(stem) > 1);
  }

  // Step 5: a final e, and a final double l.
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}
