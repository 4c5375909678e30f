// When to poll an agent job next. An agent job reports no progress, only `active` until it ends, so
// there is nothing to estimate an end from: the status schedule (a quick first look, short prompts
// finish in seconds, then gaps growing by half up to the ceiling).
import type { AgentJob } from '../platform/agent.ts';
import { StatusSchedule } from './status-schedule.ts';

export class AgentSchedule extends StatusSchedule<AgentJob> {}
