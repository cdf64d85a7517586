import type { TestResponse } from '../../support/harness.js';

/**
 * Every answer the drill received, counted by operation, status and errorCode (printed at the end,
 * so a run shows which flows actually succeeded), and every server error or thrown step.
 */
export class Answers {
  private readonly tally = new Map<string, number>();
  readonly serverErrors: string[] = [];

  record(operation: string, response: TestResponse): TestResponse {
    const code = response.body?.errorCode ? ` ${response.body.errorCode}` : '';
    const key = `${operation} ${response.status}${code}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    if (response.status >= 500)
      this.serverErrors.push(`${operation}: ${response.status} ${response.text.slice(0, 400)}`);
    return response;
  }

  threw(operation: string, error: unknown): void {
    this.serverErrors.push(`${operation} threw ${error instanceof Error ? error.stack : String(error)}`);
  }

  summary(): Record<string, number> {
    return Object.fromEntries([...this.tally].sort(([a], [b]) => a.localeCompare(b)));
  }
}
