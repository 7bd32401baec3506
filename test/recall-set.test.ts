// @engine-independent: no app and no database: what it checks cannot differ between engines
/**
 * The labelled retrieval set of bench/recall/ and the scores `bench:recall` prints from it: an
 * edit that leaves a label pointing at nothing, or a "low-overlap" question that shares words
 * with its note, must fail here rather than quietly change the README's table.
 */
import { describe, expect, it } from 'vitest';
import { checkRecallSet, contentStems, loadRecallSet, sharedStems, type RecallSet } from '../bench/lib/recall-data.js';
import { rankOf, score } from '../bench/lib/recall.js';

const data = loadRecallSet();
const copy = (): RecallSet => JSON.parse(JSON.stringify(data)) as RecallSet;

describe('the recall set', () => {
  it('holds the sizes its README states, both kinds of question in each set', () => {
    expect(data.notes.length).toBeGreaterThanOrEqual(400);
    expect(data.questions.length).toBeGreaterThanOrEqual(300);
    expect(data.documents.length).toBeGreaterThanOrEqual(20);
    expect(data.lowOverlapQuestions.length).toBeGreaterThanOrEqual(60);
    for (const questions of [data.questions, data.documentQuestions]) {
      const exact = questions.filter((q) => q.kind === 'exact').length;
      expect(exact / questions.length).toBeGreaterThan(0.3);
      expect(exact / questions.length).toBeLessThan(0.7);
    }
  });

  it('has sound labels: every answer exists, every passage is once in its document, low-overlap questions share at most one content word', () => {
    expect(checkRecallSet(data)).toEqual([]);
  });

  it('finds a label pointing at no note, a passage not in its document, and a low-overlap question sharing two words', () => {
    const broken = copy();
    broken.questions[0]!.answers.push('n999');
    broken.documentQuestions[0]!.answers[0]!.passage = 'words that are in no document';
    broken.lowOverlapQuestions[0]!.question = broken.lowOverlapNotes.find((n) => n.id === broken.lowOverlapQuestions[0]!.answers[0])!.content;
    const problems = checkRecallSet(broken);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/answer n999 is not a note/);
    expect(problems[1]).toMatch(/is not once in d01/);
    expect(problems[2]).toMatch(/^low-overlap question lq01 shares \d+ content words/);
  });
});

describe('content words', () => {
  it('drop stop and question words and stem the rest', () => {
    expect([...contentStems('Who looks after my teeth?')]).toEqual(['look', 'teeth']);
    expect(sharedStems('where do I like to sit on a plane', 'I prefer aisle seats on flights')).toEqual([]);
    expect(sharedStems('When does the flight leave?', 'Flights leave at noon')).toEqual(['flight', 'leav']);
  });
});

describe('scores', () => {
  it('rank the first right answer and average hits and reciprocal ranks over all questions', () => {
    expect(rankOf(['a', 'b', 'c'], new Set(['c', 'b']))).toBe(2);
    expect(rankOf([], new Set(['a']))).toBe(0);
    const s = score('notes', 'exact', [
      { group: 'notes', kind: 'exact', answered: 10, rank: 1 },
      { group: 'notes', kind: 'exact', answered: 10, rank: 4 },
      { group: 'notes', kind: 'exact', answered: 10, rank: 0 },
      { group: 'notes', kind: 'exact', answered: 0, rank: 0 },
    ]);
    expect(s).toMatchObject({ questions: 4, emptyPct: 25, hit1: 25, hit3: 25, hit5: 50, hit10: 50 });
    expect(s.mrr).toBeCloseTo((1 + 1 / 4) / 4, 10);
  });
});
