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

interface Node {
  next: Map<string, number>;
  fail: number;
  /** Keyword indexes ending here, this node's own. */
  out: number[];
  /** The nearest node on the failure chain that has outputs (-1: none). */
  dict: number;
}

interface Compiled {
  keyword: Keyword;
  needle: string;
  /** In code points, as the text is walked. */
  length: number;
  needStart: boolean;
  needEnd: boolean;
}

export function compileKeywords(keywords: readonly Keyword[]): KeywordMatcher {
  const entries: Compiled[] = [];
  const nodes: Node[] = [{ next: new Map(), fail: 0, out: [], dict: -1 }];
  for (const keyword of keywords) {
    const needle = keyword.keyword.toLowerCase();
    if (needle === '') continue;
    const index = entries.length;
    entries.push({
      keyword,
      needle,
      length: [...needle].length,
      needStart: keyword.wholeWord && isWordChar(needle[0]),
      needEnd: keyword.wholeWord && isWordChar(needle[needle.length - 1]),
    });
    let at = 0;
    for (const ch of needle) {
      let to = (nodes[at] as Node).next.get(ch);
      if (to === undefined) {
        to = nodes.length;
        nodes.push({ next: new Map(), fail: 0, out: [], dict: -1 });
        (nodes[at] as Node).next.set(ch, to);
      }
      at = to;
    }
    (nodes[at] as Node).out.push(index);
  }
  // Breadth-first: each node's failure link is the longest proper suffix that is in the trie.
  const queue: number[] = [];
  for (const child of (nodes[0] as Node).next.values()) queue.push(child);
  for (let head = 0; head < queue.length; head++) {
    const at = queue[head] as number;
    const node = nodes[at] as Node;
    for (const [ch, child] of node.next) {
      let f = node.fail;
      while (f !== 0 && !(nodes[f] as Node).next.has(ch)) f = (nodes[f] as Node).fail;
      const target = (nodes[f] as Node).next.get(ch);
      const childNode = nodes[child] as Node;
      childNode.fail = target !== undefined && target !== child ? target : 0;
      const failNode = nodes[childNode.fail] as Node;
      childNode.dict = failNode.out.length > 0 ? childNode.fail : failNode.dict;
      queue.push(child);
    }
  }

  return {
    size: entries.length,
    match(text) {
      const found = new Map<string, string[]>();
      if (entries.length === 0 || text === '') return found;
      const hits = new Set<number>();
      const lower = text.toLowerCase();
      const chars = [...lower];
      let at = 0;
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i] as string;
        while (at !== 0 && !(nodes[at] as Node).next.has(ch)) at = (nodes[at] as Node).fail;
        at = (nodes[at] as Node).next.get(ch) ?? 0;
        for (let n = (nodes[at] as Node).out.length > 0 ? at : (nodes[at] as Node).dict; n !== -1; n = (nodes[n] as Node).dict) {
          for (const index of (nodes[n] as Node).out) {
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
