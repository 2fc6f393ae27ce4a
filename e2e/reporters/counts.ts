/**
 * Ends the run with the line the workspace's test runner counts: `N passed, N failed`. A test that was
 * retried counts once, by its final outcome; skipped tests are not counted.
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class CountsReporter implements Reporter {
  private readonly outcomes = new Map<TestCase, TestResult['status']>();

  onTestEnd(test: TestCase, result: TestResult): void {
    this.outcomes.set(test, result.status);
  }

  onEnd(result: FullResult): void {
    let passed = 0;
    let failed = 0;
    for (const [test, status] of this.outcomes) {
      if (status === 'skipped') continue;
      if (test.outcome() === 'expected' || test.outcome() === 'flaky') passed += 1;
      else failed += 1;
    }
    // A run that broke before or between tests (setup error, timeout) must not read as green.
    if (result.status !== 'passed' && failed === 0) failed = 1;
    console.log(`${passed} passed, ${failed} failed`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
