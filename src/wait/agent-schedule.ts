// When to poll an agent job next: the one schedule (schedule.ts). An agent job reports no progress,
// only `active` until it ends, so nothing foretells its end; short prompts finish in seconds, so its
// two extra looks go to 2 s and 5 s after the start, and the beat does the rest.
import type { AgentJob } from '../platform/agent.ts';
import { JobSchedule } from './schedule.ts';
import type { ScheduleLimits } from './wait.ts';

const EARLY_LOOKS_MS = [2000, 5000];

export class AgentSchedule extends JobSchedule<AgentJob> {
  constructor(limits: ScheduleLimits) {
    super(limits, { earlyLooksMs: EARLY_LOOKS_MS });
  }
}
