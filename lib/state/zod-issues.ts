import type { z } from 'zod';

export interface IssueSummary {
  path: string;
  message: string;
}

export function summarizeZodIssues(issues: readonly z.core.$ZodIssue[]): IssueSummary[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** `field.sub: problem; other: problem` for log lines and start-up errors. */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  return summarizeZodIssues(issues)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join('; ');
}
