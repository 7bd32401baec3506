/**
 * The sentence encoder's tokenizer: a SentencePiece unigram segmentation over the vocabulary the
 * model's package ships (`vocab.json`: `[piece, log-probability]` pairs, the first six ids
 * reserved, id 0 the unknown piece).
 *
 * A text is NFKC-normalized, a word boundary mark (U+2581) is put before it and in place of each
 * space, and the segmentation of highest total log-probability is chosen by dynamic programming
 * over code points. A code point no piece starts with is the unknown piece (score 0), and a run
 * of unknown pieces counts as one. Among segmentations of equal score, the one whose last piece
 * is shortest wins.
 *
 * This reproduces, id for id, the segmentation the model was used with until now (the package's
 * own tokenizer), so that the vectors already stored stay valid: a test compares both on
 * hundreds of texts. Written here because the runtime is no longer that package's.
 */

const BOUNDARY = '\u2581';
const RESERVED_IDS = 6;
const UNKNOWN_ID = 0;

interface Node {
  /** The next code point's node. */
  next: Map<string, Node>;
  /** The id of the piece ending here, or -1. */
  id: number;
  score: number;
}

const node = (): Node => ({ next: new Map(), id: -1, score: 0 });

export function createTokenizer(vocabulary: ReadonlyArray<readonly [string, number]>) {
  const root = node();
  const lengths = new Int32Array(vocabulary.length);
  for (let id = RESERVED_IDS; id < vocabulary.length; id++) {
    const [piece, score] = vocabulary[id]!;
    let at = root;
    let length = 0;
    for (const symbol of piece) {
      let child = at.next.get(symbol);
      if (!child) at.next.set(symbol, (child = node()));
      at = child;
      length++;
    }
    // A piece listed twice keeps its later entry, as a table keyed by piece would.
    at.id = id;
    at.score = score;
    lengths[id] = length;
  }
  lengths[UNKNOWN_ID] = 1;

  return {
    /** The ids of `text`'s pieces, in order. */
    encode(text: string): number[] {
      const normalized = text.normalize('NFKC');
      if (normalized.length === 0) return [];
      const symbols = Array.from(BOUNDARY + normalized.replaceAll(' ', BOUNDARY));
      const n = symbols.length;
      // best[e]: the highest score of a segmentation of symbols[0, e); piece[e]: its last piece.
      const best = new Float64Array(n + 1);
      const reached = new Uint8Array(n + 1);
      const piece = new Int32Array(n + 1);
      reached[0] = 1;
      // Candidates ending at e are weighed in order of their start, and a later start wins a tie:
      // so pieces are laid from each start in turn, and `>=` keeps the later one.
      for (let start = 0; start < n; start++) {
        if (!reached[start]) continue;
        let at: Node | undefined = root.next.get(symbols[start]!);
        let matched = false;
        for (let end = start + 1; at; end++) {
          if (at.id >= 0) {
            matched = true;
            const score = best[start]! + at.score;
            if (!reached[end] || score >= best[end]!) {
              best[end] = score;
              piece[end] = at.id;
              reached[end] = 1;
            }
          }
          at = end < n ? at.next.get(symbols[end]!) : undefined;
        }
        if (!matched) {
          const end = start + 1;
          const score = best[start]!;
          if (!reached[end] || score >= best[end]!) {
            best[end] = score;
            piece[end] = UNKNOWN_ID;
            reached[end] = 1;
          }
        }
      }
      const ids: number[] = [];
      for (let end = n; end > 0; end -= lengths[piece[end]!]!) ids.push(piece[end]!);
      ids.reverse();
      // A run of unknown pieces is one unknown piece.
      return ids.filter((id, i) => !(id === UNKNOWN_ID && ids[i - 1] === UNKNOWN_ID));
    },
  };
}

export type Tokenizer = ReturnType<typeof createTokenizer>;
