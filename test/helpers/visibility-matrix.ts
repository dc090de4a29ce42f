// The expected visibility matrix, shared by the pure policy test (test/core/domain/policy.test.ts)
// and the same matrix over HTTP (test/api/statuses/visibility.test.ts): one table, two levels.
// Each cell is "200" or "<status> <error text>".

import type { Visibility } from '../../core/domain/model.ts';

export type Role = 'author' | 'follower' | 'mentioned' | 'stranger' | 'anonymous';
export type Op = 'view' | 'context' | 'boost' | 'pin' | 'favourite';

export const ROLES: readonly Role[] = ['author', 'follower', 'mentioned', 'stranger', 'anonymous'];

const OTHERS = "422 Validation failed: Someone else's toot cannot be pinned";
const NON_PUBLIC = '422 Validation failed: Non-public toot cannot be pinned';
const NOT_ALLOWED = '403 This action is not allowed';
const NOT_FOUND = '404 Record not found';
const NO_TOKEN = '401 The access token is invalid';

//                                                  author        follower      mentioned     stranger      anonymous
export const EXPECTED: Record<Visibility, Record<Op, readonly string[]>> = {
  public: {
    view: ['200', '200', '200', '200', '200'],
    context: ['200', '200', '200', '200', '200'],
    boost: ['200', '200', '200', '200', NO_TOKEN],
    pin: ['200', OTHERS, OTHERS, OTHERS, NO_TOKEN],
    favourite: ['200', '200', '200', '200', NO_TOKEN],
  },
  unlisted: {
    view: ['200', '200', '200', '200', '200'],
    context: ['200', '200', '200', '200', '200'],
    boost: ['200', '200', '200', '200', NO_TOKEN],
    pin: [NON_PUBLIC, OTHERS, OTHERS, OTHERS, NO_TOKEN],
    favourite: ['200', '200', '200', '200', NO_TOKEN],
  },
  private: {
    view: ['200', '200', '200', NOT_FOUND, NOT_FOUND],
    context: ['200', '200', '200', NOT_FOUND, NOT_FOUND],
    boost: ['200', NOT_ALLOWED, NOT_ALLOWED, NOT_FOUND, NO_TOKEN],
    pin: [NON_PUBLIC, OTHERS, OTHERS, NOT_FOUND, NO_TOKEN],
    favourite: ['200', '200', '200', NOT_FOUND, NO_TOKEN],
  },
  direct: {
    view: ['200', NOT_FOUND, '200', NOT_FOUND, NOT_FOUND],
    context: ['200', NOT_FOUND, '200', NOT_FOUND, NOT_FOUND],
    boost: [NOT_ALLOWED, NOT_FOUND, NOT_ALLOWED, NOT_FOUND, NO_TOKEN],
    pin: [NON_PUBLIC, NOT_FOUND, OTHERS, NOT_FOUND, NO_TOKEN],
    favourite: ['200', NOT_FOUND, '200', NOT_FOUND, NO_TOKEN],
  },
};

export const VISIBILITIES_IN_MATRIX = Object.keys(EXPECTED) as Visibility[];
export const OPS = Object.keys(EXPECTED.public) as Op[];
