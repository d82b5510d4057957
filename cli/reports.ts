/**
 * `bintel reports list|show|resolve`: bug reports filed through the API. Wiring only.
 */
import type { Command } from 'commander';
import { registerFeedbackGroup } from './feedback.ts';

/** Registers `bintel reports`. */
export function registerReportsCommands(program: Command): void {
  registerFeedbackGroup(program, 'report', 'reports', 'bug reports');
}
