// Keyword filters, matched the way they must be on a shared path: the keywords of a filter set
// are compiled once into one automaton (Aho–Corasick), and a text is then scanned once,
// whatever the number of keywords, instead of one pattern per keyword per status. Matching is
// case-insensitive (both sides lower-cased); a whole-word keyword must not touch a letter,
// digit or underscore on an edge that is itself a word character (as `\b` treats it).

export interface Keyword {
  /** The filter the keyword belongs to. */
  group: string;
  keyword: string;
  wholeWord: boolean;
}

export interface KeywordMatcher {
  /** group → the keywords of that group found in `text` (each once, in definition order). */
  match(text: string): Map<string, string[]>;
  readonly size: number;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}

interface Compiled {
  keyword: Keyword;
  needle: string;
  /** In code points, as the text is walked. */
  length: number;
  needStart: boolean;
  needEnd: boolean;
}

/** A text as the automaton walks it: lower-cased, as code points (and as characters, for the
 * whole-word edges). */
interface Walk {
  chars: string[];
  codes: Int32Array;
}

// Every subscriber of a stream scans the same status text with its own automaton: the text is
// prepared once per event, not once per subscriber (one entry: events come one at a time).
let lastText: string | null = null;
let lastWalk: Walk = { chars: [], codes: new Int32Array(0) };

function walkOf(text: string): Walk {
  if (text === lastText) return lastWalk;
  const chars = [...text.toLowerCase()];
  const codes = new Int32Array(chars.length);
  for (let i = 0; i < chars.length; i++) codes[i] = (chars[i] as string).codePointAt(0) as number;
  lastText = text;
  lastWalk = { chars, codes };
  return lastWalk;
}

export function compileKeywords(keywords: readonly Keyword[]): KeywordMatcher {
  const entries: Compiled[] = [];
  // The trie in flat arrays indexed by node: most nodes of a keyword trie have one child, kept
  // in firstCode/firstChild; only branching nodes get a map for the others. A Map per node
  // cost four times the memory.
  const firstCode: number[] = [-1];
  const firstChild: number[] = [0];
  const more = new Map<number, Map<number, number>>();
  /** Per node: its failure link, and the nearest node on the failure chain with outputs (-1: none). */
  const fail: number[] = [0];
  const dict: number[] = [-1];
  /** Keyword indexes ending at a node, for the nodes that have any. */
  const out = new Map<number, number[]>();
  /** Children of each node, in insertion order, for the breadth-first pass. */
  const children: number[][] = [[]];
  const codes: number[] = [0];
  const step = (at: number, code: number): number | undefined => (firstCode[at] === code ? firstChild[at] : more.get(at)?.get(code));
  for (const keyword of keywords) {
    const needle = keyword.keyword.toLowerCase();
    if (needle === '') continue;
    const index = entries.length;
    let at = 0;
    let length = 0;
    for (const ch of needle) {
      const code = ch.codePointAt(0) as number;
      let to = step(at, code);
      if (to === undefined) {
        to = fail.length;
        fail.push(0);
        dict.push(-1);
        firstCode.push(-1);
        firstChild.push(0);
        children.push([]);
        codes.push(code);
        if (firstCode[at] === -1) {
          firstCode[at] = code;
          firstChild[at] = to;
        } else {
          const branch = more.get(at) ?? new Map<number, number>();
          branch.set(code, to);
          more.set(at, branch);
        }
        (children[at] as number[]).push(to);
      }
      at = to;
      length++;
    }
    entries.push({
      keyword,
      needle,
      length,
      needStart: keyword.wholeWord && isWordChar(needle[0]),
      needEnd: keyword.wholeWord && isWordChar(needle[needle.length - 1]),
    });
    const ending = out.get(at);
    if (ending) ending.push(index);
    else out.set(at, [index]);
  }
  // Breadth-first: each node's failure link is the longest proper suffix that is in the trie.
  const queue: number[] = [...(children[0] as number[])];
  for (let head = 0; head < queue.length; head++) {
    const at = queue[head] as number;
    for (const child of children[at] as number[]) {
      const code = codes[child] as number;
      let f = fail[at] as number;
      let target = step(f, code);
      while (f !== 0 && target === undefined) {
        f = fail[f] as number;
        target = step(f, code);
      }
      const link = target !== undefined && target !== child ? target : 0;
      fail[child] = link;
      dict[child] = out.has(link) ? link : (dict[link] as number);
      queue.push(child);
    }
  }
  children.length = 0;
  codes.length = 0;

  return {
    size: entries.length,
    match(text) {
      const found = new Map<string, string[]>();
      if (entries.length === 0 || text === '') return found;
      const hits = new Set<number>();
      const { chars, codes } = walkOf(text);
      let at = 0;
      for (let i = 0; i < codes.length; i++) {
        const code = codes[i] as number;
        let next = step(at, code);
        while (at !== 0 && next === undefined) {
          at = fail[at] as number;
          next = step(at, code);
        }
        at = next ?? 0;
        for (let n = out.has(at) ? at : (dict[at] as number); n !== -1; n = dict[n] as number) {
          for (const index of out.get(n) as number[]) {
            if (hits.has(index)) continue;
            const entry = entries[index] as Compiled;
            const start = i - entry.length + 1;
            if (entry.needStart && isWordChar(chars[start - 1])) continue;
            if (entry.needEnd && isWordChar(chars[i + 1])) continue;
            hits.add(index);
          }
        }
      }
      for (const index of [...hits].sort((a, b) => a - b)) {
        const { keyword } = entries[index] as Compiled;
        const list = found.get(keyword.group) ?? [];
        list.push(keyword.keyword);
        found.set(keyword.group, list);
      }
      return found;
    },
  };
}
