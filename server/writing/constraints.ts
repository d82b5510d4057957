/**
 * The brand voice's hard constraints: `avoid` terms never appear in delivered copy (matched
 * case-insensitively anywhere in the raw output, so "Synergy" also catches "synergy-driven"), and
 * an avoid term naming the em dash ("em dash", "em-dash", "emdash", or the character itself)
 * also prohibits the Unicode em dash (U+2014). Every writer's output passes `violations`; a
 * violation is never delivered.
 */

export const EM_DASH = '\u2014';

/** The voice's constraints, from `brandVoice` (an object with `avoid`, or a descriptive string). */
export interface Constraints {
  /** Lower-cased terms that may not appear. */
  avoid: string[];
  noEmDash: boolean;
}

const EM_DASH_NAMES = new Set(['em dash', 'em-dash', 'emdash', 'em dashes', 'em-dashes', EM_DASH]);

export function constraintsOf(brandVoice: unknown): Constraints {
  const raw = brandVoice && typeof brandVoice === 'object' && !Array.isArray(brandVoice) ? (brandVoice as { avoid?: unknown }).avoid : undefined;
  const terms = Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string').map((t) => t.trim().toLowerCase()).filter(Boolean) : [];
  const noEmDash = terms.some((t) => EM_DASH_NAMES.has(t));
  return { avoid: [...new Set(terms.filter((t) => t !== EM_DASH))], noEmDash };
}

/** The constraints `text` breaks: the avoid terms it holds, and `em dash` when one is forbidden and present. */
export function violations(text: string, c: Constraints): string[] {
  const lower = text.toLowerCase();
  const found = c.avoid.filter((t) => lower.includes(t));
  if (c.noEmDash && text.includes(EM_DASH) && !found.includes('em dash')) found.push('em dash');
  return found;
}

/** Whether `text` may be used as is. */
export const allowed = (text: string, c: Constraints): boolean => violations(text, c).length === 0;

/**
 * Text to put into copy: em dashes become commas when the voice forbids them; text holding an
 * avoid term is dropped (null), since rewording someone's claim is not ours to do.
 */
export function clean(text: string | null | undefined, c: Constraints): string | null {
  if (!text) return null;
  const t = c.noEmDash ? text.replace(/\s*\u2014\s*/g, ', ') : text;
  return allowed(t, c) ? t : null;
}
