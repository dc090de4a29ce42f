// Small HTTP pieces: status lines for the codes the hub answers with, and the one refusal the
// transport makes itself (an exception where the hub should have answered).

import type { StreamRefusal } from '../../core/mastodon/streaming/streams.ts';

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
};

export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Error'}`;
}

/** Mastodon's text for a failure nobody anticipated (docs/behaviour.md, "Streaming"). */
export const UNEXPECTED: StreamRefusal = { status: 500, error: 'An unexpected error occurred' };

/** The first value of each query parameter (Mastodon reads the first of repeated ones). */
export function queryOf(raw: string): Record<string, string | undefined> {
  // No prototype: a parameter named __proto__ or constructor is just a parameter.
  const query = Object.create(null) as Record<string, string | undefined>;
  for (const [key, value] of new URLSearchParams(raw)) if (!Object.hasOwn(query, key)) query[key] = value;
  return query;
}
