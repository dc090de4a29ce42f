// Options are checked in one place, the same way for the core's configuration, the adapters and
// the plugins: an unknown key, a missing required one, a wrong type or a value out of range
// throws a ConfigError that names the owner and the option (as hapi checks its own). An option
// set is described once by a spec of rules; checkOptions walks it, nested objects included.

/** An option that is unknown, missing or of the wrong shape. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(`Invalid config: ${message}`);
    this.name = 'ConfigError';
  }
}

/** One option's rule: `test` says whether a value is allowed, `what` says in words what is. */
export interface OptionRule {
  readonly what: string;
  readonly required?: boolean;
  /** The value may hold a secret (a password in a URL, a key): errors never show it. */
  readonly secret?: boolean;
  test(value: unknown, path: string): boolean;
}

export type OptionSpec = Readonly<Record<string, OptionRule>>;

/** A value as an error message shows it (short, and never a secret's whole text). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks `input` against `spec`; `owner` names what the options are for (e.g. 'mediaPlugin'),
 * `prefix` the path of a nested object. Undefined values count as absent. */
export function checkOptions(owner: string, input: unknown, spec: OptionSpec, prefix = ''): void {
  const where = owner === '' ? '' : `${owner}: `;
  if (!isPlainObject(input)) throw new ConfigError(`${where}${prefix === '' ? 'options' : `"${prefix.slice(0, -1)}"`} must be an object, got ${describeValue(input)}`);
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(spec, key) && input[key] !== undefined) throw new ConfigError(`${where}unknown option "${prefix}${key}"`);
  }
  for (const [key, rule] of Object.entries(spec)) {
    const value = input[key];
    const path = `${prefix}${key}`;
    if (value === undefined) {
      if (rule.required === true) throw new ConfigError(`${where}"${path}" is required`);
      continue;
    }
    if (!rule.test(value, path)) throw new ConfigError(`${where}"${path}" must be ${rule.what}, got ${rule.secret === true && typeof value === 'string' ? 'another string' : describeValue(value)}`);
  }
}

/** The rules an option spec is written with. */
export const option = {
  string: (what = 'a string'): OptionRule => ({ what, test: (v) => typeof v === 'string' }),
  nonEmptyString: (what = 'a non-empty string'): OptionRule => ({ what, test: (v) => typeof v === 'string' && v.trim() !== '' }),
  boolean: (): OptionRule => ({ what: 'a boolean', test: (v) => typeof v === 'boolean' }),
  /** A whole number within [min, max]. */
  integer: (min: number, max: number = Number.MAX_SAFE_INTEGER, what?: string): OptionRule => ({
    what: what ?? (max === Number.MAX_SAFE_INTEGER ? `a whole number, ${min} or more` : `a whole number from ${min} to ${max}`),
    test: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max,
  }),
  oneOf: <T extends string>(values: readonly T[]): OptionRule => ({ what: `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, test: (v) => typeof v === 'string' && (values as readonly string[]).includes(v) }),
  function: (what = 'a function'): OptionRule => ({ what, test: (v) => typeof v === 'function' }),
  /** An object the option's consumer calls methods of (a port, a client): it must have them. */
  implementing: (what: string, methods: readonly string[]): OptionRule => ({
    what,
    test: (v) => typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
  }),
  arrayOf: (item: OptionRule, what = `an array of ${item.what.replace(/^an? /, '')}s`): OptionRule => ({ what, test: (v, path) => Array.isArray(v) && v.every((x) => item.test(x, path)) }),
  /** A nested option object, checked key by key (its own errors name the full path). */
  object: (owner: string, spec: OptionSpec): OptionRule => ({
    what: 'an object',
    test: (v, path) => {
      if (!isPlainObject(v)) return false;
      checkOptions(owner, v, spec, `${path}.`);
      return true;
    },
  }),
  /** The first rule that allows the value decides. */
  either: (...rules: readonly OptionRule[]): OptionRule => ({ what: rules.map((r) => r.what).join(' or '), test: (v, path) => rules.some((r) => r.test(v, path)) }),
  required: (rule: OptionRule): OptionRule => ({ ...rule, required: true, test: rule.test }),
  /** A rule whose value is never shown in an error (it may hold a password or a key). */
  secret: (rule: OptionRule): OptionRule => ({ ...rule, secret: true, test: rule.test }),
  /** A URL with one of these schemes (e.g. ['postgres:', 'postgresql:']). */
  url: (schemes: readonly string[], what = `a ${schemes.map((s) => `${s}//`).join(' or ')} URL`): OptionRule => ({
    what,
    test: (v) => {
      if (typeof v !== 'string') return false;
      try {
        return schemes.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
  }),
  /** Anything (what the option's own code checks further). */
  any: (what = 'a value'): OptionRule => ({ what, test: () => true }),
} as const;
