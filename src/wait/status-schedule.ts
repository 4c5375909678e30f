// When to poll a job that reports a status word and nothing else (a deployment): the one schedule
// (schedule.ts) on its beat alone. A deployment takes a minute or two, so looks in its first seconds
// would be spent for nothing.
import { JobSchedule } from './schedule.ts';

export class StatusSchedule<T> extends JobSchedule<T> {}
