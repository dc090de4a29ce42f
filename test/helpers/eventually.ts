// Waiting on another instance without sleeping: read until the answer is the one expected.

/** Reads until `check` accepts what `read` returned: at most `attempts` reads, each waiting on
 * its response (no delay between them), so the bound is on work, not on time. With `retry`, a
 * read that throws (an instance restarting) is read again. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, options: { attempts?: number; retry?: boolean } = {}): Promise<T> {
  const { attempts = 3000, retry = false } = options;
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    try {
      last = await read();
      if (check(last)) return last;
    } catch (error) {
      if (!retry) throw error;
    }
  }
  throw new Error(`never true: ${what} (last: ${JSON.stringify(last)?.slice(0, 500)})`);
}
