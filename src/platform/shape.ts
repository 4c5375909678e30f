// Validation at the boundary: take the fields the contract names, ignore any others, and fail
// with a clear message when a required one is missing or has the wrong type.
import { ResponseShapeError } from './transport.ts';

export class Shape {
  private readonly record: Record<string, unknown>;
  private readonly what: string;

  constructor(value: unknown, what: string) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new ResponseShapeError(what, 'is not a JSON object');
    }
    this.record = value as Record<string, unknown>;
    this.what = what;
  }

  string(key: string): string {
    const value = this.record[key];
    if (typeof value !== 'string') throw this.missing(key, 'a string');
    return value;
  }

  optionalString(key: string): string | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.missing(key, 'a string or null');
    return value;
  }

  number(key: string): number {
    const value = this.record[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.missing(key, 'a number');
    return value;
  }

  boolean(key: string): boolean {
    const value = this.record[key];
    if (typeof value !== 'boolean') throw this.missing(key, 'true or false');
    return value;
  }

  array(key: string): unknown[] {
    const value = this.record[key];
    if (!Array.isArray(value)) throw this.missing(key, 'a list');
    return value;
  }

  optionalArray(key: string): unknown[] | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw this.missing(key, 'a list or null');
    return value;
  }

  optionalObject(key: string): Shape | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    return new Shape(value, `${this.what} (field \`${key}\`)`);
  }

  private missing(key: string, expected: string): ResponseShapeError {
    const present = key in this.record;
    return new ResponseShapeError(this.what, present ? `has \`${key}\` that is not ${expected}` : `lacks the required field \`${key}\``);
  }
}
