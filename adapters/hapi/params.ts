// Rack-style parameter keys (a[]=1&a[]=2, poll[options][]=x) nested the way Mastodon reads them.
// hapi leaves them flat, so queries are parsed with qs from the raw string and form/multipart
// bodies are re-serialised and parsed the same way; JSON bodies are already nested.

import type { Request } from '@hapi/hapi';
import qs from 'qs';
import type { Params, UploadedFile } from '../../core/api/types.ts';

const QS_OPTIONS = { arrayLimit: 100, depth: 5, parameterLimit: 1000, allowPrototypes: false } as const;

export function parseQuery(search: string): Params {
  return qs.parse(search.startsWith('?') ? search.slice(1) : search, QS_OPTIONS) as Params;
}

interface AnnotatedPart {
  filename: string;
  headers: Record<string, string>;
  payload: Buffer;
}

function isAnnotatedFile(value: unknown): value is AnnotatedPart {
  return value !== null && typeof value === 'object' && 'filename' in value && 'payload' in value && Buffer.isBuffer((value as AnnotatedPart).payload);
}

function toFile(part: AnnotatedPart): UploadedFile {
  return { filename: part.filename, contentType: part.headers['content-type'] ?? 'application/octet-stream', data: new Uint8Array(part.payload) };
}

export function parseBody(request: Request): Params {
  const payload = request.payload;
  if (payload === null || payload === undefined || typeof payload !== 'object' || Buffer.isBuffer(payload)) return {};
  const type = String(request.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) return Array.isArray(payload) ? {} : (payload as Params);
  // Form and multipart: text fields go through qs so their keys nest; files are set afterwards.
  const search = new URLSearchParams();
  const files: [string, UploadedFile][] = [];
  for (const [key, value] of Object.entries(payload as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isAnnotatedFile(item)) files.push([key, toFile(item)]);
      else if (typeof item === 'string') search.append(key, item);
      else if (Buffer.isBuffer(item)) search.append(key, item.toString('utf8'));
    }
  }
  const params = qs.parse(search.toString(), QS_OPTIONS) as Params;
  for (const [key, file] of files) params[key.replace(/\[\]$/, '')] = file;
  return params;
}
