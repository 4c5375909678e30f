// When will a job that reports its progress end? Each answer dates its progress (`updatedAt`: when
// the shown percent last changed), so points of (date, percent) lie on a line while the job runs at
// a steady rate, and the line says when it reaches 100%. Anything that bends the line is evidence
// against the estimate: a point off it, a stall (the next percent is late), progress going back, or
// an end that did not come when foretold. Then only fresh points, taken after the bend, estimate again.

/** What one status answer says about progress. */
export interface ProgressReading {
  /** 0..100 as shown. */
  percent: number;
  /** When the shown percent last changed, on the server's clock (ms epoch); undefined when not sent. */
  changedAt: number | undefined;
  /** Waiting for the platform to start it: its progress says nothing yet. */
  queued: boolean;
}

/** A percent and when it was reached, on the server's clock. */
interface Point {
  at: number;
  percent: number;
}

/** A point this close to the line is on it: server dates are ms-exact, our clocks and the answers' trip are not. */
const TOLERANCE_MS = 250;
const DAY_MS = 86_400_000;

export class EndEstimate {
  /** Points on the current line: since the start, or since the last bend. */
  private points: Point[] = [];
  /** No bend seen yet: a job that ran steadily from its start needs two points, not three. */
  private unbroken = true;
  /** The most (our clock − the server's) can be: an answer cannot date a change after it was sent. */
  private offsetAtMost = Infinity;
  /** The last time the job was seen queued (our clock): it began running after that. */
  private lastQueuedAt: number | undefined;

  observe(reading: ProgressReading, at: number): void {
    if (reading.queued) {
      this.lastQueuedAt = at;
      if (this.points.length > 0) this.bend([]);
      return;
    }
    const changedAt = reading.changedAt === undefined || Number.isNaN(reading.changedAt) || reading.changedAt > at + DAY_MS ? undefined : reading.changedAt;
    if (changedAt !== undefined) this.offsetAtMost = Math.min(this.offsetAtMost, at - changedAt);
    const point = { at: changedAt ?? at - this.offset(), percent: reading.percent };
    const last = this.points.at(-1);

    const fresh = last === undefined || point.at > last.at + TOLERANCE_MS;
    const end = this.confidentEnd();
    if (end !== undefined && at > end + TOLERANCE_MS && reading.percent < 100) {
      // The end was foretold and did not come: the line was wrong. The freshest two points are the
      // best guess of the new one, to be trusted once a third confirms it.
      this.bend(reading.percent > 0 && fresh && last ? [last, point] : this.points.slice(-2));
      return;
    }
    if (reading.percent <= 0 || reading.percent >= 100) {
      // 0% says nothing of the rate (not started, or started again); 100% without an end is a stall at the end.
      if (this.points.length > 0) this.bend([]);
      return;
    }
    if (!last) {
      this.points = [point];
      return;
    }
    if (reading.percent < last.percent || (reading.percent === last.percent && fresh)) {
      this.bend([point]); // progress went back (and perhaps came again): the job started over
      return;
    }
    if (reading.percent === last.percent) {
      // Still on the same percent: a stall once the next one is overdue on a line worth trusting.
      const next = this.dateOf(last.percent + 1);
      if (this.confident() && next !== undefined && at - this.offset() > next + this.toleranceMs()) this.bend([]);
      return;
    }
    const expected = this.dateOf(reading.percent);
    if (expected !== undefined && Math.abs(point.at - expected) > this.toleranceMs()) {
      // Off the line: the job changed pace. The last two points are the freshest guess of the new
      // line, to be trusted once a third confirms it.
      this.bend([last, point]);
      return;
    }
    this.points.push(point);
  }

  /** A landing look found the job still running: the estimate missed. The freshest two points, unconfirmed, remain. */
  missed(): void {
    this.bend(this.points.slice(-2));
  }

  /** Whether the points make a line worth landing on: two from a steady start, or three that agree. */
  confident(): boolean {
    if (this.points.length >= 3) return true;
    return this.unbroken && this.points.length === 2;
  }

  /** The end on our clock when confident, else undefined. */
  confidentEnd(): number | undefined {
    return this.confident() ? this.dateOf(100)! + this.offset() : undefined;
  }

  /**
   * The best guess of the end on our clock, for the log: the line's, or with one point a rate that
   * assumes the job began running when last seen queued (a guess that errs slow).
   */
  guessedEnd(): number | undefined {
    const end = this.dateOf(100);
    if (end !== undefined) return end + this.offset();
    const [only] = this.points;
    if (!only || this.points.length !== 1 || this.lastQueuedAt === undefined) return undefined;
    const since = only.at + this.offset() - this.lastQueuedAt;
    if (since <= 0) return undefined;
    return only.at + this.offset() + ((100 - only.percent) * since) / only.percent;
  }

  private bend(fresh: Point[]): void {
    this.points = fresh;
    this.unbroken = false;
  }

  /** ms per percent on the line through the last two points. */
  private stepMs(): number | undefined {
    const [a, b] = this.points.slice(-2);
    if (!a || !b || b.percent <= a.percent) return undefined;
    return (b.at - a.at) / (b.percent - a.percent);
  }

  /** When the line through the last two points reaches `percent`, on the server's clock. */
  private dateOf(percent: number): number | undefined {
    const step = this.stepMs();
    const last = this.points.at(-1);
    if (step === undefined || !last) return undefined;
    return last.at + (percent - last.percent) * step;
  }

  private toleranceMs(): number {
    return TOLERANCE_MS + (this.stepMs() ?? 0) / 2;
  }

  /**
   * (our clock − the server's): zero, as between two clocks kept by NTP, unless an answer proves the
   * server ahead. The smallest (receive time − updatedAt) would be an upper bound only, late by the
   * time since the last change, and an estimate late by it would land late.
   */
  private offset(): number {
    return Math.min(0, this.offsetAtMost);
  }
}
