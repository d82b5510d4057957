/**
 * `bintel flags list|show|resolve`: review (data) flags filed through the API. Wiring only.
 */
import type { Command } from 'commander';
import { registerFeedbackGroup } from './feedback.ts';

/** Registers `bintel flags`. */
export function registerFlagsCommands(program: Command): void {
  registerFeedbackGroup(program, 'flag', 'flags', 'review (data) flags');
}
