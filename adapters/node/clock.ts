import type { Clock } from '../../core/domain/ports/clock.ts';

export const systemClock: Clock = { now: () => Date.now() };
